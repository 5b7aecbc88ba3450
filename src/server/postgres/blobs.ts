/**
 * The bytes of attachments on PostgreSQL (../blobs.ts), moved by COPY in PostgreSQL's binary
 * format (pg-copy-streams, loaded with the driver): the bytes as they are, where a query's answer
 * would carry them as text (node-postgres reads every column as text: bytea's hex is twice the
 * bytes, base64 a third more, and each is encoded by the database and decoded here).
 *
 * - An upload streams into its transaction: BEGIN, then `COPY attachment_chunks FROM STDIN` a
 *   chunk at a time as the body comes; the record is written after its last chunk, and COMMIT.
 *   Anything else (a failure, a 413, its client gone) sends CopyFail and rolls back; pm serve
 *   killed closes the connection, and PostgreSQL rolls back. Such an upload holds a connection for
 *   as long as its client sends (at most `pm serve --request-timeout`), so it takes one of the
 *   slots long lists take (budget.ts, FairQueue), only when one is free: at most
 *   STREAMS_PER_ACCOUNT for one account, and half the slots for all uploads. An upload that finds
 *   none waits in a spool file (../spool.ts) and is written once whole, its connection held for the
 *   writes alone; nobody is refused or kept waiting.
 * - A range is read by `COPY (SELECT seq, data ...) TO STDOUT`, a chunk at a time, each once the
 *   client has taken the one before, in its account's turn (the lists' FairQueue): a connection is
 *   held for as long as the database takes to send a chunk, never for as long as a slow client
 *   takes to read it, and a download holds at most one chunk in memory.
 */
import { createRequire } from 'node:module';
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import type * as PG from 'pg';
import { MissingDriverError } from '../../core/errors.js';
import { CHUNK_BYTES, ChunkWriter, downloadReads, type Incoming } from '../blobs.js';
import { FairQueue } from '../budget.js';
import { type HeldTransaction, type PgDatabase, storeError } from './db.js';

/** pg-copy-streams, as used here. */
interface CopyStreams {
  from(text: string, options?: { highWaterMark?: number }): Writable & { query_timeout?: number };
  to(text: string): Readable;
}

let copyStreams: CopyStreams | undefined;

/** pg-copy-streams, loaded when first used (a CLI run that does not use PostgreSQL never loads it). */
function loadCopyStreams(): CopyStreams {
  try {
    copyStreams ??= createRequire(import.meta.url)('pg-copy-streams') as CopyStreams;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND')
      throw new MissingDriverError('pg-copy-streams', "the PostgreSQL driver's COPY streams");
    throw e;
  }
  return copyStreams;
}

/** The streamed uploads one account may have at once. */
const STREAMS_PER_ACCOUNT = 2;

/**
 * The bytes an upload may have on their way to the database before its body is read on: a few
 * chunks, so that receiving the body and sending it overlap.
 */
const IN_FLIGHT = 4 * CHUNK_BYTES;

/**
 * How long node-postgres waits for a streamed upload's COPY to end: the upload's own time limit
 * (`pm serve --request-timeout`, at most a day) ends it first, by CopyFail.
 */
const COPY_WAIT_MS = 24 * 60 * 60 * 1000 + 60_000;

/**
 * How long a streamed upload waits for the database to take its bytes, or to end its COPY, before
 * taking it for lost: as long as node-postgres waits for any answer (db.ts, query_timeout).
 */
const STALL_MS = 30_000;

/** How long a COPY stopped half-way may take to be refused before its connection is closed instead. */
const STOP_WAIT_MS = 5000;

/** The start of PostgreSQL's binary COPY format: its signature, flags (none) and header extension (none). */
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const HEADER = Buffer.concat([SIGNATURE, Buffer.alloc(8)]);
/** Its end: a tuple of -1 fields. */
const TRAILER = Buffer.from([0xff, 0xff]);

