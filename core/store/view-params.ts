import type { View } from '../scope/view.ts';
import type { Param } from './compiled-queries.ts';

/**
 * How a view enters a query compiled once per shape (see CompiledQueries): the part of the shape
 * key it decides, and the values it binds (`accountId`; `sitePk` for a scoped key's one site;
 * `site0`… for several sites).
 */

/** A view that can see something. */
export type VisibleView = Exclude<View, { kind: 'empty' }>;

/** A scoped key's view over one site: the fast path, read straight from one site's index. */
export function isOneSite(view: VisibleView): boolean {
  return view.kind === 'scoped' && view.sites.length === 1;
}

/** A scoped key's view over several sites: figures summed over them (see scoped-activity.ts). */
export function isScopedSites(view: VisibleView): boolean {
  return view.kind === 'scoped' && view.sites.length > 1;
}

/** What changes a view's SQL: its kind and, for several sites, how many. */
export function viewShape(view: VisibleView): string {
  return view.kind === 'account' ? view.kind : `${view.kind}${view.sites.length}`;
}

/** The values a view binds into its query. */
export function viewValues(view: VisibleView): Record<string, unknown> {
  if (view.kind === 'scoped' && view.sites.length === 1) return { sitePk: view.sites[0]!.pk };
  // A scoped view over several sites reads them by their keys alone.
  const values: Record<string, unknown> = view.kind === 'scoped' ? {} : { accountId: view.accountId };
  if (view.kind !== 'account') view.sites.forEach((site, i) => (values[`site${i}`] = site.pk));
  return values;
}

/** The values a people page binds: the view's, but sites an account key filters to are read by their keys alone (they are the account's). */
export function peoplePageValues(view: VisibleView): Record<string, unknown> {
  const values = viewValues(view);
  if (view.kind === 'sites') delete values.accountId;
  return values;
}

/** Placeholders for the sites of a view over several sites, in the order `viewValues` binds them. */
export function sitePlaceholders(view: VisibleView, p: Param): ReturnType<Param>[] {
  return view.kind === 'account' ? [] : view.sites.map((_, i) => p(`site${i}`));
}
