import type { View } from '../scope/view.ts';

/**
 * How a view enters a query compiled once per shape (see CompiledQueries): the part of the shape
 * key it decides, and the values it binds (`accountId`; `sitePk` for one site; `site0`… for several).
 */

/** A view that can see something. */
export type VisibleView = Exclude<View, { kind: 'empty' }>;

/** What changes a view's SQL: its kind and, for several sites, how many. */
export function viewShape(view: VisibleView): string {
  return view.kind === 'sites' ? `sites${view.sites.length}` : view.kind;
}

/** The values a view binds into its query. */
export function viewValues(view: VisibleView): Record<string, unknown> {
  if (view.kind === 'site') return { sitePk: view.site.pk };
  const values: Record<string, unknown> = { accountId: view.accountId };
  if (view.kind === 'sites') view.sites.forEach((site, i) => (values[`site${i}`] = site.pk));
  return values;
}
