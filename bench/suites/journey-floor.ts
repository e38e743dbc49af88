/**
 * The floors of the journey-paging suite, straight on better-sqlite3 in process: the naive page
 * the bare HTTP servers serve (bench/servers/naive-page.ts: person looked up per page, keyset
 * rows turned into objects and `JSON.stringify`-ed with the person's summary), the same with
 * `LIMIT … OFFSET n` paging.
 */
import BetterSqlite3 from 'better-sqlite3';
import { naivePages, type NaivePages, type Position } from '../servers/naive-page.ts';

const PAGE = 100;

/** The floors for one person's journey. */
export class JourneyFloor {
  readonly #db: BetterSqlite3.Database;
  readonly #pages: NaivePages;
  readonly #personId: string;
  /** The positions read the journey by its pk, resolved once: they are not a server's work. */
  readonly #personPk: number;

  constructor(path: string, accountId: string, personId: string) {
    this.#db = new BetterSqlite3(path, { readonly: true });
    this.#pages = naivePages((sql) => this.#db.prepare(sql), accountId);
    this.#personId = personId;
    const person = this.#db.prepare<[string, string], { pk: number }>('SELECT pk FROM people WHERE account_id = ? AND id = ?').get(accountId, personId);
    if (!person) throw new Error(`no person ${personId} in ${path}`);
    this.#personPk = person.pk;
  }

  /** The position after the first `depth` events (null at depth 0). */
  positionAt(depth: number): Position | null {
    if (depth === 0) return null;
    const row = this.#db
      .prepare<[number, number], { ts: number; event_id: string }>('SELECT ts, event_id FROM events WHERE person_pk = ? ORDER BY ts DESC, event_id DESC LIMIT 1 OFFSET ?')
      .get(this.#personPk, depth - 1);
    if (!row) throw new Error(`journey has fewer than ${depth} events`);
    return [row.ts, row.event_id];
  }

  /** Naive floor: the page after `after`, as the bare servers render it. */
  keysetPage(after: Position | null): string {
    return this.#pages.keyset(this.#personId, PAGE, after)!;
  }

  /** OFFSET floor: the page at `depth` with the same work, found by `LIMIT 101 OFFSET depth`; its cursor is the next offset. */
  offsetPage(depth: number): string {
    return this.#pages.offset(this.#personId, PAGE, depth)!;
  }

  close(): void {
    this.#db.close();
  }
}
