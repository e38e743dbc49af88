import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * An existing Node server imports the built package by name, with no TypeScript loader:
 * `npm test` builds dist/ first, and Node resolves the package's own name through `exports`.
 */
describe('the built package', () => {
  it('imports by name in plain Node and serves a request through the exports map', () => {
    expect(existsSync('dist/adapters/node/index.js'), 'run npm run build first').toBe(true);
    expect(existsSync('dist/adapters/node/index.d.ts')).toBe(true);
    const script = `
      import { createApi, toNodeListener, toMiddleware } from 'visitor-intelligence';
      import * as core from 'visitor-intelligence/core';
      const api = await createApi({ database: ':memory:' });
      await api.admin.createAccount({ id: 'acc', name: 'A' });
      const { key } = await api.admin.issueAccountKey('acc');
      const res = await api.fetch(new Request('http://x/v1/stats', { headers: { 'x-api-key': key } }));
      console.log(JSON.stringify({ status: res.status, listener: typeof toNodeListener, middleware: typeof toMiddleware, core: typeof core.createApi }));
    `;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(JSON.parse(out.trim().split('\n').pop()!)).toEqual({ status: 200, listener: 'function', middleware: 'function', core: 'function' });
  });
});
