import type { PublicContext } from '../http/context.ts';
import { json } from '../http/respond.ts';
import { API_VERSION, type Health } from '../resources/types.ts';
import { isoSeconds } from '../time/iso.ts';
import type { Reply } from '../http/reply.ts';

/** `GET /v1/health`: no key needed. */
export async function health(ctx: PublicContext): Promise<Reply> {
  const body: Health = { status: 'ok', version: API_VERSION, time: isoSeconds(ctx.nowSeconds) };
  return json(body);
}
