import { AdminError } from '../admin/inputs.ts';
import { ALL_FAULTS, type FaultName } from './catalog.ts';
import { MAX_DELAY_MS } from './prefer.ts';

/** A standing fault: requests it matches get its fault and/or delay, `times` times (or until cleared). */
export interface FaultRule {
  id: string;
  /** GET or POST; null matches both. */
  method: string | null;
  /** A path as requested (`/v1/people/per_1`) or as documented (`/v1/people/{id}`); null matches every path. */
  path: string | null;
  fault: FaultName | null;
  delayMs: number | null;
  /** Requests it still applies to; null for no end. */
  remaining: number | null;
}

/** The rules set through `POST /_admin/faults`, in the order they were made; the first that applies wins. */
export class FaultRules {
  #rules: FaultRule[] = [];
  #next = 1;

  /** Checks and adds a rule from a request body; a mistake is an AdminError naming the field. */
  add(input: unknown): FaultRule {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new AdminError('a fault rule is a JSON object: { method?, path?, fault?, delayMs?, times? }');
    const { method, path, fault, delayMs, times, ...rest } = input as Record<string, unknown>;
    const unknown = Object.keys(rest)[0];
    if (unknown !== undefined) throw new AdminError(`${JSON.stringify(unknown).slice(0, 60)} is not a field of a fault rule (method, path, fault, delayMs, times)`);
    if (method !== undefined && method !== 'GET' && method !== 'POST') throw new AdminError('method must be GET or POST');
    if (path !== undefined && (typeof path !== 'string' || !/^\/v1\/[\x21-\x7e]{0,500}$/.test(path))) throw new AdminError('path must be an API path starting with /v1/, such as /v1/people or /v1/people/{id}');
    if (fault !== undefined && !ALL_FAULTS.includes(fault as FaultName)) throw new AdminError(`fault must be one of ${ALL_FAULTS.join(', ')}`);
    if (delayMs !== undefined && (!Number.isInteger(delayMs) || (delayMs as number) < 0 || (delayMs as number) > MAX_DELAY_MS)) throw new AdminError(`delayMs must be an integer from 0 to ${MAX_DELAY_MS}`);
    if (times !== undefined && (!Number.isInteger(times) || (times as number) < 1 || (times as number) > 1_000_000)) throw new AdminError('times must be an integer from 1 to 1000000');
    if (fault === undefined && delayMs === undefined) throw new AdminError('a fault rule needs a fault, a delayMs or both');
    const rule: FaultRule = {
      id: `flt_${this.#next++}`,
      method: (method as string | undefined) ?? null,
      path: typeof path === 'string' && path.length > 4 && path.endsWith('/') ? path.slice(0, -1) : ((path as string | undefined) ?? null),
      fault: (fault as FaultName | undefined) ?? null,
      delayMs: (delayMs as number | undefined) ?? null,
      remaining: (times as number | undefined) ?? null,
    };
    this.#rules.push(rule);
    return { ...rule };
  }

  /** The rules in force. */
  list(): FaultRule[] {
    return this.#rules.map((r) => ({ ...r }));
  }

  /** Removes every rule. */
  clear(): void {
    this.#rules = [];
  }

  /**
   * The first rule matching the request whose fault the operation can answer (`fits`), used once:
   * its count goes down, and it goes at zero.
   */
  take(method: string, path: string, template: string, fits: (fault: FaultName) => boolean): FaultRule | undefined {
    const rule = this.#rules.find(
      (r) => (r.method === null || r.method === method) && (r.path === null || r.path === path || r.path === template) && (r.fault === null || fits(r.fault)),
    );
    if (!rule) return undefined;
    if (rule.remaining !== null && --rule.remaining === 0) this.#rules = this.#rules.filter((r) => r !== rule);
    return { ...rule };
  }
}
