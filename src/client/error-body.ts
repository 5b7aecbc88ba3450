/**
 * What an error answer says, whatever server sent it: one sentence, and the fields at fault. It
 * reads Laravel's shape (`message`, `errors: {field: [..]}`, as `pm serve` answers), RFC 9457
 * problem details (`title`, `detail`, and a list of invalid parameters under `errors`,
 * `invalid-params`, `validation` or `violations`), JSON:API's `errors: [{detail, source}]`, a list
 * under `detail` (`[{loc, msg}]`), and `{"error": ...}`; an unknown JSON body is shown whole when it is short.
 */
import { isObject as isObj } from '../core/json.js';

interface ErrorBody {
  readonly message: string;
  readonly fields?: Record<string, string[]>;
}

type Obj = Record<string, unknown>;

/** Longest unknown JSON body quoted whole in a message. */
const QUOTE_LIMIT = 300;

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/** A JSON pointer or a path of names -> a dotted field: `/custom_fields/0/value` -> custom_fields.0.value. */
function fieldName(where: unknown): string | undefined {
  if (Array.isArray(where)) {
    const parts = where.map(String).filter((p, i) => !(i === 0 && (p === 'body' || p === 'query')));
    return parts.length ? parts.join('.') : undefined;
  }
  const s = text(where);
  if (!s) return undefined;
  if (!s.startsWith('/') && !s.startsWith('#/')) return s;
  const parts = s
    .replace(/^#/, '')
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  // JSON:API puts a resource's fields under /data/attributes.
  if (parts[0] === 'data' && parts[1] === 'attributes') parts.splice(0, 2);
  return parts.length ? parts.join('.') : undefined;
}

/** One item of a list of problems: where, and what. */
function problemItem(item: unknown): [string, string] | undefined {
  if (typeof item === 'string') return ['', item];
  if (!isObj(item)) return undefined;
  const source = isObj(item.source) ? item.source : {};
  const places = [item.pointer, source.pointer, source.parameter, item.field, item.name, item.param];
  const where = [...places, item.propertyPath, item.path, item.loc].map(fieldName).find((f) => f !== undefined);
  const what = ['reason', 'detail', 'message', 'msg', 'title'].map((k) => text(item[k])).find((t) => t !== undefined);
  return what ? [where ?? '', what] : undefined;
}

/** Where a body lists the problems: by field (an object) or in a list. */
const LIST_KEYS = ['errors', 'invalid-params', 'invalid_params', 'invalidParams', 'validation', 'violations', 'detail'];

function fieldsOf(body: Obj): Record<string, string[]> | undefined {
  const fields: Record<string, string[]> = {};
  const add = (field: string, message: string) => {
    const key = field || 'body';
    fields[key] = [...(fields[key] ?? []), message];
  };
  for (const key of LIST_KEYS) {
    const v = body[key];
    if (Array.isArray(v))
      for (const item of v) {
        const p = problemItem(item);
        if (p) add(...p);
      }
    else if (isObj(v) && key !== 'detail')
      for (const [field, messages] of Object.entries(v))
        for (const m of Array.isArray(messages) ? messages : [messages]) {
          const what = text(m) ?? (isObj(m) ? problemItem(m)?.[1] : undefined);
          if (what) add(field, what);
        }
  }
  return Object.keys(fields).length ? fields : undefined;
}

function messageOf(body: Obj, fields: Record<string, string[]> | undefined): string | undefined {
  const error = body.error;
  const first = Array.isArray(body.errors) ? problemItem(body.errors[0]) : undefined;
  return (
    text(body.message) ??
    // RFC 9457: detail says this occurrence, title the kind of problem.
    text(body.detail) ??
    text(body.title) ??
    text(error) ??
    (isObj(error) ? (text(error.message) ?? text(error.detail)) : undefined) ??
    text(body.error_description) ??
    first?.[1] ??
    (fields ? Object.values(fields)[0]?.[0] : undefined)
  );
}

/**
 * The message and fields of an error answer. `body` is the parsed JSON (undefined when the answer
 * is not JSON); `excerpt` makes a short plain line of any text.
 */
export function readErrorBody(
  status: number,
  body: unknown,
  raw: string,
  excerpt: (text: string) => string,
): ErrorBody {
  if (isObj(body)) {
    const fields = fieldsOf(body);
    const message = messageOf(body, fields);
    if (message) return { message: excerpt(message), ...(fields ? { fields } : {}) };
  }
  if (body !== undefined) {
    // JSON of a shape nobody agreed on: short, it is the best message there is.
    const json = JSON.stringify(body);
    const quoted = json.length <= QUOTE_LIMIT ? json : `${json.slice(0, QUOTE_LIMIT)}... (--debug shows the answer)`;
    return { message: `the server answered ${status}: ${quoted}` };
  }
  const bit = excerpt(raw);
  return { message: `the server answered ${status}${bit ? `: ${bit}` : ' with no message'}` };
}
