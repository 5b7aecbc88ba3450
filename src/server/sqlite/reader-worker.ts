/**
 * A reader thread (readers.ts starts it): its own connection to the data file, answering list
 * requests posted to it, so that a long list runs beside the server's event loop, not on it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ApiError } from '../../core/errors.js';
import type { ListQuery } from '../../core/query.js';
import { resourceByPath } from '../../resources/index.js';
import type { RecordPage } from '../store.js';
import { openSqliteStore } from './index.js';

export interface ListRequest {
  readonly id: number;
  readonly accountId: number;
  readonly path: string;
  readonly query: ListQuery;
}

export type ListReply =
  | { readonly id: number; readonly ok: RecordPage }
  | {
      readonly id: number;
      readonly error: { status?: number; message: string; errors?: Record<string, string[]> | undefined };
    };

// Its lists read a snapshot of what was committed, as any reader in WAL mode does.
const reader = openSqliteStore((workerData as { file: string }).file);
parentPort?.on('message', (m: ListRequest) => {
  let reply: ListReply;
  try {
    reply = { id: m.id, ok: reader.list(m.accountId, resourceByPath(m.path), m.query) };
  } catch (e) {
    reply = {
      id: m.id,
      error:
        e instanceof ApiError
          ? { status: e.status, message: e.message, errors: e.errors }
          : { message: e instanceof Error ? (e.stack ?? e.message) : String(e) },
    };
  }
  parentPort?.postMessage(reply);
});
