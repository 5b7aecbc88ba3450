/**
 * The work of tab completion (loaded when `pm completion` or `pm __complete` runs): the scripts
 * call back into the hidden `pm __complete -- <words…>`, which prints the candidates for the last
 * word, derived from the commander tree and the resource descriptions, not from lists in shell.
 * Its output, and the uuids it fetches from the API and caches: docs/completion.md.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import { join } from 'node:path';
import type { Command, Option } from 'commander';
import { OPENAPI_PATH } from '../../../core/endpoints.js';
import { MAX_PER_PAGE } from '../../../core/limits.js';
import { openApiDocument } from '../../../core/openapi.js';
import { cacheDir } from '../../../core/paths.js';
import { knownProfiles, loadConfig, resolveTarget } from '../../config.js';
import { keyNames } from '../../config-keys.js';
import { commandAt, isHidden, TOPICS } from '../../help/index.js';
import { fieldNames, formatsOf } from '../../output/index.js';
import { type Session, withSession } from '../../session.js';
import { writeFileAtomic } from '../../write-file.js';
import { describeRecord } from '../shared.js';
import { encodeListQuery } from '../../../core/query.js';
import { visible } from '../../../core/redact.js';
import { flagWord, isUuid, kebab, knownBy, type Named, setChangeFlags } from '../../flags.js';
import type { Deps } from '../../context.js';
import { type Candidate, fieldKind, filterKind } from '../../../core/kinds.js';
import {
  customFields,
  embedNames,
  fieldOf,
  filterFields,
  inputFields,
  resourceByPath,
  RESOURCES,
  whereRelationsOf,
} from '../../../resources/index.js';
import type { ResourceDef } from '../../../resources/types.js';
import type { GlobalOptions } from '../../globals.js';

import { apiMapOf, fieldValues, methodValues, pathValues, type ApiMap } from './api-values.js';
import { CACHE_TTL_MS, type Completions, EMBEDDED_TIMEOUT_MS, TIMEOUT_MS } from './limits.js';

export const NONE: Completions = { candidates: [] };

// ------------------------------------------------------------------ registration

export function formatCompletions(c: Completions): string {
  // A description may come from the server (a custom field's label): nothing in it acts on a
  // terminal. A candidate with a control character in it (a line break would add a directive) is
  // never offered.
  const clean = (s: string) => visible(s).replace(/ {2,}/g, ' ').trim();
  let out = '';
  for (const x of c.candidates) {
    if (visible(x.value) !== x.value) continue;
    const d = x.description ? clean(x.description) : '';
    out += d ? `${x.value}\t${d.length > 70 ? `${d.slice(0, 69)}…` : d}\n` : `${x.value}\n`;
  }
  const directive = [c.nospace ? 'nospace' : '', c.files ? 'files' : ''].filter(Boolean).join(',');
  return `${out}:${directive}\n`;
}

// ------------------------------------------------------------------ the command line

interface Context {
  readonly root: Command;
  /** The command the words name so far. */
  readonly cmd: Command;
  /** root … cmd. */
  readonly chain: readonly Command[];
  /** The resource of `pm <resource> <verb>`, if any. */
  readonly resource: ResourceDef | undefined;
  readonly positionals: readonly string[];
  readonly used: ReadonlySet<Option>;
  readonly globals: Pick<GlobalOptions, 'baseUrl' | 'profile'>;
  readonly deps: Deps;
}

/** Whether the words name the top-level command `name` (`pm api …`, `pm help …`). */
const isTop = (ctx: Context, name: string): boolean => ctx.cmd.parent === ctx.root && ctx.cmd.name() === name;
const takesValue = (o: Option): boolean => o.required || o.optional;
const repeatable = (o: Option): boolean => o.variadic || (o.parseArg !== undefined && !o.argChoices);

/** The option `flag` names, the nearest command's first (as commander reads them). */
function findOption(chain: readonly Command[], flag: string): Option | undefined {
  return [...chain]
    .reverse()
    .flatMap((c) => c.options)
    .find((o) => o.long === flag || o.short === flag);
}

