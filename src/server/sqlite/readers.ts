/**
 * Reader threads for lists, each with its own connection (WAL lets readers run beside the writer),
 * so that a list that reads many rows leaves the event loop free for everything else.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ApiError } from '../../core/errors.js';
import type { ListQuery } from '../../core/query.js';
import type { ResourceDef } from '../../resources/types.js';
import type { RecordPage, Store } from '../store.js';
import type { SqliteStore } from './index.js';
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

interface Pending {
  readonly resolve: (v: RecordPage) => void;
  readonly reject: (e: unknown) => void;
}

interface Thread {
  readonly worker: Worker;
  /** Its lists not answered yet, by request id. */
  readonly pending: Map<number, Pending>;
  /** Whether it has answered at least once (a thread that fails before that is not started again). */
  answered: boolean;
}

export class ReaderPool {
  private threads: Thread[] = [];
  private next = 1;
  private closing = false;
  private readonly path = workerFile();

  constructor(
    private readonly file: string,
    count: number,
  ) {
    for (let i = 0; i < count; i++) this.threads.push(this.start());
  }

  get size(): number {
    return this.threads.length;
  }

  private start(): Thread {
    const thread: Thread = {
      worker: new Worker(this.path, { workerData: { file: this.file } }),
      pending: new Map(),
      answered: false,
    };
    thread.worker.on('message', (reply: ListReply) => {
      thread.answered = true;
      const p = thread.pending.get(reply.id);
      thread.pending.delete(reply.id);
      if (!p) return;
      if ('ok' in reply) p.resolve(reply.ok);
      else if (reply.error.status !== undefined)
        p.reject(new ApiError(reply.error.status, reply.error.message, reply.error.errors));
      else p.reject(new Error(reply.error.message));
    });
    // A thread that dies fails only its own lists; it is started again if it had ever answered
    // (one that cannot start would only die again), so later lists never wait on a dead thread.
    const died = (e: unknown) => {
      if (this.closing || !this.threads.includes(thread)) return;
      for (const [, p] of thread.pending) p.reject(e);
      thread.pending.clear();
      this.threads = this.threads.filter((t) => t !== thread);
      if (thread.answered) this.threads.push(this.start());
    };
    thread.worker.on('error', died);
    thread.worker.on('exit', (code) => died(new Error(`a reader thread stopped (exit code ${code})`)));
    return thread;
  }

  /** A list, on the least busy thread. */
  list(accountId: number, r: ResourceDef, query: ListQuery): Promise<RecordPage> {
    const thread = this.threads.reduce<Thread | undefined>(
      (a, b) => (a === undefined || b.pending.size < a.pending.size ? b : a),
      undefined,
    );
    if (!thread) return Promise.reject(new Error('no reader thread is running'));
    const id = this.next++;
    return new Promise((resolve, reject) => {
      thread.pending.set(id, { resolve, reject });
      thread.worker.postMessage({ id, accountId, path: r.path, query } satisfies ListRequest);
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }
}

/**
 * Records an account must have in a table before its lists go to a reader thread: below it, a
 * list is quick on the event loop, and the hop to a thread would cost more than it saves.
 */
export const THREADED_FROM = 20_000;

/**
 * A store whose filtered lists of large tables are answered by reader threads; everything else as
 * `store` does it. An unfiltered list costs its page alone (its total and a deep page's start are
 * kept by the schema's triggers), so it stays on the server's connection and never queues behind
 * long lists.
 */
export function withReaders(store: SqliteStore, pool: ReaderPool, from = THREADED_FROM): Store {
  // Its close is the store's: the pool is the caller's to close.
  return {
    ...store,
    list: (accountId, r, q) =>
      q.conditions.length && store.recordCount(accountId, r) >= from
        ? pool.list(accountId, r, q)
        : store.list(accountId, r, q),
  };
}
