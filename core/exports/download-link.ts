import { constantTimeEqual, toHex } from '../auth/api-key.ts';

/** How long a download link works, counted from the job's completedAt. */
export const DOWNLOAD_LINK_SECONDS = 900;

/**
 * Signs download links like presigned URLs: the link names the job and its expiry, and an
 * HMAC-SHA256 over both proves the API issued it, so it works without an API key.
 */
export class DownloadLinkSigner {
  readonly #key: Promise<CryptoKey>;

  constructor(secret: string) {
    this.#key = crypto.subtle.importKey('raw', new TextEncoder().encode(`download:${secret}`), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  }

  /** The signature of a link to `jobId` that expires at `expires` (epoch seconds). */
  async sign(jobId: string, expires: number): Promise<string> {
    const mac = await crypto.subtle.sign('HMAC', await this.#key, new TextEncoder().encode(`${jobId}\n${expires}`));
    return toHex(new Uint8Array(mac));
  }

  /** Whether the signature is this API's for that job and expiry (expiry itself is checked by the caller). */
  async verify(jobId: string, expires: number, signature: string): Promise<boolean> {
    return constantTimeEqual(await this.sign(jobId, expires), signature);
  }
}
