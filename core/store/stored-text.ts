import { sql, type Kysely, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { companyFiguresJsonSql, companyHeadJsonSql, companyTailJsonSql } from './company-row.ts';
import { dialectOf } from './dialect/index.ts';
import { renderMissingCsv } from './stored-csv.ts';
import { figuresJsonSql, headJsonSql, siteJsonSql, tailJsonSql } from './person-row.ts';

/**
 * Keeps the stored JSON text of people and companies (person-row.ts, company-row.ts) equal to what
 * their rows render, rewriting it in SQL wherever its inputs change (a person or company loaded, a
 * company's activity recomputed). Each function takes a condition on the rows to rewrite.
 */

/** The stored text columns of each table. */
export const STORED_TEXT_COLUMNS = {
  people: ['json_head', 'json_figures', 'json_tail', 'json_site'],
  person_sites: ['json_figures', 'json_site'],
  companies: ['json_head', 'json_figures', 'json_tail'],
  company_sites: ['json_figures'],
} as const;

/** People rendered per statement when many are: each statement holds its rendered rows at once. */
const PEOPLE_PER_STEP = 5_000;

/** The `meta` key saying some stored text is still to be rendered. */
const PENDING = 'stored_text_pending';

/**
 * Records that rows lack their stored text (a migration added or cleared the columns), for
 * {@link renderPendingStoredText}; called in the migration's own transaction.
 */
export async function markStoredTextPending(db: Kysely<any>): Promise<void> {
  await db.insertInto('meta').values({ key: PENDING, value: '1' }).onConflict((oc) => oc.column('key').doNothing()).execute();
}

/**
 * Renders the stored JSON and CSV cells of every row lacking them, if a migration said some do,
 * and clears the mark in the same transaction: a start interrupted here renders again on the next
 * one.
 */
export async function renderPendingStoredText(db: Kysely<any>): Promise<void> {
  const pending = await db.selectFrom('meta').select('key').where('key', '=', PENDING).executeTakeFirst();
  if (!pending) return;
  await db.transaction().execute(async (trx) => {
    await renderMissing(trx);
    await renderMissingCsv(trx);
    await trx.deleteFrom('meta').where('key', '=', PENDING).execute();
  });
}

/** Renders every row that has no stored text yet. */
async function renderMissing(db: Kysely<any>): Promise<void> {
  await renderCompanies(db, sql<boolean>`json_head is null`);
  await renderCompanySites(db, sql<boolean>`json_figures is null`);
  await renderPersonSites(db, sql<boolean>`json_site is null`);
  const { lo, hi } = (await db.selectFrom('people').select((eb) => [eb.fn.min<number>('pk').as('lo'), eb.fn.max<number>('pk').as('hi')]).executeTakeFirst()) ?? {};
  if (lo === null || lo === undefined || hi === null || hi === undefined) return;
  for (let from = lo; from <= hi; from += PEOPLE_PER_STEP) {
    const rows = await db.selectFrom('people as p').select('p.pk').where(sql<boolean>`p.pk >= ${from} and p.pk < ${from + PEOPLE_PER_STEP} and p.json_head is null`).execute();
    if (rows.length > 0) await renderPeople(db, sql<boolean>`p.pk in (${sql.join(rows.map((r) => r.pk))})`);
  }
}

/** Rewrites every stored piece of the people `p` matching `which`, from their rows, companies and latest sites. */
export async function renderPeople(db: Kysely<any>, which: RawBuilder<boolean>): Promise<void> {
  const dialect = dialectOf(db);
  // One statement renders with the joins the reference rendering has (a scalar subquery would
  // lose SQLite's JSON subtype of the company object), then writes each row by its key.
  const rendered = db
    .selectFrom('people as p')
    .leftJoin('companies as c', 'c.pk', 'p.company_pk')
    .innerJoin('sites as s', 's.pk', 'p.last_site_pk')
    .select([
      'p.pk',
      headJsonSql(dialect).as('v_json_head'),
      figuresJsonSql('p', dialect).as('v_json_figures'),
      tailJsonSql(dialect).as('v_json_tail'),
      siteJsonSql('s', dialect).as('v_json_site'),
    ])
    .where(which);
  await setRendered(db, 'people', ['pk'], rendered, ['json_head', 'json_figures', 'json_tail', 'json_site']);
}

/** Rewrites the tail (with `companyData`) of the people `p` matching `which`: their company changed. */
export async function renderPeopleTails(db: Kysely<any>, which: RawBuilder<boolean>): Promise<void> {
  const rendered = db
    .selectFrom('people as p')
    .leftJoin('companies as c', 'c.pk', 'p.company_pk')
    .select(['p.pk', tailJsonSql(dialectOf(db)).as('v_json_tail')])
    .where(which);
  await setRendered(db, 'people', ['pk'], rendered, ['json_tail']);
}

/** Rewrites the figures and attribution of the `person_sites` rows matching `which`. */
export async function renderPersonSites(db: Kysely<any>, which: RawBuilder<boolean>): Promise<void> {
  const dialect = dialectOf(db);
  await setRenderedColumns(db, 'person_sites', ['person_pk', 'site_pk'], which, {
    json_figures: figuresJsonSql('person_sites', dialect),
    json_site: sql`(${db.selectFrom('sites as s').select(siteJsonSql('s', dialect).as('site')).whereRef('s.pk', '=', 'person_sites.site_pk')})`,
  });
}

/** Rewrites every stored piece of the companies matching `which` (on the table `companies`). */
export async function renderCompanies(db: Kysely<any>, which: RawBuilder<boolean>): Promise<void> {
  const dialect = dialectOf(db);
  await setRenderedColumns(db, 'companies', ['pk'], which, {
    json_head: companyHeadJsonSql('companies', dialect),
    json_figures: companyFiguresJsonSql('companies', dialect),
    json_tail: companyTailJsonSql('companies', dialect),
  });
}

/** Rewrites the figures of the companies matching `which` (on the table `companies`): their activity changed. */
export async function renderCompanyFigures(db: Kysely<any>, which: RawBuilder<boolean>): Promise<void> {
  await setRenderedColumns(db, 'companies', ['pk'], which, { json_figures: companyFiguresJsonSql('companies', dialectOf(db)) });
}

/** Rewrites the figures of the `company_sites` rows matching `which`. */
export async function renderCompanySites(db: Kysely<any>, which: RawBuilder<boolean>): Promise<void> {
  await setRenderedColumns(db, 'company_sites', ['company_pk', 'site_pk'], which, { json_figures: companyFiguresJsonSql('company_sites', dialectOf(db)) });
}

/** {@link setRendered} with `values` rendered from the `table` rows matching `which`. */
async function setRenderedColumns(db: Kysely<any>, table: 'person_sites' | 'companies' | 'company_sites', key: string[], which: RawBuilder<boolean>, values: Record<string, RawBuilder<unknown>>): Promise<void> {
  const columns = Object.keys(values);
  const rendered = db
    .selectFrom(table)
    .select([...key.map((k) => sql.ref(`${table}.${k}`).as(k)), ...columns.map((c) => values[c]!.as(`v_${c}`))])
    .where(which);
  await setRendered(db, table, key, rendered, columns);
}

/**
 * Sets `columns` of the `table` rows to `rendered`'s `v_<column>`, joined by the row's `key`.
 * The rendering is a materialized common table expression, so that the UPDATE's own SET assigns
 * columns only: Citus refuses an UPDATE whose SET calls a STABLE function (`to_json`, `to_char`,
 * `text || bigint`) on the row's columns, and Postgres would pull a plain subquery's expressions
 * up into the SET.
 */
async function setRendered(db: Kysely<any>, table: 'people' | 'person_sites' | 'companies' | 'company_sites', key: string[], rendered: SelectQueryBuilder<any, any, any>, columns: string[]): Promise<void> {
  let update = db
    .with((cte) => cte('x').materialized(), () => rendered)
    .updateTable(table)
    .from('x')
    .set(Object.fromEntries(columns.map((c) => [c, sql.ref(`x.v_${c}`)])));
  for (const k of key) update = update.whereRef(`${table}.${k}`, '=', `x.${k}`);
  await update.execute();
}
