/**
 * A real Chromium for the console's end-to-end tests: Debian's package (`apt-get install -y chromium`), driven by
 * playwright-core, which never downloads a browser of its own. CHROMIUM_PATH names another binary.
 */
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The browser binary to use, or why there is none. */
export function findChromium(): { path: string } | { reason: string } {
  const candidates = process.env.CHROMIUM_PATH ? [process.env.CHROMIUM_PATH] : CANDIDATES;
  for (const path of candidates) {
    try {
      accessSync(path, constants.X_OK);
      return { path };
    } catch {
      /* next one */
    }
  }
  return { reason: `no Chromium at ${candidates.join(', ')} (install it with \`apt-get install -y chromium\`, or set CHROMIUM_PATH)` };
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless, sandbox off (root in a container), nothing phoning home, a fresh profile removed afterwards. */
export async function launchChromium(executablePath: string): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'agent-memory-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 800 },
    // Fixed, so that the screenshots show the same dates on every machine.
    locale: 'en-GB',
    timezoneId: 'UTC',
    colorScheme: 'light',
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
