import { createHash } from 'node:crypto';
import type { Api } from '../core/index.ts';

/** The demo account's id. */
export const DEMO_ACCOUNT_ID = 'acc_demo';

/** The keys the demo server hands out, in the shape `--keys-out` writes. */
export interface DemoKeys {
  accountKey: string;
  scopedKeys: { domain: string; clientRef: string | null; key: string }[];
}

/** A demo key derived from the seed, so docs and restarts can name it. Demo use only: anyone with the seed has it. */
export function deriveDemoKey(seed: number, label: string): string {
  return `vi_live_${createHash('sha256').update(`visitor-intelligence demo key ${seed} ${label}`).digest('hex').slice(0, 40)}`;
}

/**
 * Makes sure the demo account has working keys and returns them: the seed-derived ones while
 * they are active, fresh ones where they were revoked or rotated away.
 */
export async function ensureDemoKeys(api: Api, seed: number): Promise<DemoKeys> {
  const { admin } = api;
  const derivedAccountKey = deriveDemoKey(seed, 'account');
  const accountKey = await ensureKey(
    api,
    derivedAccountKey,
    () => admin.issueAccountKey(DEMO_ACCOUNT_ID, { label: 'demo account key', value: derivedAccountKey }),
    () => admin.issueAccountKey(DEMO_ACCOUNT_ID, { label: 'demo account key' }),
  );
  const scopedKeys: DemoKeys['scopedKeys'] = [];
  for (const site of await admin.listSites(DEMO_ACCOUNT_ID)) {
    const derived = deriveDemoKey(seed, `site ${site.domain}`);
    const key = await ensureKey(
      api,
      derived,
      () => admin.issueScopedKey(DEMO_ACCOUNT_ID, site.domain, { value: derived }),
      async () => {
        // The site's key was rotated by someone else: rotate again to learn a working value.
        const active = (await admin.listKeys(DEMO_ACCOUNT_ID)).find((k) => k.domain === site.domain && k.revokedAt === null);
        return active ? admin.rotateKey(active.keyId) : admin.issueScopedKey(DEMO_ACCOUNT_ID, site.domain);
      },
    );
    scopedKeys.push({ domain: site.domain, clientRef: site.clientRef, key });
  }
  return { accountKey, scopedKeys };
}

async function ensureKey(
  api: Api,
  derived: string,
  issueDerived: () => Promise<{ key: string }>,
  issueFresh: () => Promise<{ key: string }>,
): Promise<string> {
  if (await api.admin.describeKey(derived)) return derived;
  try {
    return (await issueDerived()).key;
  } catch {
    // Another process starting on the same database issued it meanwhile.
    if (await api.admin.describeKey(derived)) return derived;
    // The derived value was used before and revoked, or the site already has another key.
    return (await issueFresh()).key;
  }
}
