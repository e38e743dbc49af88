/** Small helpers the multi-process suites share: a JSON call over real HTTP, polling, bounded parallelism. */

/** A reply read whole: status, headers and parsed body. */
export async function send(url: string, init: RequestInit = {}): Promise<{ status: number; headers: Headers; body: any }> {
  const reply = await fetch(url, init);
  const text = await reply.text();
  return { status: reply.status, headers: reply.headers, body: text ? JSON.parse(text) : undefined };
}

/** Polls `check` every `everyMs` until it returns a value, or fails after `ms` naming `what`. */
export async function until<T>(check: () => Promise<T | undefined>, ms: number, what: string, everyMs = 50): Promise<T> {
  for (const deadline = Date.now() + ms; ; ) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
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
