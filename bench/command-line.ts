/**
 * How the bench's commands (`npm run bench`, `bench:export`, `bench:reads`) end on an error: a
 * flag they do not take, or a value they cannot use, is one line naming it and exit 2; anything
 * else is a fault of the bench, printed with its stack, and exit 1.
 */

/** A flag the command does not take, or a value it cannot use. */
export class UsageError extends Error {}

/** Whether `error` is about the command line rather than the bench. */
function isUsage(error: unknown): error is Error {
  return error instanceof UsageError || (error instanceof Error && String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS_'));
}

/** Runs a bench command's `main`, ending it as the module comment says. */
export function runCommandLine(command: string, main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    if (isUsage(error)) {
      process.stderr.write(`${command}: ${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
