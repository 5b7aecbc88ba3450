/**
 * A file's bytes to and from the server, for `pm <files resource> upload|download` and for
 * `pm export|import`: sent as it is read; fetched into a temporary file beside its place, checked
 * against its record's size and SHA-256, and only then renamed into place.
 */
import { closeSync, createReadStream, linkSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { exchangeBytes } from '../../../client/bytes.js';
import { ProtocolError } from '../../../client/errors.js';
import { classify } from '../../../client/retry.js';
import type { ResourceDef } from '../../../resources/types.js';
import { CliError, EXIT } from '../../errors.js';
import type { Deps } from '../../context.js';
import type { Session } from '../../session.js';
import { describeApiError } from '../../api-errors.js';
import { fileName, serverUuid } from '../../untrusted.js';
import { byteProgress } from './progress.js';

type Rec = Record<string, unknown>;

/**
 * The content type a file is sent as, for the kinds its bytes cannot tell (text); any other is
 * sent as application/octet-stream, and the server tells it by its first bytes.
 */
const TEXT_TYPES: Readonly<Record<string, string>> = {
  '.txt': 'text/plain',
  '.csv': 'text/csv',
  '.md': 'text/markdown',
  '.json': 'application/json',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.xml': 'application/xml',
  '.svg': 'image/svg+xml',
  '.ics': 'text/calendar',
};

/** How much of a file is read at a time to be sent (the server keeps it in chunks of 1 MiB). */
const READ_BYTES = 256 * 1024;

const typeOf = (name: string) => TEXT_TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream';

/** What is sent: a file on disk (its size known), or standard input (`-`). */
export interface Source {
  readonly path: string;
  readonly size: number | undefined;
  /**
   * The file, opened already: read from it (from its first byte, on every attempt) and never
   * from `path` again, so that what is sent is the file that was checked. Its owner closes it.
   */
  readonly fd?: number;
}

/** Uploads a file under `parent` as `name`: the new record. */
export async function uploadFile(
  f: Pick<Deps, 'io'>,
  s: Session,
  r: ResourceDef,
  parent: { readonly resource: ResourceDef; readonly uuid: string },
  file: Source,
  name: string,
  /** What else the upload says of the file, by field: its description, its expiry. */
  fields: Readonly<Record<string, string | undefined>> = {},
  type: string = typeOf(name),
): Promise<Rec> {
  const query = new URLSearchParams({ name });
  for (const [k, v] of Object.entries(fields)) if (v !== undefined && v !== null) query.set(k, v);
  const progress = await byteProgress(f, name, file.size);
  const counted = (source: AsyncIterable<Uint8Array | string>) =>
    (async function* () {
      for await (const chunk of source) {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
        progress.add(bytes.byteLength);
        yield bytes;
      }
    })();
  try {
    const res = await exchangeBytes(s.http, 'POST', `${parent.resource.path}/${parent.uuid}/${r.path}`, {
      query,
      body:
        file.path === '-'
          ? { open: () => counted(f.io.stdin), again: false, type }
          : {
              open: () =>
                counted(
                  createReadStream(
                    file.path,
                    file.fd === undefined
                      ? { highWaterMark: READ_BYTES }
                      : { highWaterMark: READ_BYTES, fd: file.fd, start: 0, autoClose: false },
                  ),
                ),
              again: true,
              type,
              length: file.size,
            },
    });
    const chunks: Uint8Array[] = [];
    for await (const c of res.body) chunks.push(c);
    return (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: Rec }).data;
  } catch (e) {
    throw describeApiError(e, r);
  } finally {
    progress.stop();
  }
}

/** How a downloaded file is written. */
interface Placing {
  /** Over a file that is there already. */
  readonly clobber: boolean;
  /** The new file's mode (before the umask): 0644 for a download, 0600 for an export. */
  readonly mode: number;
}

/** A file's record as a download uses it: each value checked for what it claims to be. */
function checkedRecord(r: ResourceDef, rec: Rec) {
  const uuid = serverUuid(rec.uuid, `the uuid of the ${r.singular}`);
  const size = rec.size;
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0)
    throw new ProtocolError(`the size of ${r.singular} ${uuid} is not a number of bytes`);
  const digest = rec.sha256;
  if (typeof digest !== 'string' || !/^[0-9a-f]{64}$/.test(digest))
    throw new ProtocolError(`the SHA-256 of ${r.singular} ${uuid} is not one`);
  return { uuid, size, digest, label: fileName(rec.name, uuid) };
}

/**
 * Downloads the bytes of `rec` to `dest` (or standard output, `-`), checked against its size and
 * SHA-256; a file is written beside its place and renamed into it, never over one without
 * `clobber`. The answer is read only up to the size the record says: a byte more stops it.
 */
