import type { PublicContext } from '../http/context.ts';
import { mountPrefix } from '../http/mount.ts';
import { rawJson } from '../http/respond.ts';
import { openApiText } from '../openapi/document.ts';
import type { Reply } from '../http/reply.ts';

/** `GET /v1/openapi.json`: the OpenAPI document, no key needed; `servers` names the mount point. */
export async function openApi(ctx: PublicContext): Promise<Reply> {
  return rawJson(openApiText(mountPrefix(ctx.request)));
}
