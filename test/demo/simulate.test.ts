import { describe, expect, it } from 'vitest';
import { createApi, ManualClock } from '../../adapters/node/index.ts';
import { DemoSimulator } from '../../scripts/demo/simulate.ts';
import { seedDemo } from '../../scripts/demo/seed.ts';

const ACCOUNT = 'acc_demo';
const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);

describe('the demo simulation', () => {
  it('keeps loading people and their return visits after a reset took back the companies it loaded', async () => {
    const clock = new ManualClock(NOW);
    const api = await createApi({ database: ':memory:', clock });
    try {
      await api.admin.createAccount({ id: ACCOUNT, name: 'Demo' });
      await seedDemo(api.admin, ACCOUNT, { seed: 4, people: 10, anchor: NOW });
      const key = (await api.admin.issueAccountKey(ACCOUNT)).key;
      const people = async () => (await (await api.fetch(new Request('http://api.test/v1/stats', { headers: { 'x-api-key': key } }))).json()).data.totalPeople;
      await api.saveBaseline();
      const simulator = new DemoSimulator(api.admin, ACCOUNT, () => clock.now(), { newPeople: 2, returning: 1, seed: 9 });
      expect(await simulator.tick()).toMatchObject({ newPeople: 2, returning: 0 });
      await api.reset();
      clock.advance(60);
      // The people it remembers, and the new ones, work at companies the reset removed.
      expect(await simulator.tick()).toMatchObject({ newPeople: 2, returning: 1 });
      // The baseline's ten, the two new ones and the one who came back, loaded again whole.
      expect(await people()).toBe(13);
    } finally {
      await api.close();
    }
  });
});
