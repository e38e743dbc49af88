import { badRequest } from './errors.ts';
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
  if (!request.body) return '';
  const reader = request.body.getReader();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let size = 0;
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        throw badRequest(`The request body may be at most ${maxBytes} bytes.`);
      }
      text += decoder.decode(value, { stream: true });
    }
    return text + decoder.decode();
  } catch (error) {
    if (error instanceof TypeError) throw badRequest('The request body is not valid UTF-8.');
    throw error;
  }
}
