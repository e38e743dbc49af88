import { constantTimeEqual } from '../auth/api-key.ts';
import { base64ToBytes, bytesToBase64 } from '../crypto/base64.ts';
import { webDigests, type Digests, type HmacSigner } from '../crypto/digests.ts';

/** Where a page ended: the sort value and the public id of its last row. */
export interface CursorPosition {
  sortValue: number;
  id: string;
}

/** How many of the cursors it issued a signer remembers; past that, the oldest is forgotten. */
export const REMEMBERED_CURSORS = 4096;

/**
 * Signs and verifies page cursors: an HMAC covers the row position, the expiry and a context
 * naming the endpoint, filters and scope, so a cursor used anywhere else fails. Cursors issued
 * lately are remembered so the next page skips recomputing the HMAC; others are verified in full.
 */
export class CursorSigner {
  readonly #hmac: HmacSigner;
  /** Signed text (context, newline, payload) → its MAC and what the payload says, oldest first; only `sign` adds to it. */
  readonly #issued = new Map<string, Issued>();

  constructor(
    secret: string,
    private readonly ttlSeconds: number,
    digests: Digests = webDigests,
  ) {
    this.#hmac = digests.hmacSha256(`cursor:${secret}`);
  }

  /** An opaque cursor for the position, valid in this context until `nowSeconds + ttl`. */
  async sign(position: CursorPosition, context: string, nowSeconds: number): Promise<string> {
    const expires = nowSeconds + this.ttlSeconds;
    const payload = toBase64Url(JSON.stringify([position.sortValue, position.id, expires]));
    const text = signedText(payload, context);
    const mac = await this.#hmac(text);
    if (this.#issued.size >= REMEMBERED_CURSORS) this.#issued.delete(this.#issued.keys().next().value!);
    this.#issued.set(text, { mac, sortValue: position.sortValue, id: position.id, expires });
    return `${payload}.${mac}`;
  }

  /** The position, or null for a cursor that is forged, edited, expired or from another context. */
  async verify(cursor: string, context: string, nowSeconds: number): Promise<CursorPosition | null> {
    if (cursor.length > 512) return null;
    const dot = cursor.indexOf('.');
    if (dot <= 0) return null;
    const payload = cursor.slice(0, dot);
    const mac = cursor.slice(dot + 1);
    const text = signedText(payload, context);
    const issued = this.#issued.get(text);
    if (!constantTimeEqual(mac, issued?.mac ?? (await this.#hmac(text)))) return null;
    const said = issued ?? decodePayload(payload);
    if (!said || nowSeconds >= said.expires) return null;
    return { sortValue: said.sortValue, id: said.id };
  }
}

/** What a cursor's payload says: a position and when the cursor expires. */
interface Said extends CursorPosition {
  expires: number;
}

/** A cursor this signer issued: what its payload says, and its MAC. */
interface Issued extends Said {
  mac: string;
}

/** What a payload says, or null for one no signer wrote. */
function decodePayload(payload: string): Said | null {
  let decoded: unknown;
  try {
    decoded = JSON.parse(fromBase64Url(payload));
  } catch {
    return null;
  }
  if (!Array.isArray(decoded) || decoded.length !== 3) return null;
  const [sortValue, id, expires] = decoded as unknown[];
  if (typeof sortValue !== 'number' || typeof id !== 'string' || typeof expires !== 'number') return null;
  return { sortValue, id, expires };
}

/** What a cursor's MAC covers: the context it is bound to and its payload. */
function signedText(payload: string, context: string): string {
  return `${context}\n${payload}`;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const NON_ASCII = /[^\x00-\x7f]/;

// Payloads are almost always ASCII (numbers and a public id), which is its own UTF-8 and goes to
// btoa as it is: making bytes of it cost more than the HMAC.
function toBase64Url(text: string): string {
  const base64 = NON_ASCII.test(text) ? bytesToBase64(encoder.encode(text)) : btoa(text);
  return base64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): string {
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(base64);
  return NON_ASCII.test(binary) ? decoder.decode(base64ToBytes(base64)) : binary;
}
