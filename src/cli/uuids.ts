/**
 * Records as people name them: a uuid whole, in any case, or its first 8 characters or more, as
 * git's short hashes; and, where a link or a set names a resource's records by a field of theirs
 * (namesOf: a contact's email, a status's label), by that field, whole, case aside. What is typed
 * is checked when the flags are read (checkName, flags.ts); it is resolved here, when the command
 * runs, before anything else is asked: a beginning by one list request with the uuid filter's
 * prefix parameter (uuid_prefix, docs/api.md; a server without it needs whole uuids), a label or
 * an email by a list request filtered on it, its answers compared whole. A name that names
 * nothing is an error naming where it was typed, with the nearest names (suggest.ts), never an
 * empty answer; one that names several is an error listing them, one a line.
 */
import {
  fieldOf,
  filterRelationsOf,
  namedBy,
  namesOf,
  resourceByPath,
  whereRelationsOf,
  writableLinks,
} from '../resources/index.js';
import type { LinkDef, ResourceDef, SetDef } from '../resources/types.js';
import { HttpStatusError } from '../client/errors.js';
import { filterKind, isCodeValue, isWholeUuid, prefixParameter } from '../core/kinds.js';
import { MAX_PER_PAGE, MAX_SEARCH_VALUE } from '../core/limits.js';
import { sameText } from '../core/match.js';
import { encodeListQuery, type ListFilter, prefixFields } from '../core/query.js';
import { about } from './api-errors.js';
import { describeRecord } from './commands/shared.js';
import { CliError, EXIT, type ExitCode, usageError } from './errors.js';
import { checkName, checkUuid, flagWord, isUuidPrefix, kebab, optKey, setChangeFlags } from './flags.js';
import type { Session } from './session.js';
import { similar } from './suggest.js';
import { serverUuid } from './untrusted.js';

type Flags = Readonly<Record<string, unknown>>;
type Rec = Record<string, unknown>;

/** Records a name that names several lists, at most; the rest are counted. */
const LISTED = 10;
/** The records of a catalogue the nearest names are looked for among: one page. */
const NEAREST_AMONG = MAX_PER_PAGE;

/** What a name typed somewhere may stand for: a record of `target`, by uuid or by one of `by`, of `only`'s code. */
interface Naming {
  readonly target: ResourceDef;
  /** Fields besides the uuid that name a record whole (label, email); none: uuids alone. */
  readonly by: readonly string[];
  /** Only records whose code field has this code (a property's status is a Property status). */
  readonly only?: { readonly field: string; readonly code: number } | undefined;
  /** Where it was typed, for messages: <uuid>, --status, a line of input. */
  readonly what: string;
}

/** A record of `r` typed for `what`, by uuid or by anything its records are named by. */
const namingOf = (r: ResourceDef, what: string): Naming => ({ target: r, by: namesOf(r), what });

/** A record a link or a set names (a status, a competency), typed for `what`. */
const namingOfRelation = (rel: LinkDef | SetDef, what: string): Naming => ({
  target: resourceByPath(rel.target),
  by: rel.by.filter((b) => b !== 'uuid'),
  only: 'only' in rel ? rel.only : undefined,
  what,
});

/** The filter of the code a naming takes (type=2), as a list query's fields. */
const onlyFields = (n: Naming): Record<string, string[]> => (n.only ? { [n.only.field]: [String(n.only.code)] } : {});

/** "Property status", "contact": the records a naming takes, in words. */
function recordWords(n: Naming): string {
  const name = n.only && fieldOf(n.target, n.only.field)?.codes?.[n.only.code];
  return name ? `${name} ${n.target.singular}` : n.target.singular;
}

/** A flag's value that names nothing is a refusal (1); an argument's, a record not found (3). */
const missing = (n: Naming): ExitCode => (n.what.startsWith('--') ? EXIT.api : EXIT.notFound);

