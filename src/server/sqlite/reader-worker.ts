/**
 * A reader thread (readers.ts starts it): its own connection to the data file, answering list
 * requests posted to it, so that a long list runs beside the server's event loop, not on it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ApiError } from '../../core/errors.js';
import { OverBudget } from '../budget.js';
import type { ListQuery } from '../../core/query.js';
import { resourceByPath } from '../../resources/index.js';
import type { RecordPage } from '../store.js';
import { openSqliteStore } from './index.js';

export interface ListRequest {
  readonly id: number;
  readonly accountId: number;
  readonly path: string;
  readonly query: ListQuery;
  /** The time left of the list's budget (ms), if it has one. */
  readonly budgetMs?: number | undefined;
}

export type ListReply =
  | { readonly id: number; readonly ok: RecordPage }
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

const data = workerData as { file: string; stop: SharedArrayBuffer };
// Its lists read a snapshot of what was committed, as any reader in WAL mode does.
const reader = openSqliteStore(data.file);
/** Set by the pool to stop the list running (readers.ts). */
const stop = new Int32Array(data.stop);
parentPort?.on('message', (m: ListRequest) => {
  let reply: ListReply;
  try {
    const budget = m.budgetMs === undefined ? undefined : { deadline: performance.now() + m.budgetMs, stop };
    reply = { id: m.id, ok: reader.list(m.accountId, resourceByPath(m.path), m.query, budget) };
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
