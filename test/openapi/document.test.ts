import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_COLUMNS } from '../../core/exports/columns.ts';
import { ADMIN_ROUTES, FAULT_ROUTES, SIMULATION_ROUTES } from '../../core/admin-http/routes.ts';
import { ROUTES } from '../../core/http/routes.ts';
import { openApiDocument } from '../../core/openapi/document.ts';
import { clientFor, type Reply } from '../support/client.ts';
import { inProcess } from '../support/targets.ts';
import { createWorld, type World } from '../support/world.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
type Json = Record<string, any>;

const doc = openApiDocument() as Json;

/** Follows a local `$ref`, if the part is one. */
function resolved(part: Json): Json {
  if (!part.$ref) return part;
  return (part.$ref as string).slice(2).split('/').reduce<Json>((node, key) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

/** Every operation of the document as `METHOD /path`, with the operation. */
function operations(): [string, Json][] {
  return Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m): [string, Json] => [`${m.toUpperCase()} ${path}`, item[m]]),
  );
}

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document according to @seriousme/openapi-schema-validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('would be reported invalid with a parameter in the body, as in OpenAPI 2 (the validity check can fail)', async () => {
    const broken = structuredClone(doc);
    broken.components.parameters.Limit.in = 'body';
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('documents every route the API serves, admin routes included, and routes every path it documents', () => {
    const routed = [...ROUTES, ...ADMIN_ROUTES, ...FAULT_ROUTES, ...SIMULATION_ROUTES].map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`).sort();
    expect(operations().map(([name]) => name).sort()).toEqual(routed);
    expect(routed).toContain('GET /v1/exports/{jobId}/download');
    expect(routed).toContain('GET /v1/openapi.json');
  });

  it('asks for no key exactly where the API needs none', () => {
    const open = operations().filter(([, op]) => Array.isArray(op.security) && op.security.length === 0).map(([name]) => name);
    const publicRoutes = ROUTES.filter((r) => r.public).map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`);
    expect(open.sort()).toEqual(publicRoutes.sort());
    expect(doc.security).toEqual([{ ApiKey: [] }]);
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
  });

  it('gives every operation a unique operationId, and every response the common headers (admin ones no rate-limit headers)', () => {
    const ids = operations().map(([, op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const api = operations().filter(([, op]) => !op.tags.includes('Admin'));
    const responses = [...api.flatMap(([, op]) => Object.values<Json>(op.responses)), ...Object.values<Json>(doc.components.responses)];
    for (const response of responses.map(resolved)) {
      for (const header of ['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining']) {
        expect(resolved(response.headers[header]).required, `${response.description} ${header}`).toBe(true);
      }
    }
    const admin = operations().filter(([, op]) => op.tags.includes('Admin'));
    expect(admin.length).toBeGreaterThan(20);
    for (const [name, op] of admin) {
      expect(op.security, name).toEqual([{ AdminToken: [] }]);
      for (const response of Object.values<Json>(op.responses).map(resolved)) {
        expect(resolved(response.headers['X-Request-Id']).required, `${name} ${response.description}`).toBe(true);
        expect(response.headers['X-RateLimit-Remaining'], `${name} ${response.description}`).toBeUndefined();
      }
    }
  });

  it('names every error code of the API in the envelope, and each 429 of the limits carries Retry-After', () => {
    const codes = doc.components.schemas.Error.properties.error.properties.code.enum;
    expect(codes).toEqual([
      'bad_request', 'validation_error', 'invalid_cursor', 'unauthorized', 'forbidden', 'scope_not_supported', 'not_found',
      'method_not_allowed', 'rate_limit_exceeded', 'too_many_exports', 'internal_error',
    ]);
    expect(resolved(doc.components.responses.RateLimited).headers['Retry-After']).toEqual({ $ref: '#/components/headers/Retry-After' });
    expect(resolved(doc.components.responses.MethodNotAllowed).headers.Allow).toEqual({ $ref: '#/components/headers/Allow' });
    for (const [name, op] of operations().filter(([, op]) => op.security === undefined)) {
      expect(Object.keys(op.responses).sort(), name).toEqual(expect.arrayContaining(['400', '401', '403', '429', '500']));
    }
  });

  it('derives the CSV columns from the Person schema: its fields with companyData flattened, then the export-only two', () => {
    const person = Object.keys(doc.components.schemas.Person.properties);
    const company = Object.keys(doc.components.schemas.CompanyData.properties);
    const flattened = person.flatMap((field) =>
      field === 'companyData' ? company.map((c) => (c === 'companyId' ? c : c === 'standardizedIndustry' ? 'companyIndustry' : `company${c[0]!.toUpperCase()}${c.slice(1)}`)) : [field],
    );
    expect([...EXPORT_COLUMNS]).toEqual([...flattened, 'campaign', 'crmStatus']);
    const csv = doc.paths['/v1/exports/{jobId}/download'].get.responses['200'].content['text/csv'].schema;
    expect(csv.pattern).toBe(`^${EXPORT_COLUMNS.join(',')}\\r\\n`);
  });
});

describe('the OpenAPI document against the API it describes', () => {
  let world: World;
  let client: ReturnType<typeof clientFor>;
  beforeAll(async () => {
    world = await createWorld();
    client = clientFor((await inProcess.start(world.api)).call);
  });

  it('lists the Person, CompanyData and Company fields in the order the API writes them', async () => {
    const person = (await client.get('/v1/people/per_001', world.accountKey)).body.data;
    const company = (await client.get('/v1/companies/co_01', world.accountKey)).body.data;
    expect(Object.keys(person)).toEqual(Object.keys(doc.components.schemas.Person.properties));
    expect(Object.keys(person.companyData)).toEqual(Object.keys(doc.components.schemas.CompanyData.properties));
    expect(Object.keys(company)).toEqual(Object.keys(doc.components.schemas.Company.properties));
  });

  it('documents exactly the query parameters each keyed endpoint and the download accept', async () => {
    const ids: Record<string, string> = { id: 'per_001', jobId: 'exp_000000000000000000000000' };
    for (const [name, op] of operations()) {
      if (op.operationId === 'health' || op.operationId === 'openApiDocument' || op.tags.includes('Admin')) continue;
      const [method, template] = name.split(' ') as [string, string];
      const path = template.replace(/\{(\w+)\}/g, (_, p: string) => (template.startsWith('/v1/companies') ? 'co_01' : ids[p]!));
      const reply: Reply = await client.send(method, `${path}?zz_probe=1`, world.accountKey);
      expect(reply.status, name).toBe(400);
      const allowed = /allowed: (.*)\.$/.exec(reply.body.error.message)?.[1]?.split(', ').filter(Boolean) ?? null;
      const documented = (op.parameters ?? []).map(resolved).filter((p: Json) => p.in === 'query').map((p: Json) => p.name);
      expect(documented.sort(), name).toEqual(allowed?.sort());
    }
  });

  it('documents no parameters for health and this document, which ignore any they are given', async () => {
    for (const path of ['/v1/health', '/v1/openapi.json']) {
      expect((await client.get(`${path}?zz_probe=1`)).status, path).toBe(200);
      const op = doc.paths[path].get;
      expect(op.parameters, path).toBeUndefined();
    }
  });
});
