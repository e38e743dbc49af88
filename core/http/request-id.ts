/**
 * A new request id: `req_` and 32 lowercase hex digits (a random UUID without its dashes). The
 * core stamps one on every answer it builds; adapters use the same format for the answers their
 * runtime's HTTP layer makes before a request reaches the core.
 */
export function newRequestId(): string {
  return `req_${crypto.randomUUID().replace(/-/g, '')}`;
}