/** The records of a list answer, each with its uuid in lower case. */
async function listed(s: Session, n: Naming, filter: ListFilter): Promise<{ records: Rec[]; total: number }> {
  const page = await s.client.list(n.target, encodeListQuery(n.target, filter));
  return { records: page.records, total: Math.max(page.pagination.total, page.records.length) };
}

/** A record's uuid as a server gave it, used in paths and messages only once checked to be one (serverUuid). */
const uuidOfRecord = (x: Rec): string => serverUuid(x.uuid, 'the uuid of a record the server found');

/** A name that names several records: an error listing them (one a line, after the sentence) and how many more. */
function several(
  code: ExitCode,
  n: Naming,
  input: string,
  records: Rec[],
  total: number,
  how: string,
  remedy: string,
): CliError {
  const lines = records.map((x) => {
    const words = describeRecord(n.target, x);
    return `  ${uuidOfRecord(x)}${words ? `  ${words}` : ''}`;
  });
  if (total > lines.length) lines.push(`  and ${total - lines.length} more`);
  return new CliError(code, `${n.what} ${input} ${how} of ${total} ${n.target.plural}: ${remedy}`, {
    hint: lines.join('\n'),
  });
}

/**
 * The records whose uuid begins with `prefix`, or undefined when the server does not find records
 * so (it refuses the parameter, or answers records that do not begin so).
 */
async function byPrefix(s: Session, n: Naming, prefix: string): Promise<{ records: Rec[]; total: number } | undefined> {
  const uuid = fieldOf(n.target, 'uuid');
  const param = uuid && filterKind(uuid)?.prefix ? prefixParameter(uuid) : undefined;
  if (!param) return undefined;
  let found: { records: Rec[]; total: number };
  try {
    found = await listed(s, n, { prefixes: { uuid: prefix }, fields: onlyFields(n), perPage: LISTED });
  } catch (e) {
    // A server that does not know the parameter refuses it by name (pm serve before it had one).
    if (e instanceof HttpStatusError && e.status === 400 && e.message.includes(param)) return undefined;
    throw about(e, n.target);
  }
  // A server that ignores parameters it does not know answers records that do not begin so.
  if (found.records.some((x) => !uuidOfRecord(x).startsWith(prefix))) return undefined;
  return found;
}

/**
 * The records whose `field` is `text` whole, case aside, among those a list filtered on it answers
 * (each page); where the server refuses the filter (it is ours: a label's), or the text is longer
 * than a search takes, among every record of the catalogue.
 */
async function byField(s: Session, n: Naming, field: string, text: string): Promise<Rec[]> {
  const f = fieldOf(n.target, field);
  const whole = (x: Rec) => typeof x[field] === 'string' && sameText(x[field], text);
  const among = async (search: boolean) => {
    const fields = { ...(search ? { [field]: [text] } : {}), ...onlyFields(n) };
    const out: Rec[] = [];
    for await (const page of s.client.pages(n.target, encodeListQuery(n.target, { fields, perPage: MAX_PER_PAGE })))
      out.push(...page.records.filter(whole));
    return out;
  };
  const search = f?.filter !== undefined && text.length <= MAX_SEARCH_VALUE;
  try {
    return await among(search).catch((e) => {
      if (search && e instanceof HttpStatusError && e.status === 400) return among(false);
      throw e;
    });
  } catch (e) {
    throw about(e, n.target);
  }
}

