import { AdminError } from './admin/inputs.ts';
import type { Background } from './background.ts';
import type { BaselineStore } from './store/baseline-store.ts';

/**
 * The sandbox's baseline and the way back to it (`api.saveBaseline()`, `api.reset()`). A reset
 * pauses the background work, restores the saved tables and clears what `clear` names; resets
 * asked for while one runs follow it, one at a time.
 */
export class Resets {
  #saved = false;
  #last: Promise<void> = Promise.resolve();

  constructor(
    private readonly baseline: BaselineStore,
    private readonly background: Background,
    private readonly clear: () => Promise<void>,
  ) {}

  async save(): Promise<void> {
    await this.baseline.save();
    this.#saved = true;
  }

  reset(): Promise<void> {
    const next = this.#last.catch(() => undefined).then(() => this.#restore());
    this.#last = next;
    return next;
  }

  async #restore(): Promise<void> {
    if (!this.#saved) throw new AdminError('no baseline to reset to: the server saves one when it starts (api.saveBaseline())');
    await this.background.pausedWhile(async () => {
      await this.baseline.restore();
      await this.clear();
    });
  }
}
