import {
  OperationNodeTransformer,
  sql,
  TableNode,
  WithSchemaPlugin,
  type Kysely,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryId,
  type QueryResult,
  type RawNode,
  type RawBuilder,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';

/**
 * Names every table of the API's statements in one schema, so that a schema can be chosen without
 * a session setting: a pooler in transaction mode hands each transaction whichever server
 * connection is free, so a `search_path` set on one is not the next one's. Kysely's own
 * {@link WithSchemaPlugin} names the tables its builders name; raw SQL names a table with
 * `sql.table(name)`, and this names those too.
 */
export class TablesInSchema implements KyselyPlugin {
  readonly #builders: WithSchemaPlugin;
  readonly #raw: RawTables;

  constructor(readonly schema: string) {
    this.#builders = new WithSchemaPlugin(schema);
    this.#raw = new RawTables(schema);
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.#builders.transformQuery({ ...args, node: this.#raw.transformNode(args.node, args.queryId) });
  }

  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return this.#builders.transformResult(args);
  }
}

/** Puts the tables raw SQL names with `sql.table(name)` (a table node among its parameters) in the schema. */
class RawTables extends OperationNodeTransformer {
  constructor(private readonly schema: string) {
    super();
  }

  protected override transformRaw(node: RawNode, queryId?: QueryId): RawNode {
    const raw = super.transformRaw(node, queryId);
    const parameters = raw.parameters.map((p) => (TableNode.is(p) && !p.table.schema ? TableNode.createWithSchema(this.schema, p.table.identifier.name) : p));
    return { ...raw, parameters };
  }
}

/** The schema a Kysely instance (or transaction) names its tables in, if it was given one. */
export function schemaOf(db: Kysely<any>): string | undefined {
  return db.getExecutor().plugins.find((p): p is TablesInSchema => p instanceof TablesInSchema)?.schema;
}

/** Postgres: the schema the tables live in, as SQL: the one given, or the connection's current schema. */
export function tablesSchemaSql(db: Kysely<any>): RawBuilder<string> {
  const schema = schemaOf(db);
  return schema === undefined ? sql<string>`current_schema()` : sql<string>`cast(${schema} as text)`;
}
