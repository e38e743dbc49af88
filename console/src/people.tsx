import { useEffect, useState } from 'preact/hooks';
import type { ListResponse, Person } from '../../core/resources/types.ts';
import { query } from './api.ts';
import { read, type Viewer } from './keys.ts';
import { ErrorNote, Pager, When, type Trail } from './ui.tsx';

interface Filters {
  domain: string;
  client_ref: string;
  last_seen_after: string;
  hot_leads: boolean;
  limit: number;
}

const NO_FILTERS: Filters = { domain: '', client_ref: '', last_seen_after: '', hot_leads: false, limit: 25 };

/** People as the viewer's key sees them, a page at a time through the API's cursors. */
export function PeopleScreen({ viewer }: { viewer: Viewer }) {
  const [draft, setDraft] = useState(NO_FILTERS);
  const [filters, setFilters] = useState(NO_FILTERS);
  // The cursors of the pages before this one, so Previous goes back without the API knowing.
  const [trail, setTrail] = useState<Trail>([undefined]);
  // The page shown and its number, set together so the caption never names a page still loading.
  const [shown, setShown] = useState<{ page: ListResponse<Person>; number: number } | null>(null);
  const page = shown?.page;
  const [error, setError] = useState<unknown>(null);
  const cursor = trail[trail.length - 1];
  const depth = trail.length;
  useEffect(() => {
    setError(null);
    read<ListResponse<Person>>(viewer, 'GET', `/people${query({ ...filters, cursor })}`).then((loaded) => setShown({ page: loaded, number: depth }), setError);
  }, [filters, cursor]);
  const set = (name: keyof Filters) => (e: Event) => {
    const input = e.currentTarget as HTMLInputElement;
    setDraft({ ...draft, [name]: input.type === 'checkbox' ? input.checked : input.value });
  };
  return (
    <section aria-labelledby="people-title">
      <h1 id="people-title">People</h1>
      <p class="hint">Read with {viewer.domain ? `the scoped key of ${viewer.domain}` : 'the account key'}.</p>
      <form class="filters" onSubmit={(e) => (e.preventDefault(), setTrail([undefined]), setFilters(draft))}>
        <label>domain <input name="domain" value={draft.domain} onInput={set('domain')} placeholder="example.com" /></label>
        <label>client_ref <input name="client_ref" value={draft.client_ref} onInput={set('client_ref')} /></label>
        <label>last_seen_after <input name="last_seen_after" value={draft.last_seen_after} onInput={set('last_seen_after')} placeholder="2026-01-01T00:00:00Z" /></label>
        <label><input type="checkbox" name="hot_leads" checked={draft.hot_leads} onChange={set('hot_leads')} /> hot_leads</label>
        <label>limit <input name="limit" type="number" min={1} max={100} value={draft.limit} onInput={set('limit')} /></label>
        <button type="submit">Apply</button>
      </form>
      {error ? <ErrorNote error={error} /> : null}
      {page && (
        <>
          <table>
            <caption>{page.pagination.count} people on page {shown!.number}</caption>
            <thead>
              <tr><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Company</th><th scope="col">Site</th><th scope="col">Visits</th><th scope="col">Last seen</th><th scope="col">Hot</th></tr>
            </thead>
            <tbody>
              {page.data.map((p) => (
                <tr>
                  <td><a href={`#/people/${encodeURIComponent(p.id)}`}>{[p.firstName, p.lastName].filter(Boolean).join(' ') || p.id}</a></td>
                  <td>{p.email ?? '—'}</td>
                  <td>{p.company ?? '—'}</td>
                  <td class="site">{p.domain}</td>
                  <td class="num">{p.visitCount}</td>
                  <td><When at={p.lastSeen} /></td>
                  <td>{p.isHotLead ? 'yes' : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager trail={trail} setTrail={setTrail} nextCursor={page.pagination.nextCursor} />
        </>
      )}
    </section>
  );
}
