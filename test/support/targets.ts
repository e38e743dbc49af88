import { serve, type Api } from '../../adapters/node/index.ts';

/** A way of reaching the API: the suites run once per target. */
export interface Target {
  name: string;
  /** Starts serving the API; `call` sends a request to a path such as `/v1/people`. */
  start(api: Api): Promise<{ call: (path: string, init?: RequestInit) => Promise<Response>; close: () => Promise<void> }>;
}

/** Calls `api.fetch` directly. */
export const inProcess: Target = {
  name: 'in-process',
  async start(api) {
    return { call: (path, init) => api.fetch(new Request(`http://api.test${path}`, init)), close: async () => undefined };
  },
};

/** Real HTTP over loopback through the Node adapter. */
export const nodeHttp: Target = {
  name: 'node http',
  async start(api) {
    const server = await serve(api, { port: 0 });
    return { call: (path, init) => fetch(`${server.url}${path}`, init), close: () => server.close() };
  },
};

/** Every target each behaviour suite runs against. */
export const TARGETS: Target[] = [inProcess, nodeHttp];
