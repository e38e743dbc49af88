/**
 * Takes the screenshots of docs/console.md: `npx tsx console/screenshots.ts` (after `npm run build`)
 * starts `serve` on a fresh demo file and photographs each screen in Debian's Chromium.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startServe } from '../test/support/processes.ts';
import { CHROMIUM, CHROMIUM_ARGS } from '../test/browser/chromium.ts';

const OUT = join(import.meta.dirname, '../docs/images');
const dir = mkdtempSync(join(tmpdir(), 'vi-console-shots-'));
// A receiver that takes every delivery, for the inbox's picture.
const receiver = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const hooks = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
const secret = `whsec_${Buffer.alloc(32, 42).toString('base64')}`;
const serve = await startServe('shots', ['--db', join(dir, 'demo.sqlite'), '--anchor', '2026-11-21T12:00:00Z', '--faults', '--webhook-url', hooks, '--webhook-secret', secret], { dir });
const browser = await chromium.launchPersistentContext(join(dir, 'profile'), { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1280, height: 800 } });
try {
  const page = browser.pages()[0] ?? (await browser.newPage());
  const nav = (name: string) => page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name }).click();
  const shot = (name: string) => page.screenshot({ path: join(OUT, `console-${name}.png`) });
  await page.goto(`${serve.url}/_console/#token=${encodeURIComponent(serve.keys.adminToken)}`);
  await page.locator('tbody tr').first().waitFor();
  await shot('people');
  await page.locator('tbody tr a').first().click();
  await page.getByRole('list', { name: 'Journey' }).locator('li').first().waitFor();
  await page.getByRole('list', { name: 'Journey' }).locator('summary').nth(1).click();
  await shot('journey');
  await nav('Stats');
  await page.locator('svg.chart').waitFor();
  await shot('stats');
  await nav('Keys');
  await page.getByRole('button', { name: 'Issue key' }).click();
  await page.locator('#issued-key').waitFor();
  await shot('keys');
  await nav('Webhooks');
  await page.getByRole('button', { name: 'Test person.identified' }).click();
  const delivery = page.locator('ol.inbox > li').first();
  await delivery.waitFor();
  await page.getByLabel('Signing secret to check signatures with').fill(secret);
  await page.getByRole('button', { name: 'Check with this secret' }).click();
  while ((await delivery.locator('.status-delivered').count()) === 0) await page.getByRole('button', { name: 'Refresh' }).click();
  await delivery.locator('summary').click();
  await delivery.locator('td.verdict', { hasText: 'verifies' }).waitFor();
  await page.screenshot({ path: join(OUT, 'console-webhooks.png'), fullPage: true });
  await nav('Exports');
  await page.getByRole('button', { name: 'Start export' }).click();
  await page.getByRole('link', { name: 'Download CSV' }).waitFor({ timeout: 60_000 });
  await shot('exports');
  await nav('API reference');
  await page.locator('#operations-People-listPeople').waitFor();
  await shot('reference');
  await page.goBack();
  await nav('Time and faults');
  await page.locator('#server-time time').waitFor();
  await shot('time');
} finally {
  await browser.close();
  await serve.process.stop();
  receiver.close();
  rmSync(dir, { recursive: true, force: true });
}