/** A name that names nothing: what it is not, and the nearest names of the catalogue (or where to list them). */
async function nothing(s: Session, n: Naming, input: string, prefix: boolean): Promise<CliError> {
  const list = `List them with \`pm ${n.target.path} list\`.`;
  if (!n.by.length)
    return new CliError(missing(n), `${n.what}: no ${recordWords(n)} has a uuid beginning ${input}.`, { hint: list });
  // One of another code (a Contact status given for a property's): said as such.
  if (n.only) {
    const other = (await Promise.all(n.by.map((b) => byField(s, { ...n, only: undefined }, b, input)))).flat()[0];
    const code = other?.[n.only.field];
    const name = isCodeValue(code) ? fieldOf(n.target, n.only.field)?.codes?.[Number(code.code)] : undefined;
    if (other && name)
      return new CliError(EXIT.api, `${n.what} "${input}" is a ${name} ${n.target.singular}, not a ${recordWords(n)}.`);
  }
  let names: string[] = [];
  try {
    const { records } = await listed(s, n, { fields: onlyFields(n), perPage: NEAREST_AMONG });
    names = records.flatMap((x) => n.by.map((b) => x[b]).filter((v): v is string => typeof v === 'string'));
  } catch {
    // The names are a help; without them, the error still stands.
  }
  const near = similar(input, names);
  const by = [...(prefix ? ['a uuid beginning'] : []), ...n.by].join(' or ');
  return new CliError(missing(n), `${n.what}: no ${recordWords(n)} has ${by} "${input}".`, {
    hint: near.length ? `Did you mean ${near.map((x) => `"${x}"`).join(' or ')}? ${list}` : list,
  });
}

/**
 * The uuids of the records `input` names for `n` (as checkName gives it): a whole uuid as it is,
 * without a request; a beginning, the one record it begins; else the records whose `by` field is
 * it whole, case aside: one, or with `many` (a filter: any of them) every one. A name that names
 * nothing, or several where one is wanted, is an error.
 */
async function resolveName(s: Session, n: Naming, input: string, many = false): Promise<string[]> {
  const text = input.trim();
  if (isWholeUuid(text)) return [text.toLowerCase()];
  const prefix = isUuidPrefix(text);
  let unsupported = false;
  if (prefix) {
    const found = await byPrefix(s, n, text.toLowerCase());
    if (found && found.records.length === 1) return [uuidOfRecord(found.records[0] as Rec)];
    if (found && found.records.length > 1)
      throw several(
        EXIT.usage,
        n,
        text.toLowerCase(),
        found.records,
        found.total,
        'is the beginning of the uuids',
        'give more of it.',
      );
    unsupported = !found;
  }
  for (const b of n.by) {
    const found = await byField(s, n, b, text);
    if (found.length === 1 || (many && found.length)) return found.map(uuidOfRecord);
    // Labels that are not unique: the data's fault, not the command's.
    if (found.length)
      throw several(
        EXIT.api,
        n,
        `"${text}"`,
        found.slice(0, LISTED),
        found.length,
        `is the ${b}`,
        'give the uuid of one.',
      );
  }
  if (unsupported)
    throw usageError(
      `${n.what} ${text}: this server does not find ${n.target.plural} by the beginning of their uuid; give the whole uuid (36 characters).`,
      `\`pm ${n.target.path} list\` shows them whole when piped (pm ${n.target.path} list | cat).`,
    );
  throw await nothing(s, n, prefix ? text.toLowerCase() : text, prefix);
}

/**
 * The record of `r` whose uuid `input` is or begins (lower case, as checkName gives it), or that
 * it names by a field its records are named by (a contact's email): one record, else an error.
 * `what` names where it was typed (<uuid>, --property, a line of input).
 */
export async function resolveUuid(s: Session, r: ResourceDef, input: string, what: string): Promise<string> {
  return (await resolveName(s, namingOf(r, what), input)).at(0) as string;
}

// ------------------------------------------------------------------ flags that name records

/** The commands whose flags name records: a list's filters (also apply's), a create's or an update's inputs. */
type Use = 'list' | 'create' | 'update';

/** A flag that names records: where its value is kept, and what it names. */
interface NamingFlag {
  readonly key: string;
  readonly naming: Naming;
}

const namingFlag = (name: string, naming: (what: string) => Naming): NamingFlag => ({
  key: optKey(name),
  naming: naming(`--${kebab(name)}`),
});

/**
 * The flags of a command of `r` that name records, from the description: a list's uuid filter
 * (--uuid), its parents' (--property) and its links' and sets' (--status, --competency); an
 * input's links and sets, and on update the changes of a set (--add-competency).
 */
