import { readFileSync } from 'node:fs';

/** A fenced ```sh block of a Markdown page, with the HTML comments written right above its fence. */
export interface ShellBlock {
  page: string;
  /** The line of its opening fence, from 1. */
  line: number;
  code: string;
  /** `<!-- not run: why -->`: a block CI cannot run (it starts a server, runs for minutes…), with the reason. */
  notRun?: string;
  /** `<!-- setup -->`: later blocks of the page run after this one, in the same shell script. */
  setup: boolean;
  /** `<!-- output: text -->`: what its standard output must contain, one entry per comment. */
  output: string[];
  /** `<!-- shows errors -->`: its requests may be answered with an error status on purpose. */
  showsErrors: boolean;
}

/** Every ```sh block of a page, in order. */
export function shellBlocks(page: string): ShellBlock[] {
  const lines = readFileSync(page, 'utf8').split('\n');
  const blocks: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```/.test(lines[i]!)) continue;
    const start = i;
    const isShell = lines[i] === '```sh';
    i++;
    while (i < lines.length && lines[i] !== '```') i++;
    if (!isShell) continue;
    const marks: string[] = [];
    for (let j = start - 1; j >= 0 && /^<!--.*-->$/.test(lines[j]!); j--) marks.unshift(/^<!--\s*(.*?)\s*-->$/.exec(lines[j]!)![1]!);
    const notRun = marks.find((m) => m.startsWith('not run:'))?.slice('not run:'.length).trim();
    blocks.push({
      page,
      line: start + 1,
      code: lines.slice(start + 1, i).join('\n'),
      ...(notRun === undefined ? {} : { notRun }),
      setup: marks.includes('setup'),
      showsErrors: marks.includes('shows errors'),
      output: marks.filter((m) => m.startsWith('output:')).map((m) => m.slice('output:'.length).trim()),
    });
  }
  return blocks;
}
