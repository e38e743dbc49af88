/** Where each error code of the spec can be asked for, and the status it comes with (`key: 'none'`: without a key; else with the account key). */
export const WHERE: Record<string, { method: string; path: string; status: number; key?: 'none' }> = {
  bad_request: { method: 'GET', path: '/v1/people', status: 400 },
  validation_error: { method: 'GET', path: '/v1/stats', status: 400 },
  invalid_cursor: { method: 'GET', path: '/v1/people/per_001/events', status: 400 },
  unauthorized: { method: 'GET', path: '/v1/companies', status: 401 },
  forbidden: { method: 'GET', path: '/v1/companies/co_01', status: 403 },
  scope_not_supported: { method: 'POST', path: '/v1/exports', status: 403 },
  not_found: { method: 'GET', path: '/v1/people/per_001', status: 404 },
  rate_limit_exceeded: { method: 'GET', path: '/v1/people', status: 429 },
  too_many_exports: { method: 'POST', path: '/v1/exports', status: 429 },
  internal_error: { method: 'GET', path: '/v1/health', status: 500, key: 'none' },
};
