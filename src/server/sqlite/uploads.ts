/**
 * An upload on SQLite, written into the data file as it comes (../blobs.ts): each chunk of 1 MiB
 * in a transaction of its own, keyed by the uuid its record will take, the event loop given back
 * between them, so that no transaction holds the one writer (and, better-sqlite3 being
 * synchronous, the event loop) for longer than a chunk takes to write. Its chunks belong to no
 * attachment until the record is written, in one last short transaction that checks they are all
 * there: nothing lists, reads or counts them before (every read of bytes goes through the record).
 * An upload that ends any other way deletes them, a few chunks a transaction; what a killed
 * process leaves is swept at the next start, and on a timer (`sweep`).
 */
import { setImmediate as turn } from 'node:timers/promises';
import { CHUNK_BYTES, ChunkWriter, type Incoming } from '../blobs.js';

/** The chunks one transaction deletes when an upload's are let go. */
const DROP_BATCH = 8;

/** What an upload asks of the store that writes it. */
export interface Staging {
  /** Writes chunk `seq` of `key` in a transaction of its own. */
  writeChunk(key: string, seq: number, data: Uint8Array): void;
  /** Deletes chunks `from` to `to` (inclusive) of `key` in a transaction of its own. */
  dropChunks(key: string, from: number, to: number): void;
  /** The keys of the uploads under way in this process (never swept). */
  readonly underWay: Set<string>;
}

export class StagedUpload extends ChunkWriter implements Incoming {
  /** The uuid its chunks are written under, and its record takes. */
  readonly key = process.getBuiltinModule('node:crypto').randomUUID();
  readonly chunks = undefined;
  /** The chunk being filled. */
  private readonly pending = Buffer.allocUnsafe(CHUNK_BYTES);
  private seq = 0;
  /** Whether its record was written: its chunks are then its attachment's. */
  private kept = false;

  constructor(private readonly store: Staging) {
    super();
    store.underWay.add(this.key);
  }

  protected keep(part: Uint8Array): void {
    this.pending.set(part, this.filled);
  }

  protected async flush(): Promise<void> {
    this.store.writeChunk(this.key, this.seq, this.pending.subarray(0, this.filled));
    this.seq++;
    this.written += this.filled;
    this.filled = 0;
    // Other requests' turn before the next chunk.
    await turn();
  }

  /** Writes the last chunk (an empty file is one empty chunk). */
  async end(): Promise<void> {
    if (this.filled > 0 || this.seq === 0) await this.flush();
  }

  /** How many chunks are written. */
  get count(): number {
    return this.seq;
  }

  /** Its record is written: its chunks stay. */
  keptBy(): void {
    this.kept = true;
  }

  /** Deletes its chunks unless its record was written. */
  async close(): Promise<void> {
    try {
      if (!this.kept) await dropStaged(this.store, this.key, this.seq);
    } finally {
      this.store.underWay.delete(this.key);
    }
  }
}

/** Deletes the first `count` chunks of `key`, DROP_BATCH a transaction, other requests served between. */
export async function dropStaged(store: Staging, key: string, count: number): Promise<void> {
  for (let from = 0; from < count; from += DROP_BATCH) {
    store.dropChunks(key, from, Math.min(count, from + DROP_BATCH) - 1);
    await turn();
  }
}

/** An upload this store staged, or undefined for one it did not. */
export function staged(file: unknown): StagedUpload | undefined {
  return file instanceof StagedUpload ? file : undefined;
}
