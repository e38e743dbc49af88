import { useEffect, useState } from 'preact/hooks';
import { BASE } from './api.ts';
import { read, type Viewer } from './keys.ts';
import { ErrorNote, When } from './ui.tsx';

interface Job {
  jobId: string;
  status: 'processing' | 'complete' | 'failed';
  createdAt?: string;
  completedAt?: string;
  downloadUrl?: string;
  rowCount?: number;
  error?: string;
}

const TIMEFRAMES = ['all', '24h', '7d', '30d', '90d'];

/** Starts an export with the filter form, follows it, and links its CSV. */
export function ExportsScreen({ viewer }: { viewer: Viewer }) {
  const [timeframe, setTimeframe] = useState('all');
  const [hot, setHot] = useState(false);
  const [search, setSearch] = useState('');
  const [domains, setDomains] = useState('');
  const [job, setJob] = useState<Job | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (!job || job.status !== 'processing') return;
    const timer = setTimeout(() => read<Job>(viewer, 'GET', `/exports/${encodeURIComponent(job.jobId)}`).then(setJob, setError), 1000);
    return () => clearTimeout(timer);
  }, [job]);
  const start = async () => {
    setError(null);
    const body = {
      timeframe,
      ...(hot ? { isHotLead: true } : {}),
      ...(search ? { search } : {}),
      ...(domains ? { domains: domains.split(',').map((d) => d.trim()).filter(Boolean) } : {}),
    };
    try {
      setJob(await read<Job>(viewer, 'POST', '/exports', body));
    } catch (e) {
      setError(e);
    }
  };
  // The link is a path under the mount point, or already absolute.
  const href = job?.downloadUrl && (/^https?:/.test(job.downloadUrl) ? job.downloadUrl : `${job.downloadUrl.startsWith(BASE) ? '' : BASE}${job.downloadUrl}`);
  return (
    <section aria-labelledby="exports-title">
      <h1 id="exports-title">Exports</h1>
      {error ? <ErrorNote error={error} /> : null}
      <form class="filters" onSubmit={(e) => (e.preventDefault(), void start())}>
        <label>timeframe <select value={timeframe} onChange={(e) => setTimeframe(e.currentTarget.value)}>{TIMEFRAMES.map((t) => <option>{t}</option>)}</select></label>
        <label><input type="checkbox" checked={hot} onChange={(e) => setHot(e.currentTarget.checked)} /> isHotLead</label>
        <label>search <input value={search} onInput={(e) => setSearch(e.currentTarget.value)} /></label>
        <label>domains <input value={domains} onInput={(e) => setDomains(e.currentTarget.value)} placeholder="a.com, b.com" /></label>
        <button type="submit">Start export</button>
      </form>
      {job && (
        <div class="job" aria-live="polite">
          <p>Job <code>{job.jobId}</code>: <strong id="export-status">{job.status}</strong>{job.createdAt && <> since <When at={job.createdAt} /></>}</p>
          {job.status === 'processing' && <progress aria-label="Export running" />}
          {job.status === 'complete' && href && <p>{job.rowCount} rows. <a href={href} download>Download CSV</a></p>}
          {job.status === 'failed' && <p class="error">{job.error}</p>}
        </div>
      )}
    </section>
  );
}
