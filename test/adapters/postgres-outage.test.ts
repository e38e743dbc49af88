import { describe, expect, it } from 'vitest';
import { isConnectionLoss } from '../../adapters/shared/postgres-outage.ts';

/** Which PostgreSQL errors are an outage (500 with Retry-After, work retried) and which are the statement's own fault. */
describe('isConnectionLoss', () => {
  const withCode = (code: string) => Object.assign(new Error(code), { code });

  it('counts the server going away, any connection exception, PgBouncer losing the server, and a server that takes no writes now', () => {
    for (const code of ['57P01', '57P02', '57P03', '08000', '08003', '08006', '08P01', '25006', 'ECONNREFUSED', 'ECONNRESET']) expect(isConnectionLoss(withCode(code)), code).toBe(true);
    expect(isConnectionLoss(new Error('Connection terminated unexpectedly'))).toBe(true);
  });

  it('leaves a statement\'s own errors alone: syntax, constraints, serialization failures, cancellations', () => {
    for (const code of ['42601', '23505', '40001', '57014', '22P02']) expect(isConnectionLoss(withCode(code)), code).toBe(false);
    expect(isConnectionLoss(new Error('relation "people" does not exist'))).toBe(false);
  });
});
