import { createServer } from 'node:net';
import { CliError, reason } from './errors.ts';

/**
 * Stops with one line unless `port` on `host` can be listened on. `serve` asks before it seeds
 * anything, so a busy port costs no time and leaves no file behind. Port 0 is always free.
 */
export async function ensurePortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ port, host, exclusive: true }, () => resolve());
    });
  } catch (error) {
    throw listenError(host, port, error);
  } finally {
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  }
}

/** The one line for a server that could not listen. */
export function listenError(host: string, port: number, error: unknown): CliError {
  const code = (error as { code?: string }).code;
  const text = reason(error);
  if (code === 'EADDRINUSE' || /in use/i.test(text) || (error as Error).name === 'AddrInUse') {
    return new CliError(`port ${port} on ${host} is already in use; choose another with --port (0 takes a free one)`);
  }
  if (code === 'EACCES' || /permission/i.test(text)) return new CliError(`cannot listen on ${host}:${port}: permission denied (ports below 1024 need privileges)`);
  return new CliError(`cannot listen on ${host}:${port}: ${text}`);
}
