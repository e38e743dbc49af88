import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const COPY = 'docs/visitor-intelligence-api.md';
const CONTRACT = '../shared/spec/visitor-intelligence-api.md';

describe('the spec shipped in docs/', () => {
  it('is linked from the README relatively, so the link works from npm and from a clone', () => {
    expect(readFileSync('README.md', 'utf8')).toContain(`[spec](${COPY})`);
    expect(existsSync(COPY)).toBe(true);
  });

  it('equals the contract it was copied from wherever that is present, so the two cannot drift apart', () => {
    const copy = readFileSync(COPY, 'utf8');
    // The contract sits beside the project in the workspace, not in a clone or the package:
    // there the copy is the spec itself.
    if (existsSync(CONTRACT)) expect(copy).toBe(readFileSync(CONTRACT, 'utf8'));
    else expect(copy).toMatch(/^# .*Visitor Intelligence API/m);
  });
});
