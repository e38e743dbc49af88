import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { admin, adminToken, adoptTokenFromLink, signIn } from './api.ts';
import { canRead, rememberKey, type Viewer } from './keys.ts';
import { ErrorNote } from './ui.tsx';
import { PeopleScreen } from './people.tsx';
import { PersonScreen } from './person.tsx';
import { CompaniesScreen, StatsScreen } from './companies.tsx';
import { TimeScreen } from './time.tsx';
import { KeysScreen } from './keys-screen.tsx';
import { ExportsScreen } from './exports.tsx';
import { WebhooksScreen } from './webhooks.tsx';

interface Site {
  domain: string;
  clientRef: string | null;
}

const SCREENS = [
  ['people', 'People'],
  ['companies', 'Companies'],
  ['stats', 'Stats'],
  ['keys', 'Keys'],
  ['webhooks', 'Webhooks'],
  ['exports', 'Exports'],
  ['time', 'Time and faults'],
] as const;

function useHashRoute(): string[] {
  const parts = () => location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  const [route, setRoute] = useState(parts);
  useEffect(() => {
    const changed = () => setRoute(parts());
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}

function SignIn({ onDone }: { onDone: () => void }) {
  const [token, setToken] = useState('');
  return (
    <main class="signin">
      <h1>Visitor Intelligence sandbox console</h1>
      <p>Open the link <code>serve</code> printed, or paste the admin token it printed.</p>
      <form onSubmit={(e) => (e.preventDefault(), signIn(token.trim()), onDone())}>
        <label for="token">Admin token</label>
        <input id="token" type="password" value={token} onInput={(e) => setToken(e.currentTarget.value)} required />
        <button type="submit">Sign in</button>
      </form>
    </main>
  );
}

/** Asks for a site's scoped key: the site has its active key, whose value only its holder knows. */
function KeyPrompt({ viewer, onDone }: { viewer: Viewer; onDone: () => void }) {
  const [key, setKey] = useState('');
  return (
    <form onSubmit={(e) => (e.preventDefault(), rememberKey(viewer, key.trim()), onDone())}>
      <p>{viewer.domain} already has its active scoped key (serve printed it). Paste it to read as that site.</p>
      <label>Scoped key of {viewer.domain} <input value={key} onInput={(e) => setKey(e.currentTarget.value)} required /></label>
      <button type="submit">Use this key</button>
    </form>
  );
}

function Console() {
  const route = useHashRoute();
  const [accountId, setAccountId] = useState<string | null>(null);
  const [sites, setSites] = useState<Site[]>([]);
  const [domain, setDomain] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  // null while finding out whether a key for the viewer is at hand.
  const [readable, setReadable] = useState<boolean | null>(null);
  const [asked, setAsked] = useState(0);
  useEffect(() => {
    if (accountId === null) return;
    setReadable(null);
    canRead({ accountId, domain }).then(setReadable, setError);
  }, [accountId, domain, asked]);
  useEffect(() => {
    (async () => {
      const { data: accounts } = await admin<{ id: string; name: string }[]>('GET', '/accounts');
      const account = accounts.find((a) => a.id === 'acc_demo') ?? accounts[0];
      if (!account) return;
      setSites((await admin<Site[]>('GET', `/accounts/${encodeURIComponent(account.id)}/sites`)).data);
      setAccountId(account.id);
    })().catch(setError);
  }, []);
  if (error) return <ErrorNote error={error} />;
  if (accountId === null) return <p role="status">Loading…</p>;
  const viewer: Viewer = { accountId, domain };
  const [screen = 'people', id] = route;
  return (
    <>
      <header>
        <strong>VI sandbox console</strong>
        <nav aria-label="Screens">
          {SCREENS.map(([name, title]) => (
            <a href={`#/${name}`} aria-current={screen === name ? 'page' : undefined}>{title}</a>
          ))}
          <a href="./reference.html">API reference</a>
        </nav>
        <label>
          Read as{' '}
          <select value={domain ?? ''} onChange={(e) => setDomain(e.currentTarget.value || null)}>
            <option value="">Account key (everything)</option>
            {sites.map((s) => (
              <option value={s.domain}>Scoped key: {s.domain}</option>
            ))}
          </select>
        </label>
      </header>
      <main>
        {readable === false && ['people', 'companies', 'stats', 'exports'].includes(screen) ? (
          <KeyPrompt viewer={viewer} onDone={() => setAsked((n) => n + 1)} />
        ) : readable === null && ['people', 'companies', 'stats', 'exports'].includes(screen) ? (
          <p role="status">Loading…</p>
        ) : (
          <>
            {screen === 'people' && !id && <PeopleScreen key={domain ?? ''} viewer={viewer} />}
            {screen === 'people' && id && <PersonScreen key={`${domain}:${id}`} viewer={viewer} id={id} />}
            {screen === 'companies' && <CompaniesScreen key={domain ?? ''} viewer={viewer} />}
            {screen === 'stats' && <StatsScreen key={domain ?? ''} viewer={viewer} />}
            {screen === 'keys' && <KeysScreen accountId={accountId} sites={sites.map((s) => s.domain)} />}
            {screen === 'exports' && <ExportsScreen viewer={viewer} />}
            {screen === 'webhooks' && <WebhooksScreen accountId={accountId} />}
            {screen === 'time' && <TimeScreen />}
          </>
        )}
      </main>
    </>
  );
}

function App() {
  const [, setSigned] = useState(0);
  adoptTokenFromLink();
  return adminToken() ? <Console /> : <SignIn onDone={() => setSigned((n) => n + 1)} />;
}

render(<App />, document.getElementById('app')!);
