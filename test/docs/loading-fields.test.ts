import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { JSON_INPUT_SCHEMAS, JSON_TIME } from '../../core/admin/input-schemas.ts';

type Json = Record<string, any>;

const PAGE = readFileSync(new URL('../../docs/loading-data.md', import.meta.url), 'utf8');

/** The rows of the first table after `marker`: each row's cells, header and rule left out. */
function tableAfter(marker: string): string[][] {
  const lines = PAGE.slice(PAGE.indexOf(marker)).split('\n');
  const start = lines.findIndex((line) => line.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.slice(1, -1).split(' | ').map((cell) => cell.trim()));
  }
  return rows;
}

/** A field's type as the page words it. */
function typeWords(schema: Json): string {
  if (schema === JSON_TIME) return 'time';
  if (schema.anyOf) return schema.anyOf.filter((s: Json) => s.type !== 'null').map(typeWords).join(' or ');
  if (schema.enum) return `${schema.enum.slice(0, -1).map((v: string) => `\`${v}\``).join(', ')} or \`${schema.enum.at(-1)}\``;
  if (schema.type === 'string') return 'text';
  if (schema.type === 'boolean') return 'boolean';
  if (schema.type === 'array') return `list of \`${schema.items.title}\` (below)`;
  if (schema.type === 'integer') return schema.maximum === Number.MAX_SAFE_INTEGER ? `whole number ≥ ${schema.minimum}` : `whole number from ${schema.minimum} to ${schema.maximum}`;
  return JSON.stringify(schema);
}

describe('the field tables of docs/loading-data.md', () => {
  it.each([
    ['CompanyInput', JSON_INPUT_SCHEMAS.companies],
    ['PersonInput', JSON_INPUT_SCHEMAS.people],
    ['VisitInput', JSON_INPUT_SCHEMAS.visit],
    ['EventInput', JSON_INPUT_SCHEMAS.events],
  ])('list every field of %s with the type and the requiredness the loader checks', (name, schema: Json) => {
    const listed: string[] = [];
    let others = false;
    for (const [fields, type, required] of tableAfter(`(\`${name}\`)`)) {
      if (fields === 'any other field') {
        others = true;
        continue;
      }
      for (const field of [...fields!.matchAll(/`(\w+)`/g)].map((m) => m[1]!)) {
        listed.push(field);
        expect(schema.properties[field], `${name}.${field} is a field of the schema`).toBeDefined();
        expect(type, `${name}.${field}`).toBe(typeWords(schema.properties[field]));
        expect(required === 'yes', `${name}.${field} required`).toBe(schema.required.includes(field));
      }
    }
    expect(listed.sort()).toEqual(Object.keys(schema.properties).sort());
    expect(others).toBe(schema.additionalProperties === true);
  });
});