/** Completes the last of `words` (the words after "pm"). */
export async function complete(root: Command, words: readonly string[], deps: Deps): Promise<Completions> {
  const chain: Command[] = [root];
  let cmd = root;
  const positionals: string[] = [];
  const used = new Set<Option>();
  const globals: Context['globals'] = {};
  let pending: Option | undefined;
  let afterDashDash = false;
  const setGlobal = (o: Option, v: string) => {
    if (!root.options.includes(o)) return;
    if (o.long === '--base-url') globals.baseUrl = v;
    if (o.long === '--profile') globals.profile = v;
  };

  for (const w of words.slice(0, -1)) {
    // An option's value: always the next word for <value>, and for [value] when it is not a flag
    // (as commander reads them).
    if (pending && (pending.required || !w.startsWith('-'))) {
      setGlobal(pending, w);
      pending = undefined;
      continue;
    }
    pending = undefined;
    if (!afterDashDash && w === '--') {
      afterDashDash = true;
      continue;
    }
    if (!afterDashDash && w.startsWith('-') && w.length > 1) {
      const eq = w.startsWith('--') ? w.indexOf('=') : -1;
      const flag = eq > 0 ? w.slice(0, eq) : w;
      const o = findOption(chain, flag);
      if (o) {
        used.add(o);
        if (eq > 0) setGlobal(o, w.slice(eq + 1));
        else if (takesValue(o)) pending = o;
      }
      continue;
    }
    const sub = positionals.length === 0 && !afterDashDash ? commandAt(cmd, [w]) : undefined;
    if (sub) {
      cmd = sub;
      chain.push(sub);
    } else positionals.push(w);
  }

  const cur = words[words.length - 1] ?? '';
  const resource = RESOURCES.find((r) => r.path === chain[1]?.name());
  const ctx: Context = { root, cmd, chain, resource, positionals, used, globals, deps };

  if (pending && (pending.required || !cur.startsWith('-'))) {
    const values = filter(await optionValues(pending, cur, ctx), cur);
    // [value] is optional: with nothing to offer for it, complete as if it were not there.
    if (pending.required || values.candidates.length || values.files) return values;
  }
  if (!afterDashDash && cur.startsWith('--') && cur.includes('=')) {
    const eq = cur.indexOf('=');
    const o = findOption(chain, cur.slice(0, eq));
    if (!o || !takesValue(o)) return NONE;
    const values = await optionValues(o, cur.slice(eq + 1), ctx);
    const prefix = cur.slice(0, eq + 1);
    return filter({ ...values, candidates: values.candidates.map((c) => ({ ...c, value: prefix + c.value })) }, cur);
  }
  if (!afterDashDash && cur.startsWith('-')) return filter({ candidates: flagCandidates(ctx) }, cur);

  const subs = positionals.length === 0 && !afterDashDash ? commandCandidates(cmd) : [];
  if (subs.length) return filter({ candidates: subs }, cur);
  const args = filter(await argumentValues(ctx, cur), cur);
  // A positional argument the command needs (a uuid, a shell…) is offered alone, even with no values.
  if (args.candidates.length || args.files || cmd.registeredArguments[positionals.length]?.required) return args;
  // Nothing else to offer: the flags, so that a bare TAB shows what the command takes.
  return cur === '' ? { candidates: flagCandidates(ctx) } : NONE;
}

/** Candidates that are these values, without descriptions. */
function valuesOf(list: readonly string[]): Completions {
  return { candidates: list.map((value) => ({ value })) };
}

function filter(c: Completions, cur: string): Completions {
  return { ...c, candidates: c.candidates.filter((x) => x.value.startsWith(cur)) };
}

function commandCandidates(cmd: Command): Candidate[] {
  if (cmd.commands.length === 0) return [];
  return cmd
    .createHelp()
    .visibleCommands(cmd)
    .filter((c) => !isHidden(c))
    .map((c) => ({ value: c.name(), description: (c.summary() || c.description()).split('\n')[0] }));
}

function flagCandidates(ctx: Context): Candidate[] {
  const out: Candidate[] = [];
  const seen = new Set<string>();
  const usedKeys = new Set([...ctx.used].filter((o) => !repeatable(o)).map((o) => o.attributeName()));
  for (const c of [...ctx.chain].reverse()) {
    for (const o of c.options) {
      const name = o.long ?? o.short;
      if (!name || o.hidden || seen.has(name)) continue;
      // `pm properties list --version` works, but is not worth offering below the root.
      if (c === ctx.root && ctx.cmd !== ctx.root && o.long === '--version') continue;
      seen.add(name);
      if (usedKeys.has(o.attributeName())) continue;
      out.push({ value: name, description: o.description });
    }
  }
  if (!isHidden(ctx.cmd)) out.push({ value: '--help', description: 'show help' });
  return out;
}

