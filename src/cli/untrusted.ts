/**
 * What a server says, before it becomes a request's path, a place on disk or text on a terminal:
 * a uuid checked to be one (serverUuid), a file's name cleaned once (fileName), and a place
 * checked to be inside the folder the user named before anything is opened there (inside).
 */
import { extname, join, relative, resolve, sep } from 'node:path';
import { ProtocolError } from '../client/errors.js';
import { isWholeUuid } from '../core/kinds.js';
import { jsonText, withoutUnseen } from '../core/redact.js';
import { CliError, EXIT } from './errors.js';

/** A value as a message may quote it: JSON (C0 escaped), with DEL, C1 and bidi escaped too, cut short. */
const quoted = (v: unknown): string => {
  const text = typeof v === 'string' ? v : String(JSON.stringify(v));
  return jsonText(JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text));
};

/** Whether a value is a uuid, exactly: 36 characters, in either case, nothing around them. */
export const isUuid = (value: unknown): value is string =>
  typeof value === 'string' && value.trim() === value && isWholeUuid(value);

/**
 * The uuid a server gave as `what` (the uuid of an attachment, of the record a prefix names), in
 * lower case: only a uuid, exactly (36 characters, no space around), is used in a path, a retry or
 * a message; anything else is the server's error, and nothing is done with it.
 */
export function serverUuid(value: unknown, what: string): string {
  if (isUuid(value)) return value.toLowerCase();
  throw new ProtocolError(`${what} is ${quoted(value)}, not a uuid; pm uses nothing of it`);
}

/** The most a file's name may take on disk (NAME_MAX of Linux, macOS and Windows file systems), in UTF-8 bytes. */
const NAME_BYTES = 255;

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/** `s` cut to at most `max` UTF-8 bytes, never inside a character. */
function cut(s: string, max: number): string {
  let out = '';
  for (const ch of s) {
    if (bytes(out) + bytes(ch) > max) break;
    out += ch;
  }
  return out;
}

/**
 * A name from a server as a file's name on disk: its last path part (either slash), without
 * control or bidi characters, shortened to NAME_BYTES with its extension kept; `fallback` (a
 * checked uuid) when nothing usable is left (empty, `.`, `..`).
 */
export function fileName(name: unknown, fallback: string): string {
  const text = typeof name === 'string' ? name : '';
  const last = withoutUnseen(text).replace(/\\/g, '/').split('/').pop()?.trim() ?? '';
  if (last === '' || last === '.' || last === '..') return fallback;
  if (bytes(last) <= NAME_BYTES) return last;
  const ext = extname(last);
  // An extension of reasonable length is kept whole; the rest of the name makes room for it.
  if (ext.length > 1 && bytes(ext) <= 32) return cut(last.slice(0, -ext.length), NAME_BYTES - bytes(ext)) + ext;
  return cut(last, NAME_BYTES);
}

/**
 * The place `parts` name under `dir` (resolved), checked before anything is opened there: each
 * part one plain name (no separator, not `.` or `..`, not empty), so the place is inside `dir`.
 * Anything else is refused (exit 1) as a name that would write elsewhere.
 */
export function inside(dir: string, ...parts: string[]): string {
  const base = resolve(dir);
  const place = join(base, ...parts);
  const plain = parts.every((p) => p !== '' && p !== '.' && p !== '..' && !/[\\/\0]/.test(p));
  const within = base.endsWith(sep) ? base : base + sep;
  if (!plain || relative(base, place) !== parts.join(sep) || !place.startsWith(within))
    throw new CliError(
      EXIT.api,
      `refusing to write ${quoted(parts.join('/'))}: it is not a file's name inside ${base}.`,
    );
  return place;
}
