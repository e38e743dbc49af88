import { createHmac, hash } from 'node:crypto';
import type { Digests } from '../../core/index.ts';

/**
 * The core's digests through `node:crypto` (Node, Bun and Deno): synchronous, so hashing never
 * waits on a thread pool. SHA-256 uses the one-shot `hash`, cheaper than a Hash object per key.
 */
export const nodeDigests: Digests = {
  sha256Hex: (text) => hash('sha256', text, 'hex'),
  hmacSha256: (secret) => (text) => createHmac('sha256', secret).update(text, 'utf8').digest('hex'),
};
