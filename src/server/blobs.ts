/**
 * The blob-store seam: where the bytes of attachments are kept, apart from their records. Bytes
 * are written and read in chunks of CHUNK_BYTES (every chunk of a blob but its last is whole), so
 * that no file is ever held whole in memory and a range is read from the chunks it spans. Both
 * stores keep them in their own database (sql/blobs.ts: the attachment_chunks table, migration 7),
 * keyed by the attachment's uuid: a file's chunks are written in the transaction that creates its
 * record (`Store.create` given its `Chunks`), and a deleted attachment's go with it in the same
 * transaction (a trigger). Another backend would implement this interface and write its bytes
 * before the record's transaction.
 */

/** The size of a chunk of bytes as it is written and read. */
export const CHUNK_BYTES = 1024 * 1024;

/** How a blob store answers: at once, or with a promise. */
type Answer<T> = T | Promise<T>;

export interface BlobStore {
  /** The chunks `from` to `to` (inclusive) of the blob `key`, in order. */
  chunks(key: string, from: number, to: number): Answer<Uint8Array[]>;
}

/**
 * A file's bytes ready to be written with its record (an upload's spool file, spool.ts): its
 * chunks, each read at once when asked, since a transaction on SQLite cannot wait for them.
 */
export interface Chunks {
  /** How many chunks (at least one: an empty file is one empty chunk). */
  readonly count: number;
  /** Chunk `seq` (from 0): CHUNK_BYTES long, but the last. */
  read(seq: number): Uint8Array;
}
