import type { Digests } from '../crypto/digests.ts';

/** Every key is this prefix followed by 40 lowercase hex characters. */
export const KEY_PREFIX = 'vi_live_';
const KEY_PATTERN = /^vi_live_[0-9a-f]{40}$/;
/** How many hex characters after the prefix find a key's row; too few to help guess the rest. */
const LOOKUP_LENGTH = 8;

/** Whether a string has the shape of an API key. */
export function isWellFormedKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

/** A fresh random key. */
export function generateKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(20));
  return KEY_PREFIX + toHex(bytes);
}

/** The non-secret part of a key used to find its row. */
export function keyLookup(key: string): string {
  return key.slice(KEY_PREFIX.length, KEY_PREFIX.length + LOOKUP_LENGTH);
}

/** Hex SHA-256 of a key: the only form in which keys are stored. */
export function hashKey(key: string, digests: Digests): string | Promise<string> {
  return digests.sha256Hex(key);
}

/** Compares two strings in time that depends only on their length, not on where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** Lowercase hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}
