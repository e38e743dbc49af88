import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

describe('.gitignore', () => {
  it('ignores keys files and exported CSVs wherever they are written', () => {
    const paths = ['keys.json', 'data/keys.json', 'keys.local.json', 'staging-keys.json', 'prod.keys.json', 'people.csv', 'exports/service_people_2026-11-21.csv'];
    const ignored = git('check-ignore', '--no-index', ...paths).trim().split('\n');
    expect(ignored).toEqual(paths);
  });

  it('hides nothing the repository tracks', () => {
    expect(git('ls-files', '--cached', '--ignored', '--exclude-standard').trim()).toBe('');
  });
});
