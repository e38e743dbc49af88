/* Copying the WAL into the database file on a thread of its own, off the thread that serves requests. */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How soon the checkpointer looks again after a look that copied frames, and after one that found none (ms). */
const LOOK_AGAIN_MS = { copied: 10, none: 100 };

/**
 * How much nicer the checkpointer's thread is than the thread that starts it. Copying the WAL can
 * wait; a page cannot. At the same nice value the thread took an even share of a busy core, and a
 * checkpoint (3–18 ms) held the serving thread back by as long; 10 nicer, Linux gives it about a
 * tenth while both want the core, and all of it while the serving thread waits for requests.
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
 * Starts copying the WAL of the SQLite file at `path` into the file on a worker thread; returns
 * the function that stops it. A commit that checkpoints inline copies the WAL on the serving
 * thread: at 100 pages a checkpoint that was ~0.35 s of an export's 3.3 s at 100,000 people, and
 * at 1,000 it held requests for 5–10 ms. `onFailure` runs if the thread cannot run (the caller
 * then checkpoints inline again); the thread never keeps the process alive.
 *
 * Stopping waits (blocking, as closing a connection does) until the thread's connection is closed:
 * the serving connection, closed next, is then the last one, which checkpoints the rest and
 * removes the WAL, so the file is whole when closing returns (a file renamed into place next, as
 * the seeder does, would otherwise leave its WAL behind).
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
