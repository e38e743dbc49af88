import { AdminError } from '../admin/inputs.ts';
import { isMovable } from '../time/adjustable-clock.ts';
import { isoSeconds, parseIsoInstant, toEpochSeconds } from '../time/iso.ts';
import { readObject } from './body.ts';
import { data, type AdminContext } from './context.ts';
import type { Reply } from '../http/reply.ts';

/** The most one `advanceSeconds` may move the clock: ten years. */
const MAX_ADVANCE_SECONDS = 10 * 365 * 86_400;

/** `POST /_admin/reset`: back to the baseline (the data as the server started), limits, exports, webhooks, clock and fault rules included. */
export async function reset(ctx: AdminContext): Promise<Reply> {
  ctx.query.allowOnly([]);
  await ctx.services.reset();
  return data({ reset: true, now: isoSeconds(toEpochSeconds(ctx.services.clock.now())) });
}

/** `GET /_admin/clock`: the server's time, and whether it can be moved. */
export async function getClock(ctx: AdminContext): Promise<Reply> {
  ctx.query.allowOnly([]);
  return data(clockView(ctx));
}

/**
 * `POST /_admin/clock`: `{"advanceSeconds": N}` or `{"now": "…Z"}`. Time only moves forward
 * (a reset takes it back); a server whose clock cannot move says so.
 */
export async function moveClock(ctx: AdminContext): Promise<Reply> {
  ctx.query.allowOnly([]);
  const { clock } = ctx.services;
  const body = await readObject(ctx.request);
  if (!isMovable(clock)) throw new AdminError('this server\'s clock cannot be moved: it was started with a fixed clock (visitor-intelligence serve uses a movable one)');
  const fields = Object.keys(body);
  if (fields.length !== 1 || (fields[0] !== 'advanceSeconds' && fields[0] !== 'now')) throw new AdminError('send exactly one of advanceSeconds (seconds to move forward) or now (an ISO 8601 time such as 2026-11-22T12:00:00Z)');
  if (fields[0] === 'advanceSeconds') {
    const seconds = body.advanceSeconds;
    if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 0 || seconds > MAX_ADVANCE_SECONDS) {
      throw new AdminError(`advanceSeconds must be a whole number from 0 to ${MAX_ADVANCE_SECONDS}; the clock only moves forward (POST /_admin/reset takes it back)`);
    }
    clock.advance(seconds);
  } else {
    const to = typeof body.now === 'string' ? parseIsoInstant(body.now) : null;
    if (to === null) throw new AdminError('now must be an ISO 8601 time with a zone, such as 2026-11-22T12:00:00Z');
    const current = clock.now();
    if (to < current) throw new AdminError(`now ${String(body.now)} is before the server's time ${isoSeconds(toEpochSeconds(current))}; the clock only moves forward (POST /_admin/reset takes it back)`);
    if (to - current > MAX_ADVANCE_SECONDS * 1000) throw new AdminError('now may be at most ten years after the server\'s time');
    clock.set(to);
  }
  return data(clockView(ctx));
}

function clockView(ctx: AdminContext): { now: string; movable: boolean } {
  return { now: isoSeconds(toEpochSeconds(ctx.services.clock.now())), movable: isMovable(ctx.services.clock) };
}
