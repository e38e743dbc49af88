import type { CheckContext } from '../context.ts';
import type { Reply } from '../http.ts';
import { lastSeenAfterIfKnown } from '../choices.ts';
import type { Check } from '../types.ts';
import { accountPeople, eventsPath, show } from './list-support.ts';

const SECTION = 'Errors';
const UNKNOWN_KEY = `vi_live_${'f'.repeat(40)}`;

/** What a stack trace or a source location looks like in a body. */
const STACK_TRACE: RegExp[] = [
  /\n\s*at\s+\S/, // V8/JSC frames on their own lines
  /\bat\s+(?:async\s+)?(?:[\w$.<>[\]]+\s+\()?(?:file:\/\/|node:|\/|[A-Za-z]:\\)[\w./\\@-]*:\d+:\d+/, // "at fn (/path/x.js:1:2)"
  /[\w.-]+\.(?:[cm]?[jt]sx?|py|rb|go|java|php):\d+(?::\d+)?/, // file.ts:12:3
  /node_modules[/\\]/,
  /Traceback \(most recent call last\)/,
  /\b(?:TypeError|ReferenceError|SyntaxError|RangeError): /,
];

/** Every string inside a parsed JSON value. */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, out);
  return out;
}

/** A varied set of requests: successes, each kind of client error, health. Sent once per run. */
function variedReplies(t: CheckContext): Promise<{ what: string; reply: Reply }[]> {
  return t.discover.once('errors.varied', async () => {
    const out: { what: string; reply: Reply }[] = [];
    const add = async (what: string, p: Promise<Reply>) => out.push({ what, reply: await p });
    await add('GET /v1/health without a key', t.get('/v1/health', { key: null }));
    await add('GET /v1/people?limit=1', t.get('/v1/people?limit=1'));
    await add('GET /v1/stats', t.get('/v1/stats'));
    await add('GET /v1/people?limit=abc', t.get('/v1/people?limit=abc'));
    await add('GET /v1/people?sort=lastSeen', t.get('/v1/people?sort=lastSeen'));
    await add('GET /v1/people without a key', t.get('/v1/people', { key: null }));
    await add('GET /v1/people with an unknown key', t.get('/v1/people', { key: UNKNOWN_KEY }));
    await add('GET /v1/people/{unknown id}', t.get('/v1/people/harness-no-such-person'));
    await add('GET /v1/companies/{unknown id}', t.get('/v1/companies/harness-no-such-company'));
    await add('GET /v1/no-such-endpoint', t.get('/v1/no-such-endpoint'));
    await add('DELETE /v1/people', t.send('DELETE', '/v1/people'));
    return out;
  });
}

/** Inputs that an implementation may trip over; every one must get a 4xx (or a 200), never a 5xx. */
function nastyReplies(t: CheckContext): Promise<{ what: string; reply: Reply }[]> {
  return t.discover.once('errors.nasty', async () => {
    const people = await accountPeople(t);
    const someone: string = people.rows[0]?.id ?? 'harness-no-such-person';
    // Any name will do (each input must only avoid a 5xx); the discovered one reaches the date parser.
    const ls = encodeURIComponent((await lastSeenAfterIfKnown(t, 'people'))?.param ?? 'last_seen_after');
    const paths = [
      '/v1/people?limit=99999999999999999999999999',
      '/v1/people?limit=1e2',
      '/v1/people?limit=0x10',
      '/v1/companies?limit=-0',
      '/v1/people?limit=%',
      '/v1/people?limit=1&limit=2',
      '/v1/people?%=%',
      '/v1/people?cursor=%FF%FE%00',
      `/v1/people?cursor=${'A'.repeat(4000)}`,
      '/v1/people/%F0%9F%98%80%E2%9C%93',
      '/v1/people/%E0%A4%A',
      '/v1/people/%ZZ',
      '/v1/people/%00',
      '/v1/people/%C0%AF',
      `/v1/people/${'a'.repeat(3000)}`,
      '/v1/people/..%2F..%2Fetc%2Fpasswd/events',
      "/v1/companies/'%20OR%201=1--",
      '/v1/exports/%F0%9F%98%80',
      '/v1/people?domain=%E2%80%AEmoc.elpmaxe',
      `/v1/people?domain=${'a'.repeat(300)}.com`,
      '/v1/people?domain=%25',
      '/v1/people?client_ref=%00%01%02',
      `/v1/people?${ls}=2026-13-45T99:99:99Z`,
      `/v1/people?${ls}=99999-01-01`,
      `/v1/companies?${ls}=%F0%9F%98%80`,
      `${eventsPath(someone)}?event_type=%F0%9F%92%A5`,
      `${eventsPath(someone)}?event_type=${'x'.repeat(2000)}`,
    ];
    const out: { what: string; reply: Reply }[] = [];
    for (const path of paths) out.push({ what: `GET ${path.length > 90 ? `${path.slice(0, 90)}…` : path}`, reply: await t.get(path) });
    out.push({
      what: 'POST /v1/exports with a body that is not JSON',
      reply: await t.startExport(undefined, { raw: '{"timeframe":' }),
    });
    return out;
  });
}

