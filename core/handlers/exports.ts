import { ApiError } from '../http/errors.ts';
import type { RequestContext } from '../http/context.ts';

/** `POST /v1/exports`: domain-scoped keys may not export; account keys start a job. */
export async function startExport(ctx: RequestContext): Promise<Response> {
  if (ctx.caller.scopeSite) {
    throw new ApiError(403, 'scope_not_supported', 'Domain-scoped keys cannot start exports; use an account key.');
  }
  throw new ApiError(501, 'not_implemented', 'Exports are not available in this build yet.');
}
