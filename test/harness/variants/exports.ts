/** Broken variants of bulk exports: the start body, the finished job and its download link. */
import type { Api } from '../../../core/index.ts';
import { endpointOf, mapJson, readJson, rebuild, withHeaders, withText, type FetchHandler, type Variant } from './kit.ts';

/** The body filters of POST /v1/exports, as the spec lists them. */
const EXPORT_FILTERS = new Set([
  'timeframe', 'dateField', 'isHotLead', 'industries', 'regions', 'seniority', 'jobFunctions', 'domains', 'pages', 'campaigns', 'trafficTypes',
  'adPlatforms', 'visitCountMin', 'hasBusinessEmail', 'hasLinkedIn', 'hasPhone', 'multiClientOnly', 'crmStatus', 'search', 'sortBy', 'sortOrder', 'filename',
]);

/** A wrapper that edits the body of each complete export poll. */
function editingCompleteJobs(edit: (job: any) => void): (api: Api) => FetchHandler {
  return (api) => ({
    async fetch(request) {
      const response = await api.fetch(request);
      if (endpointOf(request).endpoint !== 'export' || response.status !== 200) return response;
      return mapJson(response, (job) => {
        if (job?.status === 'complete') edit(job);
      });
    },
  });
}

/** The body text parsed as a JSON object, or undefined when it is none (the API then answers for itself). */
function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const body: unknown = JSON.parse(text);
    return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Remembers the link each complete job was given, from its polls, by job id. */
class Links {
  readonly #byJob = new Map<string, URL>();

  /** Notes the link of a poll response (which it does not consume). */
  async note(request: Request, response: Response): Promise<void> {
    if (endpointOf(request).endpoint !== 'export' || response.status !== 200) return;
    const job = (await readJson(response))?.body;
    if (job?.status === 'complete' && typeof job.downloadUrl === 'string') this.#byJob.set(job.jobId, new URL(job.downloadUrl));
  }

  /** The link given for the job of a download request. */
  of(request: Request): URL | undefined {
    const { endpoint, id } = endpointOf(request);
    return endpoint === 'download' && id ? this.#byJob.get(id) : undefined;
  }
}

