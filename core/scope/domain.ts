const HOSTNAME = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Lowercases a hostname and drops a trailing dot; null when it is not a hostname. */
export function normalizeDomain(input: string): string | null {
  const domain = input.trim().toLowerCase().replace(/\.$/, '');
  return HOSTNAME.test(domain) ? domain : null;
}

/** Whether `domain` is `filter` or one of its subdomains (`example.com` matches `www.example.com`, not `badexample.com`). */
export function domainMatches(domain: string, filter: string): boolean {
  return domain === filter || domain.endsWith(`.${filter}`);
}
