/**
 * Files over the API: the byte path beside the JSON one. An upload under a property or a contact
 * (`POST /<parent>/{uuid}/attachments`, multipart/form-data or a raw body) streams to where its
 * store receives it (blobs.ts: SQLite's data file a chunk a transaction, PostgreSQL's open
 * transaction, or a spool file), its size limited and its SHA-256 taken as it comes; then its
 * record is written last: until then nothing lists, reads or counts its bytes. An upload that
 * fails or stops half-way leaves no record, no bytes and no file. A file is
 * read back (`GET /attachments/{uuid}/download` and `/stream`) chunk by chunk too, with ranges,
 * and validated by its digest (ETag, If-None-Match).
 */
import { attachments, inputFields, resourceByPath } from '../resources/index.js';
import type { ResourceDef } from '../resources/types.js';
import { ApiError, ErrorBag, QueryError, ValidationError } from '../core/errors.js';
import { fieldKind, INVALID } from '../core/kinds.js';
import { sizeInWords } from '../core/size.js';
import type { ValidBody } from '../core/validate.js';
import type { Incoming } from './blobs.js';
import type { ApiRequest, ApiResponse } from './exchange.js';
import { claimOf } from './idempotency.js';
import type { ApiRecord, Principal, Store } from './store.js';

/** The largest file `pm serve` takes by default (`--max-attachment-size`). */
export const DEFAULT_MAX_ATTACHMENT_BYTES = 100 * 1024 * 1024;

/** What a multipart body may carry besides its file: its boundaries and the name and description parts. */
const MULTIPART_OVERHEAD = 512 * 1024;

/** The bytes of a file looked at to tell its type when its upload says none (file-type reads at most these). */
const SNIFF_BYTES = 4100;

const r = attachments;
/**
 * What an upload may say of its file besides its bytes, as query parameters or multipart parts:
 * the fields an update may change (its name, description, and (ours) expires_on).
 */
const UPLOAD_FIELDS = inputFields(r);
const READ = `${r.scope}.read`;
const WRITE = `${r.scope}.write`;

/** What the API core gives the file routes. */
interface FileDeps {
  readonly store: Store;
  /** The token's principal, rate-limited, with `scopes` (401, 429, 403 otherwise). */
  authorize(scopes: readonly string[]): Promise<Principal>;
  /** The largest file taken (bytes). */
  readonly maxBytes: number;
  /** Where an upload's bytes may wait for their transaction (spool.ts). */
  readonly uploadDir: string;
  /** The most bytes of files an account may keep, its uploads under way included (`pm serve --quota`); none when undefined. */
  readonly quotaBytes?: number | undefined;
  /** An upload's idempotency key (idempotency.ts), when its request names one. */
  readonly key?: string | undefined;
}

/** The bytes of the uploads under way in this process, by store and account. */
const underWay = new WeakMap<Store, Map<number, number>>();

/**
 * An upload's share of its account's quota: the bytes the account keeps, read as the upload
 * starts, and those of its uploads under way here (a spool file's, chunks not yet a file's, a
 * transaction's), this one's counted as they come. `take` fails (507) once they would pass the
 * quota; `check` asks the store again, once the file is whole, before its record is written.
 */
class QuotaShare {
  private taken = 0;

  private constructor(
    private readonly store: Store,
    private readonly accountId: number,
    private readonly quota: number,
    private readonly stored: number,
    private readonly uploads: Map<number, number>,
  ) {}

  /** A share for an upload of `declared` bytes (when its length is known): 413 when they would pass the quota. */
  static async of(deps: FileDeps, accountId: number, declared: number | undefined): Promise<QuotaShare | undefined> {
    const quota = deps.quotaBytes;
    if (quota === undefined) return undefined;
    const uploads = underWay.get(deps.store) ?? new Map<number, number>();
    underWay.set(deps.store, uploads);
    const share = new QuotaShare(deps.store, accountId, quota, await deps.store.blobs.stored(accountId), uploads);
    if (declared !== undefined && share.used() + declared > quota) throw overQuota(413, quota, share.used());
    return share;
  }

