import { badRequest, type ApiError } from './errors.ts';
import type { CoreRequest } from './reply.ts';

/**
 * Reads an optional JSON body of at most `maxBytes`. An empty body gives undefined; a body
 * that is present must be sent as `application/json` and parse as JSON.
 */
export async function readOptionalJson(request: CoreRequest, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > maxBytes) throw badRequest(`The request body may be at most ${maxBytes} bytes.`);
  const text = await readText(request, maxBytes);
  if (text.trim() === '') return undefined;
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') throw badRequest('A request body must be sent with Content-Type: application/json.');
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest('The request body is not valid JSON.');
  }
}

/** The body as text, refusing it as soon as it grows past the limit. */
async function readText(request: CoreRequest, maxBytes: number): Promise<string> {
  let text = '';
  await eachBodyText(request, maxBytes, () => badRequest(`The request body may be at most ${maxBytes} bytes.`), (piece) => (text += piece));
  return text;
}

/**
 * Hands each decoded piece of the body to `use` as it arrives. Refuses it with `tooLarge()` once
 * it passes `maxBytes`, and with 400 when it is not UTF-8 or its stream fails before the end (a
 * client that went away mid-upload sent bad input, not a fault of ours).
 */
export async function eachBodyText(request: CoreRequest, maxBytes: number, tooLarge: () => ApiError, use: (text: string) => void): Promise<void> {
  if (!request.body) return;
  const reader = request.body.getReader();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read().catch(() => {
        throw badRequest('The request body could not be read to its end.');
      });
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) throw tooLarge();
      use(utf8(() => decoder.decode(value, { stream: true })));
    }
  } catch (error) {
    // A refused body is not read on: the client learns at once.
    await reader.cancel().catch(() => undefined);
    throw error;
  }
  use(utf8(() => decoder.decode()));
}

function utf8(decode: () => string): string {
  try {
    return decode();
  } catch {
    throw badRequest('The request body is not valid UTF-8.');
  }
}
