import type { Compilable, CompiledQuery } from 'kysely';
import type { Db } from './schema.ts';

/** Stands in for a named value while a query is compiled; the value is bound on every run. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Param = (name: string) => any;

/** Marks a parameter slot as a placeholder; no real value starts with a NUL. */
const MARK = '\u0000vi-param:';
const param: Param = (name) => `${MARK}${name}`;
/** Shapes kept per cache; more means a caller builds shapes from unbounded input, so start over. */
const MAX_SHAPES = 256;

interface Shape {
  compiled: CompiledQuery;
  /** For each parameter slot, the name of the value bound there, or null for a constant of the query. */
  slots: (string | null)[];
}

/**
 * Runs Kysely queries compiled once per shape. Building and compiling a query costs about as
 * much as SQLite running a cheap one, and a hot endpoint runs the same few shapes all day: the
 * first run of a shape builds it with placeholders, later runs bind new values into its SQL.
 * A shape key must name everything that changes the SQL (which filters are present, list lengths).
 */
export class CompiledQueries {
  readonly #shapes = new Map<string, Shape>();

  constructor(private readonly db: Db) {}

  /** The rows of the query of this shape, with `values` bound to its placeholders. */
  async rows<R>(shape: string, build: (p: Param) => Compilable<R>, values: Record<string, unknown>): Promise<R[]> {
    let entry = this.#shapes.get(shape);
    if (!entry) {
      const compiled = build(param).compile();
      const slots = compiled.parameters.map((v) => (typeof v === 'string' && v.startsWith(MARK) ? v.slice(MARK.length) : null));
      // Every value must land in a slot and every slot get a value: a placeholder the compiler
      // inlined as text, or a forgotten value, is a bug to fail on, not a query to run.
      const named = new Set(slots.filter((n) => n !== null));
      const given = Object.keys(values);
      if (named.size !== given.length || given.some((n) => !named.has(n))) {
        throw new Error(`query shape ${shape} binds ${[...named].join(', ')} but was given ${given.join(', ')}`);
      }
      if (this.#shapes.size >= MAX_SHAPES) this.#shapes.clear();
      this.#shapes.set(shape, (entry = { compiled, slots }));
    }
    const { compiled, slots } = entry;
    const parameters = compiled.parameters.map((constant, i) => (slots[i] === null ? constant : values[slots[i]!]));
    const result = await this.db.executeQuery<R>({ ...compiled, parameters } as CompiledQuery<R>);
    return result.rows;
  }
}