/** A uuid as pm makes them: the only text put into a COPY's statement, which binds no values. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function literalUuid(key: string): string {
  if (!UUID.test(key)) throw new Error(`not an attachment's uuid: ${JSON.stringify(key)}`);
  return `'${key}'`;
}

/** What the PostgreSQL store gives its blob store. */
interface PgBlobDeps {
  readonly db: PgDatabase;
  /** The slots connections held long are taken from (the lists' FairQueue). */
  readonly slots: FairQueue;
  /** How many slots uploads may hold between them. */
  readonly streamSlots: number;
  readonly now: () => number;
}

/** The blob store of a PostgreSQL store, and what its `create` asks of an upload it received. */
export function pgBlobs(deps: PgBlobDeps) {
  let streaming = 0;
  // Downloads read in turn: an account one chunk at a time, and at most half the lists' slots
  // between them, so that one account's many downloads leave the database's time to the others.
  const downloads = new FairQueue(Math.max(1, deps.streamSlots), 1);
  return {
    bytes: (accountId: number, key: string, start: number, end: number) =>
      rangeOf(deps.db, downloads, accountId, key, start, end),
    async receive(accountId: number, uploadDir: string): Promise<Incoming> {
      const release = streaming < deps.streamSlots ? deps.slots.tryAcquire(accountId, STREAMS_PER_ACCOUNT) : undefined;
      if (!release) {
        const { Spool } = await import('../spool.js');
        return Spool.open(uploadDir);
      }
      streaming++;
      let freed = false;
      const free = () => {
        if (freed) return;
        freed = true;
        streaming--;
        release();
      };
      try {
        return await StreamedUpload.open(deps.db, deps.now(), free);
      } catch (e) {
        free();
        throw storeError(e, 'write');
      }
    },
  };
}

/**
 * An upload streamed into its transaction, keyed by the uuid its record takes: `finish` writes the
 * record there and commits; `close` before that rolls it all back.
 */
class StreamedUpload extends ChunkWriter implements Incoming {
  readonly key = process.getBuiltinModule('node:crypto').randomUUID();
  readonly chunks = undefined;
  /** The bytes of the chunk being filled, as they came (a row is sent once it is whole). */
  private held: Uint8Array[] = [];
  private seq = 0;
  /** What made the COPY fail, once it did. */
  private failed: unknown;
  private copying = true;
  /** Whether the database stopped taking its bytes (STALL_MS). */
  private stalled = false;
  private ended = false;

  private constructor(
    private readonly tx: HeldTransaction,
    private readonly copy: Writable,
    private readonly writtenAt: number,
    private readonly free: () => void,
  ) {
    super();
    copy.on('error', (e: unknown) => {
      this.failed ??= e;
    });
  }

  static async open(db: PgDatabase, now: number, free: () => void): Promise<StreamedUpload> {
    const { from } = loadCopyStreams();
    const tx = await db.begin();
    try {
      // The COPY lasts as long as its client sends: the upload's own time limit bounds it.
      await tx.client.query('SET LOCAL statement_timeout = 0');
      const copy = from('COPY attachment_chunks (attachment, seq, written_at, data) FROM STDIN (FORMAT binary)', {
        highWaterMark: IN_FLIGHT,
      });
      copy.query_timeout = COPY_WAIT_MS;
      tx.client.query(copy as never);
      copy.write(HEADER);
      return new StreamedUpload(tx, copy, now, free);
    } catch (e) {
      await tx.rollback(e);
      throw e;
    }
  }

  /** Keeps a part (never copied: what a request's body gives is its own) until its chunk is whole. */
  protected keep(part: Uint8Array): void {
    this.held.push(part);
  }

  /** Sends the chunk filled so far as one row. */
  protected async flush(): Promise<void> {
    if (this.failed) throw storeError(this.failed, 'write');
    const key = Buffer.from(this.key);
    const row = Buffer.allocUnsafe(2 + 4 + key.length + 4 + 4 + 4 + 8 + 4);
    let o = row.writeInt16BE(4, 0);
    o = row.writeInt32BE(key.length, o);
    o += key.copy(row, o);
    o = row.writeInt32BE(4, o);
    o = row.writeInt32BE(this.seq, o);
    o = row.writeInt32BE(8, o);
    o = row.writeBigInt64BE(BigInt(this.writtenAt), o);
    row.writeInt32BE(this.filled, o);
    let more = this.copy.write(row);
    for (const part of this.held) more = this.copy.write(part);
    this.written += this.filled;
    this.seq++;
    this.filled = 0;
    this.held = [];
    if (!more) await this.answered('drain');
  }

