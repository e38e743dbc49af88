/**
 * Characters no client text value may hold: C0 controls, DEL, and UTF-16 surrogates that are not
 * part of a pair. SQLite reads text up to a NUL in places (a LIKE pattern is cut there), so a
 * value carrying one could match more than the same value without it; refusing them outright
 * keeps every filter at most as wide as what the client can see in it.
 */
const FORBIDDEN = /[\u0000-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Where `text` holds a forbidden character, described as `U+0000 at position 3`; null when it holds none. */
export function forbiddenCharacter(text: string): string | null {
  const found = FORBIDDEN.exec(text);
  if (!found) return null;
  const code = found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
  return `U+${code} at position ${found.index}`;
}

/**
 * The characters {@link forbiddenCharacter} refuses, as the inside of a character class of a
 * pattern read with the `u` flag (as JSON Schema reads them), where a pair is one character.
 */
export const FORBIDDEN_CLASS = '\\u0000-\\u001f\\u007f\\ud800-\\udfff';

/** The rule {@link forbiddenCharacter} enforces, as messages state it. */
export const FORBIDDEN_RULE = 'control characters (U+0000–U+001F, U+007F) or unpaired surrogates';
