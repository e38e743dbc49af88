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

  /** Resolves once a run stands at its next step (fails after `timeoutMs`, so a run that never steps fails its test). */
  async atStep(timeoutMs = 5000): Promise<void> {
    const started = Date.now();
    while (this.#waiting.length === 0) {
      if (Date.now() - started > timeoutMs) throw new Error(`no export step waited at the gate within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 1));
    }
  }

  /** Lets `n` steps go one at a time, leaving the run held at the step after. */
  async stepsRun(n: number): Promise<void> {
    for (let i = 0; i < n; i++) {
      await this.atStep();
      this.step();
    }
    await this.atStep();
  }

  /** Lets steps go one at a time until `done` holds, leaving the run held at its next step. */
  async stepsUntil(done: () => Promise<boolean>): Promise<void> {
    await this.atStep();
    while (!(await done())) {
      this.step();
      await this.atStep();
    }
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