// ------------------------------------------------------------------ values

/** The values of a positional argument. */
async function argumentValues(ctx: Context, cur: string): Promise<Completions> {
  const { cmd } = ctx;
  if (isTop(ctx, 'help')) return helpValues(ctx);
  if (isTop(ctx, 'api')) {
    const map = await apiMap(ctx);
    if (ctx.positionals.length === 0) return methodValues(map, cur);
    if (ctx.positionals.length === 1)
      return pathValues(map, ctx.positionals[0] as string, cur, async (collection) => {
        const r = RESOURCES.find((x) => x.path === collection);
        return r ? uuids(r, ctx) : [];
      });
    return NONE;
  }
  // pm config get|set|unset KEY: the keys each takes, from the table of config keys.
  if (cmd.parent?.name() === 'config' && cmd.parent.parent === ctx.root && ctx.positionals.length === 0) {
    const op = cmd.name();
    if (op === 'get' || op === 'set' || op === 'unset') return valuesOf(keyNames((k) => k[op]));
  }
  const args = cmd.registeredArguments;
  const arg = args[Math.min(ctx.positionals.length, args.length - 1)];
  if (!arg || (ctx.positionals.length >= args.length && !arg.variadic)) return NONE;
  if (arg.argChoices) return valuesOf(arg.argChoices);
  if (arg.name() === 'uuid' && ctx.resource) {
    const given = new Set(ctx.positionals);
    const all = await uuids(ctx.resource, ctx);
    return { candidates: all.filter((c) => !given.has(c.value)) };
  }
  return NONE;
}

function helpValues(ctx: Context): Completions {
  const at = commandAt(ctx.root, ctx.positionals);
  if (!at) return NONE;
  const commands = commandCandidates(at).filter((c) => !(at === ctx.root && c.value === 'help'));
  if (ctx.positionals.length) return { candidates: commands };
  return { candidates: [...TOPICS.map((t) => ({ value: t.name, description: t.summary })), ...commands] };
}

/** `a,b,` + one more name: for --json and --fields. */
function commaList(names: readonly string[], cur: string): Completions {
  const cut = cur.lastIndexOf(',') + 1;
  const prefix = cur.slice(0, cut);
  const done = new Set(prefix.split(',').map((s) => s.trim()));
  return { candidates: names.filter((n) => !done.has(n)).map((n) => ({ value: prefix + n })), nospace: true };
}

/** FIELD= for --property-where and the like; then the field's values when they are few. */
function whereValues(target: ResourceDef, cur: string, now: number): Completions {
  const eq = cur.indexOf('=');
  if (eq < 0)
    return {
      candidates: filterFields(target).map((f) => ({ value: `${f.name}=`, description: f.description })),
      nospace: true,
    };
  const f = fieldOf(target, cur.slice(0, eq).replace(/-/g, '_'));
  const prefix = cur.slice(0, eq + 1);
  if (!f) return NONE;
  const values = filterKind(f)?.complete?.(f, now) ?? [];
  return { candidates: values.map((c) => ({ ...c, value: prefix + c.value })) };
}

/** Files for `@file` (as --data takes), listed here so that every shell does the same. */
async function atFiles(cur: string, cwd: string): Promise<Completions> {
  const path = cur.slice(1);
  const slash = path.lastIndexOf('/');
  const dir = slash >= 0 ? path.slice(0, slash + 1) : '';
  const entries = await fs.readdir(join(cwd, dir || '.'), { withFileTypes: true });
  return {
    candidates: entries
      .filter((e) => !e.name.startsWith('.') || path.slice(slash + 1).startsWith('.'))
      .map((e) => ({ value: `@${dir}${e.name}${e.isDirectory() ? '/' : ''}` })),
    nospace: true,
  };
}

