/**
 * The blob-store seam: where the bytes of attachments are kept, apart from their records. Bytes
 * are written and read in chunks of CHUNK_BYTES (every chunk of a blob but its last is whole), so
 * that no file is ever held whole in memory and a range is read from the chunks it spans. Both
 * stores keep them in their own database (sql/blobs.ts: the attachment_chunks table, migration 7),
 * keyed by the attachment's uuid: a file's chunks are written before its record, or in the
 * transaction that creates it (`Store.create` given its `Incoming`), and belong to no attachment
 * until then; a deleted attachment's go with it in the same transaction (a trigger). An upload's
 * bytes go where the store takes them as they come (`receive`): on SQLite into the data file, a
 * chunk a transaction (sqlite/uploads.ts); on PostgreSQL straight into the record's transaction
 * (postgres/blobs.ts), or a spool file (spool.ts) whose chunks that transaction then writes. Another backend would implement
 * this interface and write its bytes before the record's transaction.
 */

/** The size of a chunk of bytes as it is written and read. */
export const CHUNK_BYTES = 1024 * 1024;

/** How a blob store answers: at once, or with a promise. */
type Answer<T> = T | Promise<T>;

export interface BlobStore {
  /**
   * The bytes `start` to `end` (inclusive) of the blob `key` of `accountId`, in order: each chunk
   * read once the one before is sent on, in its account's turn (budget.ts FairQueue).
   */
  bytes(accountId: number, key: string, start: number, end: number): AsyncIterable<Uint8Array>;
  /** A place for the bytes of an upload of `accountId` as they come (`uploadDir`: where a spool file goes). */
  receive(accountId: number, uploadDir: string): Promise<Incoming>;
  /** The bytes of the files `accountId` keeps. */
  stored(accountId: number): Answer<number>;
  /** What each account keeps: its files and their bytes, by account id. */
  usage(): Answer<AccountUsage[]>;
}

/** What an account keeps (`pm serve accounts list`). */
export interface AccountUsage {
  readonly id: number;
  readonly name: string;
  readonly files: number;
  readonly bytes: number;
}

/**
 * An upload's bytes on their way into a store: written as they come, then ended, then given to
 * `Store.create` with its record; `close()` (always called, after the create or instead of it)
 * lets go of what holds them, and of any of them not written with a record.
 */
export interface Incoming {
  /** The bytes written so far. */
  readonly size: number;
  write(bytes: Uint8Array): Promise<void>;
  /** The last bytes are written. */
  end(): Promise<void>;
  /**
   * The file's chunks, for the record's transaction to write; undefined when the store already
   * has them in that transaction (PostgreSQL's streamed upload).
   */
  readonly chunks: Chunks | undefined;
  close(): Promise<void>;
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

/**
 * An upload's bytes as they come, handed on a chunk at a time: `keep` takes each part of the chunk
 * being filled (`filled`: the bytes it had before the part), and `flush`, awaited once the chunk is
 * whole (and by its owner for the last one), hands it on and counts it. The spool file (spool.ts)
 * and PostgreSQL's streamed upload (postgres/blobs.ts) are each one.
 */
export abstract class ChunkWriter {
  /** The bytes of the chunks handed on. */
  protected written = 0;
  /** The bytes of the chunk being filled. */
  protected filled = 0;

  /** Its size so far. */
  get size(): number {
    return this.written + this.filled;
  }

  async write(bytes: Uint8Array): Promise<void> {
    let at = 0;
    while (at < bytes.byteLength) {
      const n = Math.min(CHUNK_BYTES - this.filled, bytes.byteLength - at);
      this.keep(n === bytes.byteLength ? bytes : bytes.subarray(at, at + n));
      this.filled += n;
      at += n;
      if (this.filled === CHUNK_BYTES) await this.flush();
    }
  }

  protected abstract keep(part: Uint8Array): void;
  protected abstract flush(): Promise<void>;
}

/** The chunks of an upload a store writes itself in the record's transaction (a store's own `receive` gives them). */
export function chunksOf(file: Incoming): Chunks {
  if (!file.chunks) throw new Error("an upload's bytes were received by another store");
  return file.chunks;
}

/** The chunks downloads have read, since the process started (for tests and figures). */
export const downloadReads = { chunks: 0 };

/**
 * The bytes start..end (inclusive) of a blob read a chunk at a time by `chunk`, each once the one
 * before is taken (a download reads nothing ahead of its client), in a turn `turn` gives (its
 * account's share: budget.ts FairQueue), other requests served between two.
 */
export async function* chunkByChunk(
  chunk: (seq: number) => Answer<Uint8Array>,
  start: number,
  end: number,
  turn: () => Promise<() => void>,
): AsyncGenerator<Uint8Array> {
  const { setImmediate: next } = await import('node:timers/promises');
  const first = Math.floor(start / CHUNK_BYTES);
  const last = Math.floor(end / CHUNK_BYTES);
  for (let seq = first; seq <= last; seq++) {
    const release = await turn();
    let data: Uint8Array;
    try {
      data = await chunk(seq);
      downloadReads.chunks++;
    } finally {
      release();
    }
    yield sliced(data, seq, start, end);
    // A client that takes each chunk at once still lets others' requests in between.
    await next();
  }
}

/** What of chunk `seq` lies within start..end (inclusive). */
function sliced(data: Uint8Array, seq: number, start: number, end: number): Uint8Array {
  const at = seq * CHUNK_BYTES;
  const from = Math.max(0, start - at);
  const to = Math.min(data.byteLength, end - at + 1);
  return from === 0 && to === data.byteLength ? data : data.subarray(from, to);
}
