import type { Command } from 'commander';
import type { IssuedKey } from '../../core/index.ts';
import { DEMO_ACCOUNT_ID } from '../demo-keys.ts';
import { checkDbPath, openForAdmin } from './database.ts';
import { CliError } from './errors.ts';
import { alignColumns } from './table.ts';

type Admin = Awaited<ReturnType<typeof openForAdmin>>['api']['admin'];

/** `keys issue|rotate|revoke|list`: account and domain-scoped keys of a database, through `api.admin`. */
export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('issue, rotate, revoke and list API keys in a database');
  keys
    .command('issue')
    .description('issue an account key, or with --domain the key of one client site; prints its value once')
    .requiredOption('--db <file>', 'an existing SQLite file')
    .option('--account <id>', 'the account', DEMO_ACCOUNT_ID)
    .option('--domain <domain>', "a registered client site: the key reads only that site (one active key per site)")
    .option('--label <text>', 'a label shown by list')
    .option('--json', 'print {"keyId","key","accountId","domain","clientRef"} as JSON')
    .action((flags: { db: string; account: string; domain?: string; label?: string; json?: boolean }) =>
      withAdmin(flags.db, async (admin) => {
        const options = flags.label === undefined ? {} : { label: flags.label };
        const issued = flags.domain === undefined ? await admin.issueAccountKey(flags.account, options) : await admin.issueScopedKey(flags.account, flags.domain, options);
        printIssued(issued, flags.json, 'Issued');
      }),
    );
  keys
    .command('rotate')
    .description('issue a new key with the same reach and stop the old one at once; prints the new value once')
    .argument('<keyId>', 'the key to rotate (key_…, as list shows)')
    .requiredOption('--db <file>', 'an existing SQLite file')
    .option('--json', 'print the new key as JSON')
    .action((keyId: string, flags: { db: string; json?: boolean }) =>
      withAdmin(flags.db, async (admin) => printIssued(await admin.rotateKey(keyId), flags.json, `Rotated ${keyId}; its replacement`)),
    );
  keys
    .command('revoke')
    .description("stop a key at once (the site's data and tracking are untouched)")
    .argument('<keyId>', 'the key to revoke (key_…)')
    .requiredOption('--db <file>', 'an existing SQLite file')
    .action((keyId: string, flags: { db: string }) =>
      withAdmin(flags.db, async (admin) => {
        await admin.revokeKey(keyId);
        console.log(`Revoked ${keyId}`);
      }),
    );
  keys
    .command('list')
    .description("list an account's keys (ids, reach, state; never their values)")
    .requiredOption('--db <file>', 'an existing SQLite file')
    .option('--account <id>', 'the account', DEMO_ACCOUNT_ID)
    .option('--json', 'print the list as JSON')
    .action((flags: { db: string; account: string; json?: boolean }) =>
      withAdmin(flags.db, async (admin) => {
        if (!(await admin.hasAccount(flags.account))) throw new CliError(`no account ${flags.account} in ${flags.db}`);
        const list = await admin.listKeys(flags.account);
        if (flags.json) return console.log(JSON.stringify(list, null, 2));
        if (list.length === 0) return console.log(`${flags.account} has no keys`);
        const rows = list.map((k) => [k.keyId, k.revokedAt === null ? 'active' : 'revoked', k.domain ?? 'account', k.clientRef ?? '-', k.label ?? '']);
        for (const line of alignColumns(rows)) console.log(line);
      }),
    );
}

/** Runs `work` against the database's admin surface; an AdminError is one line and exit code 2. */
async function withAdmin(db: string, work: (admin: Admin) => Promise<void>): Promise<void> {
  checkDbPath(db, { mustExist: true });
  const { api, close } = await openForAdmin(db);
  try {
    await work(api.admin);
  } catch (error) {
    if (error instanceof Error && error.name === 'AdminError') throw new CliError(error.message);
    throw error;
  } finally {
    await close();
  }
}

function printIssued(issued: IssuedKey, json: boolean | undefined, verb: string): void {
  if (json) return console.log(JSON.stringify(issued, null, 2));
  const reach = issued.domain === null ? `account ${issued.accountId}` : `${issued.domain} in ${issued.accountId}`;
  console.log(`${verb}: ${issued.keyId} (${reach})\n  ${issued.key}\nStore it now: only its hash is kept, and it is never shown again.`);
}
