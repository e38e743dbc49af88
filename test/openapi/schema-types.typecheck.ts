/**
 * Compile-time tests of the schema/type agreement check (`tsc --noEmit` runs them; vitest does
 * not): each drift below must fail to compile, or its `@ts-expect-error` is itself an error. So
 * the `Agree<Same<…>>` lines in `core/openapi` can fail, for every kind of drift they guard.
 */
import type { Agree, FromSchema, Same } from '../../core/openapi/schema-types.ts';

const schema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    email: { type: ['string', 'null'] },
    count: { type: 'integer' },
    kind: { type: 'string', enum: ['a', 'b'] },
    tags: { type: 'array', items: { type: 'string' } },
    note: { type: 'string' },
  },
  required: ['id', 'email', 'count', 'kind', 'tags'],
  additionalProperties: false,
} as const;

interface Exact {
  id: string;
  email: string | null;
  count: number;
  kind: 'a' | 'b';
  tags: string[];
  note?: string;
}
// Each drift is written out flat, so only the drift (not the way the type is built) tells it from Exact.
interface ExtraField { id: string; email: string | null; count: number; kind: 'a' | 'b'; tags: string[]; note?: string; extra: string }
interface MissingField { id: string; email: string | null; count: number; kind: 'a' | 'b'; note?: string }
interface NotNullable { id: string; email: string; count: number; kind: 'a' | 'b'; tags: string[]; note?: string }
interface NotOptional { id: string; email: string | null; count: number; kind: 'a' | 'b'; tags: string[]; note: string }
interface OtherType { id: string; email: string | null; count: string; kind: 'a' | 'b'; tags: string[]; note?: string }
interface OtherEnum { id: string; email: string | null; count: number; kind: 'a' | 'c'; tags: string[]; note?: string }
interface OpenType { id: string; email: string | null; count: number; kind: 'a' | 'b'; tags: string[]; note?: string; [extra: string]: unknown }

export type Agrees = Agree<Same<FromSchema<typeof schema>, Exact>>;
// @ts-expect-error a field the schema lacks
export type ExtraFieldFails = Agree<Same<FromSchema<typeof schema>, ExtraField>>;
// @ts-expect-error a field the type lacks
export type MissingFieldFails = Agree<Same<FromSchema<typeof schema>, MissingField>>;
// @ts-expect-error nullable in the schema, not in the type
export type NotNullableFails = Agree<Same<FromSchema<typeof schema>, NotNullable>>;
// @ts-expect-error optional in the schema, required in the type
export type NotOptionalFails = Agree<Same<FromSchema<typeof schema>, NotOptional>>;
// @ts-expect-error another type
export type OtherTypeFails = Agree<Same<FromSchema<typeof schema>, OtherType>>;
// @ts-expect-error another enum
export type OtherEnumFails = Agree<Same<FromSchema<typeof schema>, OtherEnum>>;
// @ts-expect-error extra fields allowed in the type, not in the schema
export type OpenTypeFails = Agree<Same<FromSchema<typeof schema>, OpenType>>;