  /**
   * Waits for the COPY's `event`; fails as a lost database does (a 503) when it fails, or when the
   * database takes nothing for STALL_MS (a network cut without a reset: the socket would wait).
   */
  private async answered(event: 'drain' | 'finish'): Promise<void> {
    const stop = new AbortController();
    const stalled = new Promise<never>((_, reject) => {
      const timer = setTimeout(() => {
        this.stalled = true;
        reject(new Error('Query read timeout'));
      }, STALL_MS);
      stop.signal.addEventListener('abort', () => clearTimeout(timer));
    });
    try {
      await Promise.race([once(this.copy, event, { signal: stop.signal }), stalled]);
    } catch (e) {
      this.failed ??= e;
      throw storeError(e, 'write');
    } finally {
      stop.abort();
    }
  }

  /** Sends the last chunk (an empty file is one empty chunk) and ends the COPY. */
  async end(): Promise<void> {
    if (this.filled > 0 || this.seq === 0) await this.flush();
    if (this.failed) throw storeError(this.failed, 'write');
    this.copy.end(TRAILER);
    await this.answered('finish');
    this.copying = false;
  }

  /** Writes the record by `write` in the upload's transaction, after its chunks, and commits. */
  async finish<T>(write: (tx: HeldTransaction['pg'], key: string) => Promise<T>): Promise<T> {
    if (this.copying) throw new Error('an upload was given to its record before its last bytes');
    let out: T;
    try {
      // Its record's statements within the server's budget again.
      await this.tx.client.query('SET LOCAL statement_timeout TO DEFAULT');
      out = await write(this.tx.pg, this.key);
    } catch (e) {
      this.ended = true;
      await this.tx.rollback(e);
      throw e;
    }
    this.ended = true;
    await this.tx.commit();
    return out;
  }

  /** Lets go of its connection and its slot; before `finish`, nothing of the upload is kept. */
  async close(): Promise<void> {
    try {
      if (this.ended) return;
      this.ended = true;
      // A COPY that failed is over already; one under way is stopped by CopyFail: the database
      // refuses it, and the transaction can be rolled back.
      // One the database stopped taking may be under way still: its connection is closed.
      if (this.stalled) return this.tx.drop();
      if (this.copying && !this.failed && !this.copy.destroyed) {
        const refused = once(this.copy, 'close').then(
          () => true,
          () => true,
        );
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<boolean>((r) => {
          timer = setTimeout(r, STOP_WAIT_MS, false);
        });
        try {
          this.copy.destroy(new Error('the upload was stopped'));
        } catch {
          return this.tx.drop();
        }
        const settled = await Promise.race([refused, late]);
        clearTimeout(timer);
        if (!settled) return this.tx.drop();
      }
      await this.tx.rollback(this.failed);
    } finally {
      this.free();
    }
  }
}

/** An upload the PostgreSQL store itself streamed, or undefined for one it did not. */
export function streamed(file: Incoming): StreamedUpload | undefined {
  return file instanceof StreamedUpload ? file : undefined;
}

/**
 * The bytes start..end (inclusive) of `key`, a chunk a COPY, each read once the one before is
 * taken by the client (nothing read ahead of it: a download holds at most one chunk, however
 * slowly it is read), in its account's turn (`slots`: one chunk at a time an account), so that
 * one account's downloads never hold the connections or the time another's requests need.
 */
