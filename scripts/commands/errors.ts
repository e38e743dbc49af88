/**
 * A mistake on the command line or in what it points at (a busy port, an unusable file): the
 * command stops with this one line and exit code 2, never a stack trace.
 */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
  }
}

/** The text of any thrown value, for one-line messages. */
export function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
