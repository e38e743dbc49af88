import { constantTimeEqual } from '../auth/api-key.ts';
import { webDigests, type Digests, type HmacSigner } from '../crypto/digests.ts';

/** How long a download link works, counted from the job's completedAt. */
export const DOWNLOAD_LINK_SECONDS = 900;

/**
 * Signs download links like presigned URLs: the link names the job and its expiry, and an
 * HMAC-SHA256 over both proves the API issued it, so it works without an API key.
 */
export class DownloadLinkSigner {
  readonly #hmac: HmacSigner;

  constructor(secret: string, digests: Digests = webDigests) {
    this.#hmac = digests.hmacSha256(`download:${secret}`);
  }

  /** The signature of a link to `jobId` that expires at `expires` (epoch seconds). */
  async sign(jobId: string, expires: number): Promise<string> {
    return this.#hmac(`${jobId}\n${expires}`);
  }

  /**
   * Whether the signature is this API's for that job and expiry as the link spells it (expiry
   * itself is checked by the caller): only the spelling that was signed passes, not `+n` or `n.0`.
   */
  async verify(jobId: string, expiresText: string, signature: string): Promise<boolean> {
    return constantTimeEqual(await this.#hmac(`${jobId}\n${expiresText}`), signature);
  }
}
