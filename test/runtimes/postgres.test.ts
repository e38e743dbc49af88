import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaUrl, startServers, startServe, stopAll, type ServeCommand, type ServeProcess } from '../support/processes.ts';

/**
 * `serve --db postgres://…` under Node (the built bin), Bun and Deno, each through the `pg`
 * driver, all three at once on one schema of a real server: one seeds, and every answer of the
 * others is byte for byte Node's, each following the cursors Node's server signed.
 */

const serverUrl = process.env.VI_TEST_POSTGRES_URL;
const RUNTIMES: ServeCommand[] = ['bin', 'bun', 'deno'];

describe.each(serverUrl ? [serverUrl] : [])('the demo server on PostgreSQL under Node, Bun and Deno (%s)', (url) => {
  let dir: string;
  let servers: ServeProcess[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vi-runtimes-pg-'));
    const { url: db } = await schemaUrl(url);
    const args = ['--db', db, '--seed', '7', '--people', '60', '--anchor', '2026-11-20T12:00:00Z'];
    servers = await Promise.all(RUNTIMES.map((command) => startServe(command, args, { dir, command })));
  }, 180_000);

  afterAll(async () => {
    await stopAll(servers);
    rmSync(dir, { recursive: true, force: true });
  });

  it('start together on the empty schema: one of them seeds it, and each says which runtime it is', () => {
    expect(servers.map((s) => /listening on \S+ \((\w+)\)/.exec(s.process.output())?.[1])).toEqual(['node', 'bun', 'deno']);
    expect(servers.filter((s) => /Seeded 9 sites/.test(s.process.output()))).toHaveLength(1);
    for (const s of servers) expect(s.keys.accountKey).toBe(servers[0]!.keys.accountKey);
  });

  /** Every page of a list as each server answers it: status, content type and the body's exact text, following Node's cursors. */
  async function pages(path: string, key: string): Promise<string[][]> {
    const answers: string[][] = [];
    let next: string | null = path;
    while (next) {
      const texts: string[] = [];
      for (const server of servers) {
        const reply = await fetch(`${server.url}${next}`, { headers: { 'x-api-key': key } });
        // Stats carry the moment they were made, and a cursor the moment it expires, which differ
        // between the servers by a second or so; each page after the first follows Node's cursor,
        // so every server also reads the cursors another process signed.
        const text = (await reply.text()).replace(/"generatedAt":"[^"]+"/, '"generatedAt":"(now)"');
        texts.push(`${reply.status} ${reply.headers.get('content-type')}\n${text}`);
      }
      const body = JSON.parse(texts[0]!.slice(texts[0]!.indexOf('\n') + 1)) as { pagination?: { nextCursor?: string | null } };
      const cursor = body.pagination?.nextCursor;
      answers.push(texts.map((t) => t.replace(/"nextCursor":"[^"]+"/, '"nextCursor":"(signed)"')));
      next = cursor ? `${path}${path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}` : null;
    }
    return answers;
  }

  it('answers every page of people, companies, a journey, stats and errors byte for byte as Node does, under the account key and a scoped key', async () => {
    const { accountKey, scopedKeys } = servers[0]!.keys;
    const first = JSON.parse((await pages('/v1/people?limit=1', accountKey))[0]![0]!.split('\n')[1]!).data[0].id as string;
    const paths = ['/v1/people?limit=13', '/v1/people?limit=9&hotLeadsOnly=true', '/v1/companies?limit=7', `/v1/people/${first}/events?limit=25`, `/v1/people/${first}`, '/v1/stats', '/v1/people/per_nobody', '/v1/people?limit=0'];
    let compared = 0;
    for (const key of [accountKey, scopedKeys[0]!.key]) {
      for (const path of paths) {
        for (const [node, bun, deno] of await pages(path, key)) {
          expect(bun, `${path} under Bun`).toBe(node);
          expect(deno, `${path} under Deno`).toBe(node);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(20);
  }, 120_000);

  it('stop on SIGTERM with exit 0, closing their pools', async () => {
    expect(await stopAll(servers)).toEqual(Array(3).fill({ code: 0, signal: null }));
  });
});
