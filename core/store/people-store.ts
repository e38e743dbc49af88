import { sql } from 'kysely';
import type { CursorPosition } from '../paging/cursor.ts';
import type { Person, PersonSummary } from '../resources/types.ts';
import { PERSON_PROFILE, toPerson, type RawPerson } from './person-row.ts';
import type { Site, View } from '../scope/view.ts';
import { CompiledQueries } from './compiled-queries.ts';
import type { Db } from './schema.ts';

/** Filters of the people list, already validated. */
export interface PeopleFilters {
  lastSeenAfter?: number;
  hotLeadsOnly?: boolean;
}

/** A person row plus the values its position in the list is made of. */
export interface PersonRow {
  person: Person;
  position: CursorPosition;
}

/** Reads people in the shape of the API, within a view. */
export class PeopleStore {
  readonly #queries: CompiledQueries;

  constructor(private readonly db: Db) {
    this.#queries = new CompiledQueries(db);
  }

  /** One page of people, `lastSeen` descending then `id` descending, after `after` when given. */
  async page(view: View, filters: PeopleFilters, after: CursorPosition | null, take: number): Promise<PersonRow[]> {
    if (view.kind === 'empty') return [];
    const raws = view.kind === 'site' ? await this.#sitePage(view.site, filters, after, take) : await this.#accountPage(view, filters, after, take);
    return raws.map((raw) => this.#toRow(raw, view));
  }

  /** One person visible in the view, or undefined. */
  async get(view: View, id: string): Promise<Person | undefined> {
    if (view.kind === 'empty') return undefined;
    const raw =
      view.kind === 'site'
        ? await this.#siteQuery(view.site).where('ps.person_id', '=', id).executeTakeFirst()
        : await this.#accountQuery(view).where('p.id', '=', id).executeTakeFirst();
    return raw && this.#toRow(raw as RawPerson, view).person;
  }

  /** The internal key and summary of a person visible in the view. */
  async summary(view: View, id: string): Promise<{ pk: number; summary: PersonSummary } | undefined> {
    const scoped = view.kind === 'site';
    const values: Record<string, unknown> = { accountId: view.accountId, id };
    if (view.kind === 'site') values.sitePk = view.site.pk;
    const [r] = await this.#queries.rows(
      `summary:${scoped}`,
      (p) => {
        let query = this.db
          .selectFrom('people as p')
          .select(['p.pk', 'p.id', 'p.first_name', 'p.last_name', 'p.email', 'p.company'])
          .where('p.account_id', '=', p('accountId'))
          .where('p.id', '=', p('id'));
        if (scoped) {
          query = query.where((eb) =>
            eb.exists(eb.selectFrom('person_sites as ps').select('ps.site_pk').whereRef('ps.person_pk', '=', 'p.pk').where('ps.site_pk', '=', p('sitePk'))),
          );
        }
        return query;
      },
      values,
    );
    return (
      r && {
        pk: r.pk,
        summary: { id: r.id, firstName: r.first_name, lastName: r.last_name, email: r.email, company: r.company },
      }
    );
  }

  /** The account-wide view, optionally narrowed to people seen on some sites. */
  #accountQuery(view: Exclude<View, { kind: 'empty' | 'site' }>) {
    let query = this.db
      .selectFrom('people as p')
      .leftJoin('companies as c', 'c.pk', 'p.company_pk')
      .select(PERSON_PROFILE)
      .select(['p.visit_count', 'p.first_seen', 'p.last_seen'])
      .where('p.account_id', '=', view.accountId);
    if (view.kind === 'account') {
      return query
        .innerJoin('sites as s', 's.pk', 'p.last_site_pk')
        .select(['p.last_site_pk as site_pk', 's.domain as site_domain', 's.client_ref as site_client_ref']);
    }
    const sitePks = view.sites.map((s) => s.pk);
    // Attribute each person to the most recent of their sites that the filter selected.
    return query
      .select((eb) =>
        eb
          .selectFrom('person_sites as ps')
          .select('ps.site_pk')
          .whereRef('ps.person_pk', '=', 'p.pk')
          .where('ps.site_pk', 'in', sitePks)
          .orderBy('ps.last_seen', 'desc')
          .orderBy('ps.site_pk', 'desc')
          .limit(1)
          .as('site_pk'),
      )
      .where((eb) =>
        eb.exists(eb.selectFrom('person_sites as ps').select('ps.site_pk').whereRef('ps.person_pk', '=', 'p.pk').where('ps.site_pk', 'in', sitePks)),
      );
  }

  async #accountPage(view: Exclude<View, { kind: 'empty' | 'site' }>, filters: PeopleFilters, after: CursorPosition | null, take: number) {
    let query = this.#accountQuery(view);
    if (filters.hotLeadsOnly) query = query.where('p.is_hot_lead', '=', 1);
    if (filters.lastSeenAfter !== undefined) query = query.where('p.last_seen', '>', filters.lastSeenAfter);
    if (after) query = query.where(sql<boolean>`(p.last_seen, p.id) < (${after.sortValue}, ${after.id})`);
    return (await query.orderBy('p.last_seen', 'desc').orderBy('p.id', 'desc').limit(take).execute()) as RawPerson[];
  }

  /** A scoped key's view: the person's visits to that one site only. */
  #siteQuery(site: Site) {
    return this.db
      .selectFrom('person_sites as ps')
      .innerJoin('people as p', 'p.pk', 'ps.person_pk')
      .leftJoin('companies as c', 'c.pk', 'p.company_pk')
      .select(PERSON_PROFILE)
      .select(['ps.visit_count', 'ps.first_seen', 'ps.last_seen', 'ps.site_pk'])
      .where('ps.site_pk', '=', site.pk);
  }

  async #sitePage(site: Site, filters: PeopleFilters, after: CursorPosition | null, take: number) {
    let query = this.#siteQuery(site);
    if (filters.hotLeadsOnly) query = query.where('p.is_hot_lead', '=', 1);
    if (filters.lastSeenAfter !== undefined) query = query.where('ps.last_seen', '>', filters.lastSeenAfter);
    if (after) query = query.where(sql<boolean>`(ps.last_seen, ps.person_id) < (${after.sortValue}, ${after.id})`);
    return (await query.orderBy('ps.last_seen', 'desc').orderBy('ps.person_id', 'desc').limit(take).execute()) as RawPerson[];
  }

  #toRow(raw: RawPerson, view: View): PersonRow {
    return { person: toPerson(raw, this.#siteOf(raw, view)), position: { sortValue: raw.last_seen, id: raw.id } };
  }

  #siteOf(raw: RawPerson, view: View): Site {
    if (view.kind === 'site') return view.site;
    if (view.kind === 'sites') return view.sites.find((s) => s.pk === raw.site_pk)!;
    return { pk: raw.site_pk, domain: raw.site_domain!, clientRef: raw.site_client_ref ?? null };
  }
}
