import type { EventInput } from '../../core/index.ts';
import type { ContentPools, PageKind, SiteContent, SitePage } from './content.ts';
import type { Rng } from './rng.ts';
import type { VisitPlan } from './visits.ts';

/** Who the events belong to: the id goes on every event, the key makes their ids. */
export interface Visitor {
  personId: string;
  /** The 16-character part of the person id; event and session ids extend it, so they never clash across people. */
  key: string;
}

/** A step of a journey before it has a time. */
interface Step {
  eventType: string;
  url: string;
  fields: Record<string, unknown>;
  /** Seconds since the previous step, before fitting the session into its window. */
  gap: number;
}

const ENTRY_KINDS: readonly (readonly [PageKind, number])[] = [
  ['home', 35],
  ['blog', 25],
  ['features', 15],
  ['pricing', 10],
  ['docs', 10],
  ['customers', 5],
];
const SCROLL_DEPTHS = [25, 50, 75, 100] as const;
const VIDEO_KINDS = new Set<PageKind>(['home', 'features', 'customers']);
const FILE_KINDS = new Set<PageKind>(['resources', 'docs']);

/**
 * The events of one visit, oldest first: `plan.events` events in sessions, timed inside
 * [firstSeen, lastSeen]. `seq` numbers the person's events across visits.
 */
export function visitEvents(pools: ContentPools, rng: Rng, who: Visitor, visitIndex: number, plan: VisitPlan, seq: number): EventInput[] {
  const site = pools.sites.get(plan.site.domain)!;
  // Sessions of about four events; a visit recorded once is one session however long.
  const sessionCount = Math.max(1, Math.min(plan.visitCount, Math.round(plan.events / 4)));
  const sizes = sessionSizes(rng, plan.events, sessionCount);
  const sessions = sizes.map((n) => walk(pools, site, rng, n));
  const times = placeSessions(rng, sessions, plan.firstSeen, plan.lastSeen, plan.visitCount === 1);
  const events: EventInput[] = [];
  sessions.forEach((steps, k) => {
    const sessionId = `ses_${who.key}${visitIndex}${k.toString(36).padStart(3, '0')}`;
    steps.forEach((step, j) => {
      events.push({
        eventId: `evt_${who.key}${(seq++).toString(36).padStart(4, '0')}`,
        personId: who.personId,
        sessionId,
        eventType: step.eventType,
        timestamp: isoSeconds(times[k]![j]!),
        url: step.url,
        domain: plan.site.domain,
        ...step.fields,
      });
    });
  });
  return events;
}

/** Splits `total` events over `sessions` sessions, each getting at least one. */
function sessionSizes(rng: Rng, total: number, sessions: number): number[] {
  const sizes = new Array<number>(sessions).fill(1);
  let left = total - sessions;
  const weights = sizes.map(() => 0.2 + rng.next());
  const sum = weights.reduce((a, b) => a + b, 0);
  for (let k = 0; k < sessions && left > 0; k++) {
    const share = Math.min(left, Math.floor(((total - sessions) * weights[k]!) / sum));
    sizes[k]! += share;
    left -= share;
  }
  while (left-- > 0) sizes[rng.int(0, sessions - 1)]! += 1;
  return sizes;
}

/** A session of exactly `n` steps: land on a page, then scroll, click through, watch, download, submit. */
function walk(pools: ContentPools, site: SiteContent, rng: Rng, n: number): Step[] {
  let page = pageOfKind(site, rng, rng.weighted(ENTRY_KINDS));
  let depth = 0;
  const steps: Step[] = [view(page, 0)];
  while (steps.length < n) {
    const form = pools.formByKind[page.kind];
    const action = rng.weighted<string>([
      ['scroll', depth < 100 ? 30 : 0],
      ['click', 35],
      ['form', form ? 8 : 0],
      ['video', VIDEO_KINDS.has(page.kind) ? 6 : 0],
      ['file', FILE_KINDS.has(page.kind) ? 6 : 0],
      ['navigate', 10],
    ]);
    if (action === 'scroll') {
      depth = SCROLL_DEPTHS.find((d) => d > depth && rng.chance(0.7)) ?? 100;
      steps.push({ eventType: 'scroll', url: page.url, fields: { pageTitle: page.pageTitle, scrollPercentage: depth }, gap: rng.int(3, 40) });
    } else if (action === 'click') {
      const target = rng.pick(pools.clicks);
      const next = site.byPath.get(target.path)!;
      steps.push({ eventType: 'click', url: page.url, fields: { clickElement: target.element, clickHref: next.url }, gap: rng.int(5, 90) });
      if (steps.length < n) {
        page = next;
        depth = 0;
        steps.push(view(page, rng.int(1, 3)));
      }
    } else if (action === 'form') {
      steps.push({ eventType: 'form_submission', url: page.url, fields: { pageTitle: page.pageTitle, formId: form }, gap: rng.int(20, 180) });
    } else if (action === 'video') {
      const video = rng.pick(pools.videos);
      steps.push({ eventType: 'video_play', url: page.url, fields: { pageTitle: page.pageTitle, videoId: video.videoId, durationSeconds: video.durationSeconds }, gap: rng.int(5, 30) });
    } else if (action === 'file') {
      steps.push({ eventType: 'file_download', url: page.url, fields: { pageTitle: page.pageTitle, fileName: rng.pick(pools.files) }, gap: rng.int(5, 60) });
    } else {
      page = rng.pick(site.pages);
      depth = 0;
      steps.push(view(page, rng.int(10, 120)));
    }
  }
  return steps;
}

function view(page: SitePage, gap: number): Step {
  return { eventType: 'page_view', url: page.url, fields: { pageTitle: page.pageTitle }, gap };
}

function pageOfKind(site: SiteContent, rng: Rng, kind: PageKind): SitePage {
  return rng.pick(site.byKind.get(kind) ?? site.pages);
}

/**
 * Epoch seconds for every step, within [first, last]. The last session ends at lastSeen and,
 * when there are several, the first starts at firstSeen. A session longer than the room before
 * the next one is squeezed rather than allowed to overlap it; with `fill` (a visit seen once,
 * whose window was sized from its events) the only session is stretched to span the window.
 */
function placeSessions(rng: Rng, sessions: Step[][], first: number, last: number, fill: boolean): number[][] {
  const starts = [first, ...Array.from({ length: sessions.length - 1 }, () => rng.int(first, last)).sort((a, b) => a - b)];
  return sessions.map((steps, k) => {
    const isLast = k === sessions.length - 1;
    const end = isLast ? last : starts[k + 1]!;
    const room = end - starts[k]!;
    const duration = steps.reduce((sum, s) => sum + s.gap, 0);
    const scale = duration === 0 ? 0 : fill || duration > room ? room / duration : 1;
    const start = isLast && !fill && duration <= room ? last - duration : starts[k]!;
    let elapsed = 0;
    return steps.map((s) => {
      elapsed += s.gap;
      return Math.min(end, start + Math.round(elapsed * scale));
    });
  });
}

/** `2026-11-21T08:18:00Z`: the API's own rendering, so loaded and returned timestamps compare as text. */
export function isoSeconds(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().slice(0, 19) + 'Z';
}
