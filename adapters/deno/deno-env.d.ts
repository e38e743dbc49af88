// The slice of Deno's API the Deno adapter uses, so the project type-checks without Deno's typings.
declare module 'node:sqlite' {
  export class DatabaseSync {
    constructor(path: string);
    prepare(sql: string): StatementSync;
    exec(sql: string): void;
    close(): void;
  }
  export class StatementSync {
    columns(): unknown[];
    all(...params: unknown[]): unknown[];
    run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
    iterate(...params: unknown[]): IterableIterator<unknown>;
  }
}

declare const Deno: {
  serve(
    options: {
      port?: number;
      hostname?: string;
      onListen?: (addr: { port: number; hostname: string }) => void;
      onError?: (error: unknown) => Response | Promise<Response>;
    },
    handler: (request: Request) => Response | Promise<Response>,
  ): { finished: Promise<void>; shutdown(): Promise<void>; addr: { port: number; hostname: string } };
};
