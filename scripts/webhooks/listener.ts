import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DeliveryCollector, DeliveryJudgement } from '../../harness/webhooks/index.ts';

/** Largest body read (a person.activity delivery at the default cap is a few tens of KiB). */
const MAX_BODY = 5 * 1024 * 1024;

/** A local HTTP server that judges every request it gets as a webhook delivery. */
export interface Listener {
  /** Where to point a webhook endpoint: `http://host:port/`. */
  url: string;
  port: number;
  /** Stops listening and drops idle connections. */
  close(): Promise<void>;
}

/**
 * Listens on `host:port` and hands each request to `collector`, answering 200 to a valid delivery,
 * 401 to a bad signature and 400 to a bad payload (the body names the problems); `onJudged` runs
 * once the answer is out.
 */
export async function listen(collector: DeliveryCollector, host: string, port: number, onJudged: (judgement: DeliveryJudgement) => void = () => undefined): Promise<Listener> {
  const server: Server = createServer((req, res) => {
    readBody(req).then(
      async (body) => {
        if (body === null) {
          res.writeHead(413, { 'content-type': 'text/plain' }).end(`body over ${MAX_BODY} bytes\n`);
          return;
        }
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers[name] = value;
        const judgement = await collector.receive({ headers, body });
        const text = judgement.status === 200 ? 'ok\n' : `${judgement.problems.join('\n')}\n`;
        res.writeHead(judgement.status, { 'content-type': 'text/plain; charset=utf-8' }).end(text, () => onJudged(judgement));
      },
      () => res.destroy(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${bound}/`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // A sender that keeps delivering over keep-alive connections would hold close() open for
        // ever (and the command with it): cut every connection; an unanswered delivery is retried.
        server.closeAllConnections();
      }),
  };
}

/** The raw body as text, or null past {@link MAX_BODY}. */
async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
