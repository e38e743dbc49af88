import { useEffect, useState } from 'preact/hooks';
import type { EventsResponse, Person, VisitorEvent } from '../../core/resources/types.ts';
import { query } from './api.ts';
import { read, type Viewer } from './keys.ts';
import { ErrorNote, When } from './ui.tsx';

/** The fields every event has; the rest are what tells one type from another. */
const COMMON = new Set(['eventId', 'sessionId', 'eventType', 'timestamp', 'url']);

/** One person and their journey, a page of events at a time. */
export function PersonScreen({ viewer, id }: { viewer: Viewer; id: string }) {
  const [person, setPerson] = useState<Person | null>(null);
  const [events, setEvents] = useState<VisitorEvent[]>([]);
  const [next, setNext] = useState<string | undefined>(undefined);
  const [type, setType] = useState('');
  const [error, setError] = useState<unknown>(null);
  const path = `/people/${encodeURIComponent(id)}`;
  useEffect(() => {
    read<{ data: Person }>(viewer, 'GET', path).then((r) => setPerson(r.data), setError);
  }, [id]);
  const load = async (cursor: string | undefined, kept: VisitorEvent[]) => {
    try {
      const page = await read<EventsResponse>(viewer, 'GET', `${path}/events${query({ limit: 50, cursor, event_type: type })}`);
      setEvents([...kept, ...page.data]);
      setNext(page.pagination.nextCursor);
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => void load(undefined, []), [id, type]);
  if (error) return <ErrorNote error={error} />;
  if (!person) return <p role="status">Loading…</p>;
  const types = [...new Set(events.map((e) => e.eventType))];
  return (
    <section aria-labelledby="person-title">
      <p><a href="#/people">← People</a></p>
      <h1 id="person-title">{[person.firstName, person.lastName].filter(Boolean).join(' ') || person.id}</h1>
      <dl class="facts">
        <dt>Email</dt><dd>{person.email ?? '—'}</dd>
        <dt>Title</dt><dd>{person.title ?? '—'}</dd>
        <dt>Company</dt><dd>{person.company ?? '—'}</dd>
        <dt>Site</dt><dd>{person.domain}</dd>
        <dt>Visits</dt><dd>{person.visitCount}</dd>
        <dt>First seen</dt><dd><When at={person.firstSeen} /></dd>
        <dt>Last seen</dt><dd><When at={person.lastSeen} /></dd>
        <dt>Hot lead</dt><dd>{person.isHotLead ? 'yes' : 'no'}</dd>
      </dl>
      <h2>Journey</h2>
      <label>
        event_type{' '}
        <input value={type} onChange={(e) => setType(e.currentTarget.value)} placeholder={types.join(', ')} />
      </label>
      <ol class="timeline" aria-label="Journey">
        {events.map((event) => (
          <li class={`event event-${event.eventType.replace(/[^\w-]/g, '_')}`}>
            <details>
              <summary>
                <span class="badge">{event.eventType}</span> <When at={event.timestamp} /> <span class="url">{event.url}</span>
              </summary>
              <dl>
                {Object.entries(event).filter(([name]) => !COMMON.has(name)).map(([name, value]) => (
                  <>
                    <dt>{name}</dt>
                    <dd>{typeof value === 'object' ? JSON.stringify(value) : String(value)}</dd>
                  </>
                ))}
                <dt>sessionId</dt><dd>{event.sessionId}</dd>
                <dt>eventId</dt><dd>{event.eventId}</dd>
              </dl>
            </details>
          </li>
        ))}
      </ol>
      {events.length === 0 && <p>No events.</p>}
      {next && <button type="button" onClick={() => void load(next, events)}>Load more events</button>}
    </section>
  );
}
