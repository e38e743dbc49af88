import type { Check } from '../types.ts';

const SECTION = 'Authentication';
const UNKNOWN_KEY = `vi_live_${'0'.repeat(40)}`;

export const authChecks: Check[] = [
  {
    id: 'auth.health-needs-no-key',
    section: 'Endpoints',
    title: 'GET /v1/health answers 200 without a key',
    async run(t) {
      t.status(await t.get('/v1/health', { key: null }), 200, 'GET /v1/health without a key');
    },
  },
  {
    id: 'auth.missing-key-401',
    section: SECTION,
    title: 'Every endpoint but health answers 401 unauthorized without X-API-Key',
    async run(t) {
      for (const path of ['/v1/people', '/v1/companies', '/v1/stats', '/v1/people/any-id', '/v1/people/any-id/events', '/v1/companies/any-id', '/v1/exports/any-id']) {
        t.error(await t.get(path, { key: null }), 401, 'unauthorized', `GET ${path} without a key`);
      }
      t.error(await t.send('POST', '/v1/exports', { key: null }), 401, 'unauthorized', 'POST /v1/exports without a key');
    },
  },
  {
    id: 'auth.unknown-key-403',
    section: SECTION,
    title: 'A well-formed key that was never issued answers 403 forbidden',
    async run(t) {
      t.error(await t.get('/v1/people', { key: UNKNOWN_KEY }), 403, 'forbidden', 'GET /v1/people with an unknown key');
    },
  },
  {
    id: 'auth.malformed-key-403',
    section: SECTION,
    title: 'A malformed key answers 403 forbidden, not 401',
    async run(t) {
      for (const key of ['not-a-key', `${t.accountKey}0`, t.accountKey.slice(0, -1)]) {
        t.error(await t.get('/v1/people', { key }), 403, 'forbidden', `GET /v1/people with key ${JSON.stringify(key.slice(0, 12))}…`);
      }
    },
  },
  {
    id: 'auth.account-key-reads',
    section: SECTION,
    title: 'The account key reads every data endpoint',
    async run(t) {
      for (const path of ['/v1/people', '/v1/companies', '/v1/stats']) t.status(await t.get(path), 200, `GET ${path}`);
    },
  },
];