export const errorsChecks: Check[] = [
  {
    id: 'errors.request-id-everywhere',
    section: SECTION,
    title: 'Every response (success, client error, health) carries X-Request-Id, each one distinct',
    async run(t: CheckContext) {
      const replies = await variedReplies(t);
      const seen = new Map<string, string>();
      for (const { what, reply } of replies) {
        const id = reply.headers.get('x-request-id');
        t.assert(id !== null && id.trim().length > 0, `${what} (${reply.status}): no X-Request-Id header`);
        t.assert(!seen.has(id), `${what}: X-Request-Id ${id} was already used by ${seen.get(id)}`);
        seen.set(id, what);
      }
    },
  },
  {
    id: 'errors.unknown-path-404',
    section: SECTION,
    title: 'An unknown path answers 404 not_found with the error envelope',
    async run(t: CheckContext) {
      t.error(await t.get('/v1/no-such-endpoint'), 404, 'not_found', 'GET /v1/no-such-endpoint');
      t.error(await t.get('/v1/people/harness-no-such-person/no-such-part'), 404, 'not_found', 'GET /v1/people/{id}/no-such-part');
    },
  },
  {
    id: 'errors.envelope-status-repeats',
    section: SECTION,
    title: 'Every error body is {error: {code, message, status}} with status repeating the HTTP status',
    async run(t: CheckContext) {
      const replies = await variedReplies(t);
      let errors = 0;
      const statuses = new Set<number>();
      for (const { what, reply } of replies) {
        if (reply.status < 400) continue;
        t.envelope(reply, what);
        statuses.add(reply.status);
        errors++;
      }
      t.assert(errors > 0, 'none of the requests meant to fail answered an error status');
      for (const status of [400, 401, 403, 404]) t.assert(statuses.has(status), `no request answered ${status}; the probes expected one (${[...statuses].join(', ')})`);
    },
  },
  {
    id: 'errors.wrong-method-4xx',
    section: 'Endpoints',
    title: 'A method a known path does not support answers a 4xx with the error envelope',
    async run(t: CheckContext) {
      const people = await accountPeople(t);
      const id: string = people.rows[0]?.id ?? 'harness-no-such-person';
      const cases: [string, string][] = [
        ['DELETE', '/v1/people'],
        ['POST', '/v1/people'],
        ['PUT', `/v1/people/${encodeURIComponent(id)}`],
        ['PATCH', '/v1/stats'],
        ['POST', '/v1/companies'],
        ['GET', '/v1/exports'],
      ];
      for (const [method, path] of cases) {
        const what = `${method} ${path}`;
        const reply = await t.send(method, path, method === 'GET' || method === 'DELETE' ? {} : { body: '{}', headers: { 'content-type': 'application/json' } });
        t.assert(reply.status >= 400 && reply.status < 500, `${what}: expected a 4xx, got ${reply.status} ${reply.text.slice(0, 200)}`);
        t.envelope(reply, what);
      }
    },
  },
  {
    id: 'errors.bad-input-no-5xx',
    section: SECTION,
    title: 'Malformed input (huge or odd limits, unicode and broken percent-encoded ids, odd filters) never answers 5xx',
    async run(t: CheckContext) {
      for (const { what, reply } of await nastyReplies(t)) {
        t.assert(reply.status < 500, `${what}: answered ${reply.status} ${reply.text.slice(0, 200)}`);
        if (reply.status >= 400) t.envelope(reply, what);
      }
    },
  },
  {
    id: 'errors.no-stack-trace',
    section: SECTION,
    title: 'No error body leaks a stack trace or source file location',
    async run(t: CheckContext) {
      const all = [...(await variedReplies(t)), ...(await nastyReplies(t))];
      let errors = 0;
      for (const { what, reply } of all) {
        if (reply.status < 400) continue;
        errors++;
        // Look at the raw text and at every string of the JSON body, where a stack's newlines are real again.
        const haystack = [reply.text, ...strings(reply.body)].join('\n');
        for (const pattern of STACK_TRACE) {
          const hit = pattern.exec(haystack);
          t.assert(!hit, `${what} (${reply.status}): the body looks like it leaks a stack trace (${show(hit?.[0])}): ${reply.text.slice(0, 200)}`);
        }
      }
      t.assert(errors > 0, 'no probe answered an error');
    },
  },
];
