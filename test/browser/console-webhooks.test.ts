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
  /** Every request the receiver saw: its webhook-id and signature, and the status it answered. */
  const seen: { id: string; signature: string; status: number }[] = [];
  let serve: ServeProcess;
  let browser: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vi-console-hooks-'));
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const status = accepting ? 200 : 500;
        seen.push({ id: String(req.headers['webhook-id']), signature: String(req.headers['webhook-signature']), status });
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

  /** Opens the console afresh in `tab` (a new tab holds no secret yet) on the Webhooks screen. */
  const openWebhooks = async (tab: Page) => {
    await tab.goto('about:blank');
    await tab.goto(`${serve.url}/_console/#token=${encodeURIComponent(serve.keys.adminToken)}`);
    await tab.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Webhooks' }).click();
  };

  /** The newest delivered delivery of serve's endpoint, opened in the inbox of `tab`. */
  const openNewestDelivered = async (tab: Page) => {
    await openWebhooks(tab);
    await tab.locator('tr', { hasText: '/hooks' }).getByRole('button', { name: 'Deliveries' }).click();
    await tab.getByLabel('Status').selectOption('delivered');
    // Once the filtered page has replaced the first one.
    await expect.poll(async () => (await tab.locator('ol.inbox > li').count()) > 0 && (await tab.locator('ol.inbox > li:not(:has(.status-delivered))').count()) === 0).toBe(true);
    const item = tab.locator('ol.inbox > li').first();
    await item.locator('summary').click();
    return { item, id: (await item.getAttribute('data-delivery-id'))! };
  };

  it('shows the headers and body each attempt sent, and checks its signature in the browser with the secret serve printed', async () => {
    accepting = true;
    const secret = (await serve.process.waitFor(/generated secret: (whsec_\S+)/))[1]!;
    await expect.poll(() => seen.filter((s) => s.status === 200).length, { timeout: 30_000 }).toBeGreaterThan(0);
    const { item, id } = await openNewestDelivered(page);
    const sent = seen.find((s) => s.id === id && s.status === 200)!;
    const headers = item.getByRole('table', { name: /^Headers of attempt/ });
    expect(await headers.getByRole('row', { name: /^webhook-id/ }).locator('td').textContent()).toBe(id);
    expect(await headers.getByRole('row', { name: /^webhook-signature/ }).locator('td').textContent()).toBe(sent.signature);
    // The body comes with the delivery read alone, once the summary is opened.
    const body = item.getByLabel(/^Body of attempt/);
    await expect.poll(() => body.textContent()).toMatch(/^\{/);
    expect(JSON.parse((await body.textContent())!)).toMatchObject({ webhookId: id });
    const verdict = item.getByRole('table', { name: 'Attempts' }).locator('tbody tr').last().locator('td.verdict');
    await expect.poll(() => verdict.textContent()).toBe('no secret to check with');
    await page.getByLabel('Signing secret to check signatures with').fill(secret);
    await page.getByRole('button', { name: 'Check with this secret' }).click();
    await expect.poll(() => verdict.textContent()).toBe('verifies');

    // Another tab, given a secret that is not the endpoint's: the same attempt does not verify.
    const other = await browser.newPage();
    try {
      const opened = await openNewestDelivered(other);
      await other.getByLabel('Signing secret to check signatures with').fill(`whsec_${Buffer.alloc(32, 7).toString('base64')}`);
      await other.getByRole('button', { name: 'Check with this secret' }).click();
      await expect.poll(() => opened.item.getByRole('table', { name: 'Attempts' }).locator('tbody tr').last().locator('td.verdict').textContent()).toBe('does not verify');
    } finally {
      await other.close();
    }
  }, 90_000);

  it('adds an endpoint, sends it a test event, and shows it delivered as a test whose signature verifies with the secret shown once', async () => {
    accepting = true;
    await openWebhooks(page);
    await page.getByLabel('Endpoint URL').fill(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/console`);
    await page.getByLabel('person.activity too').uncheck();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.locator('#endpoint-secret').waitFor();
    await page.locator('tr', { hasText: '/console' }).getByRole('button', { name: 'Test person.identified' }).click();
    const note = page.getByRole('status').filter({ hasText: /^Test person\.identified delivery msg_\w+ queued/ });
    const id = /msg_\w+/.exec((await note.textContent())!)![0];
    await expect.poll(() => seen.filter((s) => s.id === id && s.status === 200).length, { timeout: 15_000 }).toBe(1);
    const item = page.locator(`li[data-delivery-id="${id}"]`);
    expect(await item.locator('.badge.test').textContent()).toBe('test');
    await expect.poll(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return item.locator('.status-delivered').count();
    }).toBe(1);
    await item.locator('summary').click();
    await expect.poll(() => item.getByRole('table', { name: 'Attempts' }).locator('td.verdict').textContent()).toBe('verifies');
  }, 60_000);

  it('switches the simulated traffic off and on, and on it sends new people again', async () => {
    await openWebhooks(page);
    const simulation = page.getByRole('switch', { name: 'Simulated traffic' });
    expect(await simulation.isChecked()).toBe(true);
    await simulation.click();
    await page.locator('#simulation-state', { hasText: 'off' }).waitFor();
    expect((await admin('GET', '/_admin/simulation')).data.running).toBe(false);
    const before = seen.length;
    await simulation.click();
    await page.locator('#simulation-state', { hasText: 'on' }).waitFor();
    expect((await admin('GET', '/_admin/simulation')).data).toMatchObject({ running: true, everySeconds: 1, newPeople: 3 });
    await expect.poll(() => seen.length, { timeout: 15_000 }).toBeGreaterThan(before);
  }, 60_000);
});