  /** The account's bytes: kept, and under way here. */
  private used(): number {
    return this.stored + (this.uploads.get(this.accountId) ?? 0);
  }

  take(bytes: number): void {
    this.taken += bytes;
    this.uploads.set(this.accountId, (this.uploads.get(this.accountId) ?? 0) + bytes);
    if (this.used() > this.quota) throw overQuota(507, this.quota, this.used() - bytes);
  }

  /** A whole file of `size` bytes: 507 when the account now keeps too much for it. */
  async check(size: number): Promise<void> {
    const stored = await this.store.blobs.stored(this.accountId);
    if (stored + size > this.quota) throw overQuota(507, this.quota, stored);
  }

  /** The upload is over (kept or not): its bytes are no longer under way. */
  release(): void {
    const left = (this.uploads.get(this.accountId) ?? 0) - this.taken;
    if (left > 0) this.uploads.set(this.accountId, left);
    else this.uploads.delete(this.accountId);
    this.taken = 0;
  }
}

/** An upload past its account's quota: 413 (its declared length) or 507 (its bytes as they came). */
function overQuota(status: 413 | 507, quota: number, used: number): ApiError {
  return new ApiError(
    status,
    `The file would take this account past its quota of ${sizeInWords(quota)} (${quota} bytes) of files on this server: it uses ${used} bytes. Nothing was written.`,
  );
}

/** The paths of files: an upload under a parent, or a file's bytes. Undefined for any other path. */
export function fileRoute(segments: readonly string[]):
  | {
      readonly route: string;
      readonly upload?: ResourceDef;
      readonly read?: 'download' | 'stream';
      readonly uuid: string;
    }
  | undefined {
  if (segments.length !== 3) return undefined;
  const [root, uuid, leaf] = segments as [string, string, string];
  if (uuid === '') return undefined;
  if (root === r.path && (leaf === 'download' || leaf === 'stream'))
    return { route: `/${r.path}/{uuid}/${leaf}`, read: leaf, uuid: uuid.toLowerCase() };
  const parent = r.parents?.find((p) => p.target === root);
  if (parent && leaf === r.path)
    return { route: `/${root}/{uuid}/${r.path}`, upload: resourceByPath(parent.target), uuid: uuid.toLowerCase() };
  return undefined;
}

/** The absolute URLs of a record's links (download_url, stream_url), on the server's origin. */
export function withLinks(res: ResourceDef, origin: string, rec: ApiRecord): ApiRecord {
  for (const f of res.fields)
    if (f.computed && 'link' in f.computed) rec[f.name] = `${origin}/${res.path}/${rec.uuid}/${f.computed.link}`;
  return rec;
}

/** Whether the records of `res` carry links the API core makes absolute. */
export const hasLinks = (res: ResourceDef): boolean => res.fields.some((f) => f.computed && 'link' in f.computed);

function tooLarge(maxBytes: number): () => ApiError {
  return () =>
    new ApiError(
      413,
      `The file is larger than the ${sizeInWords(maxBytes)} (${maxBytes} bytes) this server takes for an attachment.`,
    );
}

