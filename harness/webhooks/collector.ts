import { judgeDelivery, type DeliveryJudgement, type IncomingDelivery } from './delivery.ts';

/** A webhook receiver's memory, independent of how requests reach it (a Node server, Bun, Deno). */
export interface CollectorOptions {
  /** The receiver's secrets: a delivery signed with any of them is genuine. */
  secrets: string[];
  /** Epoch milliseconds now (default Date.now): signatures are checked against it. */
  now?: () => number;
  /** Timestamp tolerance in seconds (default 300, as Standard Webhooks). */
  toleranceSeconds?: number;
}

/**
 * Judges each delivery a receiver gets and remembers the judgements, so a caller can answer the
 * request (`status`) and later wait for deliveries of given kinds.
 */
export class DeliveryCollector {
  readonly judgements: DeliveryJudgement[] = [];
  #waiters = new Set<() => void>();

  constructor(private readonly options: CollectorOptions) {}

  /** Judges one delivery, remembers it and wakes whoever waits. */
  async receive(delivery: IncomingDelivery): Promise<DeliveryJudgement> {
    const now = (this.options.now ?? Date.now)();
    const judgement = await judgeDelivery(this.options.secrets, delivery, Math.floor(now / 1000), this.options.toleranceSeconds);
    this.judgements.push(judgement);
    for (const wake of this.#waiters) wake();
    return judgement;
  }

  /** Event kinds seen so far (from payloads that could be read). */
  kinds(): Set<string> {
    return new Set(this.judgements.flatMap((j) => (j.event ? [j.event] : [])));
  }

  /** Resolves once `done` holds for what was received, or after `timeoutMs` (false then). */
  until(done: (judgements: DeliveryJudgement[]) => boolean, timeoutMs: number): Promise<boolean> {
    if (done(this.judgements)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const finish = (reached: boolean) => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve(reached);
      };
      const check = () => {
        if (done(this.judgements)) finish(true);
      };
      const timer = setTimeout(() => finish(false), timeoutMs);
      this.#waiters.add(check);
    });
  }
}
