import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/** Creates the folder a database file will live in (node:fs works on Node, Bun and Deno alike). */
export function ensureParentDir(path: string): void {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
}