/** POST /<parent>/{uuid}/attachments: the file streamed to its store, then its record with its chunks. */
export async function upload(
  req: ApiRequest,
  url: URL,
  parent: ResourceDef,
  parentUuid: string,
  deps: FileDeps,
): Promise<{ status: number; body: unknown; location: string }> {
  const { store, maxBytes } = deps;
  const p = await deps.authorize([WRITE]);
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) {
    if (!UPLOAD_FIELDS.some((f) => f.name === k))
      throw new QueryError(k, `Unknown query parameter "${k}" for an upload.`);
    query[k] = v;
  }
  // A missing parent is a 404 before a byte of the file is read.
  await store.get(p.accountId, parent, parentUuid);
  const type = req.header('content-type') ?? '';
  const multipart = /^multipart\/form-data\s*;/i.test(type);
  const limit = multipart ? maxBytes + MULTIPART_OVERHEAD : maxBytes;
  const length = req.header('content-length');
  const declared = !multipart && length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined;
  const quota = await QuotaShare.of(deps, p.accountId, declared);
  const source = req.body.bytes(limit, tooLarge(maxBytes));
  let incoming: Incoming;
  try {
    incoming = await store.blobs.receive(p.accountId, deps.uploadDir);
  } catch (e) {
    quota?.release();
    throw e;
  }
  try {
    const to = { incoming, maxBytes, quota };
    const got = multipart
      ? await fromMultipart(source, type, to)
      : { file: await intoStore(source, to), fields: {}, filename: undefined, mime: type };
    const fields = { ...query, ...got.fields };
    const name = storedName(fields.name ?? got.filename);
    const description = fields.description === undefined || fields.description === '' ? null : fields.description;
    if (description !== null && [...description].length > 65535)
      throw new ValidationError({ description: ['The description field must not be greater than 65535 characters.'] });
    const mime = await mimeOf(got.mime, got.file.head);
    const values = {
      ...otherFields(fields),
      name,
      description,
      size: got.file.size,
      mime_type: mime,
      type: kindOf(mime),
      sha256: got.file.sha256,
    };
    const body: ValidBody = { values, links: {}, sets: {}, customValues: undefined };
    await quota?.check(got.file.size);
    // The same key with the same upload (its parent, and its file's name, description and bytes) is the same create.
    const claim = claimOf(deps.key, [url.pathname, JSON.stringify(values)]);
    // The record, written once every chunk of its file is: all of it, or nothing.
    const rec = await store.create(p.accountId, r, body, { resource: parent, uuid: parentUuid }, incoming, claim);
    return {
      status: 201,
      body: { data: withLinks(r, url.origin, rec) },
      location: `${url.origin}/${r.path}/${rec.uuid}`,
    };
  } finally {
    try {
      await incoming.close();
    } finally {
      quota?.release();
    }
  }
}

/** An upload's other fields (expires_on), each checked by its kind; an empty one is null. */
function otherFields(given: Record<string, string>): Record<string, string | number | boolean | null> {
  const bag = new ErrorBag();
  const out: Record<string, string | number | boolean | null> = {};
  for (const f of UPLOAD_FIELDS) {
    if (f.name === 'name' || f.name === 'description') continue;
    const v = given[f.name];
    if (v === undefined || v === '') continue;
    const checked = fieldKind(f).check(f, v, (field, message) => {
      bag.add(field, message);
      return INVALID;
    });
    if (checked !== INVALID) out[f.name] = checked;
  }
  bag.throwIfAny();
  return out;
}

/** What an upload's bytes were: their size, digest and first bytes (to tell their type). */
interface Received {
  readonly size: number;
  readonly sha256: string;
  readonly head: Uint8Array;
}

/** Where an upload's bytes go: what its store receives them with, its limit and its share of its account's quota. */
interface Destination {
  readonly incoming: Incoming;
  readonly maxBytes: number;
  readonly quota: QuotaShare | undefined;
}

/** Writes bytes as they come to where the store receives them; 413 past `maxBytes`, 507 past the quota. */
async function intoStore(
  source: AsyncIterable<Uint8Array>,
  { incoming: to, maxBytes, quota }: Destination,
): Promise<Received> {
  // node:crypto is loaded by the routes that use it (the CLI's embedded default mostly does not).
  const hash = process.getBuiltinModule('node:crypto').createHash('sha256');
  const head: Uint8Array[] = [];
  let headBytes = 0;
  for await (const piece of source) {
    if (to.size + piece.byteLength > maxBytes) throw tooLarge(maxBytes)();
    quota?.take(piece.byteLength);
    hash.update(piece);
    if (headBytes < SNIFF_BYTES) {
      head.push(Buffer.from(piece.subarray(0, SNIFF_BYTES - headBytes)));
      headBytes += Math.min(piece.byteLength, SNIFF_BYTES - headBytes);
    }
    await to.write(piece);
  }
  await to.end();
  return { size: to.size, sha256: hash.digest('hex'), head: Buffer.concat(head) };
}

