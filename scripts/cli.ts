#!/usr/bin/env node
/**
 * The `visitor-intelligence` command: serve, seed, load, keys, conformance (see --help). Runs
 * from the installed package under Node, and from the sources under Node (tsx), Bun and Deno.
 */
import { runCli } from './commands/index.ts';

const code = await runCli(process.argv.slice(2));
// A failed command exits at once (an open handle must not keep it waiting); others end on their own.
if (code !== 0) process.exit(code);
