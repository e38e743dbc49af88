/**
 * Checks an item to load against its schema (`input-schemas.ts`) with TypeBox's compiled
 * validator, and turns the first thing wrong into a message that names the item and the field:
 * `people[3].email must be a string or null, not 42`, `events[0].domain is missing`.
 */
import { Compile, type Validator } from 'typebox/compile';
import { FORBIDDEN_RULE, forbiddenCharacter } from '../http/client-text.ts';
import { INPUT_SCHEMAS, JSON_INPUT_SCHEMAS, type CompanyInput, type EventInput, type PersonInput } from './input-schemas.ts';
import { AdminError, shownValue } from './inputs.ts';

/** What a load holds, by the name its messages use. */
export type InputKind = 'companies' | 'people' | 'events';
interface Inputs {
  companies: CompanyInput;
  people: PersonInput;
  events: EventInput;
}

// Compiled on first use, so a server that never loads data never compiles them.
const validators: Partial<Record<InputKind, Validator>> = {};

/** Refuses `item`, the `index`th of its load, unless it has the shape of its kind. */
export function checkInput<K extends InputKind>(kind: K, item: unknown, index: number): asserts item is Inputs[K] {
  const validator = (validators[kind] ??= Compile(INPUT_SCHEMAS[kind]));
  if (!validator.Check(item)) throw new AdminError(refusal(kind, index, item, validator.Errors(item)[0]!));
}

/** A plain JSON Schema, as far as messages read one. */
interface Described {
  type?: string;
  title?: string;
  enum?: readonly unknown[];
  anyOf?: readonly Described[];
  properties?: Record<string, Described>;
  items?: Described;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
}

/** The message for the first error: the field it is about, then it missing or what it must be. */
function refusal(kind: InputKind, index: number, item: unknown, error: { keyword: string; instancePath: string; params: object }): string {
  const steps = error.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') steps.push((error.params as { requiredProperties: string[] }).requiredProperties[0]!);
  // The JSON shape describes the field: it is what the docs and the OpenAPI document show.
  let schema: Described = JSON_INPUT_SCHEMAS[kind];
  let value = item;
  let field = `${kind}[${index}]`;
  for (const step of steps) {
    const list = schema.type === 'array';
    field += list ? `[${step}]` : `.${step}`;
    schema = (list ? schema.items : schema.properties?.[step]) ?? {};
    value = (value as Record<string, unknown> | undefined)?.[step];
  }
  if (value === undefined || value === null) return `${field} is missing`;
  const found = error.keyword === 'pattern' && typeof value === 'string' ? forbiddenCharacter(value) : null;
  if (found) return `${field} must not contain ${FORBIDDEN_RULE}; found ${found}`;
  return `${field} must be ${expected(schema)}, not ${shownValue(value)}`;
}

/** What a schema takes, as a message says it. */
function expected(schema: Described): string {
  if (schema.anyOf) {
    const values = schema.anyOf.filter((s) => s.type !== 'null');
    const said = values.map(expected).join(' or ');
    // An optional flag that is null is simply not set; other nullable fields say so.
    return values.length === schema.anyOf.length || said === expected({ type: 'boolean' }) ? said : `${said} or null`;
  }
  if (schema.enum) return `one of ${schema.enum.join(', ')}`;
  switch (schema.type) {
    case 'string':
      if (schema.maxLength !== undefined) return `a non-empty string of at most ${schema.maxLength} characters`;
      return schema.minLength ? 'a non-empty string' : 'a string';
    case 'integer':
      if (schema.maximum !== undefined && schema.maximum !== Number.MAX_SAFE_INTEGER) return `a whole number from ${schema.minimum} to ${schema.maximum}`;
      return `a whole number ≥ ${schema.minimum}`;
    case 'number':
      return 'a number';
    case 'boolean':
      return 'true or false';
    case 'array':
      return `a list of at least one ${schema.items?.title ?? 'item'}`;
    case 'object':
      return schema.title ? `a ${schema.title} object` : 'an object';
    default:
      return 'a valid value';
  }
}