/** A multipart/form-data body: its `file` part to the store, its `name` and `description` parts. */
async function fromMultipart(
  source: AsyncIterable<Uint8Array>,
  type: string,
  to: Destination,
): Promise<{ file: Received; fields: Record<string, string>; filename: string | undefined; mime: string }> {
  const { maxBytes } = to;
  // Loaded by an upload alone.
  const { Busboy } = await import('@fastify/busboy');
  const { Readable } = await import('node:stream');
  const { pipeline } = await import('node:stream/promises');
  const fields: Record<string, string> = {};
  let file: Promise<Received> | undefined;
  let filename: string | undefined;
  let mime = '';
  const bb = new Busboy({
    headers: { 'content-type': type },
    limits: {
      files: 1,
      fields: UPLOAD_FIELDS.length,
      fieldSize: 4 * 65535,
      parts: UPLOAD_FIELDS.length + 1,
      fileSize: maxBytes + 1,
    },
  });
  bb.on('field', (name: string, value: string) => {
    if (UPLOAD_FIELDS.some((f) => f.name === name)) fields[name] = value;
  });
  bb.on('file', (name: string, stream: NodeJS.ReadableStream, fname: string, _enc: string, mimeType: string) => {
    if (name !== 'file' || file) {
      stream.resume();
      return;
    }
    filename = fname;
    mime = mimeType;
    file = intoStore(stream as AsyncIterable<Uint8Array>, to);
    // A file that fails (413, a full disk) stops the body being read.
    file.catch((e: unknown) => bb.destroy(e as Error));
  });
  try {
    await pipeline(Readable.from(source), bb);
  } catch (e) {
    // The file's writes end before what receives them is closed.
    if (file) await file.catch(() => {});
    if (e instanceof ApiError) throw e;
    const settled =
      file &&
      (await file.then(
        () => undefined,
        (f: unknown) => f,
      ));
    if (settled) throw settled;
    throw new ApiError(400, `The multipart/form-data body could not be read: ${(e as Error).message}.`);
  }
  if (!file) throw new ValidationError({ file: ['The file field is required: a part named "file" holding the file.'] });
  return { file: await file, fields, filename, mime };
}

/** The name a file is kept under: the last part of its path, without control characters (422 when none is left). */
function storedName(given: string | undefined): string {
  const name = (given ?? '')
    .split(/[\\/]/)
    .pop()
    ?.replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
    .trim();
  if (!name)
    throw new ValidationError({
      name: ["The name field is required: a file name (the name part, ?name=, or the file part's filename)."],
    });
  if ([...name].length > 255)
    throw new ValidationError({ name: ['The name field must not be greater than 255 characters.'] });
  return name;
}

/** Content types that say nothing of the bytes: the bytes then say what they are. */
const GENERIC = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'application/x-www-form-urlencoded']);

/** The MIME type of an upload: what it was sent as, or (when that is generic) what its first bytes are. */
async function mimeOf(sent: string, head: Uint8Array): Promise<string> {
  const mime = sent.split(';')[0]?.trim().toLowerCase() ?? '';
  if (!GENERIC.has(mime) && /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(mime)) return mime;
  // Loaded when an upload says no type.
  const { fileTypeFromBuffer } = await import('file-type');
  return (await fileTypeFromBuffer(head))?.mime ?? 'application/octet-stream';
}

/** An attachment's type from its MIME type. */
function kindOf(mime: string): 'Document' | 'Image' | 'Video' | 'Audio' {
  if (mime.startsWith('image/')) return 'Image';
  if (mime.startsWith('video/')) return 'Video';
  if (mime.startsWith('audio/')) return 'Audio';
  return 'Document';
}

/**
 * GET and HEAD /attachments/{uuid}/download (Content-Disposition: attachment) and /stream
 * (inline, but for an active type: answerHeaders): the bytes, whole or a range, chunk by chunk.
 */
