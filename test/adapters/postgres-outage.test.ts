import { describe, expect, it } from 'vitest';
import { isConnectionLoss, OutageLog } from '../../adapters/shared/postgres-outage.ts';
import { DatabaseUnavailable } from '../../core/store/database-unavailable.ts';

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

describe('OutageLog', () => {
  const withCode = (code: string) => Object.assign(new Error(code), { code });

  it('makes a read a standby cancelled for a recovery conflict one to retry (500 with Retry-After), logging no outage', () => {
    const lines: string[] = [];
    const standby = new OutageLog((line) => lines.push(line), true);
    expect(standby.failed(withCode('40001'))).toBeInstanceOf(DatabaseUnavailable);
    expect(lines).toEqual([]);
  });

  it('leaves a serialization failure on the database to its caller, and logs a lost connection once', () => {
    const lines: string[] = [];
    const primary = new OutageLog((line) => lines.push(line));
    const failure = withCode('40001');
    expect(primary.failed(failure)).toBe(failure);
    expect(primary.failed(withCode('57P01'))).toBeInstanceOf(DatabaseUnavailable);
    expect(primary.failed(withCode('08006'))).toBeInstanceOf(DatabaseUnavailable);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[visitor-intelligence\] PostgreSQL unavailable \(57P01\); requests get 500 with Retry-After until it is back$/);
  });
});
