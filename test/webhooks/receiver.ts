import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the receiver got. */
export interface Received {
  headers: Record<string, string>;
  body: string;
  json: any;
}

/** What the receiver answers: a status with headers, or no answer at all (`hang`). */
export type Answer = { status: number; headers?: Record<string, string>; delayMs?: number } | 'hang';

/**
 * A real local HTTP receiver on a free port: records each POST and answers what the test says
 * (200 by default; `answers` are used up in order, then `fallback`).
 */
export class Receiver {
  readonly received: Received[] = [];
  answers: Answer[] = [];
  fallback: Answer = { status: 200 };
  /** Requests being answered now, and the most there ever were at once. */
  inFlight = 0;
  maxInFlight = 0;
  #server: Server | undefined;

  private constructor(public port: number) {}

  /** Starts a receiver on `port` (0 for a free one). */
  static async start(port = 0): Promise<Receiver> {
    const receiver = new Receiver(port);
    await receiver.listen();
    return receiver;
  }

  /** A port with nothing listening on it (yet): a receiver that is down. */
  static async downPort(): Promise<number> {
    const probe = await Receiver.start();
    await probe.close();
    return probe.port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  /** Listens (again) on this receiver's port. */
  async listen(): Promise<void> {
    const server = createServer((req, res) => void this.#handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  /** Stops listening and drops every connection, answered or not. */
  async close(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The deliveries received with a given webhook-id. */
  withId(id: string): Received[] {
    return this.received.filter((r) => r.headers['webhook-id'] === id);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
    res.once('close', () => this.inFlight--);
    let body = '';
    for await (const chunk of req) body += chunk;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers[name] = value;
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      json = undefined;
    }
    this.received.push({ headers, body, json });
    const answer = this.answers.shift() ?? this.fallback;
    if (answer === 'hang') return;
    if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
    res.writeHead(answer.status, answer.headers).end('ok');
  }
}
