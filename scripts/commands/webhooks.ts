import type { Command } from 'commander';
import { secretProblem } from '../../core/webhooks/signing.ts';
import { DeliveryCollector, type DeliveryJudgement } from '../../harness/webhooks/index.ts';
import { listen } from '../webhooks/listener.ts';
import { CliError } from './errors.ts';
import { collect, wholeNumber } from './options.ts';
import { listenError } from './port.ts';

interface ListenFlags {
  port: number;
  host: string;
  secret?: string[];
  count?: number;
  timeout?: number;
  json: boolean;
}

/** `webhooks listen`: a receiver that verifies and checks each delivery, for partners and implementers. */
export function registerWebhooks(program: Command): void {
  const webhooks = program.command('webhooks').description('tools for webhook receivers');
  webhooks
    .command('listen')
    .description('receive webhook deliveries: verify each signature, check each payload against the spec, print one line per delivery')
    .requiredOption('--port <n>', 'port to listen on (0 takes a free one)', wholeNumber(0, 65535))
    .option('--host <address>', 'address to bind', '127.0.0.1')
    .option('--secret <whsec_…>', "the endpoint's secret (repeatable: during a rotation, either one verifies)", collect(String))
    .option('--count <n>', 'stop after this many deliveries (duplicates not counted)', wholeNumber(1, 1_000_000_000))
    .option('--timeout <seconds>', 'stop after this long; fewer than --count deliveries by then is exit code 2', wholeNumber(1, 31_536_000))
    .option('--json', 'print each delivery as one JSON object per line', false)
    .addHelpText(
      'after',
      '\nAnswers 200 to a valid delivery, 401 to a bad signature, 400 to a bad payload.\nA delivery whose webhook-id came before with the same content is a duplicate (a retry): answered\nas the first was, printed as such, not counted toward --count; with other content it is invalid (400).\nExit code: 0 when every delivery was valid (and --count was reached), 1 when any was not,\n2 for a usage error or a --timeout reached before --count deliveries.\n\nExample:\n  visitor-intelligence webhooks listen --port 9000 --secret whsec_… --count 10 --timeout 60',
    )
    .action((flags: ListenFlags) => listenCommand(flags));
}

async function listenCommand(flags: ListenFlags): Promise<void> {
  const secrets = flags.secret ?? [];
  if (secrets.length === 0) throw new CliError('--secret is required: the whsec_… secret of the endpoint that sends here');
  for (const secret of secrets) {
    const problem = secretProblem(secret);
    if (problem) throw new CliError(`--secret ${problem}`);
  }
  const collector = new DeliveryCollector({ secrets });
  let finish: (why: 'count' | 'timeout' | 'signal') => void = () => undefined;
  const finished = new Promise<'count' | 'timeout' | 'signal'>((resolve) => (finish = resolve));
  let counted = 0;
  const listener = await listen(collector, flags.host, flags.port, (judgement) => {
    console.log(flags.json ? JSON.stringify(asJson(judgement)) : line(judgement));
    // A duplicate is a retry of a delivery already counted.
    if (!judgement.duplicate && flags.count !== undefined && ++counted >= flags.count) finish('count');
  }).catch((error) => {
    throw listenError(flags.host, flags.port, error);
  });
  console.error(`Listening for webhook deliveries on ${listener.url}${flags.count ? ` (stopping after ${flags.count})` : ''}`);
  const timer = flags.timeout === undefined ? undefined : setTimeout(() => finish('timeout'), flags.timeout * 1000);
  const onSignal = () => finish('signal');
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const why = await finished;
  clearTimeout(timer);
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  await listener.close();
  const deliveries = collector.deliveries();
  const received = deliveries.length;
  const invalid = deliveries.filter((j) => j.status !== 200).length;
  const duplicates = collector.judgements.length - received;
  const repeated = duplicates === 0 ? '' : `, ${duplicates} ${duplicates === 1 ? 'duplicate' : 'duplicates'} (the same webhook-id again: retries, not counted)`;
  console.error(`${received} ${received === 1 ? 'delivery' : 'deliveries'} received, ${invalid} invalid${repeated}`);
  if (invalid > 0) {
    process.exitCode = 1;
    return;
  }
  if (why === 'timeout' && flags.count !== undefined && received < flags.count) {
    throw new CliError(`--timeout ${flags.timeout} s reached with ${received} of --count ${flags.count} deliveries`);
  }
  process.exitCode = 0;
}

/** One readable line: verdict, status, kind, id, site, and what is wrong. */
function line(j: DeliveryJudgement): string {
  const site = j.domain ? ` ${j.domain}${j.clientRef ? ` (${j.clientRef})` : ''}` : '';
  const person = (j.payload as { data?: { person?: { id?: unknown } } } | undefined)?.data?.person?.id;
  const who = typeof person === 'string' ? ` ${person}` : '';
  const events = j.eventCount === null ? '' : ` ${j.eventCount} event${j.eventCount === 1 ? '' : 's'}${j.truncated ? ' (truncated)' : ''}`;
  const verdict = j.duplicate ? 'duplicate' : j.status === 200 ? 'valid  ' : 'INVALID';
  const head = `${verdict} ${j.status} ${j.event ?? '?'} ${j.webhookId ?? '(no webhook-id)'}${site}${who}${events}`;
  // Its problems, if any, were printed with the delivery it repeats.
  if (j.duplicate) return `${head}: a retry of an earlier delivery, not counted`;
  return j.problems.length === 0 ? head : `${head}\n  ${j.problems.join('\n  ')}`;
}

function asJson(j: DeliveryJudgement): Record<string, unknown> {
  return { valid: j.status === 200, duplicate: j.duplicate, status: j.status, webhookId: j.webhookId, event: j.event, domain: j.domain, clientRef: j.clientRef, eventCount: j.eventCount, truncated: j.truncated, problems: j.problems, payload: j.payload };
}
