import { toHex } from '../auth/api-key.ts';

/** Signs texts under one secret: hex HMAC-SHA256. */
export type HmacSigner = (text: string) => string | Promise<string>;

/**
 * The hashing the API does: SHA-256 of API keys, HMAC-SHA256 of cursors and download links.
 * The core defaults to WebCrypto, which exists everywhere but is asynchronous; an adapter may
 * hand in a synchronous implementation of the same digests (each WebCrypto call is a thread-pool
 * round trip on Node, a large share of a cheap request).
 */
export interface Digests {
  /** Lowercase hex SHA-256 of the UTF-8 text. */
  sha256Hex(text: string): string | Promise<string>;
  /** A signer of UTF-8 texts under the UTF-8 secret. */
  hmacSha256(secret: string): HmacSigner;
}

/** The digests through `crypto.subtle`: only web-standard APIs. */
export const webDigests: Digests = {
  async sha256Hex(text) {
    return toHex(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))));
  },
  hmacSha256(secret) {
    const key = crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    return async (text) => toHex(new Uint8Array(await crypto.subtle.sign('HMAC', await key, new TextEncoder().encode(text))));
  },
};
