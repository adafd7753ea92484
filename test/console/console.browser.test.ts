/**
 * The web console end to end: the real CLI (`agent-memory serve`, dist/) on an ephemeral port and a fresh database,
 * driven in a real headless Chromium. It signs in with the key the server printed at its first start, browses,
 * recalls and deletes as a person would, and writes the README's screenshots (docs/console/*.png) on the way.
 * Without a Chromium the whole file is skipped, and says why.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, spawnServer, type CliServer } from '../reliability/support/cli-server.js';
import { findChromium, launchChromium, type Browser } from './support/browser.js';

const found = findChromium();
const chromiumPath = 'path' in found ? found.path : undefined;
if (!chromiumPath) console.warn(`[console browser tests] SKIPPED: ${'reason' in found ? found.reason : ''}`);

const SHOTS = fileURLToPath(new URL('../../docs/console/', import.meta.url));
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 375, height: 812 };
const XSS = '<img src=x onerror=alert(1)>';

interface RecallJson {
  memories: Array<{ id: string; text: string; score: number }>;
}

describe.skipIf(!chromiumPath)(`the web console in Chromium${chromiumPath ? '' : ' (skipped: no Chromium installed)'}`, () => {
  let dir: string;
  let server: CliServer;
  let browser: Browser;
  let page: Page;
  let firstKey: string;
  let boundKey: string;
  const dialogs: string[] = [];
  const pageErrors: string[] = [];
  const foreignRequests: string[] = [];

  const api = async (path: string, init: RequestInit & { key?: string; json?: unknown } = {}): Promise<Response> => {
    const { key = firstKey, json, ...rest } = init;
    const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
    if (json !== undefined) headers['Content-Type'] = 'application/json';
    return fetch(`${server.url}${path}`, { ...rest, headers, ...(json === undefined ? {} : { body: JSON.stringify(json) }) });
  };

  const store = async (userId: string, text: string, createdAt: string, extra: Record<string, unknown> = {}) => {
    const res = await api('/v1/memories', { method: 'POST', json: { userId, text, createdAt, ...extra } });
    expect(res.status).toBe(201);
  };

  /** An expression run in the page (a string: this file is type-checked without the DOM's types). */
  const inPage = <T>(expression: string): Promise<T> => page.evaluate(expression) as Promise<T>;

  /**
   * A picture for the README. Memory ids are random, so they are hidden meanwhile (their space kept): a run then
   * rewrites no PNG whose page did not change. (Through the CSSOM: the page's policy refuses an injected stylesheet.)
   */
  const picture = async (file: string) => {
    await inPage("document.querySelectorAll('.id').forEach((e) => { e.style.visibility = 'hidden'; })");
    await page.screenshot({ path: join(SHOTS, file), fullPage: true, animations: 'disabled' });
    await inPage("document.querySelectorAll('.id').forEach((e) => { e.style.visibility = ''; })");
  };

  /** The page at desktop and phone width, into docs/console; at phone width nothing may stick out sideways. */
  const shoot = async (name: string) => {
    await page.setViewportSize(DESKTOP);
    await picture(`${name}-desktop.png`);
    await page.setViewportSize(PHONE);
    expect(await inPage<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
    await picture(`${name}-phone.png`);
    await page.setViewportSize(DESKTOP);
  };

  const signIn = async (key: string) => {
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };

  const status = () => page.locator('#status');
  const cards = () => page.locator('ul.memories > li');

  beforeAll(async () => {
    if (!existsSync(join(REPO_ROOT, 'dist/console/index.html'))) throw new Error('dist/console is missing: run `npm run build` first.');
    mkdirSync(SHOTS, { recursive: true });
    dir = mkdtempSync(join(tmpdir(), 'agent-memory-console-'));
    const dbPath = join(dir, 'memory.db');
    // No key given: the server makes one and prints it, as on a new user's first `npm start`.
    server = await spawnServer({ dbPath, apiKey: null, logLevel: 'info' });
    const printed = /amk_[0-9A-Za-z]{40}/.exec(server.stderr());
    if (!printed) throw new Error(`the server printed no key:\n${server.stderr()}`);
    firstKey = printed[0];
    const created = await runCli(['keys', 'create', '--app', 'app-a', '--name', 'console test', '--db', dbPath]);
    boundKey = created.stdout.trim();
    expect(boundKey).toMatch(/^amk_[0-9A-Za-z]{40}$/);

    await store('alice', 'Alice is allergic to peanuts.', '2026-03-02T09:15:00.000Z', { metadata: { source: 'chat', confidence: 0.9 } });
    await store('alice', 'Alice moved to Lyon in March.', '2026-03-05T18:40:00.000Z', { metadata: { source: 'chat' } });
    await store('alice', 'Alice prefers window seats on long flights.', '2026-03-09T07:05:00.000Z');
    await store('alice', XSS, '2026-03-10T12:00:00.000Z', { metadata: { note: '<script>alert(2)</script>' } });
    await store('bob', 'Bob plays chess on Sundays.', '2026-02-20T20:00:00.000Z', { appId: 'app-a' });
    await store('bob', 'Bob is learning Portuguese.', '2026-03-01T08:30:00.000Z', { appId: 'app-a', metadata: { tags: ['languages'] } });
    await store('carol', 'Carol runs marathons.', '2026-03-07T06:00:00.000Z', { appId: 'app-b' });

    browser = await launchChromium(chromiumPath ?? '');
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('request', (request) => {
      if (!request.url().startsWith(server.url)) foreignRequests.push(request.url());
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is served at /console with a strict Content-Security-Policy, and asks for a key', async () => {
    const response = await page.goto(`${server.url}/console`);
    expect(page.url()).toBe(`${server.url}/console/`);
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    await expect.poll(() => page.getByRole('heading', { name: 'Sign in' }).isVisible()).toBe(true);
    await shoot('signin');
  });

  it("shows the API's message for a wrong key, then signs in with the printed one and lists the users", async () => {
    const wrong = `amk_${'x'.repeat(40)}`;
    const refusal = ((await (await api('/v1/users', { key: wrong })).json()) as { error: { message: string } }).error.message;
    await signIn(wrong);
    await expect.poll(() => status().textContent()).toContain(refusal);

    await signIn(firstKey);
    await page.getByRole('heading', { name: 'Users' }).waitFor();
    const rows = await page.locator('table.users tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(rows).toEqual([
      ['alice', '4', '10 Mar 2026, 12:00'],
      ['carol', '1', '7 Mar 2026, 06:00'],
      ['bob', '2', '1 Mar 2026, 08:30'],
    ]);
    // The key is kept for this tab only, and never put in the address.
    expect(await inPage<string | null>("sessionStorage.getItem('agent-memory.key')")).toBe(firstKey);
    expect(page.url()).not.toContain(firstKey);
    await shoot('users');
  });

  it("shows a user's memories newest first with app, metadata and date, the stored markup as inert text", async () => {
    await page.getByRole('link', { name: 'alice' }).click();
    await page.getByRole('heading', { name: 'alice' }).waitFor();
    expect(await cards().locator('.text').allTextContents()).toEqual([
      XSS,
      'Alice prefers window seats on long flights.',
      'Alice moved to Lyon in March.',
      'Alice is allergic to peanuts.',
    ]);
    const peanuts = cards().filter({ hasText: 'peanuts' });
    expect(await peanuts.locator('.chip').textContent()).toBe('default');
    expect(await peanuts.locator('time').getAttribute('datetime')).toBe('2026-03-02T09:15:00.000Z');
    expect(await peanuts.locator('.metadata').textContent()).toBe('{"source":"chat","confidence":0.9}');
    // The memory and its metadata are shown as the characters they are: no element, no script, no dialog.
    expect(await cards().first().locator('.metadata').textContent()).toBe('{"note":"<script>alert(2)</script>"}');
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('script').count()).toBe(1);
    expect(dialogs).toEqual([]);
    await shoot('memories');
  });

  it('recalls with each score, what the defaults return and what falls below the threshold', async () => {
    const question = 'what is alice allergic to';
    const ask = async (minScore: number) =>
      ((await (await api('/v1/memories/recall', { method: 'POST', json: { userId: 'alice', query: question, minScore } })).json()) as RecallJson).memories;
    const returned = await ask(0.7);
    const below = (await ask(0)).filter((m) => m.score < 0.7);
    expect(returned[0]?.text).toBe('Alice is allergic to peanuts.');

    await page.getByRole('link', { name: 'Ask recall about this user' }).click();
    await page.getByLabel('Question').fill(question);
    await page.getByRole('button', { name: 'Recall' }).click();
    await page.getByRole('heading', { name: /Below the threshold/ }).waitFor();
    const shown = (section: string) =>
      page.locator(`section.${section} li`).evaluateAll((items) =>
        items.map((li) => ({ text: li.querySelector('.text')?.textContent, score: Number(li.querySelector('[data-score]')?.getAttribute('data-score')) })),
      );
    expect(await shown('returned')).toEqual(returned.map((m) => ({ text: m.text, score: m.score })));
    expect(await shown('below')).toEqual(below.map((m) => ({ text: m.text, score: m.score })));
    expect(await page.locator('section.returned li strong').first().textContent()).toBe(returned[0]?.score.toFixed(4));
    expect(await page.locator('img').count()).toBe(0);
    await shoot('recall');
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize(PHONE);
    await picture('recall-phone-dark.png');
    const background = await inPage<string>('getComputedStyle(document.body).backgroundColor');
    const [r = 255, g = 255, b = 255] = (background.match(/\d+/g) ?? []).map(Number);
    expect(0.2126 * r + 0.7152 * g + 0.0722 * b).toBeLessThan(60);
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize(DESKTOP);
  });

  it("shows the API's message for a bad minScore, and any numeric parts of `explain` when recall sends them", async () => {
    await page.getByLabel('Minimum score').fill('2');
    await page.getByRole('button', { name: 'Recall' }).click();
    await expect.poll(() => status().textContent()).toContain('minScore must be a number from 0 to 1.');
    await page.getByLabel('Minimum score').fill('0.7');

    // Until recall answers `explain` itself, the real answer is given parts on its way to the page, to check that
    // whatever numbers the server sends are shown by name and nothing else is.
    await page.route('**/v1/memories/recall', async (route) => {
      const { explain: _explain, ...body } = route.request().postDataJSON() as Record<string, unknown>;
      const response = await route.fetch({ postData: JSON.stringify(body) });
      const json = (await response.json()) as { memories: Array<Record<string, unknown>> };
      for (const m of json.memories) m.explain = { cosine: 0.5, words: 1, nested: { bonus: 0.25 }, label: 'not a number' };
      await route.fulfill({ response, json });
    });
    await page.getByRole('button', { name: 'Recall' }).click();
    const explain = page.locator('section.returned li details.explain').first();
    await explain.locator('summary').click();
    expect(await explain.locator('dt').allTextContents()).toEqual(['cosine', 'words', 'nested.bonus']);
    expect(await explain.locator('dd').allTextContents()).toEqual(['0.5000', '1', '0.2500']);
    await page.unroute('**/v1/memories/recall');
  });

  it('deletes one memory, the selected ones, and all of a user, each only once confirmed', async () => {
    await page.getByRole('link', { name: /alice/ }).first().click();
    await page.getByRole('heading', { name: 'alice' }).waitFor();
    const dialog = page.getByRole('dialog');

    const seats = cards().filter({ hasText: 'window seats' });
    await seats.getByRole('button', { name: 'Delete' }).click();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await cards().count()).toBe(4);
    await seats.getByRole('button', { name: 'Delete' }).click();
    expect(await dialog.textContent()).toContain('Alice prefers window seats on long flights.');
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => status().textContent()).toContain('Deleted 1 memory.');
    await expect.poll(() => cards().count()).toBe(3);

    await cards().filter({ hasText: 'Lyon' }).getByRole('checkbox').check();
    await cards().filter({ hasText: XSS }).getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Delete selected (2)' }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => status().textContent()).toContain('Deleted 2 memories.');
    await expect.poll(() => cards().locator('.text').allTextContents()).toEqual(['Alice is allergic to peanuts.']);

    await page.getByRole('button', { name: 'Delete all of this user' }).click();
    await dialog.getByRole('button', { name: 'Delete all' }).click();
    await page.getByText('alice has no memories.').waitFor();
    const left = (await (await api('/v1/memories?userId=alice')).json()) as { total: number };
    expect(left.total).toBe(0);
    expect(dialogs).toEqual([]);
  });

  it('pages through a user with more memories than a page, and steps back when a delete empties the last page', async () => {
    for (let i = 0; i < 21; i++) await store('dave', `Dave fact number ${i}.`, new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString());
    await page.goto(`${server.url}/console/#/user/dave`);
    await page.getByText('Page 1 of 2 \u00b7 21 memories').waitFor();
    expect(await cards().count()).toBe(20);
    expect(await cards().first().locator('.text').textContent()).toBe('Dave fact number 20.');
    await page.getByRole('link', { name: 'Next \u2192' }).click();
    await page.getByText('Page 2 of 2 \u00b7 21 memories').waitFor();
    expect(await cards().locator('.text').allTextContents()).toEqual(['Dave fact number 0.']);
    await cards().getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('20 memories', { exact: true }).waitFor();
    expect(page.url()).toBe(`${server.url}/console/#/user/dave`);
    expect(await status().textContent()).toContain('Deleted 1 memory.');
  });

  it("confines a bound key to its app, and says so when another app is asked for", async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    expect(await inPage<string | null>("sessionStorage.getItem('agent-memory.key')")).toBeNull();
    await page.goto(`${server.url}/console/#/users`);
    await signIn(boundKey);
    await page.getByRole('heading', { name: 'Users' }).waitFor();
    expect(await page.locator('table.users tbody td.user-id').allTextContents()).toEqual(['bob']);
    await page.getByRole('link', { name: 'bob' }).click();
    await page.getByRole('heading', { name: 'bob' }).waitFor();
    expect(await cards().locator('.chip').allTextContents()).toEqual(['app-a', 'app-a']);

    await page.getByLabel('App', { exact: true }).fill('app-b');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => status().textContent()).toContain('This API key is bound to the app "app-a" and cannot use the app "app-b".');
    expect(await page.getByRole('heading', { name: 'This page could not be loaded' }).isVisible()).toBe(true);

    // Carol is in app-b: to this key she has nothing.
    await page.goto(`${server.url}/console/#/user/carol`);
    await page.getByText('carol has no memories.').waitFor();
  });

  it('refuses HTML strings in the page (Trusted Types), loaded nothing from elsewhere, and never logged a key', async () => {
    const refused = await inPage<string>(`(() => {
      try {
        document.body.insertAdjacentHTML('beforeend', '<img src=x>');
        return 'inserted';
      } catch (error) {
        return error.name;
      }
    })()`);
    expect(refused).toBe('TypeError');
    expect(await page.locator('img').count()).toBe(0);
    expect(foreignRequests).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(dialogs).toEqual([]);
    // The printed key appears once, in the first-run notice; the server's request log never carries a key.
    const log = server.stderr();
    expect(log.split(firstKey).length - 1).toBe(1);
    expect(log).not.toContain(boundKey);
    expect(log).toContain('"path":"/v1/users"');
  });
});
