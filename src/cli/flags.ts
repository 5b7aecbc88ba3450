/**
 * Flags derived from the resource descriptions: the list filters and the input fields of each
 * resource, declared. What their values become (query parameters, bodies) is flag-values.ts.
 * Wire names are snake_case; flags are their kebab-case.
 */
import { type Command, Option } from 'commander';
import {
  fieldOf,
  filterFields,
  filterRelationsOf,
  inputFields,
  namedBy,
  namesOf,
  resourceByPath,
  whereRelationsOf,
  writableLinks,
} from '../resources/index.js';
import type { FilterKind, LinkDef, ResourceDef, SetDef } from '../resources/types.js';
import { FIELD_KINDS, FILTER_KINDS, isWholeUuid, KindError, uuidOf, uuidPrefixOf } from '../core/kinds.js';
import { usageError } from './errors.js';

export const kebab = (name: string): string => name.replace(/_/g, '-');
/** The key commander stores a flag's value under: has_garage -> hasGarage. */
export const optKey = (name: string): string => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** The names of a comma-separated flag value ("a, b,,c" -> a, b, c). */
export const splitList = (text: string): string[] =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** The fields records of `r` are told apart by in a file (apply's --key, --skip-existing): its required text. */
export const matchKeys = (r: ResourceDef): string =>
  r.fields
    .filter((f) => f.requiredOnCreate && f.kind === 'text')
    .map((f) => f.name)
    .join(',');

// ------------------------------------------------------------------ links and sets

/** Whether a value has a uuid's form (a flag's value is then a uuid, not a label; a candidate is what it claims). */
export function isUuid(text: unknown): text is string {
  return typeof text === 'string' && text.trim() === text && isWholeUuid(text);
}

/**
 * A uuid argument or flag (`what`: <uuid>, --property), in lower case: whole, or its first 8
 * characters or more, which the run resolves (uuids.ts). Anything else is refused before a
 * request is made.
 */
export function checkUuid(value: string, what: string): string {
  try {
    return isWholeUuid(value) ? uuidOf(value) : uuidPrefixOf(value);
  } catch (e) {
    throw e instanceof KindError ? usageError(`${what} ${e.message}`) : e;
  }
}

/**
 * A record of `target` as typed for `what` (<uuid>, --contact): a uuid or its beginning, as
 * checkUuid takes them, or, where its records are also named by a field (namesOf: a contact's
 * email, a status's label), any text that is not empty. The run resolves it (uuids.ts).
 */
export function checkName(target: ResourceDef, value: string, what: string): string {
  if (!namesOf(target).length) return checkUuid(value, what);
  const v = value.trim();
  if (!v) throw usageError(`${what} needs a uuid or ${namesOf(target).join(' or ')}, not an empty value.`);
  return isUuidPrefix(v) ? v.toLowerCase() : v;
}

/** Whether text has the form of a uuid's first 8 characters or more, in any case (3f2a9c1e, 3F2A9C1E-5B7D). */
export function isUuidPrefix(text: string): boolean {
  try {
    uuidPrefixOf(text);
    return true;
  } catch {
    return false;
  }
}

/** A link (a status) or a set (competencies): records named by one of `by`, a uuid or a label. */
export type Named = LinkDef | SetDef;

/** The wire name of the word its flags are made of: a link's own name (status), one of a set (competency). */
export const flagWord = (n: Named): string => ('one' in n ? n.one : n.name);

/**
 * The field a person knows the records of `n` by, where they may be named by it: its target's
 * first column (a status's label). None for a contact: named by uuid or email, known by name.
 */
export function knownBy(n: Named): string | undefined {
  const target = resourceByPath(n.target);
  return n.by.find((b) => b !== 'uuid' && fieldOf(target, b)?.column === 1);
}

/** `<uuid|label>`: what a flag naming a record of `n` takes. */
const byPlaceholder = (n: Named): string => `<${n.by.join('|')}>`;

/** "contact type, by uuid or label": what a flag names, for its help. */
const byWords = (n: Named): string => `${resourceByPath(n.target).singular}, by ${n.by.join(' or ')}`;

/** The flags that change a set on update, by wire name: add_competency, remove_competency. */
export const setChangeFlags = (set: SetDef) => ({ add: `add_${set.one}`, remove: `remove_${set.one}` });

/** The flag clearing a link on update, by wire name: no_status (--no-status). */
export const clearFlag = (link: LinkDef): string => `no_${link.name}`;

/**
 * A switch of its own (noStatus): commander would make --no-status the negation of --status, one
 * value where the last given wins, so that giving both could not be seen and refused.
 */
function ownSwitch(name: string, description: string): Option {
  const o = new Option(`--${kebab(name)}`, description);
  o.negate = false;
  return o;
}

function addNamedInputFlags(cmd: Command, r: ResourceDef, mode: 'create' | 'update'): void {
  for (const link of writableLinks(r, mode)) {
    cmd.option(`--${kebab(link.name)} ${byPlaceholder(link)}`, `the ${byWords(link)}`);
    const clear = `clear the ${resourceByPath(link.target).singular}: send it as null`;
    if (mode === 'update') cmd.addOption(ownSwitch(clearFlag(link), clear));
  }
  for (const set of r.sets ?? []) {
    const whole = mode === 'create' ? `all of them are its ${set.name}` : `they replace its ${set.name}`;
    cmd.option(`--${kebab(set.one)} ${byPlaceholder(set)}`, `a ${byWords(set)} (repeatable: ${whole})`, collect);
    if (mode === 'create') continue;
    const { add, remove } = setChangeFlags(set);
    cmd.option(
      `--${kebab(add)} ${byPlaceholder(set)}`,
      `add to its ${set.name}: a ${byWords(set)} (repeatable)`,
      collect,
    );
    cmd.option(
      `--${kebab(remove)} ${byPlaceholder(set)}`,
      `remove from its ${set.name}: a ${byWords(set)} (repeatable)`,
      collect,
    );
  }
}

/** How the link and set flags of an update combine: --status with --no-status, --competency with --add-competency, refused. */
export function checkNamedFlags(r: ResourceDef, flags: Readonly<Record<string, unknown>>): void {
  for (const link of writableLinks(r, 'update'))
    if (flags[optKey(link.name)] !== undefined && flags[optKey(clearFlag(link))] === true)
      throw usageError(`--${kebab(link.name)} and --${kebab(clearFlag(link))} cannot be used together.`);
  for (const set of r.sets ?? []) {
    const { add, remove } = setChangeFlags(set);
    const changes = [add, remove].filter((x) => flags[optKey(x)] !== undefined).map((x) => `--${kebab(x)}`);
    if (flags[optKey(set.one)] !== undefined && changes.length)
      throw usageError(
        `--${kebab(set.one)} cannot be combined with ${changes.join(' or ')}: it gives the whole set of ${set.name}.`,
      );
  }
}

// ------------------------------------------------------------------ list filters

/** Filters of `target` as --property-where takes them, from its fields' examples: a text one and a number. */
function whereExamples(target: ResourceDef): string {
  const one = (kinds: readonly string[]) =>
    filterFields(target).find((f) => kinds.includes(f.filter as string) && f.example && !/\s/.test(f.example));
  return [one(['fuzzy', 'postcode']), one(['int', 'code'])]
    .flatMap((f) => (f ? [`${f.name}=${f.example}`] : []))
    .join(', ');
}

export function addFilterFlags(cmd: Command, r: ResourceDef): void {
  for (const f of filterFields(r)) {
    const flag = kebab(f.name);
    const kind = FILTER_KINDS[f.filter as FilterKind];
    if (!kind.placeholder) {
      cmd.option(`--${flag}`, kind.help(f));
      cmd.option(`--no-${flag}`, `only those where "${f.description}" is false`);
    } else if (kind.arrayable) cmd.option(`--${flag} <${kind.placeholder(f)}>`, kind.help(f), collect);
    else cmd.option(`--${flag} <${kind.placeholder(f)}>`, kind.help(f));
  }
  for (const rel of whereRelationsOf(r)) {
    const target = resourceByPath(rel.target);
    cmd.option(`--${rel.name} <uuid>`, `only those of this ${target.singular} (repeatable: any of them)`, collect);
    cmd.option(
      `--${rel.name}-where <field=value>`,
      `only those whose ${target.singular} matches a ${target.path} filter: ${whereExamples(target)} (repeatable: all apply)`,
      collect,
    );
  }
  for (const rel of filterRelationsOf(r).filter(namedBy))
    cmd.option(
      `--${kebab(flagWord(rel))} ${byPlaceholder(rel)}`,
      `only those ${'one' in rel ? 'with' : 'of'} this ${byWords(rel)} (the ${rel.by.filter((b) => b !== 'uuid').join(' or ')} whole, ignoring case; repeatable: any of them)`,
      collect,
    );
  if (r.customValues) {
    cmd.option(
      '--custom-field <name=value>',
      'only those whose custom field NAME has a value containing VALUE (NAME=: any value)',
    );
    cmd.option('--custom-value <text>', 'only those with a custom field value containing TEXT');
  }
}

// ------------------------------------------------------------------ input bodies

export function addInputFlags(cmd: Command, r: ResourceDef, mode: 'create' | 'update'): void {
  for (const f of inputFields(r)) {
    const flag = kebab(f.name);
    const req = mode === 'create' && f.requiredOnCreate && f.clientDefault === undefined ? ' (required)' : '';
    const given = f.default ?? f.clientDefault;
    const def =
      mode === 'create' && given !== undefined
        ? ` (default: ${given === false ? 'no' : given === true ? 'yes' : given})`
        : '';
    const kind = FIELD_KINDS[f.kind];
    if (!kind.placeholder) {
      cmd.option(`--${flag}`, kind.help(f, `${req}${def}`));
      cmd.option(`--no-${flag}`, `not: ${f.description}`);
    } else cmd.option(`--${flag} <${kind.placeholder}>`, kind.help(f, `${req}${def}`));
  }
  addNamedInputFlags(cmd, r, mode);
  if (r.customValues)
    cmd.option(
      '--custom-field <name=value>',
      'set the value of the custom field named NAME (repeatable; NAME= clears it)',
      collect,
    );
  if (mode === 'update') cmd.option('--unset <field>', 'clear a field: set it to null (repeatable)', collect);
  cmd.option('--data <json>', 'the body as JSON, @file.json, or - for stdin; flags override its fields');
  cmd.option('--dry-run', 'print the request that would be sent, and send nothing');
}
