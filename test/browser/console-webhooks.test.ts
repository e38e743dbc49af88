import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../support/processes.ts';
import { openBrowser } from './chromium.ts';

describe('the console\'s webhook inbox in Chromium', () => {
  let dir: string;
  let receiver: Server;
  /** Whether the receiver takes deliveries (200) or fails them (500). */
  let accepting = false;
  /** The webhook-id of every request the receiver saw, with the status it answered. */
  const seen: { id: string; status: number }[] = [];
  let serve: ServeProcess;
  let browser: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vi-console-hooks-'));
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const status = accepting ? 200 : 500;
        seen.push({ id: String(req.headers['webhook-id']), status });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const hooks = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    serve = await startServe('console-hooks', ['--db', join(dir, 'demo.sqlite'), '--people', '100', '--webhook-url', hooks, '--simulate', '--simulate-every', '1'], { dir });
    ({ browser, page } = await openBrowser(dir));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await serve?.process.stop();
    await new Promise((resolve) => receiver?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  const admin = async (method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = { authorization: `Bearer ${serve.keys.adminToken}`, 'content-type': 'application/json' };
    const response = await fetch(`${serve.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return (await response.json()) as { data: any };
  };

  it('shows a simulated delivery that failed every attempt, and redelivers it', async () => {
    await expect.poll(() => seen.length, { timeout: 30_000 }).toBeGreaterThan(0);
    const id = seen[0]!.id;
    // Each retry waits longer (a day at most, give or take its jitter): the clock moves two days at a time until the schedule runs out.
    const delivery = async () => (await admin('GET', `/_admin/webhook-deliveries/${id}`)).data as { status: string; attempts: unknown[] };
    for (let moves = 0; (await delivery()).status !== 'failed' && moves < 20; moves++) {
      const made = (await delivery()).attempts.length;
      await admin('POST', '/_admin/clock', { advanceSeconds: 2 * 86_400 });
      await expect.poll(async () => (await delivery()).attempts.length, { timeout: 15_000 }).toBeGreaterThan(made);
    }
    expect((await delivery()).status).toBe('failed');
    accepting = true;

    await page.goto(`${serve.url}/_console/#token=${encodeURIComponent(serve.keys.adminToken)}`);
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('button', { name: 'Deliveries' }).click();
    // The simulation keeps adding deliveries; the failed ones are few.
    await page.getByLabel('Status').selectOption('failed');
    const item = page.locator(`li[data-delivery-id="${id}"]`);
    await item.locator('summary').click();
    expect(await item.locator('.badge').textContent()).toBe('failed');
    expect(await item.getByRole('table', { name: 'Attempts' }).locator('tbody tr').count()).toBe(10);
    await item.getByRole('button', { name: 'Redeliver' }).click();
    await expect.poll(() => seen.filter((s) => s.id === id && s.status === 200).length, { timeout: 15_000 }).toBe(1);
    await expect.poll(async () => (await delivery()).status).toBe('delivered');
  }, 120_000);
});