async function* rangeOf(
  db: PgDatabase,
  slots: FairQueue,
  accountId: number,
  key: string,
  start: number,
  end: number,
): AsyncGenerator<Uint8Array> {
  const { setImmediate: next } = await import('node:timers/promises');
  const first = Math.floor(start / CHUNK_BYTES);
  const last = Math.floor(end / CHUNK_BYTES);
  for (let seq = first; seq <= last; seq++) {
    const release = await slots.acquire(accountId);
    let parts: Buffer[];
    try {
      parts = (await chunksOf(db, key, seq, seq))[0] as Buffer[];
      downloadReads.chunks++;
    } finally {
      release();
    }
    // A chunk's bytes as they came (never copied into one buffer), those within the range.
    let offset = seq * CHUNK_BYTES;
    for (const part of parts) {
      const from = Math.max(0, start - offset);
      const to = Math.min(part.byteLength, end - offset + 1);
      if (to > from) yield from === 0 && to === part.byteLength ? part : part.subarray(from, to);
      offset += part.byteLength;
    }
    await next();
  }
}

/** Chunks `from` to `to` of `key`, read by one COPY in the binary format: each as the parts it came in. */
async function chunksOf(db: PgDatabase, key: string, from: number, to: number): Promise<Buffer[][]> {
  const { to: copyTo } = loadCopyStreams();
  const sql = `COPY (SELECT seq, data FROM attachment_chunks WHERE attachment = ${literalUuid(key)} AND seq BETWEEN ${from} AND ${to} ORDER BY seq) TO STDOUT (FORMAT binary)`;
  let c: PG.PoolClient;
  try {
    c = await db.pool.connect();
  } catch (e) {
    throw storeError(e);
  }
  let broken: Error | undefined;
  const lost = (err: Error) => {
    broken = err;
  };
  c.on('error', lost);
  const rows = new BinaryRows();
  try {
    const out = c.query(copyTo(sql) as never) as unknown as Readable;
    for await (const piece of out) rows.push(piece as Buffer);
  } catch (e) {
    broken ??= e instanceof Error ? e : new Error(String(e));
    throw storeError(e);
  } finally {
    c.off('error', lost);
    c.release(broken);
  }
  const found = rows.parse();
  if (found.length !== to - from + 1 || found.some(([seq], i) => seq !== from + i))
    throw new Error(`the bytes of attachment ${key} are missing chunks ${from} to ${to}`);
  return found.map(([, parts]) => parts);
}

/** The rows (seq, data) of a COPY TO in the binary format, from the pieces it came in. */
class BinaryRows {
  private readonly pieces: Buffer[] = [];
  private i = 0;
  private at = 0;

  push(piece: Buffer): void {
    if (piece.byteLength > 0) this.pieces.push(piece);
  }

  /** The next `n` bytes, as views of the pieces they lie in. */
  private parts(n: number): Buffer[] {
    const out: Buffer[] = [];
    let left = n;
    while (left > 0) {
      const p = this.pieces[this.i];
      if (!p) throw new Error('a COPY of attachment bytes ended short');
      const k = Math.min(left, p.byteLength - this.at);
      out.push(p.subarray(this.at, this.at + k));
      left -= k;
      this.at += k;
      if (this.at === p.byteLength) {
        this.i++;
        this.at = 0;
      }
    }
    return out;
  }

  /** The next `n` bytes in one buffer (a header's fields: a few bytes). */
  private take(n: number): Buffer {
    const parts = this.parts(n);
    return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
  }

  parse(): [number, Buffer[]][] {
    if (!this.take(SIGNATURE.length).equals(SIGNATURE)) throw new Error('a COPY of attachment bytes has no signature');
    this.take(4);
    this.parts(this.take(4).readInt32BE(0));
    const rows: [number, Buffer[]][] = [];
    for (;;) {
      const fields = this.take(2).readInt16BE(0);
      if (fields === -1) return rows;
      if (fields !== 2) throw new Error(`a COPY of attachment bytes has rows of ${fields} fields`);
      if (this.take(4).readInt32BE(0) !== 4) throw new Error('a COPY of attachment bytes has a seq not of 4 bytes');
      const seq = this.take(4).readInt32BE(0);
      const length = this.take(4).readInt32BE(0);
      rows.push([seq, length <= 0 ? [] : this.parts(length)]);
    }
  }
}
