/** Holds export runs at their steps until the test lets them go: pass `gate.pace` as the `exports.pace` option. */
export class Gate {
  #open = false;
  #waiting: (() => void)[] = [];

  /** Awaited by the runner before each step. */
  readonly pace = (): Promise<void> => (this.#open ? new Promise((r) => setTimeout(r, 0)) : new Promise((resolve) => this.#waiting.push(resolve)));

  /** How many steps are waiting. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Lets the waiting steps go once; later steps wait again. */
  step(): void {
    const ready = this.#waiting.splice(0);
    for (const go of ready) go();
  }

  /** Lets every step go from now on. */
  open(): void {
    this.#open = true;
    this.step();
  }

  /** Makes steps wait again. */
  close(): void {
    this.#open = false;
  }
}
