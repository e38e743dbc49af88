/**
 * Rows as aligned text: each column as wide as its longest cell, two spaces between columns,
 * so a long domain or clientRef never runs into the next column.
 */
export function alignColumns(rows: readonly (readonly string[])[], indent = ''): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => `${indent}${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')}`.trimEnd());
}
