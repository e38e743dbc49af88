import { InvalidArgumentError } from 'commander';
import { normalizeOrigin } from '../../core/http/cors.ts';
import { parseIsoInstant } from '../../core/time/iso.ts';

/** A commander argument parser for a whole number from `min` to `max` (digits only). */
export function wholeNumber(min: number, max: number): (text: string) => number {
  return (text) => {
    const n = /^\d+$/.test(text) ? Number(text) : NaN;
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`Must be a whole number from ${min} to ${max}.`);
    return n;
  };
}

/** A commander argument parser for an ISO 8601 instant, as epoch milliseconds. */
export function instant(text: string): number {
  const ms = parseIsoInstant(text);
  if (ms === null) throw new InvalidArgumentError('Must be an ISO 8601 time such as 2026-11-20T12:00:00Z.');
  return ms;
}

/** A commander collector for a repeatable option. */
export function collect<T>(parse: (text: string) => T): (text: string, previous: T[] | undefined) => T[] {
  return (text, previous) => [...(previous ?? []), parse(text)];
}

/** A commander argument parser for a `--cors` value: `*`, an origin as browsers send it, or a subdomain pattern. */
export function corsOrigin(text: string): string {
  if (text === '*') return text;
  try {
    return normalizeOrigin(text);
  } catch {
    throw new InvalidArgumentError('Must be *, an origin such as https://app.example or http://localhost:3000, or https://*.app.example for its subdomains.');
  }
}