export async function downloadFile(
  f: Pick<Deps, 'io'>,
  s: Session,
  r: ResourceDef,
  rec: Rec,
  dest: string,
  how: Placing,
) {
  const { uuid, size, digest, label } = checkedRecord(r, rec);
  if (dest !== '-' && !how.clobber && exists(dest))
    throw new CliError(EXIT.usage, `${dest} is there already: pm does not overwrite it.`, {
      hint: 'Give --clobber to overwrite it, or --to/--dir for another place.',
    });
  const progress = await byteProgress(f, label, size);
  const hash = (await import('node:crypto')).createHash('sha256');
  // Beside its place, under a short name of its own: the place's name may take all a name can.
  const temp =
    dest === '-' ? undefined : join(dirname(dest), `.${process.pid}.${Math.random().toString(36).slice(2)}.pm-part`);
  let got = 0;
  let res: Awaited<ReturnType<typeof exchangeBytes>> | undefined;
  // The file is made before anything is asked of the server: a place that cannot be written is
  // said at once. It is written as the bytes come, at once: a write to the page cache takes less
  // than handing it to a thread (a stream's writes), and the socket holds the next bytes meanwhile.
  let fd: number | undefined;
  try {
    if (temp !== undefined)
      try {
        fd = openSync(temp, 'wx', how.mode);
      } catch (e) {
        throw diskError(dest, e);
      }
    res = await exchangeBytes(s.http, 'GET', `${r.path}/${uuid}/download`, { most: size });
    for await (const chunk of res.body) {
      got += chunk.byteLength;
      hash.update(chunk);
      progress.add(chunk.byteLength);
      if (fd !== undefined)
        try {
          for (let at = 0; at < chunk.byteLength; ) at += writeSync(fd, chunk, at);
        } catch (e) {
          throw diskError(dest, e);
        }
      else if (f.io.stdout.write(chunk) === false && f.io.stdout.once)
        await new Promise<void>((done) => f.io.stdout.once?.('drain', () => done()));
    }
  } catch (e) {
    // An answer left unread would hold its connection, and the run's end, open.
    res?.destroy();
    if (fd !== undefined) closeSync(fd);
    fd = undefined;
    if (temp) discard(temp);
    if (e instanceof CliError) throw e;
    const nothing = temp ? ': nothing was written' : '';
    // More than the record says: the server's error, not the connection's.
    if (e instanceof ProtocolError)
      throw new CliError(
        EXIT.api,
        `the download of ${label} was stopped: ${e.message} (its record says ${size} bytes)${nothing}.`,
      );
    // The answer began and stopped short (not by Ctrl-C): the connection's doing, said with how far it got.
    if (res !== undefined && !s.http.options.signal?.aborted)
      throw new CliError(
        EXIT.network,
        `the download of ${label} was cut off after ${got} of ${size} bytes (${classify(e).reason})${nothing}.`,
        { hint: 'Run it again: a download starts over from the first byte.' },
      );
    throw describeApiError(e, r);
  } finally {
    if (fd !== undefined) closeSync(fd);
    progress.stop();
  }
  const sum = hash.digest('hex');
  if (got !== size || sum !== digest) {
    if (temp) rmSync(temp, { force: true });
    throw new CliError(
      EXIT.api,
      `the download of ${label} does not match its record (${got} bytes with SHA-256 ${sum}; the record says ${size} bytes, ${digest})${temp ? ': nothing was written' : ''}.`,
    );
  }
  if (temp) place(temp, dest, how.clobber);
}

/** The disk's refusal (a folder missing, no space), said as such: not the server's. */
function diskError(dest: string, e: unknown): CliError {
  return new CliError(EXIT.api, `cannot write ${dest}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}.`);
}

/** A part file removed, if there is one: none is made where its folder is missing or is not one. */
function discard(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // Nothing there to remove.
  }
}

/** Into place: renamed over an existing file only with `clobber`; else linked, which fails if one appeared. */
function place(temp: string, dest: string, clobber: boolean): void {
  try {
    if (clobber) renameSync(temp, dest);
    else {
      linkSync(temp, dest);
      rmSync(temp);
    }
  } catch (e) {
    rmSync(temp, { force: true });
    if ((e as NodeJS.ErrnoException).code === 'EEXIST')
      throw new CliError(EXIT.usage, `${dest} is there already: pm does not overwrite it.`, {
        hint: 'Give --clobber to overwrite it.',
      });
    throw new CliError(EXIT.api, `cannot write ${dest}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}.`);
  }
}

function exists(path: string): boolean {
  try {
    process.getBuiltinModule('node:fs').statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** A file's SHA-256, read as a stream: from `path`, or from the descriptor `fd` (from its first byte, left open). */
export async function sha256Of(path: string, fd?: number): Promise<string> {
  const hash = (await import('node:crypto')).createHash('sha256');
  const stream = fd === undefined ? createReadStream(path) : createReadStream(path, { fd, start: 0, autoClose: false });
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
