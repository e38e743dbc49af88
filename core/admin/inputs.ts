import { forbiddenCharacter, FORBIDDEN_RULE } from '../http/client-text.ts';
import { QUOTED_INPUT_CHARS } from '../http/errors.ts';

// The input types are derived from the schemas the loader checks with: one definition of each.
export type { CompanyInput, CrmStatus, EventInput, PersonInput, TimeInput, VisitInput } from './input-schemas.ts';
import type { TimeInput } from './input-schemas.ts';

/** A mistake in what was given to the admin surface. */
export class AdminError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdminError';
  }
}

/** Refuses a required field that is absent, naming it as missing rather than judging its value. */
export function present<T>(value: T | null | undefined, field: string): T {
  if (value === undefined || value === null) throw new AdminError(`${field} is missing`);
  return value;
}

/** Epoch seconds from a time input, or an AdminError naming the field. */
export function toSeconds(value: TimeInput, field: string): number {
  present(value, field);
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(ms)) throw new AdminError(`${field} is not a valid time: ${String(value)}`);
  return Math.floor(ms / 1000);
}

/** A refused value as a message shows it: its JSON, cut to its first 100 characters (a 1 MB object must not come back whole). */
export function shownValue(value: unknown): string {
  const json = JSON.stringify(value) ?? typeof value;
  return json.length <= QUOTED_INPUT_CHARS ? json : `${json.slice(0, QUOTED_INPUT_CHARS)}…`;
}

/**
 * Checks a required non-empty string without control characters or unpaired surrogates. Ids
 * pass through here, so no stored id holds a character the API refuses in client text, and a
 * path id carrying one can only be a 404.
 */
export function requireText(value: unknown, field: string, max = 512): string {
  present(value, field);
  if (typeof value !== 'string' || value.length === 0 || value.length > max) {
    throw new AdminError(`${field} must be a non-empty string of at most ${max} characters`);
  }
  const found = forbiddenCharacter(value);
  if (found) throw new AdminError(`${field} must not contain ${FORBIDDEN_RULE}; found ${found}`);
  return value;
}
