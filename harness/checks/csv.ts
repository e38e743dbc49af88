/**
 * A small, strict RFC 4180 reader for the export checks, hand-written so the harness stays
 * dependency-free across runtimes, and strict so it shows the quoting faults the checks look for.
 * Accepts CRLF or bare LF records, quoted fields with commas, line breaks and `""`, an optional
 * final line break and a leading UTF-8 byte-order mark.
 */

/** Thrown when the text is not RFC 4180 CSV; says where. */
export class CsvError extends Error {}

/** Reads CSV text into records of fields. An empty text has no records. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const n = text.length;
  if (i >= n) return records;
  let record: string[] = [];
  let line = 1;
  for (;;) {
    // One field starts at i.
    let field = '';
    if (text[i] === '"') {
      const openedOn = line;
      i++;
      for (;;) {
        if (i >= n) throw new CsvError(`unterminated quoted field opened on line ${openedOn}`);
        const c = text[i]!;
        if (c === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (c === '\n') line++;
        field += c;
        i++;
      }
      if (i < n && text[i] !== ',' && text[i] !== '\n' && !(text[i] === '\r' && text[i + 1] === '\n')) {
        throw new CsvError(`text after a closing quote on line ${line}: ${JSON.stringify(text.slice(i, i + 20))}`);
      }
    } else {
      const start = i;
      while (i < n && text[i] !== ',' && text[i] !== '\n' && !(text[i] === '\r' && text[i + 1] === '\n')) {
        if (text[i] === '"') throw new CsvError(`a quote inside an unquoted field on line ${line}`);
        if (text[i] === '\r') throw new CsvError(`a bare carriage return inside an unquoted field on line ${line}`);
        i++;
      }
      field = text.slice(start, i);
    }
    record.push(field);
    if (i >= n) {
      records.push(record);
      return records;
    }
    if (text[i] === ',') {
      i++;
      // A comma at the very end still opens one last (empty) field.
      if (i >= n) {
        record.push('');
        records.push(record);
        return records;
      }
      continue;
    }
    // A record ends (CRLF or LF).
    i += text[i] === '\r' ? 2 : 1;
    line++;
    records.push(record);
    record = [];
    if (i >= n) return records;
  }
}
