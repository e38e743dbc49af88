import { keyOf, type ExportMembersStore, type MemberKey, type MemberRef } from '../store/export-members-store.ts';

/**
 * Orders two sort-key values as SQLite does for the members' keys: integers before text, integers
 * by value, text by its UTF-8 bytes (code point order, which differs from JavaScript's UTF-16
 * order only where a character beyond U+FFFF meets one from U+E000 to U+FFFF).
 */
export function compareValues(a: number | string, b: number | string): number {
  if (typeof a === 'number' || typeof b === 'number') {
    if (typeof a !== 'number') return 1;
    if (typeof b !== 'number') return -1;
    return a - b;
  }
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (characters beyond U+FFFF) sort after U+E000–U+FFFF in code point order.
    if (x >= 0xd800) x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
    if (y >= 0xd800) y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    return x - y;
  }
  return a.length - b.length;
}

/** Orders two member keys by (k1, k2, id), ascending. */
export function compareKeys(a: MemberKey, b: MemberKey): number {
  return compareValues(a.k1, b.k1) || compareValues(a.k2, b.k2) || compareValues(a.person_id, b.person_id);
}

/** Orders two members as {@link compareKeys} orders their keys. */
function compareMembers(a: MemberRef, b: MemberRef): number {
  return compareValues(a[0], b[0]) || compareValues(a[1], b[1]) || compareValues(a[2], b[2]);
}

/** One run being merged: the next few of its members, read ahead. */
interface Head {
  run: number;
  buffer: MemberRef[];
  at: number;
  /** The run has nothing beyond its buffer. */
  drained: boolean;
}

/**
 * About how many members the merge holds across all runs: held briefly, read-ahead members die
 * young instead of reaching V8's old generation. Each run reads at least 2 and at most 256 ahead.
 */
const HELD_MEMBERS = 1024;
/** Runs opened per call of `pace` while the merge starts, so opening many runs never blocks long. */
const RUNS_PER_STEP = 32;

/**
 * The members of a job in file order, merged from its sorted runs (an external merge sort's last
 * phase): each run is read a few members at a time from where the file's last row left it, and a
 * binary heap picks the next member across runs. It holds about HELD_MEMBERS members, never rows.
 */
export class RunMerge {
  readonly #heap: Head[] = [];
  readonly #sign: number;
  /** Where the merge started: the last row already in the file, or null. */
  readonly #after: MemberKey | null;
  #readAhead = 256;

  private constructor(
    private readonly store: ExportMembersStore,
    private readonly jobId: string,
    private readonly descending: boolean,
    after: MemberKey | null,
  ) {
    this.#sign = descending ? -1 : 1;
    this.#after = after;
  }

  /** Opens every run of the job after `after` (the last row written, or null), calling `pace` between groups of runs. */
  static async open(store: ExportMembersStore, jobId: string, descending: boolean, after: MemberKey | null, pace: () => Promise<unknown>): Promise<RunMerge> {
    const merge = new RunMerge(store, jobId, descending, after);
    const runs: number[] = [];
    for (let run = await store.nextRun(jobId, null); run !== undefined; run = await store.nextRun(jobId, run)) {
      runs.push(run);
      if (runs.length % RUNS_PER_STEP === 0) await pace();
    }
    merge.#readAhead = Math.max(2, Math.min(256, Math.floor(HELD_MEMBERS / Math.max(1, runs.length))));
    for (const [i, run] of runs.entries()) {
      const head: Head = { run, buffer: [], at: 0, drained: false };
      if (await merge.#fill(head)) merge.#push(head);
      if ((i + 1) % RUNS_PER_STEP === 0) await pace();
    }
    return merge;
  }

  /** The next `n` members in file order (fewer at the end). */
  async next(n: number): Promise<MemberRef[]> {
    const out: MemberRef[] = [];
    while (out.length < n && this.#heap.length > 0) {
      const head = this.#heap[0]!;
      const member = head.buffer[head.at++]!;
      out.push(member);
      if (head.at === head.buffer.length && !(await this.#fill(head))) {
        const tail = this.#heap.pop()!;
        if (this.#heap.length === 0) break;
        this.#heap[0] = tail;
      }
      this.#down(0);
    }
    return out;
  }

  /** Reads the run's next members after those read before (at first, after the merge's start); false when it has none left. */
  async #fill(head: Head): Promise<boolean> {
    if (head.drained) return false;
    const from = head.buffer.length > 0 ? keyOf(head.buffer[head.buffer.length - 1]!) : this.#after;
    head.buffer = await this.store.runMembers(this.jobId, head.run, this.descending, from, this.#readAhead);
    head.at = 0;
    head.drained = head.buffer.length < this.#readAhead;
    return head.buffer.length > 0;
  }

  #before(a: Head, b: Head): boolean {
    return this.#sign * compareMembers(a.buffer[a.at]!, b.buffer[b.at]!) < 0;
  }

  #push(head: Head): void {
    const heap = this.#heap;
    heap.push(head);
    for (let i = heap.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!this.#before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  #down(i: number): void {
    const heap = this.#heap;
    for (;;) {
      const [l, r] = [2 * i + 1, 2 * i + 2];
      let best = i;
      if (l < heap.length && this.#before(heap[l]!, heap[best]!)) best = l;
      if (r < heap.length && this.#before(heap[r]!, heap[best]!)) best = r;
      if (best === i) return;
      [heap[i], heap[best]] = [heap[best]!, heap[i]!];
      i = best;
    }
  }
}