export const exportVariants: Variant[] = [
  {
    id: 'export-unknown-key-accepted',
    rule: 'Unknown keys in the POST /v1/exports body are rejected with 400.',
    only: ['exports.'],
    wrap: (api) => ({
      async fetch(request) {
        if (endpointOf(request).endpoint !== 'exports' || request.method !== 'POST') return api.fetch(request);
        const text = await request.text();
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          return api.fetch(await rebuild(request, { body: text }));
        }
        if (!body || typeof body !== 'object' || Array.isArray(body)) return api.fetch(await rebuild(request, { body: text }));
        const known = Object.fromEntries(Object.entries(body).filter(([key]) => EXPORT_FILTERS.has(key)));
        return api.fetch(await rebuild(request, { body: JSON.stringify(known) }));
      },
    }),
  },
  {
    id: 'download-lifetime-not-900',
    rule: 'A complete job carries downloadUrlExpiresInSeconds: 900.',
    only: ['exports.'],
    wrap: editingCompleteJobs((job) => (job.downloadUrlExpiresInSeconds = 3600)),
  },
  {
    id: 'export-row-count-off-by-one',
    rule: 'rowCount of a complete job is the number of rows in its CSV.',
    only: ['exports.'],
    wrap: editingCompleteJobs((job) => typeof job.rowCount === 'number' && (job.rowCount += 1)),
  },
  {
    id: 'download-signature-unchecked',
    rule: 'The download link is signed: a link with a tampered signature does not download the CSV.',
    only: ['exports.'],
    wrap(api) {
      const links = new Links();
      return {
        async fetch(request) {
          const good = links.of(request);
          // Any link to a job the API handed out is served as the good one.
          const response = await api.fetch(good ? await rebuild(request, { url: new URL(good.pathname + good.search, request.url) }) : request);
          await links.note(request, response);
          return response;
        },
      };
    },
  },
  {
    id: 'download-never-expires',
    rule: 'downloadUrl is valid 900 seconds from completedAt; after that the link is dead.',
    only: ['exports.'],
    slow: true,
    wrap(api) {
      const links = new Links();
      const files = new Map<string, Promise<{ text: string; headers: Headers } | null>>();
      return {
        async fetch(request) {
          const response = await api.fetch(request);
          await links.note(request, response);
          const { endpoint, id } = endpointOf(request);
          if (endpoint === 'export' && id && !files.has(id)) {
            const good = (await readJson(response))?.body?.downloadUrl;
            // Keep the file while the link still works, to serve it once the link is dead.
            if (typeof good === 'string') {
              files.set(id, api.fetch(new Request(new URL(new URL(good).pathname + new URL(good).search, request.url))).then(async (r) => (r.ok ? { text: await r.text(), headers: r.headers } : null)));
            }
          }
          const good = links.of(request);
          if (endpoint !== 'download' || !id || !good || response.status !== 403 || new URL(request.url).search !== good.search) return response;
          const file = await files.get(id);
          if (!file) return response;
          const served = withText(response, file.text, 200);
          for (const name of ['content-type', 'content-disposition', 'cache-control']) served.headers.set(name, file.headers.get(name) ?? '');
          return served;
        },
      };
    },
  },
  {
    id: 'export-hot-filter-inverted',
    rule: 'An export with isHotLead: true holds only current hot leads.',
    only: ['exports.filtered-rows-match'],
    wrap: (api) => ({
      async fetch(request) {
        if (endpointOf(request).endpoint !== 'exports' || request.method !== 'POST') return api.fetch(request);
        const text = await request.text();
        const body = jsonObject(text);
        // The boolean read the wrong way round: the job counts and writes the people who are not hot leads.
        if (typeof body?.isHotLead !== 'boolean') return api.fetch(await rebuild(request, { body: text }));
        return api.fetch(await rebuild(request, { body: JSON.stringify({ ...body, isHotLead: !body.isHotLead }) }));
      },
    }),
  },
  {
    id: 'filtered-export-row-count-off',
    rule: 'rowCount of a complete job is the number of rows in its CSV, for a filtered export too.',
    only: ['exports.filtered-rows-match'],
    wrap(api) {
      const filtered = new Set<string>();
      return {
        async fetch(request) {
          const { endpoint, id } = endpointOf(request);
          if (endpoint === 'exports' && request.method === 'POST') {
            const text = await request.text();
            const response = await api.fetch(await rebuild(request, { body: text }));
            const jobId = (await readJson(response))?.body?.jobId;
            if (response.status === 202 && typeof jobId === 'string' && Object.keys(jsonObject(text) ?? {}).length > 0) filtered.add(jobId);
            return response;
          }
          const response = await api.fetch(request);
          if (endpoint !== 'export' || !id || !filtered.has(id) || response.status !== 200) return response;
          // The count and the file disagree by a row, as when they come from two queries that differ.
          return mapJson(response, (job) => {
            if (job?.status === 'complete' && typeof job.rowCount === 'number') job.rowCount += 1;
          });
        },
      };
    },
  },
  {
    id: 'default-filename-undated',
    rule: 'Without a filename, the download is named service_people_<date>.csv.',
    only: ['exports.default-filename'],
    wrap: (api) => ({
      async fetch(request) {
        const response = await api.fetch(request);
        if (endpointOf(request).endpoint !== 'download' || response.status !== 200) return response;
        return withHeaders(response, (h) => {
          const header = h.get('content-disposition') ?? '';
          if (/filename="service_people_[^"]*\.csv"/.test(header)) h.set('content-disposition', 'attachment; filename="service_people.csv"');
        });
      },
    }),
  },
  {
    id: 'export-file-misses-person',
    rule: 'An export holds every matching person: the file may not repeat one person in place of another.',
    only: ['exports.'],
    wrap: (api) => ({
      async fetch(request) {
        const response = await api.fetch(request);
        if (endpointOf(request).endpoint !== 'download' || response.status !== 200) return response;
        // The last person's row becomes a copy of the first: rowCount and the row count still agree.
        const lines = (await response.text()).split('\n');
        const end = lines.at(-1) === '' ? lines.length - 1 : lines.length;
        if (end >= 3) lines[end - 1] = lines[1]!;
        return withText(response, lines.join('\n'));
      },
    }),
  },
];
