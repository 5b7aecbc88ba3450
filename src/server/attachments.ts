/**
 * Files over the API: the byte path beside the JSON one. An upload under a property or a contact
 * (`POST /<parent>/{uuid}/attachments`, multipart/form-data or a raw body) streams to where its
 * store receives it (blobs.ts: a spool file, or PostgreSQL's open transaction), its size limited
 * and its SHA-256 taken as it comes; then its record is written, in the one transaction that
 * holds all its chunks. An upload that fails or stops half-way leaves no record, no bytes and no
 * file. A file is
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
  const source = req.body.bytes(limit, tooLarge(maxBytes));
  const incoming = await store.blobs.receive(p.accountId, deps.uploadDir);
  try {
    const got = multipart
      ? await fromMultipart(source, type, incoming, maxBytes)
      : { file: await intoStore(source, incoming, maxBytes), fields: {}, filename: undefined, mime: type };
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
    // The record and every chunk of its file in one transaction: all of it, or nothing.
    const rec = await store.create(p.accountId, r, body, { resource: parent, uuid: parentUuid }, incoming);
    return {
      status: 201,
      body: { data: withLinks(r, url.origin, rec) },
      location: `${url.origin}/${r.path}/${rec.uuid}`,
    };
  } finally {
    await incoming.close();
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

/** Writes bytes as they come to where the store receives them; 413 past `maxBytes`. */
async function intoStore(source: AsyncIterable<Uint8Array>, to: Incoming, maxBytes: number): Promise<Received> {
  // node:crypto is loaded by the routes that use it (the CLI's embedded default mostly does not).
  const hash = process.getBuiltinModule('node:crypto').createHash('sha256');
  const head: Uint8Array[] = [];
  let headBytes = 0;
  for await (const piece of source) {
    if (to.size + piece.byteLength > maxBytes) throw tooLarge(maxBytes)();
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
  to: Incoming,
  maxBytes: number,
): Promise<{ file: Received; fields: Record<string, string>; filename: string | undefined; mime: string }> {
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
    file = intoStore(stream as AsyncIterable<Uint8Array>, to, maxBytes);
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
 * (inline): the bytes, whole or a range, chunk by chunk.
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
  const headers: Record<string, string> = {
    ETag: etag,
    'Accept-Ranges': 'bytes',
    'Cache-Control': 'private, no-cache',
    'Content-Disposition': disposition(how === 'download' ? 'attachment' : 'inline', String(rec.name)),
    'X-Content-Type-Options': 'nosniff',
  };
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
  return { status, headers, stream: deps.store.blobs.bytes(uuid, start, end) };
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
