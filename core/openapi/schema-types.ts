/**
 * The TypeScript type a JSON Schema describes, for the small subset of JSON Schema the OpenAPI
 * document uses (`type`, `const`, `enum`, `properties`, `required`, `additionalProperties: true`,
 * `items`, `anyOf`, `oneOf`). With {@link Same}, it lets `tsc` fail when a schema and the
 * resource interface it documents disagree, so the document cannot drift from the types.
 */

/** The schemas {@link FromSchema} understands; keywords it ignores (formats, bounds, text) may be added freely. */
export interface JsonSchema {
  readonly type?: JsonType | readonly JsonType[];
  readonly const?: unknown;
  readonly enum?: readonly unknown[];
  readonly properties?: { readonly [name: string]: JsonSchema };
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean;
  readonly items?: JsonSchema;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  readonly [keyword: string]: unknown;
}

type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'null' | 'object' | 'array';

/** The type of the values `S` accepts. */
export type FromSchema<S> = S extends { const: infer C }
  ? C
  : S extends { enum: readonly (infer E)[] }
    ? E
    : S extends { anyOf: readonly (infer A)[] }
      ? A extends unknown ? FromSchema<A> : never
      : S extends { oneOf: readonly (infer A)[] }
        ? A extends unknown ? FromSchema<A> : never
        : S extends { type: readonly (infer T)[] }
          ? T extends unknown ? OfType<S, T> : never
          : S extends { type: infer T }
            ? OfType<S, T>
            : unknown;

type OfType<S, T> = T extends 'object'
  ? ObjectOf<S>
  : T extends 'array'
    ? S extends { items: infer I } ? FromSchema<I>[] : unknown[]
    : T extends 'string'
      ? string
      : T extends 'integer' | 'number'
        ? number
        : T extends 'boolean'
          ? boolean
          : T extends 'null'
            ? null
            : never;

type Props<S> = S extends { properties: infer P } ? P : {};
type Required<S> = S extends { required: readonly (infer R)[] } ? R : never;
type Extra<S> = S extends { additionalProperties: true } ? { [extra: string]: unknown } : {};
type Flat<T> = { [K in keyof T]: T[K] } & {};

type ObjectOf<S> = Flat<
  { -readonly [K in keyof Props<S> as K extends Required<S> ? K : never]: FromSchema<Props<S>[K]> } & {
    -readonly [K in keyof Props<S> as K extends Required<S> ? never : K]?: FromSchema<Props<S>[K]>;
  } & Extra<S>
>;

/** `true` when A and B are the same type (optional and nullable fields included), else `false`. */
export type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/**
 * Compiles only when `Check` is `true`: `const _: Agree<Same<FromSchema<typeof s>, T>> = true`
 * names the schema in the error when it drifts.
 */
export type Agree<Check extends true> = Check;
