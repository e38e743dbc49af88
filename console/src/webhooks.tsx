import { useEffect, useState } from 'preact/hooks';
import type { SimulationState } from '../../core/admin/simulation.ts';
import type { WebhookDelivery, WebhookEndpoint, WebhookEndpointWithSecret } from '../../core/webhooks/webhook-admin.ts';
import { admin, CallError } from './api.ts';
import { Inbox } from './inbox.tsx';
import { rememberSecret } from './signatures.ts';
import { CopyButton, ErrorNote } from './ui.tsx';

/** The simulated traffic switch, the account's endpoints (create, pause, rotate the secret, test) and each one's delivery inbox. */
export function WebhooksScreen({ accountId }: { accountId: string }) {
  const [endpoints, setEndpoints] = useState<WebhookEndpoint[]>([]);
  const [secret, setSecret] = useState<WebhookEndpointWithSecret | null>(null);
  const [url, setUrl] = useState('');
  const [activity, setActivity] = useState(true);
  const [open, setOpen] = useState<string | null>(null);
  // Bumped to load the open inbox again (after a test event).
  const [inboxRound, setInboxRound] = useState(0);
  const [note, setNote] = useState('');
  const [error, setError] = useState<unknown>(null);
  const account = `/accounts/${encodeURIComponent(accountId)}`;
  const refresh = () => admin<WebhookEndpoint[]>('GET', `${account}/webhooks`).then((r) => setEndpoints(r.data), setError);
  useEffect(() => void refresh(), []);
  const act = (work: () => Promise<void>) => {
    setError(null);
    setNote('');
    work().then(refresh, setError);
  };
  // A secret is shown once; this tab keeps it to check the inbox's signatures with.
  const showSecret = (endpoint: WebhookEndpointWithSecret) => {
    rememberSecret(endpoint.id, endpoint.secret);
    setSecret(endpoint);
  };
  const sendTest = (ep: WebhookEndpoint, event: string) =>
    act(async () => {
      const { data } = await admin<WebhookDelivery>('POST', `/webhooks/${ep.id}/test`, { event });
      setOpen(ep.id);
      setInboxRound((n) => n + 1);
      setNote(`Test ${event} delivery ${data.id} queued for ${ep.id}.`);
    });
  const events = activity ? ['person.identified', 'person.activity'] : ['person.identified'];
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      <Simulation />
      <h2>Endpoints</h2>
      {error ? <ErrorNote error={error} /> : null}
      <form onSubmit={(e) => (e.preventDefault(), act(async () => showSecret((await admin<WebhookEndpointWithSecret>('POST', `${account}/webhooks`, { url, events })).data)))}>
        <label>Endpoint URL <input type="url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} required placeholder="http://127.0.0.1:9000/hooks" /></label>
        <label><input type="checkbox" checked={activity} onChange={(e) => setActivity(e.currentTarget.checked)} /> person.activity too</label>
        <button type="submit">Add endpoint</button>
      </form>
      {secret && (
        <div class="once" role="status">
          <p>Signing secret of <code>{secret.id}</code>: copy it now, it is not shown again (this tab keeps it to check signatures with).</p>
          <p><code id="endpoint-secret">{secret.secret}</code> <CopyButton text={secret.secret} /> <button type="button" onClick={() => setSecret(null)}>Done</button></p>
        </div>
      )}
      <p role="status">{note}</p>
      <table>
        <caption>{endpoints.length} {endpoints.length === 1 ? 'endpoint' : 'endpoints'}</caption>
        <thead>
          <tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">State</th><th scope="col">Actions</th></tr>
        </thead>
        <tbody>
          {endpoints.map((ep) => (
            <tr data-endpoint-id={ep.id}>
              <td>{ep.url}</td>
              <td>{ep.events.join(', ')}</td>
              <td>{ep.enabled ? 'active' : `paused${ep.disabledReason ? ` (${ep.disabledReason})` : ''}`}</td>
              <td>
                <button type="button" onClick={() => setOpen(open === ep.id ? null : ep.id)} aria-expanded={open === ep.id}>Deliveries</button>{' '}
                <button type="button" onClick={() => act(async () => void (await admin('PATCH', `/webhooks/${ep.id}`, { enabled: !ep.enabled })))}>{ep.enabled ? 'Pause' : 'Resume'}</button>{' '}
                <button type="button" onClick={() => act(async () => showSecret((await admin<WebhookEndpointWithSecret>('POST', `/webhooks/${ep.id}/rotate-secret`)).data))}>Rotate secret</button>{' '}
                {ep.events.map((event) => (
                  <>
                    <button type="button" disabled={!ep.enabled} onClick={() => sendTest(ep, event)}>Test {event}</button>{' '}
                  </>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {open && <Inbox key={`${open}:${inboxRound}`} endpointId={open} />}
    </section>
  );
}

/** The host's simulated traffic (`serve --simulate`), switched on and off; absent where the host runs none. */
function Simulation() {
  // undefined while loading; null where the server runs no simulation.
  const [state, setState] = useState<SimulationState | null | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    admin<SimulationState>('GET', '/simulation').then(
      (r) => setState(r.data),
      (e) => (e instanceof CallError && e.status === 404 ? setState(null) : setError(e)),
    );
  }, []);
  const flip = (running: boolean) => {
    setError(null);
    admin<SimulationState>('POST', '/simulation', { running }).then((r) => setState(r.data), setError);
  };
  return (
    <>
      <h2>Simulated traffic</h2>
      {error ? <ErrorNote error={error} /> : null}
      {state === null && <p>This server runs no simulated traffic (<code>visitor-intelligence serve</code> does).</p>}
      {state && (
        <p>
          <label class="inline">
            <input type="checkbox" role="switch" checked={state.running} onChange={(e) => flip(e.currentTarget.checked)} /> Simulated traffic
          </label>{' '}
          <span id="simulation-state">{state.running ? 'on' : 'off'}</span>: {state.newPeople} new people and some return visits every {state.everySeconds} s, loaded as a tracker would
          (what <code>serve --simulate</code> starts with), each making webhook deliveries.
        </p>
      )}
    </>
  );
}