/** The values an option takes. */
async function optionValues(o: Option, cur: string, ctx: Context): Promise<Completions> {
  const long = o.long ?? '';
  const placeholder = /[<[]([^>\]]+)[>\]]/.exec(o.flags)?.[1] ?? '';
  const now = ctx.deps.now();
  if (o.argChoices) return valuesOf(o.argChoices);
  if (long === '--profile' && ctx.root.options.includes(o))
    return valuesOf(knownProfiles((await within(loadConfig(ctx.deps), TIMEOUT_MS)).layers));
  if (long === '--field' && isTop(ctx, 'api')) {
    const [method = '', path = ''] = ctx.positionals;
    return fieldValues(await apiMap(ctx), method, path, cur);
  }
  if (placeholder === 'file' || placeholder === 'dir' || placeholder.endsWith('-file'))
    return { candidates: [], files: true };
  if (placeholder === 'json') {
    if (cur.startsWith('@')) return atFiles(cur, ctx.deps.cwd);
    return {
      candidates: [
        { value: '@', description: 'read the JSON from a file: @file.json' },
        { value: '-', description: 'read the JSON from standard input' },
      ],
      nospace: true,
    };
  }
  const r = ctx.resource;
  if (!r) return NONE;
  if (long === '--output') return valuesOf(formatsOf(r));
  if (long === '--json' || long === '--fields') return commaList(fieldNames(r), cur);
  if (long === '--embed') return commaList(embedNames(r), cur);
  if (long === '--unset')
    return {
      candidates: inputFields(r)
        .filter((f) => f.nullable)
        .map((f) => ({ value: f.name, description: f.description })),
    };
  const where = whereRelationsOf(r).find((rel) => long === `--${rel.name}-where`);
  if (where) return whereValues(resourceByPath(where.target), cur, now);
  const parent = whereRelationsOf(r).find((rel) => long === `--${rel.name}`);
  if (parent) return { candidates: await uuids(resourceByPath(parent.target), ctx) };
  const named = namedFlags(r).get(long);
  if (named) return { candidates: await namedValues(named, ctx) };
  if (long === '--custom-field' && r.customValues !== undefined) {
    if (cur.includes('=')) return NONE;
    return { candidates: await customFieldNames(r.customValues.entity, ctx), nospace: true };
  }
  const f = fieldOf(r, long.replace(/^--(no-)?/, '').replace(/-/g, '_'));
  if (!f) return NONE;
  // A list's flag filters on the field; a write's sets it: each kind says what to offer.
  const kind = ctx.cmd.name() === 'list' ? filterKind(f) : fieldKind(f);
  const candidates = kind?.complete?.(f, now);
  return candidates ? { candidates } : NONE;
}

// ------------------------------------------------------------------ from the API, cached

/**
 * The paths and methods of the API: from the server's /openapi.json where it serves one (cached
 * like uuids), else this build's own document (what `pm serve` and the embedded default serve).
 */
async function apiMap(ctx: Context): Promise<ApiMap> {
  const served = await cached<ApiMap>(
    'openapi',
    ctx,
    async (s) => apiMapOf((await s.http.request('GET', OPENAPI_PATH)).body),
    {},
  ).catch(() => ({}));
  return Object.keys(served).length ? served : apiMapOf(openApiDocument());
}

function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('completion timed out')), ms);
    timer.unref?.();
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** A resource's records as candidates (their uuids); complete() keeps those that fit the word. */
async function uuids(r: ResourceDef, ctx: Context): Promise<Candidate[]> {
  return cached(`uuids:${r.path}`, ctx, async (s) => {
    const q = new URLSearchParams({ per_page: String(MAX_PER_PAGE) });
    const first = await s.client.list(r, q);
    let records = [...first.records].reverse();
    const last = first.pagination.total_pages;
    if (last > 1) {
      q.set('page', String(last));
      records = [...(await s.client.list(r, q)).records].reverse().concat(records);
    }
    return records
      .filter((rec) => isUuid(rec.uuid))
      .map((rec) => ({ value: rec.uuid as string, description: describeRecord(r, rec) }));
  });
}

/** The links and sets of `r` by the flags that name their records: --status, --competency, --add-competency… */
function namedFlags(r: ResourceDef): Map<string, Named> {
  const flags = new Map<string, Named>();
  for (const n of [...(r.links ?? []), ...(r.sets ?? [])]) {
    const words = [flagWord(n), ...('one' in n ? Object.values(setChangeFlags(n)) : [])];
    for (const w of words) flags.set(`--${kebab(w)}`, n);
  }
  return flags;
}

/**
 * What to offer for a flag naming a record of a link or a set: what a person knows the records by
 * (a status's label, knownBy), else their uuids (a contact's). Only the records the link may name
 * (`only`: a property's status is a Property status).
 */
