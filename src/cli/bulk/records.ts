/**
 * The records of a bulk write (`--from-file`, `apply`): read from a file, checked, split into what
 * is sent and what addresses it, and matched on key fields.
 */
import { CUSTOM_VALUES_KEY, fieldOf } from '../../resources/index.js';
import type { ResourceDef } from '../../resources/types.js';
import { instantMillis, isDateOnly } from '../../core/datetime.js';
import { asciiLower } from '../../core/match.js';
import { isCodeValue, isWholeUuid, KindError, uuidOf, uuidPrefixOf } from '../../core/kinds.js';
import { aOr } from '../../core/words.js';
import { visible } from '../../core/redact.js';
import { splitList } from '../flags.js';
import { similar } from '../suggest.js';
import { readFileOrStdin } from '../input.js';
import type { Deps } from '../context.js';
import { usageError } from '../errors.js';
import { fieldErrors } from '../writes.js';
import { formatOf, type InputRecord, parseRecords } from './input.js';
import type { Verb } from './flags.js';

type Rec = Record<string, unknown>;

const MAX_ERRORS_SHOWN = 50;

/** Splits a record into what is sent and what addresses it (uuid, a note's parent). */
export function prepare(
  r: ResourceDef,
  verb: Verb,
  rec: InputRecord,
): { body: Rec; problems: string[]; parent?: { resource: string; uuid: string } } {
  const body = { ...rec.body };
  if (verb !== 'create') {
    const noUuid = typeof body.uuid !== 'string' || body.uuid === '';
    return { body, problems: noUuid ? ['uuid: each record needs the uuid of the record to change'] : [] };
  }
  if (!r.parents) return { body, problems: [] };
  const given = r.parents.filter((p) => body[p.name] !== undefined);
  const [p] = given;
  const parent = p && { resource: p.target, uuid: String(body[p.name]) };
  for (const x of r.parents) delete body[x.name];
  if (given.length === 1) return { body, problems: [], parent };
  const names = r.parents.map((x) => x.name).join(' or ');
  return { body, problems: [given.length ? `give only one of ${names}` : `${aOr(r.singular)} needs a ${names} uuid`] };
}

/** The keys a record of `r` may carry in a bulk file besides the input fields. */
function extraKeys(r: ResourceDef, verb: Verb): string[] {
  const custom = r.customValues ? [CUSTOM_VALUES_KEY] : [];
  const sets = (r.sets ?? []).map((x) => x.name);
  if (verb !== 'create')
    return ['uuid', ...(r.links ?? []).filter((l) => l.onUpdate).map((l) => l.name), ...sets, ...custom];
  return [...(r.parents ?? []), ...(r.links ?? [])].map((x) => x.name).concat(sets, custom);
}

/**
 * Every problem of every record, found before anything is sent: added to the record's problems
 * (line and field), so that it fails alone and the others go through.
 */
export function checkAll(r: ResourceDef, verb: Verb, records: InputRecord[]): void {
  const known = new Set([...r.fields.map((f) => f.name), ...extraKeys(r, verb)]);
  for (const rec of records) {
    if ('verbatim' in rec) continue;
    const { body, problems } = prepare(r, verb, rec);
    rec.problems.push(...problems);
    // A delete may name a record by its uuid's beginning (3f2a9c1e), resolved when it is sent.
    if (verb !== 'create' && typeof body.uuid === 'string' && body.uuid !== '')
      try {
        if (verb === 'delete' && !isWholeUuid(body.uuid)) uuidPrefixOf(body.uuid);
        else uuidOf(body.uuid);
      } catch (e) {
        if (!(e instanceof KindError)) throw e;
        rec.problems.push(`uuid: ${e.message}`);
      }
    if (verb === 'delete') continue;
    for (const key of Object.keys(rec.body))
      if (!known.has(key)) {
        const like = similar(key, [...known]);
        rec.problems.push(
          `${key}: not a field of ${r.plural}${like.length ? `; did you mean ${like.join(' or ')}?` : ''}`,
        );
      }
    const { uuid: _uuid, ...rest } = body;
    const errors = fieldErrors(r, verb === 'update' ? rest : body, verb);
    // Fields an update must send but the record leaves out are read from the server (fillForUpdate).
    if (verb === 'update' && errors)
      for (const f of r.fields) if (f.requiredOnUpdate && rest[f.name] === undefined) delete errors[f.name];
    for (const [field, msgs] of Object.entries(errors ?? {})) for (const m of msgs) rec.problems.push(`${field}: ${m}`);
  }
}

/** The problems of the records that have some, one line each (at most MAX_ERRORS_SHOWN). */
export function problemLines(records: readonly InputRecord[]): string {
  const lines = records.flatMap((rec) => rec.problems.map((p) => `  line ${rec.line}: ${visible(p)}`));
  const shown = lines.slice(0, MAX_ERRORS_SHOWN);
  const more = lines.length - shown.length;
  return `${shown.join('\n')}\n${more > 0 ? `  … and ${more} more\n` : ''}`;
}

/** A value as compared for --skip-existing: instants as instants, the rest as text. */
export function keyPart(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') {
    const at = /^\d{4}-\d{2}-\d{2}/.test(v) ? instantMillis(v) : undefined;
    if (at !== undefined) return `${isDateOnly(v) ? 'd' : 't'}${at}`;
    return `s${v}`;
  }
  if (isCodeValue(v)) return `c${v.code}`;
  return JSON.stringify(v);
}

/**
 * A record's values on the key fields (--skip-existing, apply's --key), as compared: the label
 * a record of `r` is known by (`labelledBy`) ASCII case aside, as the server compares it.
 */
export const keyOf = (keys: readonly string[], x: Rec, r?: ResourceDef): string => {
  const label = r?.labelledBy?.at(-1);
  const part = (k: string) => (k === label && typeof x[k] === 'string' ? keyPart(asciiLower(x[k])) : keyPart(x[k]));
  return keys.map(part).join('\u0000');
};

/** The fields records are matched on (--skip-existing, apply's --key): names of the resource's fields. */
export function keyFields(r: ResourceDef, text: string, flag: string): string[] {
  const keys = splitList(text).map((k) => k.replace(/-/g, '_'));
  const bad = keys.filter((k) => !fieldOf(r, k) || k === 'uuid');
  if (!keys.length || bad.length)
    throw usageError(
      `${flag}: ${bad.length ? `${r.path} have no field ${bad.map((b) => `"${b}"`).join(', ')}` : 'give field names'}.`,
      `Fields: ${r.fields.map((f) => f.name).join(', ')}.`,
    );
  return keys;
}

/** The records of --from-file (or - for standard input), in the format its name or text says. */
export async function readRecords(r: ResourceDef, file: string, forced: string | undefined, deps: Deps) {
  const text = await readFileOrStdin(file, deps, '--from-file');
  const where = file === '-' ? 'standard input' : file;
  const format = formatOf(file, where, forced, text);
  return { records: await parseRecords(r, text, format, where), format, where };
}
