/**
 * The blob-store seam: where the bytes of attachments are kept, apart from their records. Bytes
 * are written and read in chunks of CHUNK_BYTES (every chunk of a blob but its last is whole), so
 * that no file is ever held whole in memory and a range is read from the chunks it spans. Both
 * stores keep them in their own database (sql/blobs.ts: the attachment_chunks table, migration 7),
 * keyed by the attachment's uuid, and a deleted attachment's chunks go with it in the same
 * transaction (a trigger); another backend would implement this interface.
 */

/** The size of a chunk of bytes as it is written and read. */
export const CHUNK_BYTES = 1024 * 1024;

/**
 * How many chunks an upload hands the store at once, written in one transaction: a commit costs
 * a store a sync to disk (SQLite's checkpoints, PostgreSQL's WAL flush), which one per chunk would
 * make the most of an upload's time.
 */
export const CHUNKS_PER_WRITE = 8;

/** How a blob store answers: at once, or with a promise. */
type Answer<T> = T | Promise<T>;

export interface BlobStore {
  /** Writes chunks `seq` (from 0), `seq + 1`... of the blob `key`, in one transaction. */
  put(key: string, seq: number, chunks: readonly Uint8Array[]): Answer<void>;
  /** The chunks `from` to `to` (inclusive) of the blob `key`, in order. */
  chunks(key: string, from: number, to: number): Answer<Uint8Array[]>;
  /** Forgets every chunk of `key` (the bytes of an upload that did not end in a record). */
  remove(key: string): Answer<void>;
  /**
   * Forgets the chunks written before `before` (ms) that belong to no record: an upload's whose
   * server stopped half-way (a crash), which could not remove them itself. How many it removed.
   */
  sweep(before: number): Answer<number>;
}
