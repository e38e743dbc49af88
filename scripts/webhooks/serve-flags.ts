import { InvalidArgumentError } from 'commander';
import type { Api } from '../../core/index.ts';
import { WEBHOOK_EVENT_KINDS, type WebhookEventKind } from '../../core/resources/types.ts';
import { secretProblem } from '../../core/webhooks/signing.ts';
import { CliError } from '../commands/errors.ts';

/** `serve`'s webhook flags, as parsed. */
export interface ServeWebhookFlags {
  webhookUrl?: string;
  webhookSecret?: string;
  webhookEvents?: WebhookEventKind[];
  simulate?: boolean;
  simulateEvery?: number;
  simulatePeople?: number;
}

/** A commander parser for `--webhook-url`: an http or https URL. */
export function webhookUrl(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) throw new InvalidArgumentError('Must be an http or https URL, such as http://127.0.0.1:9000/hooks.');
  return url.href;
}

/** A commander parser for `--webhook-secret`: `whsec_` and the base64 of 24 to 64 bytes. */
export function webhookSecret(text: string): string {
  const problem = secretProblem(text);
  if (problem) throw new InvalidArgumentError(`Must be ${problem.replace(/^must be /, '')}.`);
  return text;
}

/** A commander parser for `--webhook-events`: comma-separated event kinds. */
export function webhookEvents(text: string): WebhookEventKind[] {
  const kinds = text.split(',').map((k) => k.trim()).filter((k) => k !== '');
  const unknown = kinds.find((k) => !WEBHOOK_EVENT_KINDS.includes(k as WebhookEventKind));
  if (kinds.length === 0 || unknown !== undefined) {
    throw new InvalidArgumentError(`${unknown === undefined ? 'No event kind given' : `${JSON.stringify(unknown)} is not an event kind`}; use ${WEBHOOK_EVENT_KINDS.join(', ')} (comma-separated).`);
  }
  return [...new Set(kinds)] as WebhookEventKind[];
}

/** Refuses webhook flags that make no sense without `--webhook-url`, before anything is seeded. */
export function checkWebhookFlags(flags: ServeWebhookFlags): void {
  if (flags.webhookUrl) return;
  const orphan = flags.webhookSecret ? '--webhook-secret' : flags.webhookEvents ? '--webhook-events' : undefined;
  if (orphan) throw new CliError(`${orphan} needs --webhook-url (where to send the deliveries)`);
}

/** The endpoint serve set up, and its secret when serve generated it. */
export interface ServeEndpoint {
  id: string;
  url: string;
  events: WebhookEventKind[];
  /** Set only when no --webhook-secret was given and a secret was generated. */
  generatedSecret?: string;
}

/**
 * Creates the account's endpoint for `--webhook-url`, or updates the one a previous start made for
 * the same URL (its events, re-enabled, and its secret when another was given, with no overlap:
 * the receiver was restarted with the new one). Without `--webhook-events`, both kinds are sent.
 */
export async function configureEndpoint(api: Api, accountId: string, flags: ServeWebhookFlags): Promise<ServeEndpoint | undefined> {
  if (!flags.webhookUrl) return undefined;
  const hooks = api.admin.webhooks;
  const events = flags.webhookEvents ?? [...WEBHOOK_EVENT_KINDS];
  const existing = (await hooks.list(accountId)).find((e) => e.url === flags.webhookUrl);
  if (!existing) {
    const created = await hooks.create(accountId, { url: flags.webhookUrl, events, ...(flags.webhookSecret ? { secret: flags.webhookSecret } : {}) });
    return { id: created.id, url: created.url, events: created.events, ...(flags.webhookSecret ? {} : { generatedSecret: created.secret }) };
  }
  const updated = await hooks.update(existing.id, { events, enabled: true });
  let generatedSecret: string | undefined;
  if (flags.webhookSecret) {
    // The stored secret is not readable; rotating to the same one is refused, which means it is current.
    await hooks.rotateSecret(existing.id, { secret: flags.webhookSecret, overlapSeconds: 0 }).catch((error: Error) => {
      if (!/must differ/.test(error.message)) throw error;
    });
  } else generatedSecret = (await hooks.rotateSecret(existing.id, { overlapSeconds: 0 })).secret;
  return { id: updated.id, url: updated.url, events: updated.events, ...(generatedSecret ? { generatedSecret } : {}) };
}
