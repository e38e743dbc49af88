import { admin, adminToken, BASE } from './api.ts';
import { accountKey } from './keys.ts';

/** swagger-ui-dist's bundle, loaded by the page before this script. */
declare const SwaggerUIBundle: (options: Record<string, unknown>) => { preauthorizeApiKey(scheme: string, key: string): void };

/**
 * The API reference: swagger-ui renders the served OpenAPI document, and "Try it out" calls carry
 * the console's account key (issued through the admin routes, as the other screens read with).
 */
async function main(): Promise<void> {
  const key = adminToken() ? consoleKey() : Promise.resolve(undefined);
  // A key given before the document has loaded is lost: it is handed over once swagger-ui is ready.
  const ui = SwaggerUIBundle({
    url: `${BASE}/v1/openapi.json`,
    dom_id: '#reference',
    deepLinking: true,
    onComplete: () => void key.then((value) => value && ui.preauthorizeApiKey('ApiKey', value)),
  });
}

/** The account key the console reads with, issued on first use. */
async function consoleKey(): Promise<string | undefined> {
  const { data: accounts } = await admin<{ id: string }[]>('GET', '/accounts');
  const account = accounts.find((a) => a.id === 'acc_demo') ?? accounts[0];
  return account && accountKey(account.id);
}

void main();
