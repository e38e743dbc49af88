import { ApiError } from '../http/errors.ts';
import type { Caller } from '../scope/view.ts';
import type { Digests } from '../crypto/digests.ts';
import type { KeysStore } from '../store/keys-store.ts';
import { constantTimeEqual, hashKey, isWellFormedKey, keyLookup } from './api-key.ts';
import type { CoreRequest } from '../http/reply.ts';

const FORBIDDEN_MESSAGE = 'The X-API-Key header does not carry a valid, active API key.';

/**
 * Finds who is calling from the `X-API-Key` header: 401 when it is missing, 403 when it is
 * malformed, unknown, revoked or rotated away (one message for all, so nothing is revealed).
 * `withSites` has the key's lookup bring its account's sites too (see {@link Caller.accountSites}).
 */
export async function authenticate(request: CoreRequest, keys: KeysStore, digests: Digests, withSites = false): Promise<Caller> {
  const key = request.headers.get('x-api-key');
  if (key === null || key.trim() === '') {
    throw new ApiError(401, 'unauthorized', 'The X-API-Key header is missing: every endpoint but /v1/health needs an API key.');
  }
  // Hash before looking anything up, so a malformed key costs what a well-formed one does.
  const hash = await hashKey(key, digests);
  if (!isWellFormedKey(key)) throw new ApiError(403, 'forbidden', FORBIDDEN_MESSAGE);
  let match = null;
  for (const candidate of await keys.findByLookup(keyLookup(key), withSites)) {
    if (constantTimeEqual(candidate.hash, hash)) match = candidate;
  }
  if (!match || match.revokedAt !== null) throw new ApiError(403, 'forbidden', FORBIDDEN_MESSAGE);
  const caller: Caller = { accountId: match.accountId, keyPk: match.pk, scopeSite: match.site };
  if (match.accountSites) caller.accountSites = match.accountSites;
  return caller;
}
