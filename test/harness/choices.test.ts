import { describe, expect, it } from 'vitest';
import { hotLeads, lastSeenAfter, type FilterName } from '../../harness/choices.ts';
import { runConformance, type Check, type Profile } from '../../harness/index.ts';
import { PARAMETERS } from '../../core/openapi/parameters.ts';

/**
 * The OpenAPI rule of discovery, against a stand-in server that serves only a document: a date
 * parameter is the lastSeen-after filter, a boolean-ish one the hot-leads filter, a hint in the
 * name settles a tie, and a profile value always wins.
 */
const query = (name: string, schema: object, description = '') => ({ name, in: 'query', schema, description });
const SHOWN = [query('limit', { type: 'integer' }), query('cursor', { type: 'string' }), query('domain', { type: 'string' }), query('client_ref', { type: 'string' })];

/** A document whose GET /v1/people takes these parameters (besides the spec's own), one of them through a $ref. */
function documentWith(params: object[]): object {
  const [first, ...rest] = params;
  return {
    openapi: '3.1.0',
    info: { title: 'stand-in', version: '1' },
    components: { parameters: { First: first } },
    paths: { '/v1/people': { get: { parameters: [...SHOWN, { $ref: '#/components/parameters/First' }, ...rest] } } },
  };
}

/** What discovery finds for each filter against a server serving `doc`, with the profile given. */
async function discover(doc: object, profile: Partial<Profile> = {}): Promise<Record<string, FilterName | string>> {
  const found: Record<string, FilterName | string> = {};
  const probe = (id: string, find: Check['run']): Check => ({ id, section: 'Test', title: id, run: find });
  // One person, a hot lead: too little for probing to tell a filter from an ignored parameter.
  const person = { id: 'per_1', lastSeen: '2026-11-01T00:00:00Z', isHotLead: true };
  const server: typeof fetch = async (input) => {
    const path = new URL(String(input instanceof Request ? input.url : input)).pathname;
    if (path === '/v1/openapi.json') return Response.json(doc);
    if (path === '/v1/people') return Response.json({ data: [person], pagination: { limit: 100, count: 1 } });
    return Response.json({ error: { code: 'not_found', message: 'stand-in', status: 404 } }, { status: 404 });
  };
  const report = await runConformance({ baseUrl: 'http://stand-in.test', accountKey: 'k', scopedKeys: [], profile, fetch: server }, [
    probe('lastSeen', async (t) => void (found.lastSeen = await lastSeenAfter(t, 'people'))),
    probe('hot', async (t) => void (found.hot = await hotLeads(t))),
  ]);
  for (const r of report.results) if (r.verdict !== 'passed') found[r.id] = `${r.verdict} (${r.profileKey}): ${r.detail}`;
  return found;
}

describe('discovering the filter names from an OpenAPI document', () => {
  it('takes the date parameter for lastSeen-after and the boolean one for hot leads', async () => {
    const found = await discover(documentWith([query('updatedAfter', { type: 'string', format: 'date-time' }), query('onlyHot', { type: 'boolean' })]));
    expect(found).toEqual({ lastSeen: { param: 'updatedAfter', value: '', source: 'openapi' }, hot: { param: 'onlyHot', value: 'true', source: 'openapi' } });
  });

  it("finds this API's own filters in the document it serves, its calendar-exact date pattern included", async () => {
    const found = await discover(documentWith([PARAMETERS.LastSeenAfter, PARAMETERS.HotLeads]));
    expect(found).toEqual({ lastSeen: { param: 'last_seen_after', value: '', source: 'openapi' }, hot: { param: 'hot_leads', value: 'true', source: 'openapi' } });
  });

  it('reads a date pattern and an enum of 1/0, and lets the name settle a tie between two dates', async () => {
    const found = await discover(
      documentWith([
        query('created_from', { type: 'string', format: 'date' }),
        query('seen_after', { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' }),
        query('hot', { type: 'string', enum: ['1', '0'] }),
      ]),
    );
    expect(found).toEqual({ lastSeen: { param: 'seen_after', value: '', source: 'openapi' }, hot: { param: 'hot', value: '1', source: 'openapi' } });
  });

  it('lets a profile value win over the document', async () => {
    const found = await discover(documentWith([query('since', { type: 'string', format: 'date-time' }), query('hot_only', { type: 'boolean' })]), { lastSeenAfterParam: 'after', hotLeadsParam: 'hot', hotLeadsValue: 'yes' });
    expect(found).toEqual({ lastSeen: { param: 'after', value: '', source: 'profile' }, hot: { param: 'hot', value: 'yes', source: 'profile' } });
  });

  it('falls back to probing when the document does not decide, and is n/a, naming the profile key, when probing cannot either', async () => {
    // Two dates and two flags, none hinted: the document does not decide.
    const found = await discover(
      documentWith([query('from', { type: 'string', format: 'date' }), query('to', { type: 'string', format: 'date' }), query('a', { type: 'boolean' }), query('b', { type: 'boolean' })]),
    );
    expect(found.lastSeen).toBe("n/a (lastSeenAfterParam): the lastSeen-after filter's name is not known: the first page of people shows fewer than two distinct lastSeen values, so a filter on it cannot be told from an ignored parameter");
    expect(found.hot).toBe("n/a (hotLeadsParam): the hot-leads filter's name is not known: the first page of people holds no one who is not a hot lead, so a hot-leads filter cannot be told from an ignored parameter");
  });
});
