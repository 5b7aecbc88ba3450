/**
 * Reader threads for lists: a list that reads many rows (a filter matching much of a large table)
 * runs on one of them, each with its own connection (WAL lets readers run beside the writer), so
 * that the event loop stays free for everything else: a record by uuid, a write, another list.
 * Writes, single records and unfiltered lists stay on the server's own connection.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ApiError } from '../../core/errors.js';
import type { ListQuery } from '../../core/query.js';
import type { ResourceDef } from '../../resources/types.js';
import type { ApiRecord, Store } from '../store.js';
import type { ListReply, ListRequest } from './reader-worker.js';

/**
 * The worker's module: beside this one when built by tsc (dist/server/sqlite), in dist/server/sqlite
 * from the bundle (dist/bundle), and the built one when this runs from the sources (tests).
 */
function workerFile(): string {
  const candidates = [
    './reader-worker.js',
    '../server/sqlite/reader-worker.js',
    '../../../dist/server/sqlite/reader-worker.js',
  ];
  for (const c of candidates) {
    const path = fileURLToPath(new URL(c, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error('the reader thread module (dist/server/sqlite/reader-worker.js) is missing: run npm run build');
}

interface Thread {
  readonly worker: Worker;
  busy: number;
}

export class ReaderPool {
  private readonly threads: Thread[];
  private readonly pending = new Map<
    number,
    { resolve: (v: { records: ApiRecord[]; total: number }) => void; reject: (e: unknown) => void }
  >();
  private next = 1;

  constructor(file: string, count: number) {
    const path = workerFile();
    this.threads = Array.from({ length: count }, () => {
      const thread: Thread = { worker: new Worker(path, { workerData: { file } }), busy: 0 };
      thread.worker.on('message', (reply: ListReply) => {
        thread.busy--;
        const p = this.pending.get(reply.id);
        this.pending.delete(reply.id);
        if (!p) return;
        if ('ok' in reply) p.resolve(reply.ok);
        else if (reply.error.status !== undefined)
          p.reject(new ApiError(reply.error.status, reply.error.message, reply.error.errors));
        else p.reject(new Error(reply.error.message));
      });
      thread.worker.on('error', (e) => {
        for (const [, p] of this.pending) p.reject(e);
        this.pending.clear();
      });
      return thread;
    });
  }

  /** A list, on the least busy thread. */
  list(accountId: number, r: ResourceDef, query: ListQuery): Promise<{ records: ApiRecord[]; total: number }> {
    const thread = this.threads.reduce((a, b) => (b.busy < a.busy ? b : a));
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      thread.busy++;
      const request: ListRequest = { id, accountId, path: r.path, query };
      thread.worker.postMessage(request);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }
}

/**
 * A store whose filtered lists are answered by reader threads; everything else as `store` does it.
 * An unfiltered list costs its page alone (its total and a deep page's start are kept by the
 * schema's triggers), so it stays on the server's connection and never queues behind long lists.
 */
export function withReaders<S extends Store>(store: S, pool: ReaderPool): Store {
  return {
    list: (accountId, r, q) => (q.conditions.length ? pool.list(accountId, r, q) : store.list(accountId, r, q)),
    get: (...a) => store.get(...a),
    create: (...a) => store.create(...a),
    update: (...a) => store.update(...a),
    delete: (...a) => store.delete(...a),
    createAccount: (...a) => store.createAccount(...a),
    firstUser: () => store.firstUser(),
    userOfAccount: (...a) => store.userOfAccount(...a),
    createToken: (...a) => store.createToken(...a),
    authenticate: (...a) => store.authenticate(...a),
    listTokens: () => store.listTokens(),
    revokeToken: (...a) => store.revokeToken(...a),
    // The pool is the caller's to close.
    close: () => store.close(),
  };
}
