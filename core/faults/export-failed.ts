import type { ExportRunner } from '../exports/runner.ts';
import type { ExportsStore } from '../store/exports-store.ts';

/** The message a job that failed on an internal fault carries, which `export_failed` copies. */
export const EXPORT_FAILED_MESSAGE = 'The export failed because of an internal error; start a new export.';

/**
 * A stand-in for the export runner, for `fault=export_failed`: the job it is handed is marked
 * failed instead of run, so the start answers its usual 202 and the first poll shows the failure.
 * Only `start` is used by the handler that starts exports.
 */
export function failingRunner(store: ExportsStore): { runner: ExportRunner; settled(): Promise<void> } {
  const failing: Promise<void>[] = [];
  const runner = { start: (jobId: string) => void failing.push(store.fail(jobId, EXPORT_FAILED_MESSAGE)) };
  return { runner: runner as unknown as ExportRunner, settled: async () => void (await Promise.all(failing)) };
}
