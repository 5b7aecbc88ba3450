/**
 * An upload's bytes on their way to the store: a file in the upload directory (`pm serve
 * --upload-dir`), written as the body comes (PostgreSQL's uploads no connection is spared for),
 * then read back a chunk at a time in the transaction that writes the file's record and its
 * chunks (blobs.ts). Its name is removed as soon as it is
 * opened, so nothing of it is left however the upload ends (a failure, its client gone, the
 * server stopped or killed): the system frees its space when it is closed, by `close()` or by the
 * process's end.
 */
import type { FileHandle } from 'node:fs/promises';
import { ApiError } from '../core/errors.js';
import { CHUNK_BYTES, ChunkWriter, type Chunks, type Incoming } from './blobs.js';

/** A full disk (or a quota of the file system's), said as what it is. */
function spoolError(e: unknown): unknown {
  const code = (e as { code?: unknown }).code;
  if (code !== 'ENOSPC' && code !== 'EDQUOT') return e;
  const said = new ApiError(507, 'The server cannot store this: its disk is full. Nothing was written.');
  said.cause = e;
  return said;
}

/** A write that wrote nothing though it was given bytes: the disk takes no more. */
const tookNothing = () =>
  Object.assign(new Error('the upload directory took none of the bytes written'), { code: 'ENOSPC' });

export class Spool extends ChunkWriter implements Chunks, Incoming {
  /** Bytes not yet written: a whole chunk is written at once. */
  private pending = Buffer.allocUnsafe(CHUNK_BYTES);

  private constructor(
    private readonly file: FileHandle,
    /** Its path while it still has one (a system that refused to remove it while open). */
    private path: string | undefined,
  ) {
    super();
  }

  /** A new spool file in `dir`, readable by this process alone. */
  static async open(dir: string): Promise<Spool> {
    const { open, unlink } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const path = join(dir, `.pm-upload-${process.getBuiltinModule('node:crypto').randomUUID()}`);
    const file = await open(path, 'wx+', 0o600).catch((e: unknown) => {
      throw spoolError(e);
    });
    const kept = await unlink(path).then(
      () => undefined,
      () => path,
    );
    return new Spool(file, kept);
  }

  /** A part of the chunk being filled, kept until the chunk is written whole. */
  protected keep(part: Uint8Array): void {
    this.pending.set(part, this.filled);
  }

  /** Writes what is left: the file is then whole, and read by `read`. */
  async end(): Promise<void> {
    await this.flush();
  }

  protected async flush(): Promise<void> {
    if (this.filled === 0) return;
    try {
      // A write may take fewer bytes than it was given (a disk nearly full): the rest is written
      // again until all are, or the disk refuses them (ENOSPC), or takes none.
      let done = 0;
      while (done < this.filled) {
        const { bytesWritten } = await this.file.write(this.pending, done, this.filled - done, this.written + done);
        if (bytesWritten <= 0) throw tookNothing();
        done += bytesWritten;
      }
    } catch (e) {
      throw spoolError(e);
    }
    this.written += this.filled;
    this.filled = 0;
  }

  /** Itself: its chunks are read by the record's transaction. */
  get chunks(): Chunks {
    return this;
  }

  get count(): number {
    return Math.max(1, Math.ceil(this.written / CHUNK_BYTES));
  }

  read(seq: number): Uint8Array {
    const { readSync } = process.getBuiltinModule('node:fs');
    const start = seq * CHUNK_BYTES;
    const length = Math.max(0, Math.min(CHUNK_BYTES, this.written - start));
    const data = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const n = readSync(this.file.fd, data, got, length - got, start + got);
      if (n === 0) throw new Error(`an upload's spool file ended at ${start + got} of its ${this.written} bytes`);
      got += n;
    }
    return data;
  }

  /** Closes the file (and removes it, when its name could not be removed at its opening). */
  async close(): Promise<void> {
    await this.file.close().catch(() => {});
    if (this.path !== undefined) {
      const { rm } = await import('node:fs/promises');
      await rm(this.path, { force: true }).catch(() => {});
      this.path = undefined;
    }
  }
}
