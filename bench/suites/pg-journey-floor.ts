/**
 * The journey-paging floors on PostgreSQL: what journey-floor.ts does on better-sqlite3, through
 * a plain `pg` client instead. The same keyset SQL as the core's events store, sent as naive code
 * sends it (`client.query(text, values)`), the person looked up per page (by account and id,
 * through the index, as naive-page.ts does on SQLite), rows turned into
 * objects (each stored body parsed) and the page `JSON.stringify`-ed; and the OFFSET twin.
 */
import pg from 'pg';
import { encodePosition, naiveBody, type EventRow, type PersonRow, type Position } from '../servers/naive-page.ts';
import type { JourneyFloors } from './floors.ts';

const PAGE = 100;

/** `bigint` columns (pks, epoch seconds) as numbers, as the API's pool reads them: naive code must too, or its JSON says "12". */
export const NUMBER_TYPES = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') => (oid === 20 || oid === 1700 ? Number : pg.types.getTypeParser(oid, format)),
};

/** A plain `pg` client on `url` reading bigints as numbers. */
export async function numberClient(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, types: NUMBER_TYPES });
  await client.connect();
  return client;
}

const SQL = {
  person: 'select pk, id, first_name, last_name, email, company from people where account_id = $1 and id = $2',
  first: 'select ts, event_id, body from events where person_pk = $1 order by ts desc, event_id desc limit $2',
  after: 'select ts, event_id, body from events where person_pk = $1 and (ts, event_id) < ($2, $3) order by ts desc, event_id desc limit $4',
  offset: 'select ts, event_id, body from events where person_pk = $1 order by ts desc, event_id desc limit $2 offset $3',
};

/** The floors for one person's journey, over a client of their own. */
export class PgJourneyFloor implements JourneyFloors {
  private constructor(
    private readonly client: pg.Client,
    private readonly accountId: string,
    private readonly personId: string,
    /** Resolved once for the positions: they are not a server's work. */
    private readonly personPk: number,
  ) {}

  /** Connects and finds the account's person. */
  static async open(url: string, accountId: string, personId: string): Promise<PgJourneyFloor> {
    const client = await numberClient(url);
    const { rows } = await client.query<{ pk: number }>('select pk from people where account_id = $1 and id = $2', [accountId, personId]);
    if (!rows[0]) {
      await client.end();
      throw new Error(`no person ${personId} in the PostgreSQL bench database`);
    }
    return new PgJourneyFloor(client, accountId, personId, rows[0].pk);
  }

  async positionAt(depth: number): Promise<Position | null> {
    if (depth === 0) return null;
    const { rows } = await this.client.query<{ ts: number; event_id: string }>(`${SQL.first} offset $3`, [this.personPk, 1, depth - 1]);
    if (!rows[0]) throw new Error(`journey has fewer than ${depth} events`);
    return [rows[0].ts, rows[0].event_id];
  }

  async keysetPage(after: Position | null): Promise<string> {
    const person = await this.#person();
    const { rows } = after
      ? await this.client.query<EventRow>(SQL.after, [person.pk, after[0], after[1], PAGE + 1])
      : await this.client.query<EventRow>(SQL.first, [person.pk, PAGE + 1]);
    return naiveBody(person, rows, PAGE, (last) => encodePosition([last.ts, last.event_id]));
  }

  async offsetPage(depth: number): Promise<string> {
    const person = await this.#person();
    const { rows } = await this.client.query<EventRow>(SQL.offset, [person.pk, PAGE + 1, depth]);
    return naiveBody(person, rows, PAGE, () => String(depth + PAGE));
  }

  async close(): Promise<void> {
    await this.client.end();
  }

  async #person(): Promise<PersonRow> {
    const { rows } = await this.client.query<PersonRow>(SQL.person, [this.accountId, this.personId]);
    if (!rows[0]) throw new Error(`no person ${this.personId}`);
    return rows[0];
  }
}
