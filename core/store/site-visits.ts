import { sql, type RawBuilder } from 'kysely';

/**
 * SQL about the client sites a person (the row aliased `p`) visited, shared by the people list,
 * the journey's person lookup and export selection. `sitePks` are values or compile-time
 * placeholders; each is bound as a parameter.
 */

/** Whether the person visited any of the sites. */
export function visitedAnyOf(sitePks: readonly unknown[]): RawBuilder<boolean> {
  return sql<boolean>`exists (select 1 from ${sql.table('person_sites')} ps where ps.person_pk = p.pk and ps.site_pk in (${sql.join(sitePks)}))`;
}

/** The most recently visited of the sites (ties broken by the higher site key): a person's attribution under a site filter. */
export function latestVisitedOf(sitePks: readonly unknown[]): RawBuilder<number> {
  return sql<number>`(select ps.site_pk from ${sql.table('person_sites')} ps where ps.person_pk = p.pk and ps.site_pk in (${sql.join(sitePks)}) order by ps.last_seen desc, ps.site_pk desc limit 1)`;
}
