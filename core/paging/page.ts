import type { Pagination } from '../resources/types.ts';
import type { CursorPosition, CursorSigner } from './cursor.ts';
import { invalidCursor } from '../http/errors.ts';

/** Paging inputs shared by every list endpoint. */
export interface PageRequest {
  limit: number;
  after: CursorPosition | null;
  /** Names the endpoint, its filters and the caller's scope; the cursor is bound to it. */
  context: string;
}

/** Turns the `cursor` parameter into a position, or 400 `invalid_cursor`. */
export async function readCursor(
  signer: CursorSigner,
  cursor: string | undefined,
  context: string,
  nowSeconds: number,
): Promise<CursorPosition | null> {
  if (cursor === undefined) return null;
  const position = await signer.verify(cursor, context, nowSeconds);
  if (!position) throw invalidCursor();
  return position;
}

/**
 * Cuts a page from rows fetched with one extra: the extra row only proves a next page exists,
 * and the cursor points after the page's last row.
 */
export async function cutPage<T extends { position: CursorPosition }>(
  rows: T[],
  page: PageRequest,
  signer: CursorSigner,
  nowSeconds: number,
): Promise<{ items: T[]; pagination: Pagination }> {
  const items = rows.slice(0, page.limit);
  const next = rows.length > page.limit ? items[items.length - 1]!.position : null;
  return { items, pagination: await paginationOf(items.length, next, page, signer, nowSeconds) };
}

/** The pagination object of a page of `count` rows; `next` is its last row's position when more rows follow. */
export async function paginationOf(
  count: number,
  next: CursorPosition | null,
  page: PageRequest,
  signer: CursorSigner,
  nowSeconds: number,
): Promise<Pagination> {
  const pagination: Pagination = { limit: page.limit, count };
  if (next) pagination.nextCursor = await signer.sign(next, page.context, nowSeconds);
  return pagination;
}
