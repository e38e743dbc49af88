import { DEFAULT_RATE_LIMITS, type ApiOptions } from './api-types.ts';
import { FILE_CHUNKS, FULL_STEP } from './exports/runner.ts';
import { systemClock } from './time/clock.ts';
import { webDigests } from './crypto/digests.ts';

/** Every default of `createApi`, in one place; `resolveOptions` fills what a host leaves out. */
export const DEFAULTS = {
  clock: systemClock,
  leaseClock: systemClock,
  digests: webDigests,
  rateLimits: DEFAULT_RATE_LIMITS,
  cursorTtlSeconds: 3600,
  defaultPageSize: 50,
  readWait: { startMs: 60_000, writeMs: 5000 },
  exports: {
    batchRows: FULL_STEP.batchRows,
    collectPks: FULL_STEP.collectPks,
    runPks: FULL_STEP.runPks,
    rowCap: 1_000_000,
    chunkChars: FILE_CHUNKS.chars,
    chunksPerCommit: FILE_CHUNKS.perCommit,
    leaseSeconds: 30,
    pollIntervalMs: 2000,
    // pace: each API's own (core/exports/pace.ts), made by createApi.
  },
  webhooks: {
    activityCap: 100,
    concurrencyPerEndpoint: 4,
    requestTimeoutMs: 15_000,
    pollIntervalMs: 1000,
    random: Math.random,
    background: true,
    logRetentionSeconds: 30 * 86_400,
  },
};

/** The options with every default filled in. A delivery claim outlasts twice a request's timeout, and at least a minute. */
export function resolveOptions(options: ApiOptions) {
  const webhooks = { ...DEFAULTS.webhooks, ...options.webhooks };
  return {
    ...options,
    clock: options.clock ?? DEFAULTS.clock,
    leaseClock: options.leaseClock ?? DEFAULTS.leaseClock,
    digests: options.digests ?? DEFAULTS.digests,
    rateLimits: { ...DEFAULTS.rateLimits, ...options.rateLimits },
    cursorTtlSeconds: options.cursorTtlSeconds ?? DEFAULTS.cursorTtlSeconds,
    defaultPageSize: options.defaultPageSize ?? DEFAULTS.defaultPageSize,
    readWait: { ...DEFAULTS.readWait, ...options.readWait },
    exports: { ...DEFAULTS.exports, ...options.exports },
    webhooks: { ...webhooks, leaseSeconds: options.webhooks?.leaseSeconds ?? Math.max(60, Math.ceil(webhooks.requestTimeoutMs / 1000) * 2) },
  };
}
