import { DOWNLOAD_LINK_SECONDS } from '../exports/download-link.ts';
import { EXPORT_LIMITS, parseExportFilters, sanitizeFilename } from '../exports/filters.ts';
import { readOptionalJson } from '../http/body.ts';
import { ApiError, notFound } from '../http/errors.ts';
import type { PublicContext, RequestContext } from '../http/context.ts';
import { json } from '../http/respond.ts';
import { mountPrefix } from '../http/mount.ts';
import { toHex } from '../auth/api-key.ts';
import type { ExportJob } from '../store/exports-store.ts';
import { isoWithOffset } from '../time/iso.ts';
import { Reply } from '../http/reply.ts';

/** Concurrent `processing` exports per account. */
export const MAX_RUNNING_EXPORTS = 3;
/** Jobs and their files are removed this long after creation. */
export const EXPORT_RETENTION_SECONDS = 7 * 86_400;
/** The poll interval suggested on start. */
export const POLL_AFTER_SECONDS = 5;

/** `POST /v1/exports`: validates the filters and starts a job that runs in the background. */
export async function startExport(ctx: RequestContext): Promise<Reply> {
  refuseScopedKeys(ctx);
  ctx.query.allowOnly([]);
  const filters = parseExportFilters(await readOptionalJson(ctx.request, EXPORT_LIMITS.bodyBytes));
  const { exports } = ctx.services;
  await exports.store.removeCreatedBy(ctx.nowSeconds - EXPORT_RETENTION_SECONDS);
  const jobId = `exp_${toHex(crypto.getRandomValues(new Uint8Array(12)))}`;
  const created = await exports.store.createIfSlotFree(
    { id: jobId, account_id: ctx.caller.accountId, filters: JSON.stringify(filters), filename: sanitizeFilename(filters.filename, ctx.nowSeconds), created_at: ctx.nowSeconds },
    MAX_RUNNING_EXPORTS,
  );
  if (!created) {
    throw new ApiError(429, 'too_many_exports', `${MAX_RUNNING_EXPORTS} exports are already running for this account; wait for one to finish.`);
  }
  exports.runner.start(jobId);
  // A path, as the spec shows, under the mount point: a client follows it from the host's root, as it follows downloadUrl.
  return json({ jobId, status: 'processing', statusUrl: `${mountPrefix(ctx.request)}/v1/exports/${jobId}`, pollAfterSeconds: POLL_AFTER_SECONDS }, 202);
}

/** `GET /v1/exports/{jobId}`: the job's state; once complete, a download link valid 900 s from completedAt. */
export async function getExport(ctx: RequestContext): Promise<Reply> {
  refuseScopedKeys(ctx);
  ctx.query.allowOnly([]);
  const job = await ctx.services.exports.store.find(ctx.caller.accountId, ctx.params.jobId!);
  if (!job || isExpired(job, ctx.nowSeconds)) throw unknownJob();
  const base = { jobId: job.id, status: job.status, createdAt: isoWithOffset(job.created_at) };
  if (job.status === 'processing') return json(base);
  if (job.status === 'failed') return json({ ...base, error: job.error });
  const expires = job.completed_at! + DOWNLOAD_LINK_SECONDS;
  const signature = await ctx.services.exports.links.sign(job.id, expires);
  const downloadUrl = `${publicBase(ctx)}/v1/exports/${job.id}/download?expires=${expires}&signature=${signature}`;
  return json({
    ...base,
    completedAt: isoWithOffset(job.completed_at!),
    downloadUrl,
    downloadUrlExpiresInSeconds: DOWNLOAD_LINK_SECONDS,
    rowCount: job.row_count,
    partial: job.partial === 1,
  });
}

/** `GET /v1/exports/{jobId}/download`: the CSV behind a signed link, streamed chunk by chunk; no key needed. */
export async function downloadExport(ctx: PublicContext): Promise<Reply> {
  ctx.query.allowOnly(['expires', 'signature']);
  const jobId = ctx.params.jobId!;
  const expiresText = ctx.url.searchParams.get('expires') ?? '';
  const expires = Number(expiresText);
  const signature = ctx.url.searchParams.get('signature') ?? '';
  const { store, links } = ctx.services.exports;
  const valid = Number.isSafeInteger(expires) && /^[0-9a-f]{64}$/.test(signature) && (await links.verify(jobId, expiresText, signature));
  if (!valid) throw new ApiError(403, 'forbidden', 'This download link is not valid.');
  if (ctx.nowSeconds >= expires) throw new ApiError(403, 'forbidden', 'This download link has expired; start a new export.');
  const job = await store.findAny(jobId);
  if (!job || job.status !== 'complete' || isExpired(job, ctx.nowSeconds)) throw unknownJob();
  let seq = 0;
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const data = await store.chunk(jobId, seq++);
      if (data === undefined) controller.close();
      else controller.enqueue(encoder.encode(data));
    },
  });
  return new Reply(200, body, {
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': `attachment; filename="${job.filename}"`,
    'cache-control': 'private, no-store',
  });
}

function refuseScopedKeys(ctx: RequestContext): void {
  if (ctx.caller.scopeSite) throw new ApiError(403, 'scope_not_supported', 'Domain-scoped keys cannot use exports; use an account key.');
}

function isExpired(job: ExportJob, nowSeconds: number): boolean {
  return nowSeconds >= job.created_at + EXPORT_RETENTION_SECONDS;
}

function unknownJob(): ApiError {
  return notFound('No export job with that id exists for this account (jobs are removed 7 days after creation).');
}

/** The API's external base: the request's origin plus the path it is mounted under. */
function publicBase(ctx: RequestContext): string {
  return ctx.url.origin + mountPrefix(ctx.request);
}
