import { basename } from 'node:path';
import { Option, type Command } from 'commander';
import type { CompanyInput, EventInput, LoadOptions, PersonInput } from '../../core/index.ts';
import { DEMO_ACCOUNT_ID } from '../demo-keys.ts';
import { terminalBar } from '../progress.ts';
import { checkDbPath, openForAdmin } from './database.ts';
import { CliError } from './errors.ts';
import { KINDS, kindFromName, readRecords, type Kind, type Records } from './records.ts';

interface LoadFlags {
  db: string;
  account: string;
  kind?: Kind;
}

const FORMATS = `
Files:
  .json     one JSON array of objects
  .ndjson   one JSON object per line (.jsonl too)
  .csv      a header row of field names, then one row per item (parsed by fast-csv, RFC 4180 quoting).
            Empty cells are left out. employeeCount, isHotCompany and isHotLead are read as a number
            or true/false. Nested fields are one JSON cell: a person's visits, e.g.
              id,firstName,companyId,visits
              per_1,Ada,co_1,"[{""domain"":""acme-example.com"",""visitCount"":2,""firstSeen"":""2026-11-01T09:00:00Z"",""lastSeen"":""2026-11-20T10:00:00Z""}]"
            An event's extra columns (scrollPercentage, …) holding a JSON number, boolean, array or object are read as such.

Each file's fields are those of CompanyInput, PersonInput and EventInput (docs/loading-data.md). Files load
companies first, then people, then events, whatever their order here; each file is one transaction:
a bad item loads nothing from its file and stops the command with exit code 2, naming the file and item.
On a terminal, a progress bar on stderr follows each file; elsewhere (a pipe, a log, CI) only results print.

Examples:
  visitor-intelligence load companies.json people.ndjson events.csv --db ./data/demo.sqlite
  visitor-intelligence load crm-export.csv --kind people --db ./data/demo.sqlite --account acc_demo`;

/** `load`: companies, people and events from JSON, NDJSON or CSV files into a database, through `api.admin`. */
export function registerLoad(program: Command): void {
  program
    .command('load')
    .description('load companies, people or events from JSON, NDJSON or CSV files into a database')
    .argument('<files...>', 'files to load; the kind comes from --kind or the name (companies.json, people.ndjson, events.csv)')
    .requiredOption('--db <file>', 'an existing SQLite file (made by seed or serve)')
    .option('--account <id>', 'the account to load into', DEMO_ACCOUNT_ID)
    .addOption(new Option('--kind <kind>', 'what every file holds (default: from each file name)').choices(KINDS))
    .addHelpText('after', FORMATS)
    .action((files: string[], flags: LoadFlags) => load(files, flags));
}

async function load(files: string[], flags: LoadFlags): Promise<void> {
  const batches: { file: string; kind: Kind; records: Records }[] = [];
  for (const file of files) {
    const kind = flags.kind ?? kindFromName(file);
    if (!kind) throw new CliError(`${file}: cannot tell what it holds; name it companies…, people… or events…, or pass --kind`);
    batches.push({ file, kind, records: await readRecords(file, kind) });
  }
  // People name their companies and events their people, so each kind goes after the one it needs.
  batches.sort((a, b) => KINDS.indexOf(a.kind) - KINDS.indexOf(b.kind));
  checkDbPath(flags.db, { mustExist: true });
  const { api, close } = await openForAdmin(flags.db);
  try {
    for (const { file, kind, records } of batches) {
      // One bar per file on a terminal, cleared before its result line is printed.
      const bar = terminalBar(`Loading ${basename(file)}`);
      bar.start(records.items.length);
      let written = 0;
      const onProgress = (done: number) => {
        bar.step(undefined, done - written);
        written = done;
      };
      const loaded = await loadBatch(api.admin, flags.account, kind, records.items, { onProgress })
        .catch((error: unknown) => {
          throw adminError(file, records, error);
        })
        .finally(() => bar.stop());
      const what = kind === 'events' ? `${loaded} new events (${records.items.length - loaded} already loaded)` : `${loaded} ${kind}`;
      console.log(`${file}: loaded ${what} into ${flags.account}`);
    }
  } finally {
    await close();
  }
}

function loadBatch(admin: Awaited<ReturnType<typeof openForAdmin>>['api']['admin'], account: string, kind: Kind, items: Record<string, unknown>[], options: LoadOptions): Promise<number> {
  if (kind === 'companies') return admin.loadCompanies(account, items as unknown as CompanyInput[], options);
  if (kind === 'people') return admin.loadPeople(account, items as unknown as PersonInput[], options);
  return admin.loadEvents(account, items as unknown as EventInput[], options);
}

/** An AdminError as one line naming the file, and the item's line where the format tells; anything else as it is. */
function adminError(file: string, records: Records, error: unknown): unknown {
  if (!(error instanceof Error) || error.name !== 'AdminError') return error;
  const index = /^(?:companies|people|events)\[(\d+)\]/.exec(error.message)?.[1];
  const line = index === undefined ? undefined : records.lines?.[Number(index)];
  return new CliError(`${file}${line === undefined ? '' : ` line ${line}`}: ${error.message}`);
}
