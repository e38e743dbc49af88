/** Our API through the Bun adapter (bun:sqlite, Bun.serve): `bun bench/servers/api-bun.ts DB`. */
import { createApi, serve } from '../../adapters/bun/index.ts';
import { announce, databaseArgument, UNLIMITED } from './api-options.ts';

const api = await createApi({ database: databaseArgument(), rateLimits: UNLIMITED });
announce(await serve(api, { port: 0 }), () => api.close());
