import { useEffect, useState } from 'preact/hooks';
import type { WebhookDelivery, WebhookEndpoint, WebhookEndpointWithSecret } from '../../core/webhooks/webhook-admin.ts';
import { admin, query } from './api.ts';
import { CopyButton, ErrorNote, When } from './ui.tsx';

/** The account's endpoints (create, pause, rotate the secret) and each one's delivery inbox. */
export function WebhooksScreen({ accountId }: { accountId: string }) {
  const [endpoints, setEndpoints] = useState<WebhookEndpoint[]>([]);
  const [secret, setSecret] = useState<WebhookEndpointWithSecret | null>(null);
  const [url, setUrl] = useState('');
  const [activity, setActivity] = useState(true);
  const [open, setOpen] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const account = `/accounts/${encodeURIComponent(accountId)}`;
  const refresh = () => admin<WebhookEndpoint[]>('GET', `${account}/webhooks`).then((r) => setEndpoints(r.data), setError);
  useEffect(() => void refresh(), []);
  const act = (work: () => Promise<void>) => {
    setError(null);
    work().then(refresh, setError);
  };
  const events = activity ? ['person.identified', 'person.activity'] : ['person.identified'];
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      {error ? <ErrorNote error={error} /> : null}
      <form onSubmit={(e) => (e.preventDefault(), act(async () => setSecret((await admin<WebhookEndpointWithSecret>('POST', `${account}/webhooks`, { url, events })).data)))}>
        <label>Endpoint URL <input type="url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} required placeholder="http://127.0.0.1:9000/hooks" /></label>
        <label><input type="checkbox" checked={activity} onChange={(e) => setActivity(e.currentTarget.checked)} /> person.activity too</label>
        <button type="submit">Add endpoint</button>
      </form>
      {secret && (
        <div class="once" role="status">
          <p>Signing secret of <code>{secret.id}</code>: copy it now, it is not shown again.</p>
          <p><code>{secret.secret}</code> <CopyButton text={secret.secret} /> <button type="button" onClick={() => setSecret(null)}>Done</button></p>
        </div>
      )}
      <table>
        <caption>{endpoints.length} endpoints</caption>
        <thead>
          <tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">State</th><th scope="col">Actions</th></tr>
        </thead>
        <tbody>
          {endpoints.map((ep) => (
            <tr>
              <td>{ep.url}</td>
              <td>{ep.events.join(', ')}</td>
              <td>{ep.enabled ? 'active' : `paused${ep.disabledReason ? ` (${ep.disabledReason})` : ''}`}</td>
              <td>
                <button type="button" onClick={() => setOpen(open === ep.id ? null : ep.id)} aria-expanded={open === ep.id}>Deliveries</button>{' '}
                <button type="button" onClick={() => act(async () => void (await admin('PATCH', `/webhooks/${ep.id}`, { enabled: !ep.enabled })))}>{ep.enabled ? 'Pause' : 'Resume'}</button>{' '}
                <button type="button" onClick={() => act(async () => setSecret((await admin<WebhookEndpointWithSecret>('POST', `/webhooks/${ep.id}/rotate-secret`)).data))}>Rotate secret</button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {open && <Inbox key={open} endpointId={open} />}
    </section>
  );
}

/** One endpoint's deliveries, newest first, each with its attempts and body; failed ones can go again. */
function Inbox({ endpointId }: { endpointId: string }) {
  const [deliveries, setDeliveries] = useState<WebhookDelivery[]>([]);
  const [before, setBefore] = useState<string | undefined>(undefined);
  const [status, setStatus] = useState('');
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
          <li data-delivery-id={d.id}>
            <details>
              <summary>
                <span class={`badge status-${d.status}`}>{d.status}</span> {d.event} · {d.domain} · <When at={d.createdAt} /> · {d.attempts.length} attempts
              </summary>
              <table>
                <caption>Attempts</caption>
                <thead><tr><th scope="col">At</th><th scope="col">Status</th><th scope="col">Latency</th><th scope="col">Error</th></tr></thead>
                <tbody>{d.attempts.map((a) => <tr><td><When at={a.at} /></td><td>{a.status ?? 'no answer'}</td><td>{a.latencyMs} ms</td><td>{a.error ?? ''}</td></tr>)}</tbody>
              </table>
              <p>webhook-id <code>{d.id}</code></p>
              <pre>{JSON.stringify(d.payload, null, 2)}</pre>
              {d.status === 'failed' && <button type="button" onClick={() => void redeliver(d.id)}>Redeliver</button>}
            </details>
          </li>
        ))}
      </ol>
      {deliveries.length === 0 && <p>No deliveries yet.</p>}
      {before && <button type="button" onClick={() => void load(before, deliveries)}>Older deliveries</button>}
    </section>
  );
}
