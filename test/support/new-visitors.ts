/**
 * `count` new people for process `p` of a multi-process suite, ids `per_<tag>_<p>_<i>`, each seen
 * on two of `domains` in the last day, with a page view on each: what the suites load to make
 * webhook deliveries.
 */
export function newVisitors(tag: string, p: number, count: number, domains: readonly string[], now = Date.now()) {
  const ids = Array.from({ length: count }, (_, i) => `per_${tag}_${p}_${i}`);
  const sitesOf = (i: number) => [domains[i % domains.length]!, domains[(i + 1 + p) % domains.length]!];
  const people = ids.map((id, i) => ({
    id,
    email: `${id}@mail.example`,
    visits: sitesOf(i).map((domain, v) => ({ domain, visitCount: v + 1, firstSeen: new Date(now - 86_400_000).toISOString(), lastSeen: new Date(now - 60_000 * (v + 1)).toISOString() })),
  }));
  const events = ids.flatMap((id, i) =>
    sitesOf(i).map((domain, v) => ({ eventId: `evt_${tag}_${p}_${i}_${v}`, personId: id, sessionId: 'ses_1', eventType: 'page_view', timestamp: new Date(now - 60_000 * (v + 1)).toISOString(), url: `https://${domain}/`, domain, pageTitle: 'Home' })),
  );
  return { ids, people, events };
}
