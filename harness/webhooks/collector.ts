import { judgeDelivery, problemsOf, type DeliveryJudgement, type IncomingDelivery } from './delivery.ts';

/** A webhook receiver's memory, independent of how requests reach it (a Node server, Bun, Deno). */
export interface CollectorOptions {
  /** The receiver's secrets: a delivery signed with any of them is genuine. */
  secrets: string[];
  /** Epoch milliseconds now (default Date.now): signatures are checked against it. */
  now?: () => number;
  /** Timestamp tolerance in seconds (default 300, as Standard Webhooks). */
  toleranceSeconds?: number;
}

/** What an earlier genuine delivery under a webhook-id carried, to tell a retry from a reused id. */
interface Seen {
  fields: Map<string, string>;
  judgement: DeliveryJudgement;
}

/**
 * Judges each delivery a receiver gets and remembers the judgements, so a caller can answer the
 * request (`status`) and later wait for deliveries of given kinds. Delivery is at least once: a
 * genuine delivery whose webhook-id came before with the same content is a duplicate (a retry),
 * answered as the first was; with other content it breaks `webhooks.unique-id`.
 */
export class DeliveryCollector {
  /** Every request judged, duplicates included, in order of arrival. */
  readonly judgements: DeliveryJudgement[] = [];
  #seen = new Map<string, Seen>();
  #waiters = new Set<() => void>();

  constructor(private readonly options: CollectorOptions) {}

  /** Judges one delivery, remembers it and wakes whoever waits. */
  async receive(delivery: IncomingDelivery): Promise<DeliveryJudgement> {
    const now = (this.options.now ?? Date.now)();
    const judgement = this.#repeats(await judgeDelivery(this.options.secrets, delivery, Math.floor(now / 1000), this.options.toleranceSeconds));
    this.judgements.push(judgement);
    for (const wake of this.#waiters) wake();
    return judgement;
  }

  /** The deliveries received, each once: duplicates left out. */
  deliveries(): DeliveryJudgement[] {
    return this.judgements.filter((j) => !j.duplicate);
  }

  /** Event kinds seen so far (from payloads that could be read). */
  kinds(): Set<string> {
    return new Set(this.judgements.flatMap((j) => (j.event ? [j.event] : [])));
  }

  /** Marks a genuine delivery as a duplicate of an earlier one, or as reusing its webhook-id for other content. */
  #repeats(judgement: DeliveryJudgement): DeliveryJudgement {
    // Only a signed delivery is known to come from the sender: anyone can repeat an id unsigned.
    if (judgement.outcomes['webhooks.signature'] !== null || judgement.webhookId === null) return judgement;
    const fields = contentOf(judgement.payload);
    const earlier = this.#seen.get(judgement.webhookId);
    if (!earlier) {
      this.#seen.set(judgement.webhookId, { fields, judgement });
      return { ...judgement, outcomes: { ...judgement.outcomes, 'webhooks.unique-id': null } };
    }
    const differs = [...new Set([...earlier.fields.keys(), ...fields.keys()])].find((k) => earlier.fields.get(k) !== fields.get(k));
    if (differs === undefined) return { ...judgement, status: earlier.judgement.status, outcomes: { ...judgement.outcomes, 'webhooks.unique-id': null }, duplicate: true };
    const outcomes = { ...judgement.outcomes, 'webhooks.unique-id': `webhook-id ${judgement.webhookId} came before with other ${differs}: a retry repeats its delivery's content` };
    return { ...judgement, status: 400, outcomes, problems: problemsOf(outcomes) };
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

/**
 * A payload's top-level fields as canonical JSON (keys sorted), but its `timestamp`: that is each
 * attempt's own send time, so a retry differs there and nowhere else.
 */
function contentOf(payload: unknown): Map<string, string> {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return new Map([['content', canonical(payload)]]);
  return new Map(Object.entries(payload).filter(([k]) => k !== 'timestamp').map(([k, v]) => [k, canonical(v)]));
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}
