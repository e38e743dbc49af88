import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { runtimeCommand } from '../../scripts/runtime-command.ts';
import { migrateToLatest } from '../../core/store/migrations.ts';
import { runMigrations } from '../../core/store/migrator.ts';
import { TestProcess } from '../support/processes.ts';
import { freshSchema } from '../support/schema-names.ts';
import { MIGRATION_NAMES } from '../../core/store/migrations.ts';

/** The migrations this code has, as a database migrated by it lists them. */
/** Every migration of the code, each to be applied once. */
const MIGRATIONS = [...MIGRATION_NAMES];

const dir = mkdtempSync(join(tmpdir(), 'vi-migrate-at-once-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('processes migrating a new SQLite file at the same moment', () => {
  it('all open it, and the file holds each migration once', async () => {
    const file = join(dir, 'at-once.sqlite');
    const children = Array.from({ length: 3 }, (_, i) => TestProcess.spawn(`open-${i + 1}`, [...runtimeCommand('node', 'test/processes/open-api.ts'), file]));
    const ended = await Promise.all(children.map((c) => c.ended));
    expect(ended, children.map((c) => c.output()).join('\n')).toEqual(Array(3).fill({ code: 0, signal: null }));
    for (const child of children) expect(JSON.parse(child.output().trim())).toEqual({ applied: MIGRATIONS });
  }, 60_000);
});

const serverUrl = process.env.VI_TEST_POSTGRES_URL;

// Sessions of one process on a real server migrate as concurrently as processes would (PGlite has one session).
describe.each(serverUrl ? [serverUrl] : [])('connections migrating one empty Postgres schema at the same moment (%s)', (url) => {
  const opened: { db: Kysely<any>; statements: string[] }[] = [];

  /** A Kysely of its own pool, working in `schema` with the given session settings, logging every statement it runs. */
  function connect(schema: string, settings = ''): { db: Kysely<any>; statements: string[] } {
    const statements: string[] = [];
    const pool = new pg.Pool({ connectionString: url, max: 2, options: `-c search_path=${schema} ${settings}` });
    const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }), log: (event) => void statements.push(event.query.sql) });
    opened.push({ db, statements });
    return { db, statements };
  }

  async function createSchema(): Promise<string> {
    const schema = freshSchema();
    const { db } = connect('public');
    await sql`create schema ${sql.id(schema)}`.execute(db);
    return schema;
  }

  const applied = async (db: Kysely<any>) => (await db.selectFrom('kysely_migration').select('name').orderBy('name').execute()).map((r) => r.name);

  afterAll(async () => {
    for (const { db } of opened) await db.destroy();
  });

  it.each([
    ['read committed (the default)', ''],
    ['serializable (as CockroachDB runs), where waiting runs are aborted and run again', '-c default_transaction_isolation=serializable'],
  ])('all succeed under %s, and the schema holds each migration once', async (_name, settings) => {
    const schema = await createSchema();
    const sessions = Array.from({ length: 4 }, () => connect(schema, settings));
    const results = await Promise.allSettled(sessions.map((s) => migrateToLatest(s.db)));
    expect(results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok'))).toEqual(Array(4).fill('ok'));
    expect(await applied(sessions[0]!.db)).toEqual(MIGRATIONS);
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from information_schema.tables where table_schema = ${schema} and table_name = 'people'`.execute(sessions[0]!.db);
    expect(rows[0]!.n).toBe(1);
  });

  it('takes no advisory lock and looks at no other schema (CockroachDB and Citus lack the one; a schema dropped meanwhile broke the other)', async () => {
    const schema = await createSchema();
    const session = connect(schema);
    await migrateToLatest(session.db);
    await migrateToLatest(session.db);
    expect(session.statements.length).toBeGreaterThan(20);
    expect(session.statements.filter((s) => /advisory|has_schema_privilege|pg_namespace|pg_catalog/i.test(s))).toEqual([]);
  });

  it('takes its lock with a locking read and writes only after each migration\'s schema changes (CockroachDB refuses a schema change after a write in one transaction)', async () => {
    const session = connect(await createSchema());
    await runMigrations(session.db, {
      '0001_table': { up: async (db) => void (await db.schema.createTable('a').addColumn('x', 'integer').execute()) },
      '0002_column': { up: async (db) => void (await db.schema.alterTable('a').addColumn('y', 'integer').execute()) },
    });
    // A transaction per migration, each opened by the lock's read, and a last one finding none left.
    const transactions = session.statements.join('\n').split(/(?=^select .* for update$)/m).slice(1).map((t) => t.split('\n').filter(Boolean));
    expect(transactions).toHaveLength(3);
    for (const statements of transactions) {
      const changes = statements.map((s, i) => (/^(create|alter|drop) /i.test(s) ? i : -1)).filter((i) => i >= 0);
      const writes = statements.map((s, i) => (/^(insert|update|delete) /i.test(s) ? i : -1)).filter((i) => i >= 0);
      if (changes.length > 0) expect(Math.min(...writes), statements.join('\n')).toBeGreaterThan(Math.max(...changes));
    }
    expect(await applied(session.db)).toEqual(['0001_table', '0002_column']);
  });

  it('migrates its own schema even when a schema later on the search path was migrated already', async () => {
    const [done, fresh] = [await createSchema(), await createSchema()];
    await migrateToLatest(connect(done).db);
    const session = connect(`${fresh},${done}`);
    await migrateToLatest(session.db);
    expect(await applied(connect(fresh).db)).toEqual(MIGRATIONS);
  });
});
