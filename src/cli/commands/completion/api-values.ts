/**
 * Completion of `pm api METHOD PATH -F KEY=VALUE` from an OpenAPI document: the server's own
 * (/openapi.json), or this build's when the server has none. The document is reduced to what
 * completion needs (ApiMap), which is what the completion cache keeps.
 */
import { isObject as isObj } from '../../../core/json.js';
import type { Candidate } from '../../../core/kinds.js';
import { BODY_METHODS, METHODS } from '../api/methods.js';
import type { Completions } from './limits.js';

/** Per path template, per method: a summary, and the keys `-F` may give (query or body). */
export type ApiMap = Record<string, Record<string, { summary: string; keys: Candidate[] }>>;

type Obj = Record<string, unknown>;

/** `#/components/schemas/X` inside the document. */
function resolve(doc: Obj, v: unknown): Obj {
  let at: unknown = v;
  for (let i = 0; i < 8 && isObj(at) && typeof at.$ref === 'string' && at.$ref.startsWith('#/'); i++) {
    const ref: string = at.$ref;
    at = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((o, k) => (isObj(o) ? o[k.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), doc);
  }
  return isObj(at) ? at : {};
}

/** The paths and methods of a document, with the keys each takes; empty for anything else. */
export function apiMapOf(doc: unknown): ApiMap {
  const map: ApiMap = {};
  if (!isObj(doc) || !isObj(doc.paths)) return map;
  for (const [template, rawItem] of Object.entries(doc.paths)) {
    const item = resolve(doc, rawItem);
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const [method, rawOp] of Object.entries(item)) {
      const m = method.toUpperCase();
      if (!METHODS.includes(m) || !isObj(rawOp)) continue;
      const keys: Candidate[] = [];
      if (BODY_METHODS.includes(m)) {
        const body = resolve(doc, rawOp.requestBody);
        const media = isObj(body.content) ? body.content['application/json'] : undefined;
        const schema = resolve(doc, isObj(media) ? media.schema : undefined);
        for (const [name, s] of Object.entries(isObj(schema.properties) ? schema.properties : {}))
          keys.push({ value: name, description: String(resolve(doc, s).description ?? '') });
      } else
        for (const p of [...shared, ...(Array.isArray(rawOp.parameters) ? rawOp.parameters : [])]) {
          const param = resolve(doc, p);
          if (param.in === 'query' && typeof param.name === 'string')
            keys.push({ value: param.name, description: String(param.description ?? '') });
        }
      map[template] ??= {};
      map[template][m] = { summary: String(rawOp.summary ?? ''), keys };
    }
  }
  return map;
}

/** The template a concrete path is an instance of (`/properties/3f2a…` -> `/properties/{uuid}`). */
function templateOf(map: ApiMap, path: string): string | undefined {
  const bare = path.split('?')[0] ?? '';
  return Object.keys(map).find((t) =>
    new RegExp(`^${t.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^/]+\}/g, '[^/]+')}$`).test(bare),
  );
}

/** `pm api <method>`: the methods the document has, in the case being typed. */
export function methodValues(map: ApiMap, cur: string): Completions {
  const methods = [...new Set(Object.values(map).flatMap((ops) => Object.keys(ops)))];
  const lower = cur !== '' && cur === cur.toLowerCase();
  return {
    candidates: methods.map((m) => ({
      value: lower ? m.toLowerCase() : m,
      description: `${Object.values(map).filter((ops) => m in ops).length} paths`,
    })),
  };
}

/**
 * `pm api METHOD <path>`: the paths that take METHOD. A path with a uuid in it is offered up to
 * the uuid (`/properties/`); once that is typed, `uuids` gives the records of that collection.
 */
export async function pathValues(
  map: ApiMap,
  method: string,
  cur: string,
  uuids: (collection: string) => Promise<Candidate[]>,
): Promise<Completions> {
  const m = method.toUpperCase();
  const templates = Object.keys(map).filter((t) => map[t]?.[m]);
  const at = /^\/([^/]+)\/([^/]*)$/.exec(cur);
  if (at && templates.some((t) => t.startsWith(`/${at[1]}/{`))) {
    const collection = at[1] as string;
    const ends = templates
      .filter((t) => t.startsWith(`/${collection}/{`))
      .map((t) => t.replace(/^\/[^/]+\/\{[^/]+\}/, ''));
    const typed = at[2] as string;
    const records = (await uuids(collection)).filter((r) => r.value.startsWith(typed));
    return {
      candidates: records.flatMap((r) =>
        ends.map((end) => ({
          value: `/${collection}/${r.value}${end}`,
          ...(r.description ? { description: r.description } : {}),
        })),
      ),
    };
  }
  const seen = new Map<string, string>();
  for (const t of templates) {
    const open = t.indexOf('{');
    const value = open < 0 ? t : t.slice(0, open);
    if (!seen.has(value)) seen.set(value, open < 0 ? (map[t]?.[m]?.summary ?? '') : `${t} …`);
  }
  const candidates = [...seen].map(([value, description]) => ({ value, description }));
  return { candidates, nospace: candidates.some((c) => c.value.endsWith('/')) };
}

/** `pm api METHOD PATH -F <key=value>`: the query parameters or body fields of that operation. */
export function fieldValues(map: ApiMap, method: string, path: string, cur: string): Completions {
  if (cur.includes('=')) return { candidates: [] };
  const template = templateOf(map, path);
  const op = template ? map[template]?.[method.toUpperCase()] : undefined;
  return {
    candidates: (op?.keys ?? []).map((k) => ({ ...k, value: `${k.value}=` })),
    nospace: true,
  };
}
