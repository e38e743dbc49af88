import { answers, operationName, type FaultName } from './catalog.ts';
import { readPreferences } from './prefer.ts';
import { FaultRules } from './rules.ts';
import type { CoreRequest } from '../http/reply.ts';

/** What to do to one request: answer a fault instead, wait first, or both. */
export interface FaultPlan {
  fault?: FaultName;
  delayMs?: number;
  /** The `Preference-Applied` header value: what was done, as `fault=…, delay=…`. */
  applied: string;
}

/**
 * Fault and latency injection for client testing, in the style of Prism and moto: a request asks
 * with `Prefer: fault=<code>` and/or `Prefer: delay=<ms>`, or an admin rule asks for it. Only
 * faults the operation documents are injected; anything else in `Prefer` is ignored.
 */
export class FaultInjector {
  readonly rules = new FaultRules();

  /** The plan for a request routed to `routePath` (`/v1/people/:id`): its `Prefer` header's, else the first matching rule's. */
  plan(request: CoreRequest, routePath: string, path: string): FaultPlan | undefined {
    const operation = operationName(request.method, routePath);
    const preferred = readPreferences(request.headers.get('prefer'));
    let fault = preferred.fault !== undefined && answers(operation, preferred.fault) ? preferred.fault : undefined;
    let delayMs = preferred.delayMs;
    if (fault === undefined && delayMs === undefined) {
      const template = operation.slice(operation.indexOf(' ') + 1);
      const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
      const rule = this.rules.take(request.method.toUpperCase(), trimmed, template, (f) => answers(operation, f));
      fault = rule?.fault ?? undefined;
      delayMs = rule?.delayMs ?? undefined;
    }
    if (fault === undefined && delayMs === undefined) return undefined;
    const applied = [fault === undefined ? '' : `fault=${fault}`, delayMs === undefined ? '' : `delay=${delayMs}`].filter(Boolean).join(', ');
    return { fault, delayMs, applied };
  }
}

/** Waits `ms` on a real timer: an injected delay is latency the client sees. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
