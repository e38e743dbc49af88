/** Broken variants of Authentication: the 401/403 split. */
import { endpointOf, errorBody, mapJson, readJson, withHeaders, withText, type Variant } from './kit.ts';

export const authVariants: Variant[] = [
  {
    id: 'missing-key-403',
    rule: 'A request without X-API-Key answers 401 unauthorized.',
    only: ['auth.'],
    wrap: (api) => ({
      async fetch(request) {
        const response = await api.fetch(request);
        if (response.status !== 401) return response;
        return withText(response, errorBody(403, 'forbidden', 'The X-API-Key header does not carry a valid, active API key.'), 403);
      },
    }),
  },
  {
    id: 'bad-key-401',
    rule: 'An invalid or revoked key answers 403 forbidden.',
    only: ['auth.'],
    wrap: (api) => ({
      async fetch(request) {
        const response = await api.fetch(request);
        if (response.status !== 403 || endpointOf(request).endpoint === 'download' || !request.headers.get('x-api-key')) return response;
        const read = await readJson(response);
        if (read?.body?.error?.code !== 'forbidden') return response;
        return withText(response, errorBody(401, 'unauthorized', 'The X-API-Key header is not valid.'), 401);
      },
    }),
  },
];

/** Broken variants of the error envelope and the headers every response carries. */
export const envelopeVariants: Variant[] = [
  {
    id: 'error-without-status',
    rule: 'Every error body is { error: { code, message, status } }, where status repeats the HTTP status.',
    only: ['auth.', 'errors.'],
    wrap: (api) => ({
      async fetch(request) {
        const response = await api.fetch(request);
        if (response.status < 400) return response;
        return mapJson(response, (body) => {
          if (body?.error && typeof body.error === 'object') delete body.error.status;
        });
      },
    }),
  },
  {
    id: 'no-request-id-on-errors',
    rule: 'Every response carries the header X-Request-Id, error responses included.',
    only: ['errors.', 'auth.'],
    wrap: (api) => ({
      async fetch(request) {
        const response = await api.fetch(request);
        if (response.status < 400) return response;
        return withHeaders(response, (h) => h.delete('x-request-id'));
      },
    }),
  },
  {
    id: 'constant-request-id',
    rule: 'X-Request-Id is a unique identifier of each request.',
    only: ['errors.', 'auth.'],
    wrap: (api) => ({
      async fetch(request) {
        const response = await api.fetch(request);
        return withHeaders(response, (h) => h.set('x-request-id', 'req_0123456789abcdef0123456789abcdef'));
      },
    }),
  },
];
