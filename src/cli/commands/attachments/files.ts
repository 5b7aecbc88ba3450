/**
 * A file's bytes to and from the server, for `pm <files resource> upload|download` and for
 * `pm export|import`: sent as it is read; fetched into a temporary file beside its place, checked
 * against its record's size and SHA-256, and only then renamed into place.
 */
import { closeSync, createReadStream, linkSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { extname } from 'node:path';
import { exchangeBytes } from '../../../client/bytes.js';
import { classify } from '../../../client/retry.js';
import { visible } from '../../../core/redact.js';
import type { ResourceDef } from '../../../resources/types.js';
import { CliError, EXIT } from '../../errors.js';
import type { Deps } from '../../context.js';
import type { Session } from '../../session.js';
import { describeApiError } from '../../api-errors.js';
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
              open: () => counted(createReadStream(file.path, { highWaterMark: READ_BYTES })),
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

/**
 * Downloads the bytes of `rec` to `dest` (or standard output, `-`), checked against its size and
 * SHA-256; a file is written beside its place and renamed into it, never over one without `clobber`.
 */
export async function downloadFile(
  f: Pick<Deps, 'io'>,
  s: Session,
  r: ResourceDef,
  rec: Rec,
  dest: string,
  clobber: boolean,
) {
  const size = Number(rec.size);
  const digest = String(rec.sha256);
  const name = String(rec.name);
  if (dest !== '-' && !clobber && exists(dest))
    throw new CliError(EXIT.usage, `${dest} is there already: pm does not overwrite it.`, {
      hint: 'Give --clobber to overwrite it, or --to/--dir for another place.',
    });
  const progress = await byteProgress(f, name, size);
  const hash = (await import('node:crypto')).createHash('sha256');
  const temp = dest === '-' ? undefined : `${dest}.${process.pid}.pm-part`;
  let got = 0;
  let res: Awaited<ReturnType<typeof exchangeBytes>> | undefined;
  // The file is made before anything is asked of the server: a place that cannot be written is
  // said at once. It is written as the bytes come, at once: a write to the page cache takes less
  // than handing it to a thread (a stream's writes), and the socket holds the next bytes meanwhile.
  let fd: number | undefined;
  try {
    if (temp !== undefined)
      try {
        fd = openSync(temp, 'wx', 0o644);
      } catch (e) {
        throw diskError(dest, e);
      }
    res = await exchangeBytes(s.http, 'GET', `${r.path}/${rec.uuid}/download`);
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
    // The answer began and stopped short (not by Ctrl-C): the connection's doing, said with how far it got.
    if (res !== undefined && !s.http.options.signal?.aborted)
      throw new CliError(
        EXIT.network,
        `the download of ${visible(name)} was cut off after ${got} of ${size} bytes (${classify(e).reason})${temp ? ': nothing was written' : ''}.`,
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
      `the download of ${visible(name)} does not match its record (${got} bytes with SHA-256 ${sum}; the record says ${size} bytes, ${digest})${temp ? ': nothing was written' : ''}.`,
    );
  }
  if (temp) place(temp, dest, clobber);
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

/** A file's SHA-256, read as a stream. */
export async function sha256Of(path: string): Promise<string> {
  const hash = (await import('node:crypto')).createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
