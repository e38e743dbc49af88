/* The memory a bench case reports: what the process itself holds. */
import { readFileSync } from 'node:fs';

/**
 * The process's own resident memory in bytes: its anonymous pages (heaps, buffers), not the
 * database file's pages SQLite maps in (`mmap_size`), which are the kernel's page cache, shared
 * and dropped under pressure. All of RSS where /proc is missing.
 */
export function ownResident(): number {
  try {
    const anon = /^RssAnon:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (anon) return Number(anon[1]) * 1024;
  } catch {
    // No /proc (macOS): RSS is all there is.
  }
  return process.memoryUsage().rss;
}
