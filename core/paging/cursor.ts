import { constantTimeEqual } from '../auth/api-key.ts';
import { webDigests, type Digests, type HmacSigner } from '../crypto/digests.ts';

/** Where a page ended: the sort value and the public id of its last row. */
export interface CursorPosition {
  sortValue: number;
  id: string;
}

/**
 * Signs and verifies page cursors. A cursor carries only the position of a row the caller
 * could already see and an expiry; its HMAC-SHA256 covers that and a context string naming
 * the endpoint, its filters and the caller's scope, so a cursor used anywhere else fails.
 */
export class CursorSigner {
  readonly #hmac: HmacSigner;

  constructor(
    secret: string,
    private readonly ttlSeconds: number,
    digests: Digests = webDigests,
  ) {
    this.#hmac = digests.hmacSha256(`cursor:${secret}`);
  }

  /** An opaque cursor for the position, valid in this context until `nowSeconds + ttl`. */
  async sign(position: CursorPosition, context: string, nowSeconds: number): Promise<string> {
    const payload = toBase64Url(JSON.stringify([position.sortValue, position.id, nowSeconds + this.ttlSeconds]));
    return `${payload}.${await this.#mac(payload, context)}`;
  }

  /** The position, or null for a cursor that is forged, edited, expired or from another context. */
  async verify(cursor: string, context: string, nowSeconds: number): Promise<CursorPosition | null> {
    if (cursor.length > 512) return null;
    const dot = cursor.indexOf('.');
    if (dot <= 0) return null;
    const payload = cursor.slice(0, dot);
    const mac = cursor.slice(dot + 1);
    const expected = await this.#mac(payload, context);
    if (!constantTimeEqual(mac, expected)) return null;
    let decoded: unknown;
    try {
      decoded = JSON.parse(fromBase64Url(payload));
    } catch {
      return null;
    }
    if (!Array.isArray(decoded) || decoded.length !== 3) return null;
    const [sortValue, id, expires] = decoded as unknown[];
    if (typeof sortValue !== 'number' || typeof id !== 'string' || typeof expires !== 'number') return null;
    if (nowSeconds >= expires) return null;
    return { sortValue, id };
  }

  #mac(payload: string, context: string): string | Promise<string> {
    return this.#hmac(`${context}\n${payload}`);
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const NON_ASCII = /[^\x00-\x7f]/;

// Payloads are almost always ASCII (numbers and a public id), whose UTF-8 bytes are its
// characters: those skip the byte arrays. Building them with Uint8Array.from and a callback
// cost more than the HMAC.
function toBase64Url(text: string): string {
  let bin = text;
  if (NON_ASCII.test(text)) {
    bin = '';
    for (const b of encoder.encode(text)) bin += String.fromCharCode(b);
  }
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): string {
  const bin = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  if (!NON_ASCII.test(bin)) return bin;
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return decoder.decode(bytes);
}
