/**
 * `npm start` under its former name: `serve` of the `visitor-intelligence` command, for scripts
 * that still run this file (npm start now runs `scripts/cli.ts serve`).
 */
import { runCli } from './commands/index.ts';

const code = await runCli(['serve', ...process.argv.slice(2)]);
if (code !== 0) process.exit(code);
