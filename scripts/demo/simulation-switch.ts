import type { Admin, SimulationState, SimulationSwitch } from '../../core/index.ts';
import { DemoSimulator, runSimulation, type Simulation, type TickCounts } from './simulate.ts';

/** How the switched simulation runs. */
export interface SwitchOptions {
  accountId: string;
  everySeconds: number;
  newPeople: number;
  /** The API's time, in epoch milliseconds. */
  now: () => number;
  /** Told when it starts and stops, and each batch's counts or error. */
  report: (event: { started: true } | { stopped: true } | TickCounts | Error) => void;
}

/**
 * `serve`'s simulated traffic as a switch: `--simulate` turns it on at the start, and
 * `POST /_admin/simulation` on and off at any time. The admin surface it loads through is
 * attached once the API exists (the API takes the switch when created).
 */
export class DemoSimulationSwitch implements SimulationSwitch {
  #admin: Admin | undefined;
  #seed = 0;
  #running: Simulation | undefined;
  #starts = 0;

  constructor(private readonly options: SwitchOptions) {}

  /**
   * The admin surface to load through, and the demo's seed, mixed with the time of each start so
   * a restarted simulation never reuses an earlier run's ids.
   */
  attach(admin: Admin, seed: number): void {
    this.#admin = admin;
    this.#seed = seed;
  }

  state(): SimulationState {
    return { running: this.#running !== undefined, everySeconds: this.options.everySeconds, newPeople: this.options.newPeople };
  }

  start(): void {
    if (this.#running) return;
    if (!this.#admin) throw new Error('the simulation starts once the API is attached');
    const { accountId, everySeconds, newPeople, now, report } = this.options;
    const seed = (this.#seed ^ Date.now() ^ Math.imul(++this.#starts, 0x9e3779b1)) >>> 0;
    const simulator = new DemoSimulator(this.#admin, accountId, now, { newPeople, returning: Math.max(1, Math.ceil(newPeople / 2)), seed });
    report({ started: true });
    this.#running = runSimulation(simulator, everySeconds, report);
  }

  async stop(): Promise<void> {
    const running = this.#running;
    if (!running) return;
    this.#running = undefined;
    await running.stop();
    this.options.report({ stopped: true });
  }
}
