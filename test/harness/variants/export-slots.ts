/** A broken variant of the concurrent-export limit: a fourth export is queued instead of refused. */
import { isoWithOffset } from '../../../core/time/iso.ts';
import { endpointOf, mapJson, readJson, rebuild, withText, type Variant } from './kit.ts';

/** A job this variant accepted beyond the limit: the real job it became once a slot freed, if yet. */
interface Queued {
  createdAt: string;
  real?: string;
  error?: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const isTooMany = async (response: Response) => response.status === 429 && (await readJson(response))?.body?.error?.code === 'too_many_exports';

export const exportSlotVariants: Variant[] = [
  {
    id: 'fourth-export-queued',
    rule: 'With three exports running for the account, a fourth gets 429 too_many_exports.',
    only: ['exports.'],
    destructive: true,
    wrap(api) {
      const queued = new Map<string, Queued>();

      /** Starts the refused export as soon as a slot frees (for at most a minute). */
      async function startLater(request: Request, body: string, entry: Queued): Promise<void> {
        for (let attempt = 0; attempt < 600; attempt++) {
          await sleep(100);
          const response = await api.fetch(await rebuild(request, { body }));
          if (await isTooMany(response)) continue;
          const job = (await readJson(response))?.body;
          if (response.status === 202 && typeof job?.jobId === 'string') entry.real = job.jobId;
          else entry.error = `the queued export could not start: ${response.status}`;
          return;
        }
        entry.error = 'no export slot freed within a minute';
      }

      return {
        async fetch(request) {
          const { endpoint, id } = endpointOf(request);
          if (endpoint === 'exports' && request.method === 'POST') {
            const body = await request.text();
            const response = await api.fetch(await rebuild(request, { body }));
            if (!(await isTooMany(response))) return response;
            const jobId = `exp_q${crypto.randomUUID().replace(/-/g, '').slice(0, 23)}`;
            const entry: Queued = { createdAt: isoWithOffset(Math.floor(api.clock.now() / 1000)) };
            queued.set(jobId, entry);
            void startLater(request, body, entry).catch((error) => (entry.error = String(error)));
            return withText(response, JSON.stringify({ jobId, status: 'processing', statusUrl: `/v1/exports/${jobId}`, pollAfterSeconds: 5 }), 202);
          }
          const entry = endpoint === 'export' && id ? queued.get(id) : undefined;
          if (!entry || !id) return api.fetch(request);
          if (entry.real) {
            const url = new URL(request.url);
            url.pathname = url.pathname.replace(id, entry.real);
            return mapJson(await api.fetch(await rebuild(request, { url })), (job) => {
              if (job?.jobId === entry.real) job.jobId = id;
            });
          }
          // Not started yet: the API's own answer for the caller (404 for an unknown job) gives the headers and the auth errors.
          const response = await api.fetch(request);
          if (response.status !== 404) return response;
          const job = entry.error ? { jobId: id, status: 'failed', createdAt: entry.createdAt, error: entry.error } : { jobId: id, status: 'processing', createdAt: entry.createdAt };
          return withText(response, JSON.stringify(job), 200);
        },
      };
    },
  },
];
