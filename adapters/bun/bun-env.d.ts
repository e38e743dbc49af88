// The slice of Bun's API the Bun adapter uses, so the project type-checks without Bun's typings.
declare module 'bun:sqlite' {
  export class Database {
    constructor(filename: string, options?: { create?: boolean; readwrite?: boolean; strict?: boolean });
    prepare(sql: string): Statement;
    exec(sql: string): void;
    close(): void;
  }
  export class Statement {
    readonly columnNames: string[];
    all(...params: unknown[]): unknown[];
    run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
    iterate(...params: unknown[]): IterableIterator<unknown>;
    finalize(): void;
  }
}

declare const Bun: {
  serve(options: {
    port?: number;
    hostname?: string;
    fetch(request: Request): Response | Promise<Response>;
    error?(error: Error): Response | Promise<Response>;
  }): {
    port: number;
    hostname: string;
    stop(closeActiveConnections?: boolean): Promise<void>;
  };
};
