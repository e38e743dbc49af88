import { parseIsoInstant } from '../time/iso.ts';
import { forbiddenCharacter, FORBIDDEN_RULE } from './client-text.ts';
import { badRequest, quoteName, validationError } from './errors.ts';

/** Reserved for future custom sorting: sending either is a bad request. */
const RESERVED = ['sort', 'order'];

/**
 * Validated access to a request's query string. Each endpoint names the parameters it
 * accepts; anything else, a repeated parameter or a reserved one is rejected by name.
 */
export class Query {
  constructor(private readonly params: URLSearchParams) {}

  /** Rejects reserved, unknown and repeated parameters. */
  allowOnly(allowed: readonly string[]): this {
    for (const name of new Set(this.params.keys())) {
      if (RESERVED.includes(name)) {
        throw badRequest(`Parameter ${name} is reserved: custom sorting is not supported in this version.`);
      }
      if (!allowed.includes(name)) {
        throw badRequest(`Parameter ${quoteName(name)} is not supported here; allowed: ${allowed.join(', ')}.`);
      }
      if (this.params.getAll(name).length > 1) throw validationError(`Parameter ${name} must be given at most once.`);
    }
    return this;
  }

  /**
   * The value as sent, or null when absent. Every typed reader goes through here, so no value
   * holding a control character or an unpaired surrogate reaches a handler (or SQL).
   */
  #read(name: string): string | null {
    const value = this.params.get(name);
    const found = value === null ? null : forbiddenCharacter(value);
    if (found) throw validationError(`Parameter ${name} must not contain ${FORBIDDEN_RULE}; found ${found}.`);
    return value;
  }

  /** The raw value, or undefined when absent. */
  string(name: string, opts: { maxLength?: number; pattern?: RegExp; hint?: string } = {}): string | undefined {
    const value = this.#read(name);
    if (value === null) return undefined;
    const max = opts.maxLength ?? 256;
    if (value.length === 0 || value.length > max) {
      throw validationError(`Parameter ${name} must be a non-empty string of at most ${max} characters.`);
    }
    if (opts.pattern && !opts.pattern.test(value)) {
      throw validationError(`Parameter ${name} must be ${opts.hint ?? `of the form ${opts.pattern}`}.`);
    }
    return value;
  }

  /** An integer within bounds, or the default when absent. */
  integer(name: string, min: number, max: number, fallback: number): number {
    const value = this.#read(name);
    if (value === null) return fallback;
    const n = /^\d{1,9}$/.test(value) ? Number(value) : NaN;
    if (!Number.isInteger(n) || n < min || n > max) {
      throw validationError(`Parameter ${name} must be an integer from ${min} to ${max}.`);
    }
    return n;
  }

  /** `true` or `false`; undefined when absent. */
  boolean(name: string): boolean | undefined {
    const value = this.#read(name);
    if (value === null) return undefined;
    if (value === 'true') return true;
    if (value === 'false') return false;
    throw validationError(`Parameter ${name} must be true or false.`);
  }

  /** An ISO 8601 date or zoned date-time, as epoch milliseconds; undefined when absent. */
  instant(name: string): number | undefined {
    const value = this.#read(name);
    if (value === null) return undefined;
    const ms = parseIsoInstant(value);
    if (ms === null) {
      throw validationError(
        `Parameter ${name} must be an ISO 8601 date (2026-11-01) or date-time with a zone (2026-11-01T09:30:00Z).`,
      );
    }
    return ms;
  }
}
