import { useEffect, useState } from 'preact/hooks';
import type { WebhookDelivery } from '../../core/webhooks/webhook-admin.ts';
import { admin, query } from './api.ts';
import { knownSecrets, rememberSecret, verdictOf, type Verdict } from './signatures.ts';
import { CopyButton, ErrorNote, When } from './ui.tsx';

/** One endpoint's deliveries, newest first, each with its attempts as sent; failed ones can go again. */
export function Inbox({ endpointId }: { endpointId: string }) {
  const [deliveries, setDeliveries] = useState<WebhookDelivery[]>([]);
  const [before, setBefore] = useState<string | undefined>(undefined);
  const [status, setStatus] = useState('');
  const [secrets, setSecrets] = useState(() => knownSecrets(endpointId));
  const [given, setGiven] = useState('');
  const [error, setError] = useState<unknown>(null);
  const load = async (from: string | undefined, kept: WebhookDelivery[]) => {
    try {
      const page = await admin<WebhookDelivery[]>('GET', `/webhooks/${endpointId}/deliveries${query({ limit: 20, status, before: from })}`);
      setDeliveries([...kept, ...page.data]);
      setBefore(page.nextBefore);
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => void load(undefined, []), [status]);
  const redeliver = (id: string) => admin('POST', `/webhook-deliveries/${id}/redeliver`).then(() => load(undefined, []), setError);
  return (
    <section aria-labelledby="inbox-title">
      <h2 id="inbox-title">Delivery inbox</h2>
      <form onSubmit={(e) => (e.preventDefault(), rememberSecret(endpointId, given.trim()), setSecrets(knownSecrets(endpointId)), setGiven(''))}>
        <label>Signing secret to check signatures with
          <input type="password" autocomplete="off" value={given} onInput={(e) => setGiven(e.currentTarget.value)} required placeholder="whsec_…" />
        </label>
        <button type="submit">Check with this secret</button>
      </form>
      <p class="hint" id="secrets-known">
        {secrets.length === 0
          ? 'This tab holds no secret of this endpoint: give it the one printed when it was created or last rotated, and each attempt\'s signature is checked here, in the browser.'
          : `Signatures are checked here, in the browser, with ${secrets.length} secret${secrets.length === 1 ? '' : 's'} this tab holds for this endpoint.`}
      </p>
      <label>Status{' '}
        <select value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
          <option value="">any</option>
          <option>pending</option>
          <option>delivered</option>
          <option>failed</option>
        </select>
      </label>{' '}
      <button type="button" onClick={() => void load(undefined, [])}>Refresh</button>
      {error ? <ErrorNote error={error} /> : null}
      <ol class="inbox">
        {deliveries.map((d) => (
          <li key={d.id} data-delivery-id={d.id}>
            <Delivery delivery={d} secrets={secrets} onRedeliver={() => void redeliver(d.id)} />
          </li>
        ))}
      </ol>
      {deliveries.length === 0 && <p>No deliveries yet.</p>}
      {before && <button type="button" onClick={() => void load(before, deliveries)}>Older deliveries</button>}
    </section>
  );
}

/**
 * A delivery: its summary, and once opened, each attempt with the verdict on its signature, and
 * the headers and body one attempt was sent with (the last, until another is chosen).
 */
function Delivery({ delivery: d, secrets, onRedeliver }: { delivery: WebhookDelivery; secrets: string[]; onRedeliver: () => void }) {
  const [open, setOpen] = useState(false);
  // The delivery as read alone: its attempts carry their bodies.
  const [full, setFull] = useState<WebhookDelivery | null>(null);
  const [verdicts, setVerdicts] = useState<Verdict[]>([]);
  const [shown, setShown] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (!open) return;
    admin<WebhookDelivery>('GET', `/webhook-deliveries/${d.id}`).then((r) => setFull(r.data), setError);
  }, [open, d.attempts.length, d.status]);
  useEffect(() => {
    if (!full) return;
    Promise.all(full.attempts.map((a) => verdictOf(secrets, a.headers, a.body))).then(setVerdicts, setError);
  }, [full, secrets]);
  const attempts = full?.attempts ?? d.attempts;
  const index = shown ?? attempts.length - 1;
  const attempt = attempts[index];
  return (
    <details onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        <span class={`badge status-${d.status}`}>{d.status}</span> {d.test && <span class="badge test">test</span>} {d.event} · {d.domain} · <When at={d.createdAt} /> · {d.attempts.length} {d.attempts.length === 1 ? 'attempt' : 'attempts'}
      </summary>
      {error ? <ErrorNote error={error} /> : null}
      <table>
        <caption>Attempts</caption>
        <thead><tr><th scope="col">At</th><th scope="col">Status</th><th scope="col">Latency</th><th scope="col">Error</th><th scope="col">Signature</th><th scope="col">As sent</th></tr></thead>
        <tbody>
          {attempts.map((a, i) => (
            <tr>
              <td><When at={a.at} /></td>
              <td>{a.status ?? 'no answer'}</td>
              <td>{a.latencyMs} ms</td>
              <td>{a.error ?? ''}</td>
              <td class={`verdict verdict-${(verdicts[i] ?? 'checking').replace(/ /g, '-')}`}>{full ? (verdicts[i] ?? 'checking…') : '…'}</td>
              <td><button type="button" aria-pressed={i === index} onClick={() => setShown(i)}>Attempt {i + 1}</button></td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>webhook-id <code>{d.id}</code></p>
      {attempt ? (
        <>
          <h3>Attempt {index + 1} as sent</h3>
          {attempt.headers ? (
            <table class="headers">
              <caption>Headers of attempt {index + 1}</caption>
              <tbody>{Object.entries(attempt.headers).map(([name, value]) => <tr><th scope="row">{name}</th><td><code>{value}</code></td></tr>)}</tbody>
            </table>
          ) : (
            <p>Its headers were not logged (an attempt made before the log kept them).</p>
          )}
          <p>Body, formatted (the signature covers it as sent) {attempt.body !== undefined && <CopyButton text={attempt.body} label="Copy as sent" />}</p>
          <pre aria-label={`Body of attempt ${index + 1}`}>{attempt.body === undefined ? 'Loading…' : formatted(attempt.body)}</pre>
        </>
      ) : (
        <>
          <h3>Not sent yet: the body it is due to carry</h3>
          <pre aria-label="Body due">{JSON.stringify(d.payload, null, 2)}</pre>
        </>
      )}
      {d.status === 'failed' && <button type="button" onClick={onRedeliver}>Redeliver</button>}
    </details>
  );
}

/** A JSON body indented for reading. */
function formatted(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}
