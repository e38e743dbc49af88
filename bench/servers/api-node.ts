/** Our API through the Node adapter (better-sqlite3, node:http): `node --import tsx bench/servers/api-node.ts DB`. */
import { createApi, serve } from '../../adapters/node/index.ts';
import { announce, databaseArgument, UNLIMITED } from './api-options.ts';

const api = await createApi({ database: databaseArgument(), rateLimits: UNLIMITED });
announce(await serve(api, { port: 0 }), () => api.close());
