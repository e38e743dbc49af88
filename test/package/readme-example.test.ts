import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApi } from '../../adapters/node/index.ts';

/** The embedding setup of docs/embedding.md, as written there (the block after "Setup is safe to run at every start"). */
function readmeSetup(): string {
  const page = readFileSync('docs/embedding.md', 'utf8');
  const at = page.indexOf('Setup is safe to run at every start');
  if (at < 0) throw new Error('docs/embedding.md has no setup example');
  const block = /```ts\n([\s\S]*?)```/.exec(page.slice(at))?.[1];
  if (!block) throw new Error('docs/embedding.md has no setup example');
  return block;
}

describe("docs/embedding.md's setup example", () => {
  const dir = mkdtempSync(join(tmpdir(), 'vi-readme-'));
  const database = join(dir, 'visitors.sqlite');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs the setup in plain Node against the built package, on one database file. */
  const run = () => {
    const code = readmeSetup().replace("'./data/visitors.sqlite'", JSON.stringify(database));
    expect(code).toContain(database);
    return execFileSync(process.execPath, ['--input-type=module', '-e', `${code}\nawait api.close();`], { encoding: 'utf8' });
  };

  it('runs twice against one database: the second run finds the account, site and key the first made', async () => {
    const first = run();
    expect(first).toMatch(/API key: vi_live_[0-9a-f]{40}/);
    const second = run();
    expect(second).not.toContain('API key');
    expect(second).toContain("[ { id: 'acc_acme', name: 'Acme Partners' } ]");

    const api = await createApi({ database });
    expect(await api.admin.listAccounts()).toEqual([{ id: 'acc_acme', name: 'Acme Partners' }]);
    expect(await api.admin.listSites('acc_acme')).toEqual([{ domain: 'acme.example', clientRef: 'acme' }]);
    expect(await api.admin.listKeys('acc_acme')).toHaveLength(1);
    await api.close();
  });
});

describe('setup run again with other details', () => {
  it('refuses an existing account id under another name, and an existing site under another clientRef', async () => {
    const api = await createApi({ database: ':memory:' });
    await api.admin.createAccount({ id: 'acc_acme', name: 'Acme Partners' });
    await api.admin.registerSite('acc_acme', { domain: 'acme.example', clientRef: 'acme' });
    await expect(api.admin.createAccount({ id: 'acc_acme', name: 'Acme Agency' })).rejects.toThrow('account acc_acme already exists with another name (Acme Partners)');
    await expect(api.admin.registerSite('acc_acme', { domain: 'ACME.example', clientRef: 'other' })).rejects.toThrow('site acme.example is already registered with clientRef acme');
    await expect(api.admin.registerSite('acc_acme', { domain: 'acme.example' })).rejects.toThrow('already registered with clientRef acme');
    expect(await api.admin.registerSite('acc_acme', { domain: 'ACME.example.', clientRef: 'acme' })).toEqual({ domain: 'acme.example', clientRef: 'acme' });
    expect(await api.admin.listSites('acc_acme')).toHaveLength(1);
  });

  it('creates a new account each time when no id is given, and lists every account by id', async () => {
    const api = await createApi({ database: ':memory:' });
    const a = await api.admin.createAccount({ name: 'Same' });
    const b = await api.admin.createAccount({ name: 'Same' });
    expect(a.id).not.toBe(b.id);
    await api.admin.createAccount({ id: 'acc_0', name: 'First' });
    expect(await api.admin.listAccounts()).toEqual([{ id: 'acc_0', name: 'First' }, ...[a, b].sort((x, y) => x.id.localeCompare(y.id))]);
  });
});
