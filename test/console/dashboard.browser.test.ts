/**
 * What people expect of a memory dashboard, in a real headless Chromium against the real CLI's server: the sign-in
 * page shows no page links or "Sign out" (a CSS `display` rule once overrode `hidden`), counts at a glance, search
 * within a user's memories, add and edit a memory (and the API's refusals shown), and an export that downloads the
 * CLI's JSONL and imports back. Without a Chromium the file is skipped, and says why.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnServer, type CliServer } from '../reliability/support/cli-server.js';
import { findChromium, launchChromium, type Browser } from './support/browser.js';

const found = findChromium();
const chromiumPath = 'path' in found ? found.path : undefined;
if (!chromiumPath) console.warn(`[console dashboard tests] SKIPPED: ${'reason' in found ? found.reason : ''}`);

const KEY = `amk_${'D'.repeat(40)}`;

interface ListJson {
  total: number;
  memories: Array<{ id: string; text: string; metadata: Record<string, unknown>; appId: string; createdAt: string; updatedAt: string }>;
}

describe.skipIf(!chromiumPath)(`the console as a dashboard${chromiumPath ? '' : ' (skipped: no Chromium installed)'}`, () => {
  let dir: string;
  let server: CliServer;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  const api = async (path: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> => {
    const { json, ...rest } = init;
    const headers: Record<string, string> = { Authorization: `Bearer ${KEY}` };
    if (json !== undefined) headers['Content-Type'] = 'application/json';
    return fetch(`${server.url}${path}`, { ...rest, headers, ...(json === undefined ? {} : { body: JSON.stringify(json) }) });
  };
  const list = async (userId: string) => (await (await api(`/v1/memories?userId=${encodeURIComponent(userId)}&pageSize=100`)).json()) as ListJson;
  const status = () => page.locator('#status');
  const cards = () => page.locator('ul.memories > li');
  const stats = () => page.locator('ul.stats > li').evaluateAll((lis) => lis.map((li) => li.textContent));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-memory-dashboard-'));
    server = await spawnServer({ dbPath: join(dir, 'memory.db'), apiKey: KEY });
    const seed: Array<[string, string, string, Record<string, unknown>?, string?]> = [
      ['dana', 'Dana lives in Porto.', '2026-04-01T08:00:00.000Z', { source: 'chat' }],
      ['dana', 'Dana is allergic to shellfish.', '2026-04-02T08:00:00.000Z'],
      ['dana', 'Dana plays the cello in an orchestra.', '2026-04-03T08:00:00.000Z', {}, 'music'],
      ['eli', 'Eli drives an electric car.', '2026-03-01T08:00:00.000Z'],
    ];
    for (const [userId, text, createdAt, metadata = {}, appId] of seed) {
      const res = await api('/v1/memories', { method: 'POST', json: { userId, text, createdAt, metadata, ...(appId ? { appId } : {}) } });
      expect(res.status).toBe(201);
    }
    browser = await launchChromium(chromiumPath ?? '');
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('shows no page links and no "Sign out" on the sign-in page, and both once signed in', async () => {
    await page.goto(`${server.url}/console/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.locator('#nav').isVisible()).toBe(false);
    expect(await page.locator('#sign-out').isVisible()).toBe(false);
    expect(await page.getByRole('link', { name: 'Recall' }).isVisible()).toBe(false);
    await page.getByLabel('API key').fill(KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Users' }).waitFor();
    expect(await page.locator('#nav').isVisible()).toBe(true);
    expect(await page.locator('#sign-out').isVisible()).toBe(true);
    // Signing out hides them again.
    await page.locator('#sign-out').click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.locator('#nav').isVisible()).toBe(false);
    expect(await page.locator('#sign-out').isVisible()).toBe(false);
  });

  it('counts users and memories at a glance, and a user\u2019s memories, apps and newest', async () => {
    await page.getByLabel('API key').fill(KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Users' }).waitFor();
    expect(await stats()).toEqual(['2users', '4memories', '3 Apr 2026, 08:00newest memory']);
    await page.getByRole('link', { name: 'dana' }).click();
    await page.getByRole('heading', { name: 'dana' }).waitFor();
    expect(await stats()).toEqual(['3memories', '2apps', '3 Apr 2026, 08:00newest memory']);
  });

  it('searches within the user\u2019s memories (recall), best first, and clears the search', async () => {
    await page.getByLabel('Search these memories').fill('where does she live');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => page.locator('.search-note').textContent()).toContain('for \u201cwhere does she live\u201d');
    expect(await cards().first().locator('.text').textContent()).toBe('Dana lives in Porto.');
    expect(await cards().first().locator('.score').textContent()).toMatch(/^score 0\.\d\d$/);
    expect(page.url()).toContain('q=where+does+she+live');
    await page.getByRole('link', { name: 'Clear the search' }).click();
    await expect.poll(() => cards().count()).toBe(3);
    expect(await page.locator('.search-note').count()).toBe(0);
  });

  it('adds a memory with metadata; says so for a text the user has; shows why bad metadata is refused, storing nothing', async () => {
    const form = page.getByRole('form', { name: 'Add a memory' });
    await page.getByText('Add a memory').click();
    await form.getByLabel('Text').fill('Dana is learning Japanese.');
    await form.getByLabel('Metadata (JSON, optional)').fill('{"topic": "languages"}');
    await form.getByRole('button', { name: 'Add memory' }).click();
    await expect.poll(() => status().textContent()).toContain('Added.');
    await expect.poll(() => cards().first().locator('.text').textContent()).toBe('Dana is learning Japanese.');
    const added = (await list('dana')).memories.find((m) => m.text === 'Dana is learning Japanese.');
    expect(added).toMatchObject({ metadata: { topic: 'languages' }, appId: 'default' });

    await page.getByText('Add a memory').click();
    await form.getByLabel('Text').fill('Dana lives in Porto.');
    await form.getByRole('button', { name: 'Add memory' }).click();
    await expect.poll(() => status().textContent()).toContain('dana already has this memory');

    await page.getByText('Add a memory').click();
    await form.getByLabel('Text').fill('Never stored.');
    await form.getByLabel('Metadata (JSON, optional)').fill('[1, 2]');
    await form.getByRole('button', { name: 'Add memory' }).click();
    await expect.poll(() => status().textContent()).toContain('Metadata must be a JSON object');
    await form.getByLabel('Metadata (JSON, optional)').fill('');
    await form.getByLabel('App').fill('Not A Slug');
    await form.getByRole('button', { name: 'Add memory' }).click();
    await expect.poll(() => status().textContent()).toContain('appId must be an app slug');
    expect((await list('dana')).memories.map((m) => m.text)).not.toContain('Never stored.');
    expect((await list('dana')).total).toBe(4);
  });

  it('edits a memory\u2019s text and metadata in place; shows the API\u2019s duplicate_memory; cancel changes nothing', async () => {
    await page.reload();
    await page.getByRole('heading', { name: 'dana' }).waitFor();
    const cello = cards().filter({ hasText: 'cello' });
    await cello.getByRole('button', { name: 'Edit' }).click();
    const form = page.getByRole('form', { name: 'Edit this memory' });
    await form.getByLabel('Text').fill('Dana plays the viola in an orchestra.');
    await form.getByLabel('Metadata (JSON, optional)').fill('{"instrument": "viola"}');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => status().textContent()).toContain('Saved.');
    await cards().filter({ hasText: 'viola' }).waitFor();
    const edited = (await list('dana')).memories.find((m) => m.text.includes('viola'));
    expect(edited).toMatchObject({ metadata: { instrument: 'viola' }, appId: 'music' });
    expect(edited?.updatedAt).not.toBe(edited?.createdAt);
    expect(await cards().filter({ hasText: 'viola' }).locator('.meta').textContent()).toContain('edited');

    const allergy = cards().filter({ hasText: 'shellfish' });
    await allergy.getByRole('button', { name: 'Edit' }).click();
    await form.getByLabel('Text').fill('Dana lives in Porto.');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => status().textContent()).toContain('duplicate_memory');
    await form.getByRole('button', { name: 'Cancel' }).click();
    expect(await allergy.locator('.text').textContent()).toBe('Dana is allergic to shellfish.');
    expect((await list('dana')).memories.map((m) => m.text)).toContain('Dana is allergic to shellfish.');
  });

  it('exports the user\u2019s memories as the CLI\u2019s JSONL, which imports back into another database whole', async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    // At phone width nothing sticks out sideways.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await page.setViewportSize({ width: 1280, height: 800 });
    if (process.env.CONSOLE_SHOT) {
      await page.screenshot({ path: `${process.env.CONSOLE_SHOT}-list.png`, fullPage: true });
      await page.getByText('Add a memory').click();
      await page.screenshot({ path: `${process.env.CONSOLE_SHOT}-add.png`, fullPage: true });
      await page.setViewportSize({ width: 375, height: 812 });
      await page.screenshot({ path: `${process.env.CONSOLE_SHOT}-phone.png`, fullPage: true });
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.getByText('Add a memory').click();
    }
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export JSONL' }).click()]);
    expect(download.suggestedFilename()).toBe('dana.jsonl');
    const file = join(dir, 'dana.jsonl');
    await download.saveAs(file);
    await expect.poll(() => status().textContent()).toContain('Exported 4 memories');
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const stored = (await list('dana')).memories;
    // Oldest first, as `agent-memory export` writes them, with the same fields.
    expect(lines.map((l) => l.text)).toEqual(stored.map((m) => m.text).reverse());
    for (const line of lines) expect(Object.keys(line).sort()).toEqual(['appId', 'createdAt', 'metadata', 'text', 'updatedAt', 'userId']);
    const other = join(dir, 'other.db');
    const imported = await runCli(['import', file, '--db', other, '--model', 'hash']);
    expect(imported.stderr).toMatch(/Imported 4 memories/);
    const exported = await runCli(['export', '-', '--db', other, '--model', 'hash']);
    const back = exported.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(back.map((l) => [l.text, l.appId, l.metadata]).sort()).toEqual(lines.map((l) => [l.text, l.appId, l.metadata]).sort());
    expect(pageErrors.join("\n")).toBe("");
  });
});
