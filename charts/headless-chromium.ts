// A page opened in Debian's chromium, headless, driven by playwright-core:
// a fresh empty profile each time, no network (every request the page makes
// is refused and reported), and the page's console errors and uncaught
// errors collected. Used for the README's report picture (npm run charts)
// and by the test that opens the report in a real browser.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Page } from 'playwright-core';

/** Debian's chromium (`apt-get install chromium`); CHROMIUM_PATH overrides it. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
] as const;

export interface OpenedPage {
  readonly page: Page;
  /** Console messages of type error, and uncaught page errors. */
  readonly errors: string[];
  /** URLs the page tried to fetch (each refused). */
  readonly requests: string[];
}

/** Opens `html` in a fresh headless chromium, runs `use` on it, and closes everything whatever happens. */
export async function withPageOf<T>(html: string, use: (opened: OpenedPage) => Promise<T>, viewport = { width: 1200, height: 900 }): Promise<T> {
  const profile = mkdtempSync(path.join(tmpdir(), 'chromium-profile-'));
  try {
    const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_FLAGS], viewport });
    try {
      const errors: string[] = [];
      const requests: string[] = [];
      await context.route('**/*', (route) => {
        requests.push(route.request().url());
        return route.abort();
      });
      const page = await context.newPage();
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(`console: ${message.text()}`);
      });
      page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
      await page.setContent(html, { waitUntil: 'load' });
      return await use({ page, errors, requests });
    } finally {
      await context.close();
    }
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}
