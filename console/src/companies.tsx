import { useEffect, useState } from 'preact/hooks';
import type { Company, ListResponse, Statistics } from '../../core/resources/types.ts';
import { query } from './api.ts';
import { read, type Viewer } from './keys.ts';
import { ErrorNote, Pager, When, type Trail } from './ui.tsx';

/** Companies, a page at a time. */
export function CompaniesScreen({ viewer }: { viewer: Viewer }) {
  const [trail, setTrail] = useState<Trail>([undefined]);
  // The page shown and its number, set together so the caption never names a page still loading.
  const [shown, setShown] = useState<{ page: ListResponse<Company>; number: number } | null>(null);
  const page = shown?.page;
  const [error, setError] = useState<unknown>(null);
  const cursor = trail[trail.length - 1];
  const depth = trail.length;
  useEffect(() => {
    read<ListResponse<Company>>(viewer, 'GET', `/companies${query({ limit: 25, cursor })}`).then((loaded) => setShown({ page: loaded, number: depth }), setError);
  }, [cursor]);
  return (
    <section aria-labelledby="companies-title">
      <h1 id="companies-title">Companies</h1>
      {error ? <ErrorNote error={error} /> : null}
      {page && (
        <>
          <table>
            <caption>{page.pagination.count} companies on page {shown!.number}</caption>
            <thead>
              <tr><th scope="col">Name</th><th scope="col">Domain</th><th scope="col">Industry</th><th scope="col">Employees</th><th scope="col">Visits</th><th scope="col">Last seen</th></tr>
            </thead>
            <tbody>
              {page.data.map((c) => (
                <tr><td>{c.name}</td><td>{c.domain}</td><td>{c.standardizedIndustry}</td><td class="num">{c.employeeCount}</td><td class="num">{c.visitCount}</td><td><When at={c.lastSeen} /></td></tr>
              ))}
            </tbody>
          </table>
          <Pager trail={trail} setTrail={setTrail} nextCursor={page.pagination.nextCursor} />
        </>
      )}
    </section>
  );
}

/** The statistics as a bar chart: totals against the recent events. */
export function StatsScreen({ viewer }: { viewer: Viewer }) {
  const [stats, setStats] = useState<Statistics | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => void read<{ data: Statistics }>(viewer, 'GET', '/stats').then((r) => setStats(r.data), setError), []);
  if (error) return <ErrorNote error={error} />;
  if (!stats) return <p role="status">Loading…</p>;
  const bars: [string, number][] = [
    ['People', stats.totalPeople],
    ['Companies', stats.totalCompanies],
    [`Events, last ${stats.periodDays} days`, stats.recentEvents],
    ['Events per day', Math.round(stats.dailyAverage)],
  ];
  const top = Math.max(1, ...bars.map(([, n]) => n));
  return (
    <section aria-labelledby="stats-title">
      <h1 id="stats-title">Stats</h1>
      <p>Generated <When at={stats.generatedAt} />.</p>
      <svg class="chart" viewBox={`0 0 600 ${bars.length * 40}`} role="img" aria-label={bars.map(([name, n]) => `${name}: ${n}`).join('; ')}>
        {bars.map(([name, n], i) => (
          <g transform={`translate(0 ${i * 40})`}>
            <text x="0" y="22">{name}</text>
            <rect x="200" y="6" height="24" width={Math.max(1, (n / top) * 320)} />
            <text x={210 + (n / top) * 320} y="22">{n}</text>
          </g>
        ))}
      </svg>
    </section>
  );
}
