/** Small helpers the multi-process suites share: a JSON call over real HTTP, polling, bounded parallelism. */

/** A reply read whole: status, headers and parsed body. */
export async function send(url: string, init: RequestInit = {}): Promise<{ status: number; headers: Headers; body: any }> {
  const reply = await fetch(url, init);
  const text = await reply.text();
  return { status: reply.status, headers: reply.headers, body: text ? JSON.parse(text) : undefined };
}

/** A caller of a server's admin API with `token`: `POST /_admin{path}` with a JSON body, each call bounded by `boundMs` when given. */
export function adminCaller(token: string, boundMs?: number) {
  return (server: { url: string }, path: string, body: unknown) =>
    send(`${server.url}/_admin${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      ...(boundMs === undefined ? {} : { signal: AbortSignal.timeout(boundMs) }),
    });
}

/** What a client saw of one call: its status and envelope code with the headers an error must carry, or status 0 and why nothing came. */
export interface Answer {
  status: number;
  code?: string;
  requestId: string | null;
  retryAfter: string | null;
  failure?: string;
}

/** Sends one call that must answer within `boundMs`, and records what came back; never throws. */
export async function answerOf(url: string, init: RequestInit, boundMs: number): Promise<Answer> {
  try {
    const reply = await fetch(url, { ...init, signal: AbortSignal.timeout(boundMs) });
    const body = (await reply.json()) as { error?: { code: string } };
    return { status: reply.status, code: body.error?.code, requestId: reply.headers.get('x-request-id'), retryAfter: reply.headers.get('retry-after') };
  } catch (error) {
    return { status: 0, requestId: null, retryAfter: null, failure: String(error) };
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` every `everyMs` until it returns a value, or fails after `ms` naming `what` (read at the timeout, so it may say where things stood). */
export async function until<T>(check: () => Promise<T | undefined>, ms: number, what: string | (() => string), everyMs = 50): Promise<T> {
  for (const deadline = Date.now() + ms; ; ) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await sleep(everyMs);
  }
}

/** Runs `count` calls of `call(i)`, `width` at a time, and returns their results in order. */
export async function inParallel<T>(count: number, width: number, call: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await call(i);
      }
    }),
  );
  return results;
}
