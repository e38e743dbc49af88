import { createAccount, listAccounts, listSites, registerSite } from './accounts.ts';
import type { AdminRoute } from './context.ts';
import { loadCompanies, loadEvents, loadPeople } from './data.ts';
import { addFaultRule, clearFaultRules, listFaultRules } from './faults.ts';
import { issueKey, listKeys, revokeKey, rotateKey } from './keys.ts';
import { getSimulation, switchSimulation } from './simulation.ts';
import { getClock, moveClock, reset } from './state.ts';
import { createEndpoint, deleteEndpoint, getDelivery, getEndpoint, listDeliveries, listEndpoints, redeliver, rotateSecret, sendTest, updateEndpoint } from './webhooks.ts';

const route = (method: AdminRoute['method'], path: string, handler: AdminRoute['handler']): AdminRoute => ({ method, path: `/_admin${path}`, admin: true, handler });

/** The admin routes, relative to the mount point like `/v1/`. */
export const ADMIN_ROUTES: AdminRoute[] = [
  route('POST', '/reset', reset),
  route('GET', '/clock', getClock),
  route('POST', '/clock', moveClock),
  route('GET', '/accounts', listAccounts),
  route('POST', '/accounts', createAccount),
  route('GET', '/accounts/:accountId/sites', listSites),
  route('POST', '/accounts/:accountId/sites', registerSite),
  route('GET', '/accounts/:accountId/keys', listKeys),
  route('POST', '/accounts/:accountId/keys', issueKey),
  route('POST', '/keys/:keyId/rotate', rotateKey),
  route('POST', '/keys/:keyId/revoke', revokeKey),
  route('POST', '/accounts/:accountId/companies', loadCompanies),
  route('POST', '/accounts/:accountId/people', loadPeople),
  route('POST', '/accounts/:accountId/events', loadEvents),
  route('GET', '/accounts/:accountId/webhooks', listEndpoints),
  route('POST', '/accounts/:accountId/webhooks', createEndpoint),
  route('GET', '/webhooks/:endpointId', getEndpoint),
  route('PATCH', '/webhooks/:endpointId', updateEndpoint),
  route('DELETE', '/webhooks/:endpointId', deleteEndpoint),
  route('POST', '/webhooks/:endpointId/rotate-secret', rotateSecret),
  route('GET', '/webhooks/:endpointId/deliveries', listDeliveries),
  route('POST', '/webhooks/:endpointId/test', sendTest),
  route('GET', '/webhook-deliveries/:deliveryId', getDelivery),
  route('POST', '/webhook-deliveries/:deliveryId/redeliver', redeliver),
];

/** The fault-rule routes, served only when fault injection is on too. */
export const FAULT_ROUTES: AdminRoute[] = [
  route('GET', '/faults', listFaultRules),
  route('POST', '/faults', addFaultRule),
  route('DELETE', '/faults', clearFaultRules),
];

/** The simulated-traffic routes, served only when the host gave a simulation to switch (`serve` does). */
export const SIMULATION_ROUTES: AdminRoute[] = [
  route('GET', '/simulation', getSimulation),
  route('POST', '/simulation', switchSimulation),
];