export async function readBytes(
  req: ApiRequest,
  url: URL,
  uuid: string,
  how: 'download' | 'stream',
  deps: FileDeps,
): Promise<ApiResponse> {
  if (req.method !== 'GET' && req.method !== 'HEAD')
    throw new ApiError(405, `The ${req.method} method is not supported for this route.`, undefined, {
      Allow: 'GET, HEAD',
    });
  const p = await deps.authorize([READ]);
  for (const k of url.searchParams.keys()) throw new QueryError(k, `Unknown query parameter "${k}" for this endpoint.`);
  const rec = await deps.store.get(p.accountId, r, uuid);
  const size = Number(rec.size);
  const etag = `"${rec.sha256}"`;
  const headers = answerHeaders(rec, etag, how);
  if (matches(req.header('if-none-match'), etag)) return { status: 304, headers };
  headers['Content-Type'] = String(rec.mime_type);
  const ifRange = req.header('if-range');
  const range = ifRange === undefined || ifRange === etag ? rangeOf(req.header('range'), size) : undefined;
  if (range === 'unsatisfiable')
    throw new ApiError(416, `The range asked for is not within the file's ${size} bytes.`, undefined, {
      'Content-Range': `bytes */${size}`,
      'Accept-Ranges': 'bytes',
    });
  const [start, end] = range ?? [0, size - 1];
  headers['Content-Length'] = String(end - start + 1);
  if (range) headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
  const status = range ? 206 : 200;
  if (req.method === 'HEAD' || size === 0) return { status, headers };
  return { status, headers, stream: deps.store.blobs.bytes(p.accountId, uuid, start, end) };
}

/**
 * Types a browser runs, or shows as a page that may run script, with the API's origin: HTML,
 * XHTML, SVG, XML of any kind, JavaScript. A file of one is never shown inline.
 */
const ACTIVE_TYPE =
  /^(?:text\/html|application\/xhtml\+xml|image\/svg\+xml|(?:text|application)\/xml|[a-z]+\/[^/]+\+xml|text\/xsl|(?:text|application)\/(?:x-)?(?:javascript|ecmascript|jscript)|application\/x-javascript)$/;

/**
 * The headers of a file's bytes, whatever the answer (200, 206, 304): a download is always an
 * attachment; a stream is inline but for an active type (ACTIVE_TYPE), which is an attachment
 * too. Every one is sandboxed (`Content-Security-Policy: sandbox`): a browser that shows it runs
 * no script and gives it no origin, so a file's page can reach nothing of the API's.
 */
function answerHeaders(rec: ApiRecord, etag: string, how: 'download' | 'stream'): Record<string, string> {
  const active = ACTIVE_TYPE.test(String(rec.mime_type).split(';')[0]?.trim().toLowerCase() ?? '');
  return {
    ETag: etag,
    'Accept-Ranges': 'bytes',
    'Cache-Control': 'private, no-cache',
    'Content-Disposition': disposition(how === 'download' || active ? 'attachment' : 'inline', String(rec.name)),
    'Content-Security-Policy': 'sandbox',
    'X-Content-Type-Options': 'nosniff',
  };
}

/** If-None-Match: any of its tags (compared weakly), or `*`. */
function matches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const tags = header.split(',').map((t) => t.trim().replace(/^W\//, ''));
  return tags.includes('*') || tags.includes(etag);
}

/**
 * A Range header of one byte range (`bytes=0-99`, `bytes=100-`, `bytes=-100`): undefined for
 * none, or one this server answers whole (several ranges, another unit, a malformed one), as
 * RFC 9110 allows; 'unsatisfiable' for a range outside the file (416).
 */
function rangeOf(header: string | undefined, size: number): [number, number] | 'unsatisfiable' | undefined {
  const m = header === undefined ? null : /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return [Math.max(0, size - suffix), size - 1];
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return [start, end];
}

/**
 * Content-Disposition (RFC 6266): `filename` in ASCII (what is not printable ASCII, a quote or a
 * backslash replaced), and `filename*` the name itself, UTF-8 percent-encoded (RFC 8187).
 */
function disposition(kind: 'attachment' | 'inline', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