async function namedValues(n: Named, ctx: Context): Promise<Candidate[]> {
  const target = resourceByPath(n.target);
  const field = knownBy(n);
  if (!field) return uuids(target, ctx);
  const only = 'only' in n ? n.only : undefined;
  return cached(`named:${target.path}:${field}:${only ? `${only.field}=${only.code}` : ''}`, ctx, async (s) => {
    const fields = only ? { [only.field]: [String(only.code)] } : {};
    const q = encodeListQuery(target, { fields, perPage: MAX_PER_PAGE });
    const values = (await s.client.list(target, q)).records.map((rec) => rec[field]);
    return [...new Set(values.filter(isShellWord))].map((value) => ({ value }));
  });
}

/** A value from the API that may be offered as it is: text without control characters. */
const isShellWord = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '' && visible(v) === v;

async function customFieldNames(entity: number, ctx: Context): Promise<Candidate[]> {
  return cached(`custom-field-names:${entity}`, ctx, async (s) => {
    const q = new URLSearchParams({ per_page: String(MAX_PER_PAGE), entity_type: String(entity) });
    return (await s.client.list(customFields, q)).records
      .filter((rec) => typeof rec.name === 'string')
      .map((rec) => ({ value: `${rec.name as string}=`, description: String(rec.label ?? '') }));
  });
}

/** The environment variables that decide which server, account and data file pm uses. */
const CACHE_KEY_ENV = ['PM_BASE_URL', 'PM_TOKEN', 'PM_PROFILE', 'PM_DATA_FILE', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME'];

/**
 * The candidates `fetch` finds, reused for CACHE_TTL_MS from a file under the XDG cache
 * directory (mode 0600; uuids and a few words of each record). The file is named by a hash of
 * what decides which server and account pm talks to, so two servers never share candidates.
 */
async function cached<T = Candidate[]>(
  kind: string,
  ctx: Context,
  fetch: (s: Session) => Promise<T>,
  none: T = [] as T,
): Promise<T> {
  const { deps, globals } = ctx;
  const key = createHash('sha256')
    .update(
      JSON.stringify([
        kind,
        globals.baseUrl ?? '',
        globals.profile ?? '',
        ...CACHE_KEY_ENV.map((name) => deps.env[name] ?? ''),
        deps.home,
        deps.cwd,
      ]),
    )
    .digest('hex')
    .slice(0, 32);
  const dir = join(cacheDir(deps.env, deps.home), 'completion');
  const file = join(dir, `${key}.json`);
  const now = deps.now();
  try {
    const saved = JSON.parse(await fs.readFile(file, 'utf8')) as { at?: unknown; candidates?: unknown };
    const age = now - Number(saved.at);
    if (age >= 0 && age < CACHE_TTL_MS && typeof saved.candidates === 'object' && saved.candidates !== null)
      return saved.candidates as T;
  } catch {
    // No cache yet, or an unreadable one: fetch.
  }
  const candidates = await fromApi(ctx, fetch, none);
  try {
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    writeFileAtomic(file, JSON.stringify({ at: now, candidates }));
  } catch {
    // A cache that cannot be written only costs the next completion a request.
  }
  return candidates;
}

/**
 * Runs `fetch` on a session that prints nothing, sends each request once, and is torn down after
 * TIMEOUT_MS (EMBEDDED_TIMEOUT_MS on the embedded default): the shell waits for pm to exit, not
 * only for its output.
 */
async function fromApi<T>(ctx: Context, fetch: (s: Session) => Promise<T>, none: T): Promise<T> {
  const { deps, globals } = ctx;
  const quietIo = { ...deps.io, stderr: { write: () => true } };
  const target = await within(resolveTarget(globals, { ...deps, io: quietIo }), TIMEOUT_MS);
  // Completing must not create the embedded default's data file.
  if (target.baseUrl === undefined && (!target.embedded || !existsSync(target.embedded.dataFile))) return none;
  const budget = target.baseUrl === undefined ? EMBEDDED_TIMEOUT_MS : TIMEOUT_MS;
  const controller = new AbortController();
  const stop = () => controller.abort();
  const timer = setTimeout(stop, budget);
  deps.signal?.addEventListener('abort', stop, { once: true });
  const quiet: Deps = { ...deps, io: quietIo, signal: controller.signal };
  const options: GlobalOptions = {
    ...globals,
    color: false,
    input: false,
    timeout: String(budget / 1000),
    retries: '0',
  };
  try {
    return await within(withSession(options, quiet, fetch), budget + 500);
  } finally {
    clearTimeout(timer);
    deps.signal?.removeEventListener('abort', stop);
  }
}
