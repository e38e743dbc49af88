import { constantTimeEqual, toHex } from '../auth/api-key.ts';

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
  readonly #key: Promise<CryptoKey>;

  constructor(
    secret: string,
    private readonly ttlSeconds: number,
  ) {
    this.#key = crypto.subtle.importKey(
      'raw',
      new TextEncoder().encode(`cursor:${secret}`),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    );
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

  async #mac(payload: string, context: string): Promise<string> {
    const sig = await crypto.subtle.sign('HMAC', await this.#key, new TextEncoder().encode(`${context}\n${payload}`));
    return toHex(new Uint8Array(sig));
  }
}

function toBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): string {
  const bin = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}
