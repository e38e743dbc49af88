#!/usr/bin/env node
/**
 * The harness's command under its former path: `harness/cli.ts conformance …` runs the
 * `conformance` subcommand of the `visitor-intelligence` command (scripts/cli.ts).
 */
import { runCli } from '../scripts/commands/index.ts';

const code = await runCli(process.argv.slice(2));
if (code !== 0) process.exit(code);
