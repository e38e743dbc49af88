import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../scripts/demo/rng.ts';
import { TOKEN, adminClient } from '../admin-http/support.ts';
import { clientFor, type Reply } from '../support/client.ts';
import { Gate } from '../support/gate.ts';
import { inProcess } from '../support/targets.ts';
import { createWorld, type World } from '../support/world.ts';

// ajv-formats is CommonJS: its default import is module.exports, which carries the plugin as `default` too.
const addFormats = addFormatsModule.default;
type Json = Record<string, any>;

/**
 * Inputs against the document the API serves: whatever a parameter's or a body's schema allows,
 * the server accepts, and whatever the server refuses, the schema refuses too. Each schema is
 * compiled with ajv and its formats in full mode, as a client's validator would read it.
 */
describe('the OpenAPI document and the server agree on inputs', () => {
  let world: World;
  let client: ReturnType<typeof clientFor>;
  let admin: ReturnType<typeof adminClient>;
  let doc: Json;
  // Export jobs are held, so every start is judged on its filters alone and none runs.
  const gate = new Gate();
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);

  /** A validator for the schema of `name` among the parameters of `operation` (`get /v1/people`). */
  const parameter = (operation: string, name: string) => {
    const [method, path] = operation.split(' ');
    const found = (resolveRefs(doc.paths[path!][method!].parameters, doc) as Json[]).find((p) => p.name === name);
    expect(found, `${operation} documents ${name}`).toBeDefined();
    const validate = ajv.compile(found!.schema);
    return (value: string) => validate(value);
  };
  /** A validator for the JSON body of `operation`. */
  const body = (operation: string) => {
    const [method, path] = operation.split(' ');
    const schema = doc.paths[path!][method!].requestBody.content['application/json'].schema;
    const validate = ajv.compile(resolveRefs(schema, doc) as object);
    return (value: unknown) => validate(value);
  };
  /** Whether the server took the value: its answer is not a 400. */
  const accepted = (reply: Reply) => {
    if (reply.status === 400) return false;
    expect(reply.status, JSON.stringify(reply.body).slice(0, 200)).toBeLessThan(500);
    return true;
  };

  beforeAll(async () => {
    world = await createWorld({ admin: { token: TOKEN }, rateLimits: { accountPerHour: 1_000_000 }, exports: { pace: gate.pace } });
    const { call } = await inProcess.start(world.api);
    client = clientFor(call);
    admin = adminClient(call);
    doc = (await client.get('/v1/openapi.json')).body;
  });
  afterAll(async () => {
    gate.open();
    await world.api.exportsIdle();
    await world.close();
  });

  it('last_seen_after: the document allows exactly the dates and date-times the server takes, every calendar date among them', async () => {
    const allows = parameter('get /v1/people', 'last_seen_after');
    const rng = createRng(57);
    const two = (n: number) => String(n).padStart(2, '0');
    const years = ['0000', '0001', '0050', '0099', '0100', '0400', '1900', '1970', '2000', '2024', '2025', '2026', '2100', '9999'];
    const values = ['0000-00-00', '2026-02-30', '2024-02-29', '2025-02-29', '2000-02-29', '1900-02-29', '0000-02-29', '0000-01-01', '0050-03-01', '2026-11-01T24:00:00Z', '2026-11-01T23:59:60Z', '2026-11-01T09:30Z', '2026-11-01T09:30:00+23:59', '2026-11-01T09:30:00+24:00', '2026-11-01T09:30:00+05:60', '2026-11-01t09:30:00z', '2026-11-01 09:30:00Z', '2026-11-01T09:30:00.123456789Z', '2026-11-01T09:30:00.1234567891Z', '2026-11-01T09:30:00+0530', '2026-11-01T09:30:00'];
    for (let i = 0; i < 300; i++) {
      const date = `${rng.pick(years)}-${two(rng.int(0, 13))}-${two(rng.int(0, 32))}`;
      values.push(date);
      const zone = rng.pick(['Z', '+00:00', '-23:59', `+${two(rng.int(0, 25))}:${two(rng.int(0, 61))}`]);
      const seconds = rng.chance(0.3) ? '' : `:${two(rng.int(0, 61))}${rng.chance(0.3) ? '.5' : ''}`;
      values.push(`${date}T${two(rng.int(0, 25))}:${two(rng.int(0, 61))}${seconds}${zone}`);
    }
    const disagreements: string[] = [];
    for (const value of values) {
      const reply = await client.get(`/v1/people?limit=1&last_seen_after=${encodeURIComponent(value)}`, world.accountKey);
      if (accepted(reply) !== allows(value)) disagreements.push(`${value}: the server ${accepted(reply) ? 'takes' : 'refuses'} it, the document ${allows(value) ? 'allows' : 'refuses'} it`);
    }
    expect(disagreements).toEqual([]);
    // The days of the calendar: every one is taken, the day after a month's last is not.
    expect(allows('2024-02-29') && allows('0000-01-01') && allows('9999-12-31')).toBe(true);
    expect(allows('0000-00-00') || allows('2026-02-30')).toBe(false);
  });

  it('domain: every value the document allows for GET /v1/stats is a hostname the server takes', async () => {
    const allows = parameter('get /v1/stats', 'domain');
    const rng = createRng(7);
    const refused = ['', ' ', 'not a host', 'http://alpha.example', 'alpha.example/x', '-alpha.example', 'alpha-.example', 'a..example', '.alpha.example', 'alpha_1.example', '*.alpha.example', 'bücher.example', `${'a'.repeat(64)}.example`, 'alpha.example:443'];
    const values = [...refused, 'alpha.example', 'ALPHA.Example.', `${'a'.repeat(63)}.example`, `${'abcdefghi.'.repeat(25)}abc`, `${'abcdefghi.'.repeat(25)}abcd`];
    for (let i = 0; i < 200; i++) {
      values.push(Array.from({ length: rng.int(1, 12) }, () => rng.pick(['a', 'Z', '0', '-', '.', '_', ' ', '*', 'é', '/', ':'])).join(''));
    }
    const disagreements: string[] = [];
    for (const value of values) {
      const reply = await client.get(`/v1/stats?domain=${encodeURIComponent(value)}`, world.accountKey);
      if (allows(value) && !accepted(reply)) disagreements.push(`${JSON.stringify(value)}: allowed by the document, refused by the server`);
    }
    expect(disagreements).toEqual([]);
    for (const value of refused) expect(allows(value), JSON.stringify(value)).toBe(false);
  });

  it('export filters: the body schema refuses what the server refuses, control characters and blank text included', async () => {
    const allows = body('post /v1/exports');
    const texts = ['x', 'Retail', ' Retail ', '', ' ', '\t', 'a\u0000b', '\u0000', 'a\nb', 'a\u007f', 'a\u001fb', '\ud800', 'a\udc00b', '😀', 'é', ',', ' , ', 'a,,b', 'a, b'];
    const bodies: Json[] = [];
    for (const text of texts) {
      for (const key of ['industries', 'regions', 'pages', 'campaigns']) bodies.push({ [key]: text }, { [key]: [text] }, { [key]: ['x', text] });
      bodies.push({ search: text }, { filename: text }, { sortBy: text }, { timeframe: text });
    }
    bodies.push({ domains: 'alpha.example' }, { domains: ['alpha.example'] }, { domains: ['ALPHA.example.'] }, { domains: ['not a host'] }, { domains: 'alpha.example, not a host' }, { domains: ['-x.example'] });
    const disagreements: string[] = [];
    for (const filters of bodies) {
      const reply = await client.send('POST', '/v1/exports', world.accountKey, JSON.stringify(filters), { 'content-type': 'application/json' });
      if (accepted(reply) !== allows(filters)) disagreements.push(`${JSON.stringify(filters)}: the server ${accepted(reply) ? 'takes' : 'refuses'} it, the document ${allows(filters) ? 'allows' : 'refuses'} it`);
    }
    expect(disagreements).toEqual([]);
  });

  it('admin bodies: a text field the server refuses empty is minLength 1 in the document', async () => {
    const endpoint = (await admin.post('/_admin/accounts/acc_a/webhooks', { url: 'https://hooks.example/in' })).body.data.id;
    const cases: [string, string, Json][] = [
      ['post /_admin/accounts', '/_admin/accounts', { id: '', name: 'Partner' }],
      ['post /_admin/accounts', '/_admin/accounts', { name: '' }],
      ['post /_admin/accounts/{accountId}/sites', '/_admin/accounts/acc_a/sites', { domain: '' }],
      ['post /_admin/accounts/{accountId}/sites', '/_admin/accounts/acc_a/sites', { domain: 'empty-ref.example', clientRef: '' }],
      ['post /_admin/accounts/{accountId}/keys', '/_admin/accounts/acc_a/keys', { label: '' }],
      ['post /_admin/accounts/{accountId}/keys', '/_admin/accounts/acc_a/keys', { domain: '' }],
      ['post /_admin/accounts/{accountId}/webhooks', '/_admin/accounts/acc_a/webhooks', { url: '' }],
      ['post /_admin/accounts/{accountId}/webhooks', '/_admin/accounts/acc_a/webhooks', { url: 'https://hooks.example/in', secret: '' }],
      ['post /_admin/accounts/{accountId}/webhooks', '/_admin/accounts/acc_a/webhooks', { url: 'https://hooks.example/in', events: [''] }],
      ['post /_admin/clock', '/_admin/clock', { now: '' }],
      ['post /_admin/clock', '/_admin/clock', { now: '2026-02-30' }],
      ['patch /_admin/webhooks/{endpointId}', `/_admin/webhooks/${endpoint}`, { url: '' }],
      ['patch /_admin/webhooks/{endpointId}', `/_admin/webhooks/${endpoint}`, { events: ['person.deleted'] }],
      ['post /_admin/webhooks/{endpointId}/rotate-secret', `/_admin/webhooks/${endpoint}/rotate-secret`, { secret: '' }],
    ];
    const disagreements: string[] = [];
    for (const [operation, path, sent] of cases) {
      const reply = await admin.send(operation.split(' ')[0]!.toUpperCase(), path, sent);
      if (body(operation)(sent) && !accepted(reply)) disagreements.push(`${operation} ${JSON.stringify(sent)}: allowed by the document, refused by the server: ${reply.body.error?.message}`);
    }
    expect(disagreements).toEqual([]);
  });

  it('load bodies: the document allows exactly the companies, people and events the server takes', async () => {
    // What only the account can tell (a registered site, a known company or person, a parsable
    // time, first before last) is the loader's own check: every case here passes those.
    const visit = { domain: 'alpha.example', visitCount: 1, firstSeen: '2026-11-01T00:00:00Z', lastSeen: '2026-11-02T00:00:00Z' };
    const values = ['', 'x', ' ', 'a\u0000b', '\ud800', '😀', 'x'.repeat(129), 0, -1, 1, 2.5, 101, true, false, null, {}, [], [1]];
    const bases: [string, Json, string[]][] = [
      ['companies', { id: 'co_agree', name: 'Agree' }, ['id', 'name', 'domain', 'region', 'employeeCount', 'isHotCompany']],
      ['people', { id: 'per_agree', visits: [visit] }, ['id', 'email', 'isHotLead', 'crmStatus', 'visits']],
      ['events', { eventId: 'evt_agree', personId: 'per_000', sessionId: 's1', eventType: 'page_view', timestamp: '2026-11-20T10:00:00Z', url: 'https://alpha.example/', domain: 'alpha.example' }, ['eventId', 'sessionId', 'eventType', 'url', 'scrollPercentage', 'pageTitle']],
    ];
    const bodies: [string, unknown][] = [];
    for (const [kind, base, fields] of bases) {
      bodies.push([kind, [base]], [kind, []]);
      for (const field of Object.keys(base)) bodies.push([kind, [{ ...base, [field]: undefined }]]);
      for (const field of fields) for (const value of values) bodies.push([kind, [{ ...base, [field]: value }]]);
    }
    bodies.push(['people', [{ id: 'per_agree', crmStatus: 'customer', visits: [visit] }]], ['people', [{ id: 'per_agree', companyId: 5, visits: [visit] }]]);
    for (const [field, value] of [['visitCount', 0], ['visitCount', 2], ['visitCount', 1.5], ['visitCount', '1'], ['firstSeen', 1_762_000_000_000], ['firstSeen', true], ['firstSeen', null], ['domain', ''], ['domain', 5]] as const) {
      bodies.push(['people', [{ id: 'per_agree', visits: [{ ...visit, [field]: value }] }]]);
    }
    bodies.push(['people', [{ id: 'per_agree', visits: [visit, 5] }]], ['events', [{ ...bases[2]![1], timestamp: 1_763_632_800_000 }]]);
    const disagreements: string[] = [];
    for (const [kind, sent] of bodies) {
      const json = JSON.parse(JSON.stringify(sent));
      const reply = await admin.post(`/_admin/accounts/acc_a/${kind}`, json);
      const allowed = body(`post /_admin/accounts/{accountId}/${kind}`)(json);
      if (accepted(reply) !== allowed) disagreements.push(`${kind} ${JSON.stringify(json)}: the server ${accepted(reply) ? 'takes' : `refuses (${reply.body.error.message})`}, the document ${allowed ? 'allows' : 'refuses'} it`);
    }
    expect(disagreements).toEqual([]);
  });
});

/** `schema` with its local `$ref`s replaced by what they point at, so it compiles on its own. */
function resolveRefs(schema: unknown, doc: Json): unknown {
  if (Array.isArray(schema)) return schema.map((s) => resolveRefs(s, doc));
  if (schema === null || typeof schema !== 'object') return schema;
  const ref = (schema as Json).$ref as string | undefined;
  if (ref?.startsWith('#/')) return resolveRefs(ref.slice(2).split('/').reduce<Json>((node, key) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc), doc);
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, resolveRefs(v, doc)]));
}
