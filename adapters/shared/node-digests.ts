import { createHash, createHmac } from 'node:crypto';
import type { Digests } from '../../core/index.ts';

/**
 * The core's digests through `node:crypto`, which Node, Bun and Deno all provide: synchronous,
 * so hashing a key or signing a cursor never waits on a thread pool. Same outputs as WebCrypto.
 */
export const nodeDigests: Digests = {
  sha256Hex: (text) => createHash('sha256').update(text, 'utf8').digest('hex'),
  hmacSha256: (secret) => (text) => createHmac('sha256', secret).update(text, 'utf8').digest('hex'),
};
