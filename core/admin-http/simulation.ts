import { AdminError } from '../admin/inputs.ts';
import { readObject } from './body.ts';
import { data, type AdminContext } from './context.ts';
import type { Reply } from '../http/reply.ts';

/** `GET /_admin/simulation`: whether the host's simulated traffic runs, and how. */
export async function getSimulation(ctx: AdminContext): Promise<Reply> {
  ctx.query.allowOnly([]);
  return data(ctx.services.simulation!.state());
}

/** `POST /_admin/simulation` `{ running }`: switches the simulated traffic on or off. */
export async function switchSimulation(ctx: AdminContext): Promise<Reply> {
  ctx.query.allowOnly([]);
  const { running, ...rest } = await readObject(ctx.request);
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw new AdminError(`${JSON.stringify(unknown).slice(0, 60)} cannot be set (running)`);
  if (typeof running !== 'boolean') throw new AdminError('running must be true or false');
  const simulation = ctx.services.simulation!;
  if (running) await simulation.start();
  else await simulation.stop();
  return data(simulation.state());
}
