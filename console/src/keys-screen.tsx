import { useEffect, useState } from 'preact/hooks';
import { admin } from './api.ts';
import { CopyButton, ErrorNote, When } from './ui.tsx';

interface KeyView {
  keyId: string;
  domain: string | null;
  clientRef: string | null;
  label: string | null;
  createdAt: string;
  revokedAt: string | null;
}

interface Issued {
  keyId: string;
  key: string;
  domain: string | null;
}

/** The account's keys: issue (account or a site), rotate, revoke; a new value is shown once. */
export function KeysScreen({ accountId, sites }: { accountId: string; sites: string[] }) {
  const [keys, setKeys] = useState<KeyView[]>([]);
  const [issued, setIssued] = useState<Issued | null>(null);
  const [domain, setDomain] = useState('');
  const [label, setLabel] = useState('');
  const [error, setError] = useState<unknown>(null);
  const account = `/accounts/${encodeURIComponent(accountId)}`;
  const refresh = () => admin<KeyView[]>('GET', `${account}/keys`).then((r) => setKeys(r.data), setError);
  useEffect(() => void refresh(), []);
  const act = (work: () => Promise<void>) => {
    setError(null);
    work().then(refresh, setError);
  };
  const issue = () => act(async () => {
    const body = { ...(domain ? { domain } : {}), ...(label ? { label } : {}) };
    setIssued((await admin<Issued>('POST', `${account}/keys`, body)).data);
  });
  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">Keys</h1>
      {error ? <ErrorNote error={error} /> : null}
      <form onSubmit={(e) => (e.preventDefault(), issue())}>
        <label>Reach{' '}
          <select value={domain} onChange={(e) => setDomain(e.currentTarget.value)}>
            <option value="">Account key (everything)</option>
            {sites.map((s) => <option value={s}>Scoped to {s}</option>)}
          </select>
        </label>
        <label>Label <input value={label} onInput={(e) => setLabel(e.currentTarget.value)} /></label>
        <button type="submit">Issue key</button>
      </form>
      {issued && (
        <div class="once" role="status">
          <p>New key <code>{issued.keyId}</code>{issued.domain ? ` for ${issued.domain}` : ''}: copy it now, it is not shown again.</p>
          <p><code id="issued-key">{issued.key}</code> <CopyButton text={issued.key} /> <button type="button" onClick={() => setIssued(null)}>Done</button></p>
        </div>
      )}
      <table>
        <caption>{keys.length} keys, revoked ones included</caption>
        <thead>
          <tr><th scope="col">Key id</th><th scope="col">Reach</th><th scope="col">Label</th><th scope="col">Created</th><th scope="col">State</th><th scope="col">Actions</th></tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <tr data-key-id={k.keyId}>
              <td><code>{k.keyId}</code></td>
              <td>{k.domain ?? 'account'}</td>
              <td>{k.label ?? ''}</td>
              <td><When at={k.createdAt} /></td>
              <td>{k.revokedAt ? <>revoked <When at={k.revokedAt} /></> : 'active'}</td>
              <td>
                {!k.revokedAt && (
                  <>
                    <button type="button" aria-label={`Rotate ${k.keyId}`} onClick={() => act(async () => setIssued((await admin<Issued>('POST', `/keys/${encodeURIComponent(k.keyId)}/rotate`)).data))}>Rotate</button>{' '}
                    <button type="button" aria-label={`Revoke ${k.keyId}`} onClick={() => act(async () => void (await admin('POST', `/keys/${encodeURIComponent(k.keyId)}/revoke`)))}>Revoke</button>
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
