import type { Check } from '../types.ts';
import type { DeliveryCollector } from './collector.ts';
import { WEBHOOK_CHECKS, type WebhookCheckId } from './delivery.ts';

const KINDS = ['person.identified', 'person.activity'] as const;

/** The event kind a check is about, for saying which delivery never came. */
function kindOf(id: WebhookCheckId): string {
  if (id === 'webhooks.identified-shape') return 'person.identified';
  if (id === 'webhooks.signature' || id === 'webhooks.envelope' || id === 'webhooks.unique-id') return 'any kind';
  return 'person.activity';
}

/**
 * The webhook checks, judged on the deliveries `collector` receives. They run after the other
 * checks and first wait (at most `timeoutSeconds`) for a delivery of each kind; a statement no
 * delivery concerned is n/a, and a retry of a delivery already judged is not counted again.
 */
export function webhookChecks(collector: DeliveryCollector, timeoutSeconds: number): Check[] {
  let waited: Promise<boolean> | undefined;
  const wait = () => (waited ??= collector.until(() => KINDS.every((k) => collector.kinds().has(k)), timeoutSeconds * 1000));
  return (Object.entries(WEBHOOK_CHECKS) as [WebhookCheckId, string][]).map(([id, title]) => ({
    id,
    section: 'Events',
    title,
    // It only reads what the receiver got: no request to the API.
    cost: 0,
    async run(t) {
      await wait();
      const deliveries = collector.deliveries();
      const judged = deliveries.filter((j) => j.outcomes[id] !== undefined);
      const failed = judged.filter((j) => typeof j.outcomes[id] === 'string');
      if (judged.length === 0) {
        const got = deliveries.length;
        t.notApplicable(`no delivery of ${kindOf(id)} ${got === 0 ? 'arrived' : `was readable among the ${got} received`} within ${timeoutSeconds} s`);
      }
      if (failed.length > 0) {
        const first = failed[0]!;
        t.fail(`${failed.length} of ${judged.length} deliveries: ${first.webhookId ?? '(no webhook-id)'}: ${first.outcomes[id]}`);
      }
    },
  }));
}
