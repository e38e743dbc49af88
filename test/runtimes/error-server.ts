/**
 * A server for test/runtimes/runtime-errors.test.ts, run under Node, Bun or Deno: the API over an
 * in-memory database with one account key, served by the runtime's adapter, plus one path whose
 * handler throws (the API itself never does). Prints `{"url","key"}` as one JSON line once it listens.
 */
import { loadRuntime } from '../../scripts/runtime.ts';

const runtime = await loadRuntime();
const api = await runtime.createApi({ database: ':memory:', onError: () => undefined });
const account = await api.admin.createAccount({ name: 'Runtime errors' });
const { key } = await api.admin.issueAccountKey(account.id);
const server = await runtime.serve(
  {
    fetch: (request) => {
      if (new URL(request.url).pathname === '/__throw') throw new Error('a handler fault');
      return api.fetch(request);
    },
  },
  { port: 0 },
);
console.log(JSON.stringify({ url: server.url, key }));
