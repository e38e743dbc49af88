import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { baseUrl, type RunningServer, type ServeOptions } from '../shared/with-database.ts';
import { answerClientErrors } from './client-errors.ts';
import { toNodeListener, type FetchHandler } from './listener.ts';

/** Serves the API with node:http on a port (0 takes a free one) and resolves once it listens. */
export async function serve(api: FetchHandler, options: ServeOptions = {}): Promise<RunningServer> {
  const hostname = options.hostname ?? '127.0.0.1';
  // Without Node's own Host check, the listener refuses an HTTP/1.1 request without Host in the envelope.
  const server = answerClientErrors(createServer({ requireHostHeader: false }, toNodeListener(api)));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, hostname, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: baseUrl(hostname, port),
    close: () =>
      new Promise<void>((resolve, reject) => {
        // Open requests get five seconds to finish; idle keep-alive connections go at once.
        const force = setTimeout(() => server.closeAllConnections(), 5000);
        server.close((err) => (clearTimeout(force), err ? reject(err) : resolve()));
        server.closeIdleConnections();
      }),
  };
}
