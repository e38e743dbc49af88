import { CallError } from './api.ts';

/** A failure, announced to screen readers as it appears. */
export function ErrorNote({ error }: { error: unknown }) {
  const text = error instanceof CallError ? `${error.status} ${error.code}: ${error.message}` : String(error);
  return <p role="alert" class="error">{text}</p>;
}

/** A time as the server gave it, shown in UTC without seconds' noise. */
export function When({ at }: { at: string | null | undefined }) {
  if (!at) return <span>—</span>;
  return <time dateTime={at}>{at.replace('T', ' ').replace(/(Z|[+]00:00)$/, ' UTC')}</time>;
}

/** Copies text to the clipboard. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  return (
    <button type="button" onClick={() => void navigator.clipboard?.writeText(text)}>
      {label}
    </button>
  );
}

/** The cursors of the pages read so far: the last is the page shown, the first none (page 1). */
export type Trail = (string | undefined)[];

/** Previous and next page through a list's cursors. */
export function Pager({ trail, setTrail, nextCursor }: { trail: Trail; setTrail: (trail: Trail) => void; nextCursor: string | undefined }) {
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={trail.length === 1} onClick={() => setTrail(trail.slice(0, -1))}>Previous page</button>
      <button type="button" disabled={!nextCursor} onClick={() => setTrail([...trail, nextCursor])}>Next page</button>
    </nav>
  );
}
