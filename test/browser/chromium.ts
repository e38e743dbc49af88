import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (or VI_TEST_CHROMIUM), driven headless without its background traffic. */
export const CHROMIUM = process.env.VI_TEST_CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic'];

/** A fresh headless browser with its profile in `dir`, and its first page, waiting at most 15 s for what a test looks for. */
export async function openBrowser(dir: string): Promise<{ browser: BrowserContext; page: Page }> {
  const browser = await chromium.launchPersistentContext(join(dir, 'profile'), { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, acceptDownloads: true });
  const page = browser.pages()[0] ?? (await browser.newPage());
  page.setDefaultTimeout(15_000);
  return { browser, page };
}
