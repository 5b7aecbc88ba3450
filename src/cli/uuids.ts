/**
 * uuids as people type them: whole, in any case, or their first 8 characters or more, as git's
 * short hashes. What is typed is checked when the flags are read (checkUuid, commands/resource.ts);
 * a prefix is resolved here, when the command runs, by one list request with the uuid filter's
 * prefix parameter (uuid_prefix, docs/api.md). A server without it needs whole uuids.
 */
import { fieldOf, resourceByPath, whereRelationsOf } from '../resources/index.js';
import type { ResourceDef } from '../resources/types.js';
import { HttpStatusError } from '../client/errors.js';
import { filterKind, isWholeUuid, prefixParameter, uuidFrom } from '../core/kinds.js';
import { encodeListQuery, prefixFields } from '../core/query.js';
import { visible } from '../core/redact.js';
import { about } from './api-errors.js';
import { describeRecord } from './commands/shared.js';
import { CliError, EXIT, usageError } from './errors.js';
import { checkUuid, kebab, optKey } from './flags.js';
import type { Session } from './session.js';

type Flags = Readonly<Record<string, unknown>>;

/** Records a prefix that names several lists, at most; the rest are counted. */
const LISTED = 10;

/**
 * The record of `r` whose uuid `input` is or begins (lower case, as checkUuid gives it): a whole
 * uuid as it is, without a request. Several records: a usage error listing them; none: not found.
 * `what` names where it was typed (<uuid>, --property, a line of input).
 */
export async function resolveUuid(s: Session, r: ResourceDef, input: string, what: string): Promise<string> {
  if (isWholeUuid(input)) return input.trim().toLowerCase();
  const uuid = fieldOf(r, 'uuid');
  const param = uuid && filterKind(uuid)?.prefix ? prefixParameter(uuid) : undefined;
  const wholeNeeded = () =>
    usageError(
      `${what} ${input}: this server does not find ${r.plural} by the beginning of their uuid; give the whole uuid (36 characters).`,
      `\`pm ${r.path} list\` shows them whole when piped (pm ${r.path} list | cat).`,
    );
  if (!param) throw wholeNeeded();
  let page: Awaited<ReturnType<Session['client']['list']>>;
  try {
    page = await s.client.list(r, encodeListQuery(r, { prefixes: { uuid: input }, perPage: LISTED }));
  } catch (e) {
    // A server that does not know the parameter refuses it by name (pm serve before it had one).
    if (e instanceof HttpStatusError && e.status === 400 && e.message.includes(param)) throw wholeNeeded();
    throw about(e, r);
  }
  const uuids = page.records.map((x) => (typeof x.uuid === 'string' ? x.uuid.toLowerCase() : ''));
  // A server that ignores parameters it does not know answers records that do not begin so.
  if (uuids.some((u) => !u.startsWith(input))) throw wholeNeeded();
  const [first, second] = uuids;
  if (first === undefined)
    throw new CliError(EXIT.notFound, `${what}: no ${r.singular} has a uuid beginning ${input}.`, {
      hint: `List them with \`pm ${r.path} list\`.`,
    });
  if (second === undefined) return first;
  const total = Math.max(page.pagination.total, uuids.length);
  const lines = page.records.map((x, i) => {
    const words = describeRecord(r, x);
    return `  ${uuids[i]}${words ? `  ${words}` : ''}`;
  });
  if (total > lines.length) lines.push(`  and ${total - lines.length} more`);
  throw new CliError(
    EXIT.usage,
    `${what} ${input} is the beginning of the uuids of ${total} ${r.plural}: give more of it.\n${visible(lines.join('\n'), true)}`,
  );
}

/** A list flag that takes uuids: the records' own (--uuid) or a parent's (--property), and whose records they are. */
interface UuidFlag {
  readonly key: string;
  readonly flag: string;
  readonly target: ResourceDef;
}

function uuidFlags(r: ResourceDef): UuidFlag[] {
  return [
    ...prefixFields(r).map((f) => ({ key: optKey(f.name), flag: kebab(f.name), target: r })),
    ...whereRelationsOf(r).map((p) => ({ key: optKey(p.name), flag: p.name, target: resourceByPath(p.target) })),
  ];
}

/** The flags with each value of a uuid flag replaced by `to(value, flag)`; the same object when there are none. */
function mapUuidFlags(r: ResourceDef, flags: Flags, to: (input: string, u: UuidFlag) => string): Flags {
  const given = uuidFlags(r).filter((u) => flags[u.key] !== undefined);
  if (!given.length) return flags;
  const out: Record<string, unknown> = { ...flags };
  for (const u of given) {
    const v = flags[u.key];
    out[u.key] = Array.isArray(v) ? v.map((x) => to(String(x), u)) : to(String(v), u);
  }
  return out;
}

/**
 * The list flags with a uuid's beginning (--property 3f2a9c1e) standing for a whole uuid that
 * begins so: what the other filters are checked with before anything is opened. A value that is
 * neither is a usage error naming its flag.
 */
export function uuidFlagsChecked(r: ResourceDef, flags: Flags): Flags {
  return mapUuidFlags(r, flags, (input, u) => (isWholeUuid(input) ? input : uuidFrom(checkUuid(input, `--${u.flag}`))));
}

/** The list flags with each uuid's beginning resolved to the uuid of its record (a request each; none for whole uuids). */
export async function resolveUuidFlags(s: Session, r: ResourceDef, flags: Flags): Promise<Flags> {
  const wanted: [string, UuidFlag][] = [];
  mapUuidFlags(r, flags, (input, u) => {
    if (!isWholeUuid(input)) wanted.push([input, u]);
    return input;
  });
  if (!wanted.length) return flags;
  const found = new Map<string, string>();
  const at = (input: string, u: UuidFlag) => `${u.target.path} ${input.trim().toLowerCase()}`;
  for (const [input, u] of wanted)
    found.set(at(input, u), await resolveUuid(s, u.target, input.trim().toLowerCase(), `--${u.flag}`));
  return mapUuidFlags(r, flags, (input, u) => found.get(at(input, u)) ?? input);
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
