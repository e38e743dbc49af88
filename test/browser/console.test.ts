import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../support/processes.ts';
import { openBrowser } from './chromium.ts';

describe('the sandbox console in Chromium', () => {
  let dir: string;
  let serve: ServeProcess;
  let browser: BrowserContext;
  let page: Page;
  let link: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vi-console-'));
    serve = await startServe('console', ['--db', join(dir, 'demo.sqlite'), '--people', '300', '--seed', '7', '--faults'], { dir });
    link = (await serve.process.waitFor(/Console[^\n]*\n\s+(http:\/\/\S+)/))[1]!;
    ({ browser, page } = await openBrowser(dir));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await serve?.process.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Opens the console from the printed link, then goes to `screen` through its navigation. */
  const visit = async (screen?: string) => {
    // From another document, so the link loads the console afresh rather than only changing its fragment.
    await page.goto('about:blank');
    await page.goto(link);
    await page.waitForURL(/#\/people$/);
    if (screen) await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: screen }).click();
  };

  const admin = async (method: string, path: string) => {
    const response = await fetch(`${serve.url}${path}`, { method, headers: { authorization: `Bearer ${serve.keys.adminToken}` } });
    return (await response.json()) as { data: any };
  };

  it('opens signed in from the printed link, and takes the token out of the address bar', async () => {
    expect(link).toBe(`${serve.url}/_console/#token=${encodeURIComponent(serve.keys.adminToken)}`);
    await page.goto(link);
    await expect.poll(() => page.locator('table tbody tr').count()).toBeGreaterThan(0);
    expect(page.url()).not.toContain(serve.keys.adminToken);
    expect(await page.getByRole('heading', { name: 'People' }).isVisible()).toBe(true);
  });

  it('pages people with a scoped key and shows only its domain', async () => {
    const domain = serve.keys.scopedKeys[0]!.domain;
    await visit();
    await page.getByLabel('Read as').selectOption(domain);
    // The site has its active key (serve's): the console asks for it rather than issue a second.
    await page.getByLabel(`Scoped key of ${domain}`).fill(serve.keys.scopedKeys[0]!.key);
    await page.getByRole('button', { name: 'Use this key' }).click();
    await page.getByText(`Read with the scoped key of ${domain}.`).waitFor();
    const inScope = (sites: string[]) => sites.every((site) => site === domain || site.endsWith(`.${domain}`));
    await expect.poll(() => page.locator('td.site').count()).toBeGreaterThan(0);
    const firstPage = await page.locator('td.site').allTextContents();
    expect(firstPage.length).toBeGreaterThan(0);
    expect(inScope(firstPage)).toBe(true);
    const firstName = await page.locator('tbody tr a').first().textContent();
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText(/people on page 2/).waitFor();
    const second = await page.locator('td.site').allTextContents();
    expect(inScope(second)).toBe(true);
    expect(await page.locator('tbody tr a').first().textContent()).not.toBe(firstName);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.getByText(/people on page 1/).waitFor();
  });

  it('opens a person and shows the journey as a timeline with details', async () => {
    await visit();
    const name = (await page.locator('tbody tr a').first().textContent())!;
    await page.locator('tbody tr a').first().click();
    await page.getByRole('heading', { name }).waitFor();
    const events = page.getByRole('list', { name: 'Journey' }).locator('li');
    await expect.poll(() => events.count()).toBeGreaterThan(0);
    const first = events.first();
    await first.locator('summary').click();
    expect(await first.getByText('sessionId').isVisible()).toBe(true);
  });

  it('pages companies as the API lists them for the account key', async () => {
    const api = async (cursor?: string) =>
      (await (await fetch(`${serve.url}/v1/companies?limit=25${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { headers: { 'x-api-key': serve.keys.accountKey } })).json()) as { data: { name: string }[]; pagination: { nextCursor?: string } };
    const first = await api();
    await visit('Companies');
    await page.getByText(/companies on page 1/).waitFor();
    const names = () => page.getByRole('table').locator('tbody tr td:first-child').allTextContents();
    expect(await names()).toEqual(first.data.map((c) => c.name));
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText(/companies on page 2/).waitFor();
    expect(await names()).toEqual((await api(first.pagination.nextCursor)).data.map((c) => c.name));
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.getByText(/companies on page 1/).waitFor();
  });

  it('charts the stats the API answers, for the account and for a site\'s scoped key', async () => {
    const stats = async (key: string) => (await (await fetch(`${serve.url}/v1/stats`, { headers: { 'x-api-key': key } })).json()).data as { totalPeople: number; totalCompanies: number };
    const chart = page.getByRole('img', { name: /^People: / });
    const expected = (s: { totalPeople: number; totalCompanies: number }) => new RegExp(`^People: ${s.totalPeople}; Companies: ${s.totalCompanies}; `);
    await visit('Stats');
    await chart.waitFor();
    expect(await chart.getAttribute('aria-label')).toMatch(expected(await stats(serve.keys.accountKey)));
    const site = serve.keys.scopedKeys[1]!;
    await page.getByLabel('Read as').selectOption(site.domain);
    await page.getByLabel(`Scoped key of ${site.domain}`).fill(site.key);
    await page.getByRole('button', { name: 'Use this key' }).click();
    const scoped = await stats(site.key);
    await page.getByRole('img', { name: expected(scoped) }).waitFor();
    expect(scoped.totalPeople).toBeLessThan((await stats(serve.keys.accountKey)).totalPeople);
  });

  it('moves the server clock forward and resets it', async () => {
    const before = (await admin('GET', '/_admin/clock')).data.now as string;
    await visit('Time and faults');
    await page.locator('#server-time time').waitFor();
    await page.getByLabel('Move forward by').fill('2');
    await page.getByLabel('Unit').selectOption('86400');
    await page.getByRole('button', { name: 'Move clock' }).click();
    const moved = new Date(Date.parse(before) + 2 * 86_400_000).toISOString().slice(0, 10);
    await page.locator('#server-time', { hasText: moved }).waitFor();
    expect(Date.parse((await admin('GET', '/_admin/clock')).data.now) - Date.parse(before)).toBeGreaterThanOrEqual(2 * 86_400_000);
    await page.getByRole('button', { name: 'Reset the sandbox' }).click();
    await page.getByText('Reset done.').waitFor();
    expect(Date.parse((await admin('GET', '/_admin/clock')).data.now)).toBeLessThan(Date.parse(before) + 86_400_000);
  });

  it('issues an account key, shows its value once, and revokes it', async () => {
    await visit('Keys');
    await page.getByLabel('Reach').selectOption('');
    await page.getByLabel('Label').fill('from-the-browser');
    await page.getByRole('button', { name: 'Issue key' }).click();
    const key = (await page.locator('#issued-key').textContent())!;
    const people = await fetch(`${serve.url}/v1/people?limit=1`, { headers: { 'x-api-key': key } });
    expect(people.status).toBe(200);
    const row = page.locator('tr', { hasText: 'from-the-browser' });
    await row.getByRole('button', { name: /^Revoke/ }).click();
    await row.getByText(/revoked/).waitFor();
    expect((await fetch(`${serve.url}/v1/people?limit=1`, { headers: { 'x-api-key': key } })).status).toBe(403);
  });

  it('runs an export and downloads its CSV', async () => {
    await visit('Exports');
    await page.getByRole('button', { name: 'Start export' }).click();
    await page.locator('#export-status', { hasText: 'complete' }).waitFor({ timeout: 60_000 });
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download CSV' }).click()]);
    const file = join(dir, 'export.csv');
    await download.saveAs(file);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines[0]).toMatch(/email/i);
    expect(lines.length).toBeGreaterThan(1);
  }, 90_000);

  it('renders the API reference from the served document and tries a call with the console\'s key', async () => {
    await visit();
    const errors: string[] = [];
    page.on('console', (message) => void (message.type() === 'error' && errors.push(message.text())));
    await page.getByRole('link', { name: 'API reference' }).click();
    const operation = page.locator('#operations-People-listPeople');
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.getByRole('button', { name: 'Execute' }).click();
    await operation.locator('.live-responses-table .response-col_status', { hasText: '200' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('adds a fault rule the API then applies, lists it and clears it', async () => {
    await visit('Time and faults');
    await page.getByLabel('Rule (JSON)').fill('{"path": "/v1/companies", "fault": "internal_error", "times": 1}');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByRole('list', { name: 'Fault rules' }).getByText('/v1/companies').waitFor();
    const faulted = await fetch(`${serve.url}/v1/companies?limit=1`, { headers: { 'x-api-key': serve.keys.accountKey } });
    expect(faulted.status).toBe(500);
    await page.getByRole('button', { name: 'Clear rules' }).click();
    await expect.poll(() => page.getByRole('list', { name: 'Fault rules' }).locator('li').count()).toBe(0);
    expect((await admin('GET', '/_admin/faults')).data).toEqual([]);
  });
});
