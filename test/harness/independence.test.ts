import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The examiner must not lean on the examined: the harness takes nothing at run time from the
 * project's other code (core/, scripts/, adapters/), so a fault the core makes alike on both sides
 * of a check cannot pass it. `import type` and `export type … from` vanish at build time and may
 * name the shared types; `import { type X }` does not (it still loads the module).
 */

const ROOT = resolve(import.meta.dirname, '../..');
const HARNESS = join(ROOT, 'harness');
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };

/** Every TypeScript source of the harness, relative to the project root. */
function harnessFiles(dir = HARNESS): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return harnessFiles(path);
    return entry.name.endsWith('.ts') ? [relative(ROOT, path)] : [];
  });
}

/** The module specifiers a file loads at run time: static imports and re-exports that are not type-only, and dynamic import() calls. */
function runtimeImports(file: string, text = readFileSync(join(ROOT, file), 'utf8')): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly && ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    if (ts.isExportDeclaration(node) && !node.isTypeOnly && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    if (ts.isImportEqualsDeclaration(node) && !node.isTypeOnly && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) found.push(node.moduleReference.expression.text);
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      found.push(arg && ts.isStringLiteralLike(arg) ? arg.text : `<computed: ${arg?.getText(source)}>`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Why a run-time import breaks the harness's independence, or undefined when it does not. */
function problemOf(file: string, specifier: string): string | undefined {
  if (specifier.startsWith('<computed')) return `a dynamic import the check cannot follow (${specifier})`;
  if (specifier.startsWith('.')) {
    const target = resolve(dirname(join(ROOT, file)), specifier);
    return target.startsWith(HARNESS + sep) ? undefined : `loads ${relative(ROOT, target)}, outside harness/`;
  }
  // A package: the shipped harness can only load what installing the package installs.
  const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
  if (name.startsWith('node:') || name.startsWith('bun:') || name.startsWith('jsr:') || name.startsWith('npm:')) return `loads ${specifier}: the harness runs on fetch alone, under any runtime`;
  return name in PACKAGE.dependencies ? undefined : `loads ${name}, which is not in package.json dependencies`;
}

describe('the harness stands apart from the code it examines', () => {
  it('reads every harness source (the scan is not looking at an empty folder)', () => {
    const files = harnessFiles();
    expect(files).toContain(join('harness', 'index.ts'));
    expect(files).toContain(join('harness', 'webhooks', 'delivery.ts'));
  });

  it('tells the imports that load a module at run time from those erased at build time', () => {
    const text = [
      "import type { Person } from '../core/types.ts';",
      "export type { Company } from '../core/types.ts';",
      "import { type Clock } from '../core/clock.ts';",
      "export { runCli } from '../scripts/commands/index.ts';",
      "const { verifyWebhook } = await import('../core/webhooks/signing.ts');",
      "import { Command } from 'commander';",
      "import { readFileSync } from 'node:fs';",
      "import { expect } from 'vitest';",
    ].join('\n');
    const file = join('harness', 'example.ts');
    expect(runtimeImports(file, text).map((specifier) => problemOf(file, specifier))).toEqual([
      `loads ${join('core', 'clock.ts')}, outside harness/`,
      `loads ${join('scripts', 'commands', 'index.ts')}, outside harness/`,
      `loads ${join('core', 'webhooks', 'signing.ts')}, outside harness/`,
      undefined,
      'loads node:fs: the harness runs on fetch alone, under any runtime',
      'loads vitest, which is not in package.json dependencies',
    ]);
  });

  it('loads nothing at run time from core/, scripts/ or adapters/, and only packages it ships with', () => {
    const problems = harnessFiles().flatMap((file) => runtimeImports(file).flatMap((specifier) => {
      const problem = problemOf(file, specifier);
      return problem ? [`${file}: ${problem}`] : [];
    }));
    expect(problems).toEqual([]);
  });

  it('judges webhook signatures with the Standard Webhooks reference library, not the core verifier', () => {
    const webhookFiles = harnessFiles().filter((file) => file.startsWith(join('harness', 'webhooks') + sep));
    expect(webhookFiles.flatMap((file) => runtimeImports(file))).toContain('standardwebhooks');
  });
});
