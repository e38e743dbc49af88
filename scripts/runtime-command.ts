import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The runtimes the project runs on. */
export type Runtime = 'node' | 'bun' | 'deno';
export const RUNTIMES: readonly Runtime[] = ['node', 'bun', 'deno'];

/** The project's root: commands run from there, so runtimes find package.json and node_modules. */
export const ROOT = resolve(import.meta.dirname, '..');

const bin = (name: string) => join(ROOT, 'node_modules/.bin', name);

/** The command that runs a TypeScript file under a runtime (Bun and Deno from the npm dev dependencies). */
export function runtimeCommand(runtime: Runtime, script: string): string[] {
  if (runtime === 'bun') return [bin('bun'), script];
  if (runtime === 'deno') return [bin('deno'), 'run', '-A', script];
  return [process.execPath, '--import', 'tsx', script];
}

/** Why a runtime cannot run here, or undefined when it can. */
export function runtimeMissing(runtime: Runtime): string | undefined {
  if (runtime === 'node') return undefined;
  return existsSync(bin(runtime)) ? undefined : `${runtime} not installed (node_modules/.bin/${runtime} missing)`;
}