function namingFlags(r: ResourceDef, use: Use): NamingFlag[] {
  const of = (rel: LinkDef | SetDef) => (what: string) => namingOfRelation(rel, what);
  if (use === 'list')
    return [
      ...prefixFields(r).map((f) => namingFlag(f.name, (what) => ({ target: r, by: [], what }))),
      ...whereRelationsOf(r).map((p) => namingFlag(p.name, (what) => namingOf(resourceByPath(p.target), what))),
      ...filterRelationsOf(r)
        .filter(namedBy)
        .map((rel) => namingFlag(flagWord(rel), of(rel))),
    ];
  return [
    ...writableLinks(r, use).map((l) => namingFlag(l.name, of(l))),
    ...(r.sets ?? []).flatMap((set) => [
      namingFlag(set.one, of(set)),
      ...(use === 'update' ? Object.values(setChangeFlags(set)).map((x) => namingFlag(x, of(set))) : []),
    ]),
  ];
}

/** The flags with each value of a naming flag replaced by `to(value, flag)` (a list of uuids each); the same object when there are none. */
async function mapNamingFlags(
  r: ResourceDef,
  use: Use,
  flags: Flags,
  to: (input: string, n: NamingFlag) => string[] | Promise<string[]>,
): Promise<Flags> {
  const given = namingFlags(r, use).filter((u) => flags[u.key] !== undefined);
  if (!given.length) return flags;
  const out: Record<string, unknown> = { ...flags };
  for (const u of given) {
    const v = flags[u.key];
    if (Array.isArray(v)) {
      const each: string[] = [];
      for (const x of v) each.push(...(await to(String(x), u)));
      out[u.key] = [...new Set(each)];
    } else out[u.key] = (await to(String(v), u))[0];
  }
  return out;
}

/**
 * The flags of a list with each name checked (a uuid's form where only a uuid will do) and standing
 * for a whole uuid: what the other filters are checked with before anything is opened. A value
 * that cannot name a record is a usage error naming its flag.
 */
export function namingFlagsChecked(r: ResourceDef, flags: Flags): Flags {
  const out: Record<string, unknown> = { ...flags };
  for (const u of namingFlags(r, 'list')) {
    const v = flags[u.key];
    if (v === undefined) continue;
    const check = (x: unknown) => {
      const text = String(x);
      if (u.naming.by.length) checkName(u.naming.target, text, u.naming.what);
      else checkUuid(text, u.naming.what);
      return '00000000-0000-0000-0000-000000000000';
    };
    out[u.key] = Array.isArray(v) ? v.map(check) : check(v);
  }
  return out;
}

/**
 * The flags with every name resolved to the uuids of its records (a request each, the same name
 * asked once; none for whole uuids): a filter's label to each record it names, an input's to its
 * one record.
 */
export async function resolveNamingFlags(s: Session, r: ResourceDef, flags: Flags, use: Use): Promise<Flags> {
  const found = new Map<string, Promise<string[]>>();
  return mapNamingFlags(r, use, flags, (input, u) => {
    const at = `${u.naming.what} ${input.trim()}`;
    if (!found.has(at)) found.set(at, resolveName(s, u.naming, input, use === 'list'));
    return found.get(at) as Promise<string[]>;
  });
}

/**
 * A write's body with each link named by a uuid's beginning ({"uuid": "3f2a9c1e"}, from --property
 * 3f2a9c1e) naming the whole uuid of its record: a request each, none for whole uuids.
 */
export async function resolveLinkUuids(s: Session, r: ResourceDef, body: Record<string, unknown>): Promise<void> {
  for (const link of r.links ?? []) {
    const named = body[link.name];
    if (typeof named !== 'object' || named === null || !('uuid' in named)) continue;
    const u = (named as { uuid: unknown }).uuid;
    if (typeof u !== 'string' || isWholeUuid(u)) continue;
    body[link.name] = { uuid: await resolveUuid(s, resourceByPath(link.target), u, `--${kebab(link.name)}`) };
  }
}
