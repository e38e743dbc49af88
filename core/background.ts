import type { ExportRunner } from './exports/runner.ts';
import type { WebhookDispatcher } from './webhooks/dispatcher.ts';

/**
 * The API's work outside requests: the export runner and the webhook dispatcher. A stopped one
 * stays stopped, so a pause (a reset) replaces both with fresh ones that take the tables over.
 */
export class Background {
  #runner: ExportRunner;
  #dispatcher: WebhookDispatcher;

  constructor(
    private readonly newRunner: () => ExportRunner,
    private readonly newDispatcher: () => WebhookDispatcher,
  ) {
    this.#runner = newRunner();
    this.#dispatcher = newDispatcher();
  }

  get runner(): ExportRunner {
    return this.#runner;
  }

  get dispatcher(): WebhookDispatcher {
    return this.#dispatcher;
  }

  /** Resumes exports a previous process left running and sends the deliveries it left pending; stops both if either fails. */
  async start(): Promise<void> {
    try {
      await this.#runner.resumeInterrupted();
      this.#dispatcher.start();
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  async stop(): Promise<void> {
    await Promise.all([this.#runner.stop(), this.#dispatcher.stop()]);
  }

  /** Stops both, runs `change`, and starts fresh ones over the tables as `change` left them (or as they were, if it failed). */
  async pausedWhile(change: () => Promise<void>): Promise<void> {
    await this.stop();
    try {
      await change();
    } finally {
      this.#runner = this.newRunner();
      this.#dispatcher = this.newDispatcher();
      this.#dispatcher.start();
      await this.#runner.resumeInterrupted();
    }
  }
}
