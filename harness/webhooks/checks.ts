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
 * The webhook checks of the conformance run, judged on the deliveries `collector` receives. The
 * first of them waits (at most `timeoutSeconds`) until a delivery of each kind has arrived; they
 * run after the other checks, so deliveries that the run itself caused count too. A statement no
 * delivery was concerned by (no person.activity arrived, say) is n/a, with the reason. A duplicate
 * (a retry of a delivery already judged) is not counted again.
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
