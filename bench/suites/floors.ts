/**
 * The paging suites' floors on the run's backend: better-sqlite3 on the SQLite bench file, or a
 * plain `pg` client on its PostgreSQL copy (`npm run bench -- --postgres URL`). The suites await
 * every floor call; a SQLite floor answers synchronously and the await costs it a microtask.
 */
import { BENCH_ACCOUNT } from '../data.ts';
import type { Position } from '../servers/naive-page.ts';
import { JourneyFloor } from './journey-floor.ts';
import { ListFloor, type ListRequest } from './people-floor.ts';
import { PgJourneyFloor } from './pg-journey-floor.ts';
import { PgListFloor } from './pg-people-floor.ts';
import type { SuiteOptions } from './suite.ts';

/** The journey floors of journey-floor.ts, on either backend. */
export interface JourneyFloors {
  positionAt(depth: number): Position | null | Promise<Position | null>;
  keysetPage(after: Position | null): string | Promise<string>;
  offsetPage(depth: number): string | Promise<string>;
  close(): void | Promise<void>;
}

/** The list floor of people-floor.ts, on either backend. */
export interface ListFloors {
  page(request: ListRequest): string | Promise<string>;
  close(): void | Promise<void>;
}

/** What the API under test opens: the SQLite bench file, or the URL of its PostgreSQL copy. */
export function benchDatabaseOf(options: Pick<SuiteOptions, 'data'>): string {
  return options.data.postgres ?? options.data.path;
}

/** Whether the run's API reads the PostgreSQL copy of the bench data. */
export function onPostgres(options: Pick<SuiteOptions, 'data'>): boolean {
  return options.data.postgres !== undefined;
}

/** `PostgreSQL` or `SQLite`, for suite titles. */
export function backendLabel(options: Pick<SuiteOptions, 'data'>): string {
  return onPostgres(options) ? 'PostgreSQL' : 'SQLite';
}

/** The journey floors of one person of the bench account on the run's backend. */
export async function openJourneyFloor(options: Pick<SuiteOptions, 'data'>, personId: string): Promise<JourneyFloors> {
  const { postgres, path } = options.data;
  return postgres === undefined ? new JourneyFloor(path, BENCH_ACCOUNT, personId) : PgJourneyFloor.open(postgres, BENCH_ACCOUNT, personId);
}

/** The list floor of the bench account on the run's backend. */
export async function openListFloor(options: Pick<SuiteOptions, 'data'>): Promise<ListFloors> {
  const { postgres, path } = options.data;
  return postgres === undefined ? new ListFloor(path, BENCH_ACCOUNT) : PgListFloor.open(postgres, BENCH_ACCOUNT);
}
