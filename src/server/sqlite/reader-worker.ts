/**
 * A reader thread (readers.ts starts it): its own connection to the data file, answering list
 * requests posted to it, so that a long list runs beside the server's event loop, not on it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ApiError } from '../../core/errors.js';
import { OverBudget } from '../budget.js';
import { resourceByPath } from '../../resources/index.js';
import { openSqliteStore } from './index.js';
import { STOP_SLOTS, unpackQuery, type WireQuery } from './wire.js';

export interface ListRequest {
  readonly id: number;
  readonly accountId: number;
  readonly path: string;
  readonly query: WireQuery;
  /** When the list's budget ends (Date.now() ms), if it has one. */
  readonly ends?: number | undefined;
}

/** Checkpoint the WAL (after a file's transaction): no answer. */
export interface CheckpointRequest {
  readonly checkpoint: true;
}

export type ListReply =
  | { readonly id: number; readonly ok: { readonly total: number; readonly json: string; readonly count: number } }
  | {
      readonly id: number;
      readonly error: {
        status?: number;
        message: string;
        errors?: Record<string, string[]> | undefined;
        /** Stopped: its budget was spent, or the pool said to stop. */
        budget?: boolean;
      };
    };

const data = workerData as { file: string; cells: SharedArrayBuffer };
// Its lists read a snapshot of what was committed, as any reader in WAL mode does.
const reader = openSqliteStore(data.file);
/** Shared with the pool (readers.ts): lists asked to stop, and the one started last. */
const cells = new Int32Array(data.cells);
parentPort?.on('message', (m: ListRequest | CheckpointRequest) => {
  if ('checkpoint' in m) {
    try {
      reader.db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // Busy or failed: the next commit's autocheckpoint does it.
    }
    return;
  }
  let reply: ListReply;
  try {
    const stop = { cells, slot: m.id % STOP_SLOTS, id: m.id };
    // Answered already (its budget ended while it waited here): not run at all.
    if (Atomics.load(cells, stop.slot) === m.id) throw new OverBudget(false);
    Atomics.store(cells, STOP_SLOTS, m.id);
    const deadline = m.ends === undefined ? undefined : performance.now() + (m.ends - Date.now());
    const r = resourceByPath(m.path);
    // The records as JSON here, off the server's event loop: it sends them as they are.
    const { records, total } = reader.list(m.accountId, r, unpackQuery(r, m.query), { deadline, stop });
    reply = { id: m.id, ok: { total, json: JSON.stringify(records), count: records.length } };
  } catch (e) {
    reply = {
      id: m.id,
      error:
        e instanceof OverBudget
          ? { message: e.message, budget: true }
          : e instanceof ApiError
            ? { status: e.status, message: e.message, errors: e.errors }
            : { message: e instanceof Error ? (e.stack ?? e.message) : String(e) },
    };
  }
  parentPort?.postMessage(reply);
});
