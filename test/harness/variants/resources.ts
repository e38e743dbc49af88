/** Broken variants of the resources' shapes: how their timestamps are written. */
import { endpointOf, mapJson, readJson, withText, type Variant } from './kit.ts';

const Z_TIMESTAMP = /"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?)Z"/g;
const OFFSET_TIMESTAMP = /"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?)\+00:00"/g;

export const resourceVariants: Variant[] = [
  {
    id: 'resource-timestamps-offset',
    rule: 'Resource timestamps are ISO 8601 date-times in UTC written with Z; only export jobs carry a numeric offset.',
    only: ['resources.'],
    wrap: (api) => ({
      async fetch(request) {
        const response = await api.fetch(request);
        const { endpoint } = endpointOf(request);
        if (!['people', 'person', 'events', 'companies', 'company', 'stats'].includes(endpoint) || response.status !== 200) return response;
        const read = await readJson(response);
        return read ? withText(response, read.text.replace(Z_TIMESTAMP, '"$1+00:00"')) : response;
      },
    }),
  },
  {
    id: 'export-timestamps-z',
    rule: 'Export job timestamps carry an explicit numeric offset instead of Z.',
    only: ['exports.', 'resources.'],
    wrap: (api) => ({
      async fetch(request) {
        const response = await api.fetch(request);
        if (endpointOf(request).endpoint !== 'export' || response.status !== 200) return response;
        const read = await readJson(response);
        return read ? withText(response, read.text.replace(OFFSET_TIMESTAMP, '"$1Z"')) : response;
      },
    }),
  },
  {
    id: 'company-text-null',
    rule: 'Company fields are typed (region is a string): unlike Person\'s, none is said to be absent or null.',
    only: ['resources.company'],
    wrap: (api) => ({
      async fetch(request) {
        const response = await api.fetch(request);
        const { endpoint } = endpointOf(request);
        if ((endpoint !== 'companies' && endpoint !== 'company') || response.status !== 200) return response;
        return mapJson(response, (body) => {
          for (const company of Array.isArray(body?.data) ? body.data : [body?.data]) if (company && typeof company === 'object') company.region = null;
        });
      },
    }),
  },
];
