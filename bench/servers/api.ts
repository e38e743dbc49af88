/** Our API through the adapter of whichever runtime runs this file: `<runtime> bench/servers/api.ts DB`. */
import { loadRuntime } from '../../scripts/runtime.ts';
import { announce, databaseArgument, UNLIMITED } from './api-options.ts';

const runtime = await loadRuntime();
const api = await runtime.createApi({ database: databaseArgument(), rateLimits: UNLIMITED });
announce(await runtime.serve(api, { port: 0 }), () => api.close());
