import type { Pool, PoolClient, QueryResult } from 'pg';

/**
 * Named prepared statements for what a request sends on its own, so the server reuses a generic
 * plan instead of parsing and planning each one (Kysely hands `pg` every query unnamed).
 * Statements inside a transaction (jobs, migrations) stay unnamed: planned for their own values.
 */

/** The most statement texts one pool names; the rest go unnamed (`pg` keeps a connection's named statements until it closes). */
const MAX_NAMED = 400;
/** Only these can be prepared; everything else (DDL, `set`, transaction control) goes unnamed. */
const PREPARABLE = /^\s*(select|insert|update|delete|with)\b/i;
const TRANSACTION_START = /^\s*(begin|start transaction)\b/i;
const TRANSACTION_END = /^\s*(commit|rollback)\s*$/i;

/**
 * The names of one pool's statements. A name is a 64-bit hash of the text, so it means the same
 * text in every process: behind a pooler in transaction mode a server connection another process
 * prepared can come to this one, and a name there must never run a different statement.
 */
export class StatementNames {
  readonly #names = new Map<string, string>();
  readonly #refused = new Set<string>();

  constructor(private readonly max = MAX_NAMED) {}

  /** The name `text` is prepared under, or undefined to send it unnamed. */
  nameOf(text: string): string | undefined {
    const known = this.#names.get(text);
    if (known !== undefined) return known;
    // A refused text still counts: connections may hold it under its name.
    if (this.#names.size + this.#refused.size >= this.max || this.#refused.has(text) || !PREPARABLE.test(text)) return undefined;
    const name = `vi_${fnv1a64(text)}`;
    this.#names.set(text, name);
    return name;
  }

  /** Sends `text` unnamed from now on. */
  refuse(text: string): void {
    this.#names.delete(text);
    this.#refused.add(text);
  }
}

/** FNV-1a, 64 bits, of the text's UTF-16 code units, in hex: cheap, and computed once a text. */
function fnv1a64(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) hash = BigInt.asUintN(64, (hash ^ BigInt(text.charCodeAt(i))) * 0x100000001b3n);
  return hash.toString(16).padStart(16, '0');
}

const namesByPool = new WeakMap<Pool, StatementNames>();

/**
 * The statement names of a pool: one set however many APIs open over it, since its connections
 * outlive each, so the cap counts every text the pool's connections hold.
 */
export function statementNamesOf(pool: Pool): StatementNames {
  let names = namesByPool.get(pool);
  if (!names) namesByPool.set(pool, (names = new StatementNames()));
  return names;
}

/** Options `pg` takes beside the text and values (the type parsers). */
type QueryExtras = { types?: unknown };

/**
 * Sends one connection's queries: a statement with values outside a transaction by its name, the
 * rest unnamed (all of them without `names`: behind a pooler that cannot keep them). A named
 * statement the server refuses before running it (changed columns, a pooler or `DISCARD ALL`
 * losing it) is run again unnamed and never named again.
 */
export function statementSender(client: PoolClient, names: StatementNames | undefined, extras: QueryExtras): (text: string, values?: unknown[]) => Promise<QueryResult> {
  let inTransaction = false;
  const unnamed = (text: string, values?: unknown[]) => client.query({ text, values, ...extras } as never) as Promise<QueryResult>;
  return async (text, values) => {
    if (TRANSACTION_START.test(text)) inTransaction = true;
    else if (TRANSACTION_END.test(text)) inTransaction = false;
    // Without values pg sends a text by the simple protocol, which runs several statements in one text; a named one cannot.
    const name = inTransaction || !values?.length || !names ? undefined : names.nameOf(text);
    if (name === undefined) return unnamed(text, values);
    try {
      return (await client.query({ name, text, values, ...extras } as never)) as QueryResult;
    } catch (error) {
      if (!isRefusedStatement(error)) throw error;
      names?.refuse(text);
      return unnamed(text, values);
    }
  };
}

/**
 * The refusals of a named statement, none of which ran it: the server's, for result columns
 * changed (0A000, "cached plan must not change result type"), no such statement (26000) or one
 * of that name already there (42P05); and `pg`'s, for a name its connection holds for another
 * text (a host's own statement of that name).
 */
function isRefusedStatement(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code === '26000' || code === '42P05') return true;
  if (typeof message === 'string' && message.startsWith('Prepared statements must be unique')) return true;
  return code === '0A000' && typeof message === 'string' && message.includes('cached plan must not change result type');
}
