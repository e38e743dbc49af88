/** Renders epoch seconds as ISO 8601 with an explicit numeric offset, as export jobs carry: `2026-11-21T08:18:00+00:00`. */
export function isoWithOffset(epochSeconds: number): string {
  return `${new Date(epochSeconds * 1000).toISOString().slice(0, 19)}+00:00`;
}
