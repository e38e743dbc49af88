import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { registerConformance } from './conformance.ts';
import { CliError, reason } from './errors.ts';
import { registerKeys } from './keys.ts';
import { registerLoad } from './load.ts';
import { registerSeed } from './seed.ts';
import { registerServe } from './serve.ts';
import { registerWebhooks } from './webhooks.ts';

/** The subcommands, one file each: a new one adds a file and a line here. */
const COMMANDS: ((program: Command) => void)[] = [registerServe, registerSeed, registerLoad, registerKeys, registerConformance, registerWebhooks];

/**
 * package.json's version, found by walking up from this file: the sources (scripts/commands)
 * and the build (dist/scripts/commands) sit at different depths below it.
 */
function packageVersion(): string {
  for (let dir = import.meta.dirname; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'visitor-intelligence' && pkg.version) return pkg.version;
    }
    if (dirname(dir) === dir) return 'unknown';
  }
}

/** The `visitor-intelligence` program with every subcommand. */
export function buildProgram(): Command {
  const program = new Command('visitor-intelligence')
    .description('The Visitor Intelligence API: a demo server, its data and keys, and a conformance harness.')
    .version(packageVersion(), '-V, --version', 'print the version')
    // Settings before subcommands: `.command()` copies them into each.
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .allowExcessArguments(false);
  for (const register of COMMANDS) register(program);
  return program;
}

/**
 * Runs the command line and resolves with the exit code for one-shot commands (0, or 1 when
 * conformance found failures); `serve` resolves once listening and keeps the process alive. A
 * mistake (bad flags, a busy port, an unusable file, data the admin surface refuses) is one
 * line on stderr and exit code 2; anything unexpected is one line and exit code 1.
 */
export async function runCli(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv, { from: 'user' });
    return Number(process.exitCode ?? 0);
  } catch (error) {
    // Commander printed its own message (or the help) already.
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof CliError) {
      console.error(`error: ${error.message}`);
      return error.exitCode;
    }
    console.error(`error: ${reason(error)}`);
    return 1;
  }
}
