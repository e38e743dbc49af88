import type BetterSqlite3 from 'better-sqlite3';
import type { NativeStatement } from '../shared/sqlite-shim.ts';

/** A better-sqlite3 statement as the shim drives it, with `reader` for the shim's `returnsRows`. */
export type NodeStatement = NativeStatement & { readonly reader: boolean };

/**
 * A statement whose `all()` reads each row as an array and names its columns in JavaScript:
 * better-sqlite3 builds object rows in C++ a property at a time, which costs more than this loop.
 * Iteration (exports) reads objects as before: a generator step a row would cost what this saves.
 */
export function arrayReadRows(statement: BetterSqlite3.Statement): NodeStatement {
  if (!statement.reader) return statement as unknown as NodeStatement;
  const names = statement.columns().map((column) => column.name);
  return {
    reader: true,
    all(...params) {
      statement.raw(true);
      try {
        return named(statement.all(...params) as unknown[][], names);
      } finally {
        statement.raw(false);
      }
    },
    run: (...params) => statement.run(...params),
    iterate: (...params) => statement.iterate(...params),
  };
}

/** Rows as objects of `names` (a later column of the same name wins, as better-sqlite3's own objects). */
function named(rows: unknown[][], names: readonly string[]): Record<string, unknown>[] {
  const objects = new Array<Record<string, unknown>>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    const object: Record<string, unknown> = {};
    for (let j = 0; j < names.length; j++) object[names[j]!] = row[j];
    objects[i] = object;
  }
  return objects;
}
