import { AdminError } from '../admin/inputs.ts';
import { constantTimeEqual } from '../auth/api-key.ts';
import type { Digests } from '../crypto/digests.ts';
import { ApiError, badRequest } from '../http/errors.ts';
import { Query } from '../http/query.ts';
import type { AdminRoute, AdminServices } from './context.ts';
import type { CoreRequest, Reply } from '../http/reply.ts';

const FORBIDDEN = 'The Authorization header does not carry the admin token.';

/**
 * Answers admin routes: the `Authorization: Bearer <token>` check (401 when the header is missing,
 * an `X-API-Key` being no substitute; 403 when it is wrong, compared as SHA-256 digests in constant
 * time), then the handler, whose AdminErrors become 400 `bad_request` with their message.
 */
export class AdminGate {
  readonly #tokenHash: Promise<string>;

  constructor(
    token: string,
    private readonly digests: Digests,
    private readonly services: AdminServices,
  ) {
    this.#tokenHash = Promise.resolve(digests.sha256Hex(token));
  }

  /** The route's answer, or the ApiError that stands for it. */
  async handle(request: CoreRequest, url: URL, route: AdminRoute, params: Record<string, string>): Promise<Reply> {
    await this.#authorize(request);
    try {
      const reply = await route.handler({ request, url, params, query: new Query(url.searchParams), services: this.services });
      // A write is answered once reads show it (bounded): a sandbox user lists what they just loaded.
      if (route.method !== 'GET') await this.services.catchUpReads();
      return reply;
    } catch (error) {
      if (error instanceof AdminError) throw badRequest(error.message);
      throw error;
    }
  }

  async #authorize(request: CoreRequest): Promise<void> {
    const header = request.headers.get('authorization');
    if (header === null || header.trim() === '') {
      throw new ApiError(401, 'unauthorized', 'The Authorization header is missing: admin routes need Authorization: Bearer <admin token> (an API key does not open them).');
    }
    const token = /^Bearer +(\S+)\s*$/i.exec(header)?.[1] ?? '';
    // Hash whatever was sent, so a wrong token costs what the right one does.
    const [sent, expected] = await Promise.all([this.digests.sha256Hex(token), this.#tokenHash]);
    if (token === '' || !constantTimeEqual(sent, expected)) throw new ApiError(403, 'forbidden', FORBIDDEN);
  }
}
