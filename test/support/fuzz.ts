import { expect } from 'vitest';
import { createRng, type Rng } from '../../scripts/demo/rng.ts';
import { errorCode, type Reply } from './client.ts';

/** Characters the API refuses in client text: C0 controls, DEL, and halves of surrogate pairs. */
const FORBIDDEN = [...Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)), '\u007f', '\ud800', '\udbff', '\udc00', '\udfff'];

/** Characters that mean something to SQL or to a LIKE pattern, and that no stored test value holds. */
export const STRUCTURAL = ['%', '_', '\\', "'", '"', '%%', '\\%', '\\_', "''", '";--', "' OR '1'='1"];

/** Characters that are fine anywhere: letters, a space, a valid surrogate pair, accents. */
const HARMLESS = ['a', 'Z', '0', ' ', '😀', 'é', '.', '-', '\ufffd'];

/** One fuzzed text value, and what it would be with every refused character removed. */
export interface Fuzzed {
  value: string;
  /** `value` without control characters or unpaired surrogates. */
  cleaned: string;
  /** Whether `value` holds a character the API must refuse. */
  forbidden: boolean;
}

/** A seeded generator of nasty text values built around a realistic base value. */
export function fuzzer(seed: number) {
  const rng: Rng = createRng(seed);
  return {
    rng,
    /**
     * `base` with characters inserted: always at least one structural character (so it can never
     * equal a stored value), often refused characters, now and then a very long run.
     */
    value(base: string, { maxLength = 200 }: { maxLength?: number } = {}): Fuzzed {
      const parts = [...base];
      const inserts = rng.int(1, 6);
      let hasStructural = false;
      for (let i = 0; i < inserts; i++) {
        const roll = rng.next();
        const piece = roll < 0.45 ? rng.pick(FORBIDDEN) : roll < 0.8 ? ((hasStructural = true), rng.pick(STRUCTURAL)) : rng.pick(HARMLESS);
        parts.splice(rng.int(0, parts.length), 0, piece);
      }
      if (!hasStructural) parts.splice(rng.int(0, parts.length), 0, rng.pick(STRUCTURAL));
      // Now and then a value at or past the length limits, refused characters possibly far inside.
      if (rng.chance(0.1)) parts.splice(rng.int(0, parts.length), 0, 'x'.repeat(rng.int(maxLength - 20, maxLength * 20)));
      const value = parts.join('');
      const cleaned = withoutForbidden(value);
      return { value, cleaned, forbidden: cleaned !== value };
    },
  };
}

/** `text` with control characters and unpaired surrogates removed. */
export function withoutForbidden(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '');
}

/**
 * Percent-encodes text for a URL, whatever it holds: a lone surrogate, which `encodeURIComponent`
 * refuses, goes as the bytes a lenient encoder would send (WTF-8), so the server sees what a
 * careless client would send.
 */
export function encodeAny(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    else out += encodeURIComponent(char);
  }
  return out;
}

/**
 * Asserts an answer to bad input is the error envelope with one of the expected statuses and
 * codes, a JSON content type and a request id, and a message of bounded length.
 */
export function expectEnvelope(reply: Reply, allowed: Record<number, string[]>, what: string): string {
  expect(reply.status, `${what}: ${JSON.stringify(reply.body).slice(0, 300)}`).toBeLessThan(500);
  const codes = allowed[reply.status];
  expect(codes, `${what}: unexpected status ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`).toBeDefined();
  const code = errorCode(reply);
  expect(codes, `${what}: code ${code}`).toContain(code);
  expect(reply.headers.get('content-type'), what).toMatch(/^application\/json/);
  expect(reply.headers.get('x-request-id'), what).toBeTruthy();
  expect(reply.body.error.message.length, `${what}: message ${reply.body.error.message.slice(0, 300)}`).toBeLessThanOrEqual(400);
  return reply.body.error.message;
}
