import type { PublicContext } from '../http/context.ts';
import { mountPrefix } from '../http/mount.ts';
import { rawJson } from '../http/respond.ts';
import { openApiText } from '../openapi/document.ts';

/** `GET /v1/openapi.json`: the OpenAPI document, no key needed; `servers` names the mount point. */
export async function openApi(ctx: PublicContext): Promise<Response> {
  return rawJson(openApiText(mountPrefix(ctx.request)));
}
