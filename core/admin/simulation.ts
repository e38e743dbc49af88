/** How a host's simulated traffic runs, as `GET /_admin/simulation` shows it. */
export interface SimulationState {
  running: boolean;
  /** Seconds between batches. */
  everySeconds: number;
  /** New people identified in each batch. */
  newPeople: number;
}

/**
 * Simulated traffic its host runs beside the API (`serve --simulate`: new people and their
 * activity, loaded through the admin surface as a tracker would feed them). Given to `createApi`
 * as `admin.simulation`, it is switched on and off over HTTP at `/_admin/simulation`.
 */
export interface SimulationSwitch {
  state(): SimulationState;
  /** Starts batches now (nothing when running). */
  start(): void | Promise<void>;
  /** Stops after the batch under way, if any (nothing when stopped). */
  stop(): Promise<void>;
}
