/* Copying the WAL into the database file on a thread of its own, off the thread that serves requests. */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How soon the checkpointer looks again after a look that copied frames, and after one that found none (ms). */
const LOOK_AGAIN_MS = { copied: 10, none: 100 };

/**
 * How much nicer the checkpointer's thread is than the thread that starts it: copying the WAL can
 * wait, a page cannot, so the serving thread gets the core when both want it.
 */
const NICE = 10;

/**
 * The checkpointer's thread: its own better-sqlite3 connection, a PASSIVE checkpoint every look
 * (it copies what no reader still needs and never waits for or blocks the writer). Plain
 * CommonJS, evaluated as is: no loader (tsx, vitest) reaches a worker's code.
 */
const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
// Linux keeps a nice value per thread, and 0 names this one: on a busy core the serving thread's
// turns come first. Elsewhere the value is the whole process's, so it is left alone.
if (process.platform === 'linux') {
  try {
    const os = require('node:os');
    os.setPriority(0, Math.min(19, os.getPriority(0) + ${NICE}));
  } catch {}
}
const closed = new Int32Array(workerData.closed);
const done = () => {
  Atomics.store(closed, 0, 1);
  Atomics.notify(closed, 0);
};
let db;
try {
  db = new (require(workerData.driver))(workerData.path, { fileMustExist: true });
} catch (error) {
  done();
  throw error;
}
let timer;
let last = '';
const look = () => {
  let state;
  try {
    [state] = db.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    // The thread ends here: whoever closes next must not wait for it.
    done();
    throw error;
  }
  const now = state.log + '/' + state.checkpointed;
  timer = setTimeout(look, now === last ? ${LOOK_AGAIN_MS.none} : ${LOOK_AGAIN_MS.copied});
  last = now;
};
parentPort.once('message', () => {
  clearTimeout(timer);
  try {
    db.close();
  } finally {
    done();
    parentPort.close();
  }
});
look();
`;

/** How long closing waits for the thread's connection to close (a checkpoint under way finishes first). */
const CLOSE_WAIT_MS = 10_000;

/**
 * Starts copying the WAL of the SQLite file at `path` into the file on a worker thread, so commits
 * no longer checkpoint on the serving thread; returns the function that stops it. `onFailure` runs
 * if the thread cannot run (the caller then checkpoints inline); the thread never keeps the process
 * alive. Stopping waits until the thread's connection is closed, so the serving connection, closed
 * last, checkpoints the rest and removes the WAL.
 */
export function startCheckpointer(path: string, onFailure: () => void): () => void {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const closed = new SharedArrayBuffer(4);
  const worker = new Worker(SOURCE, { eval: true, workerData: { path, driver, closed } });
  worker.on('error', onFailure);
  worker.unref();
  return () => {
    worker.postMessage('stop');
    Atomics.wait(new Int32Array(closed), 0, 0, CLOSE_WAIT_MS);
  };
}
