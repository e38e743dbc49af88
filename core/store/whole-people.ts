import { sql, type Kysely, type RawBuilder } from 'kysely';
import { dialectOf } from './dialect/index.ts';

/**
 * How `people_whole` (migration 0017) keeps each person's account-view JSON: as bytes that turn
 * into a JS string by a copy, not by decoding UTF-8. SQLite joins a page's rows into one blob (as
 * an events page is joined), and that blob is read as Latin-1, one byte a character.
 *
 * - A person whose every character lies in U+0000–U+00FF (ASCII, and the accents of Western
 *   European names: "ã", "é") is stored as their Latin-1 bytes; ASCII is the same bytes as UTF-8.
 * - Anyone else (a character beyond U+00FF: "Ł", "東", an emoji) is stored as their UTF-8 bytes
 *   between two NUL bytes, which JSON text never holds raw (U+0000 is always written `\u0000`).
 *
 * V8 turns UTF-8 into a string by a slow path from a string's first non-ASCII byte on: a page of
 * 100 bench people (8 of them with an "ã") joined as UTF-8 took ~100 µs to become one string,
 * read as 100 rows ~50–67 µs, joined as Latin-1 ~33 µs (SQLite 3.53, Node 20, 2026-12-02).
 */

/** A person's whole JSON as `people_whole` stores it. */
export function wholePersonBytes(json: string): Uint8Array {
  if (BEYOND_LATIN1.test(json)) {
    const utf8 = UTF8_ENCODER.encode(json);
    const bytes = new Uint8Array(utf8.length + 2);
    bytes.set(utf8, 1);
    return bytes;
  }
  const bytes = new Uint8Array(json.length);
  for (let i = 0; i < json.length; i++) bytes[i] = json.charCodeAt(i);
  return bytes;
}

const BEYOND_LATIN1 = /[^\u0000-\u00ff]/;

/**
 * The text of stored people joined (one person's bytes, or a page's joined in SQL), given a
 * decoder of Latin-1 bytes: the whole read as Latin-1, then each person between NULs decoded
 * again from their UTF-8 bytes (a Latin-1 character is one byte, so indexes match).
 */
export function wholeText(bytes: Uint8Array, latin1: Latin1Decoder = latin1Text): string {
  const text = latin1(bytes);
  let open = text.indexOf('\0');
  if (open < 0) return text;
  const parts: string[] = [];
  let at = 0;
  while (open >= 0) {
    const close = text.indexOf('\0', open + 1);
    parts.push(text.slice(at, open), UTF8.decode(bytes.subarray(open + 1, close)));
    at = close + 1;
    open = text.indexOf('\0', at);
  }
  parts.push(text.slice(at));
  return parts.join('');
}

/** Turns Latin-1 bytes into a string, a character a byte. */
export type Latin1Decoder = (bytes: Uint8Array) => string;

/**
 * A Latin-1 decoder in plain JavaScript, for a Kysely instance whose driver offers none (our
 * adapters' do: see adapters/shared/sqlite-shim.ts). TextDecoder('latin1') is not one: the
 * Encoding standard reads that label as windows-1252, which maps 0x80–0x9F elsewhere.
 */
export function latin1Text(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += CHUNK) text += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return text;
}

/** Bytes a String.fromCharCode call takes at once (each one an argument). */
const CHUNK = 8192;

/** The Latin-1 decoder a driver offers on its Kysely adapter (adapters/shared/sqlite-shim.ts), or {@link latin1Text}. */
export function latin1DecoderOf(db: Kysely<any>): Latin1Decoder {
  return (db.getExecutor().adapter as { latin1Text?: Latin1Decoder }).latin1Text ?? latin1Text;
}

/**
 * A person's whole JSON `text` as SQL can store it: as bytes when ASCII (the same bytes as
 * {@link wholePersonBytes}), else as text still, for {@link storeWholeAsBytes}. SQLite.
 */
export function asciiAsBytes(text: RawBuilder<string>): RawBuilder<Uint8Array | string> {
  return sql`iif(length(${text}) = length(cast(${text} as blob)), cast(${text} as blob), ${text})`;
}

/**
 * Stores the `people_whole` rows matching `which` that are still text as
 * {@link wholePersonBytes}, a row at a time, as SQLite has no Latin-1 encoder: those not ASCII,
 * once rows are filed through {@link asciiAsBytes}. Only where the dialect stores whole people (SQLite).
 */
export async function storeWholeAsBytes(db: Kysely<any>, which: RawBuilder<boolean>): Promise<void> {
  if (!dialectOf(db).storesWholePeople) return;
  const text = sql<boolean>`typeof(json) = 'text' and ${which}`;
  const rest = await db.selectFrom('people_whole').select(['account_id', 'id', 'json']).where(text).execute();
  for (const row of rest) {
    await db.updateTable('people_whole').set({ json: wholePersonBytes(row.json as string) }).where('account_id', '=', row.account_id).where('id', '=', row.id).execute();
  }
}

const UTF8 = new TextDecoder();
const UTF8_ENCODER = new TextEncoder();
