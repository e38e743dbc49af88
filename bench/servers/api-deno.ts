/** Our API through the Deno adapter (node:sqlite, Deno.serve): `deno run -A bench/servers/api-deno.ts DB`. */
import { createApi, serve } from '../../adapters/deno/index.ts';
import { announce, databaseArgument, UNLIMITED } from './api-options.ts';

const api = await createApi({ database: databaseArgument(), rateLimits: UNLIMITED });
announce(await serve(api, { port: 0 }), () => api.close());
