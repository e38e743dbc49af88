import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeListener, type FetchHandler } from './listener.ts';

/** Options of {@link serve}. */
export interface ServeOptions {
  port?: number;
  hostname?: string;
}

/** A listening server and how to stop it. */
export interface RunningServer {
  server: Server;
  port: number;
  url: string;
  /** Stops accepting connections and waits for open requests to finish. */
  close(): Promise<void>;
}

/** Serves the API on a port (0 takes a free one) and resolves once it listens. */
export async function serve(api: FetchHandler, options: ServeOptions = {}): Promise<RunningServer> {
  const hostname = options.hostname ?? '127.0.0.1';
  const server = createServer(toNodeListener(api));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, hostname, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = hostname.includes(':') ? `[${hostname}]` : hostname;
  return {
    server,
    port,
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeIdleConnections();
      }),
  };
}
