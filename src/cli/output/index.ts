/**
 * The CLI's output, implemented once for every command (like gh's shared --json and
 * tableprinter): --json [fields], --fields, -o table|json|ndjson|csv|tsv, -q and --jq.
 *
 * Data goes to stdout, talk (footer, "No properties found.") to stderr. On a terminal: a table
 * with colour, local times and a footer. Piped: no colour, no box drawing, no truncation, ISO
 * times as the API sent them. Lists stream: records are written as pages arrive, so memory does
 * not grow with --all (a terminal table takes its column widths from the first page; --jq buffers).
 */
import { Chalk, type ChalkInstance } from 'chalk';
import { CUSTOM_VALUES_KEY, RESOURCES, embedNames, embedsOf } from '../../resources/index.js';
import { isObject } from '../../core/json.js';
import { MIN_UUID_PREFIX } from '../../core/kinds.js';
import { jsonText, terminalText, visible } from '../../core/redact.js';
import type { FieldDef, ResourceDef } from '../../resources/types.js';
import type { Deps, Env, OutStream } from '../context.js';
import { usageError } from '../errors.js';
import { knownBy, splitList } from '../flags.js';
import { wrap } from '../help/text.js';
import { editDistance } from '../suggest.js';
import {
  TimeFormatter,
  cellValue,
  csvCell,
  customValues,
  guardCell,
  humanValue,
  isTimeField,
  relative,
  tsvCell,
} from './format.js';
import { checkJq, runJq } from './jq.js';
import { type Column, type HiddenWhy, startTable, type TableWriter, width } from './table.js';

type Rec = Record<string, unknown>;

const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv', 'tsv'] as const;

/** An iCalendar calendar (src/core/ics.ts): a format of the resources whose records have a due date (an agenda). */
const CALENDAR_FORMAT = 'ics';

export type OutputFormat = (typeof OUTPUT_FORMATS)[number] | typeof CALENDAR_FORMAT;

/** The formats -o takes for `resource`. */
export const formatsOf = (resource: ResourceDef): readonly OutputFormat[] =>
  resource.agenda ? [...OUTPUT_FORMATS, CALENDAR_FORMAT] : OUTPUT_FORMATS;

export interface OutputSpec {
  format: OutputFormat;
  /** Only these fields, in this order (--json a,b or --fields a,b). */
  fields?: string[];
  /** uuids only, one a line. */
  quiet: boolean;
  /** A jq filter applied to the JSON output. */
  jq?: string;
  /** CSV cells exactly as they are, unguarded against spreadsheet formulas (--csv-exact). */
  csvExact?: boolean;
  /**
   * CSV/TSV: the names of the custom fields that get a column each (`custom_fields.NAME`) when
   * custom values are embedded: every one the resource has (customFieldColumns); without them,
   * those of the first record.
   */
  customFields?: readonly string[];
}

/**
 * Whether a write says what it did ("Created property …") on stderr: always, a terminal or not,
 * unless the data alone is asked for (-q, --json, --jq). Every write follows this one rule.
 */
export const talks = (spec: Pick<OutputSpec, 'quiet' | 'format' | 'jq'>): boolean =>
  !spec.quiet && spec.format !== 'json' && spec.jq === undefined;

/** Whether the output gives custom values a column each (CSV and TSV), so needs their names. */
export const customColumnsWanted = (spec: OutputSpec): boolean =>
  !spec.quiet && spec.jq === undefined && (spec.format === 'csv' || spec.format === 'tsv');

/**
 * The output flags as commander gives them (values are checked here, so any type is accepted):
 * --json [fields] (true, or the string "a,b"), --fields, -o/--output, -q/--quiet, --jq, --csv-exact.
 */
export type OutputFlags = Partial<Record<'json' | 'fields' | 'output' | 'quiet' | 'jq' | 'csvExact', unknown>>;

/** Where and how output is shown; the clock and the user's time zone (for times on a terminal) are Deps'. */
export interface Display extends Pick<Deps, 'now' | 'timeZone'> {
  stdout: OutStream;
  stderr: OutStream;
  color: boolean;
  /** stdout is a terminal. */
  tty: boolean;
}

export interface PageInfo {
  total: number;
  page: number;
  perPage: number;
  totalPages: number;
  /** How many pages a list fetched (several with --all); 1 when not given. */
  fetchedPages?: number;
  /** Ctrl-C cut the list short: the footer starts a line of its own (after the terminal's ^C). */
  interrupted?: boolean;
}

interface ListPrinter {
  /** Called once per page as pages arrive; writes the records out at once unless it must buffer. */
  add(records: Rec[]): void;
  /**
   * Ends the output (closes the JSON array, flushes the table) and, on a terminal, writes the
   * footer or the empty-list line on stderr. Await it: with --jq the output is written
   * asynchronously and a jq error rejects.
   */
  end(info?: PageInfo): Promise<void>;
}

// ------------------------------------------------------------------ flags -> spec

/** Every name --json and --fields accept: the resource's fields, and what it can embed. */
export function fieldNames(resource: ResourceDef): string[] {
  return [...resource.fields.map((f) => f.name), ...embedNames(resource)];
}

/**
 * A table column of the records that belong to a parent (notes): which parent, by its relation
 * and uuid ("property 3f2a…"), from the parents embedded (`autoEmbeds`).
 */
const PARENT_COLUMN = 'parent';

/** The links a table shows by default (a status), with their priority (`shown`). */
const shownLinks = (resource: ResourceDef) => (resource.links ?? []).filter((l) => l.shown !== undefined);

/** Names shown in a terminal table unless --fields says otherwise: columns, shown links, the parent. */
function defaultColumns(resource: ResourceDef): string[] {
  const names = resource.fields.filter((f) => f.column).map((f) => f.name);
  names.push(...shownLinks(resource).map((l) => l.name));
  if (resource.parents?.length) names.push(PARENT_COLUMN);
  return names;
}

/** Whether the output is a table of the default columns (not data, not --fields, -q or --jq). */
export const isTable = (spec: OutputSpec): boolean =>
  spec.format === 'table' && !spec.fields && !spec.quiet && spec.jq === undefined;

/**
 * What a command asks the server to embed for its default output: for a table, the parents and
 * shown links of a list, every link, parent and set of `one` record (get); for data (JSON, CSV),
 * the links and sets known by a label. Nothing for --fields (embedsFor) or -q.
 */
export function autoEmbeds(resource: ResourceDef, spec: OutputSpec, one = false): string[] {
  // A calendar says where each event is (a reminder's property: its LOCATION).
  if (spec.format === CALENDAR_FORMAT && resource.agenda?.where) return [resource.agenda.where];
  if (spec.fields || spec.quiet || spec.format === CALENDAR_FORMAT) return [];
  // Data carries what a table shows of the records a person knows by a label (a status, a type,
  // competencies): JSON as the API embeds them (with their uuids), CSV and TSV by label.
  if (!isTable(spec)) return [...namedEmbeds(resource).keys()];
  if (one) return embedsOf(resource).flatMap((e) => (e.kind === 'custom_values' ? [] : [e.name]));
  return [...(resource.parents ?? []), ...shownLinks(resource)].map((x) => x.name);
}

/** The parent column's words: which parent, by its relation and uuid (as `uuid` shows it), or '' when none was embedded. */
function parentCell(resource: ResourceDef, r: Rec, uuid: (u: string) => string): string {
  for (const p of resource.parents ?? []) {
    const id = (r[p.name] as { data?: { uuid?: unknown } | null } | undefined)?.data?.uuid;
    if (typeof id === 'string') return `${p.name} ${uuid(id)}`;
  }
  return '';
}

/**
 * A uuid in a terminal's table: its first 8 characters, as git shows a commit, which every
 * command takes (a uuid's beginning); whole when piped.
 */
export const shortUuid = (u: string): string => u.slice(0, MIN_UUID_PREFIX);

/** The links and sets of `resource` whose records a person knows by a label, by name: that field (knownBy). */
const namedEmbeds = (resource: ResourceDef): Map<string, string> =>
  new Map(
    [...(resource.links ?? []), ...(resource.sets ?? [])].flatMap((n) => {
      const field = ('shownAs' in n ? n.shownAs : undefined) ?? knownBy(n);
      return field ? [[n.name, field] as const] : [];
    }),
  );

/**
 * An embedded link or set of records known by a label, as a person reads it: their labels,
 * comma-separated ('' for none); undefined for any other value (a contact: its uuid and words).
 */
function namedText(named: Map<string, string>, name: string, v: unknown): string | undefined {
  const field = named.get(name);
  if (!field || !isObject(v) || !('data' in v)) return undefined;
  const label = (rec: unknown) => (isObject(rec) ? String(rec[field] ?? rec.uuid ?? '') : '');
  return visible((Array.isArray(v.data) ? v.data : [v.data]).map(label).filter(Boolean).join(', '));
}

/** A value on one line: local times on a terminal; piped, as sent and escaped as in TSV. */
const lineValue = (f: FieldDef | undefined, v: unknown, times: TimeFormatter | undefined): string =>
  humanValue(f, times === undefined && typeof v === 'string' ? tsvCell(v) : v, times);

/** Embeds a command must request for the selected fields to have values (custom_fields). */
export function embedsFor(resource: ResourceDef, spec: OutputSpec): string[] {
  return embedNames(resource).filter((e) => spec.fields?.includes(e));
}

function parseFields(resource: ResourceDef, text: string, flag: string): string[] {
  const valid = fieldNames(resource);
  const list = `Valid fields for ${resource.path}: ${valid.join(', ')}.`;
  const names = [...new Set(splitList(text).map((s) => s.replace(/-/g, '_')))];
  if (!names.length) throw usageError(`${flag} needs at least one field name. ${list}`);
  for (const name of names) {
    if (valid.includes(name)) continue;
    const near = valid
      .map((v) => ({ v, d: editDistance(name, v) }))
      .filter((x) => x.d <= 2)
      .sort((a, b) => a.d - b.d)[0];
    throw usageError(`${flag}: unknown field "${name}". ${list}`, near ? `Did you mean "${near.v}"?` : undefined);
  }
  return names;
}

/**
 * The output a command's flags ask for. Usage errors (exit 2): an unknown format or field,
 * --json with -o other than json, --json FIELDS with --fields, --jq with -q or -o csv/tsv/ndjson.
 */
export function outputSpecFrom(resource: ResourceDef, flags: OutputFlags): OutputSpec {
  const output = flags.output === undefined ? undefined : String(flags.output).trim().toLowerCase();
  const formats = formatsOf(resource);
  if (output !== undefined && !(formats as readonly string[]).includes(output))
    throw usageError(`--output must be one of ${formats.join(', ')}, not "${String(flags.output)}".`);
  let format = (output ?? 'table') as OutputFormat;
  const json = flags.json;
  if (json !== undefined && json !== false) {
    if (output !== undefined && output !== 'json')
      throw usageError(
        `--json and --output ${output} cannot be used together.`,
        'Use --json (or -o json) for JSON, -o for the other formats.',
      );
    format = 'json';
  }
  const jsonFields = typeof json === 'string' && json.trim() !== '' ? json : undefined;
  if (jsonFields !== undefined && flags.fields !== undefined)
    throw usageError('--json FIELDS and --fields cannot be used together.', 'Name the fields once: --json a,b.');
  const [named, flag] = jsonFields !== undefined ? [jsonFields, '--json'] : [flags.fields, '--fields'];
  const fields = named === undefined ? undefined : parseFields(resource, String(named), flag);
  const quiet = flags.quiet === true;
  let jq: string | undefined;
  if (flags.jq !== undefined && flags.jq !== false) {
    jq = String(flags.jq);
    if (!jq.trim()) throw usageError('--jq needs a jq expression, e.g. --jq ".[].uuid".');
    if (quiet) throw usageError('--jq and --quiet cannot be used together.');
    if (format !== 'table' && format !== 'json')
      throw usageError(`--jq filters JSON: it cannot be used with --output ${format}.`);
    format = 'json';
  }
  if (format === CALENDAR_FORMAT && (fields !== undefined || quiet || jq !== undefined))
    throw usageError(
      `-o ${CALENDAR_FORMAT} writes whole calendar events: it cannot be used with --fields, --quiet or --jq.`,
    );
  const csvExact = flags.csvExact === true || undefined;
  if (csvExact && format !== 'csv') throw usageError('--csv-exact goes with -o csv.');
  return { format, fields, quiet, jq, csvExact };
}

/** checkJq on --jq's filter, before any request is made; nothing without --jq. */
export async function prepareOutput(spec: OutputSpec): Promise<void> {
  if (spec.jq !== undefined) await checkJq(spec.jq);
}

/**
 * NO_COLOR (any non-empty value) disables; FORCE_COLOR=0 (or false) disables and FORCE_COLOR=1..3
 * (or empty, or true) forces; --no-color (flag false) disables, over the environment too;
 * otherwise colour iff the stream is a terminal.
 */
export function colorEnabled(env: Env, isTTY: boolean | undefined, flag: boolean | undefined): boolean {
  if (flag === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) {
    const f = force.trim().toLowerCase();
    if (f === '0' || f === 'false') return false;
    if (f === '' || f === 'true' || Number(f) >= 1) return true;
  }
  return isTTY === true;
}

// ------------------------------------------------------------------ shared helpers

function select(record: Rec, fields: readonly string[] | undefined): Rec {
  if (!fields) return record;
  const out: Rec = {};
  for (const f of fields) out[f] = record[f] ?? null;
  return out;
}

function fieldMap(resource: ResourceDef): Map<string, FieldDef> {
  return new Map(resource.fields.map((f) => [f.name, f]));
}

/** The CSV/TSV column of a custom field's value: custom_fields.NAME. */
const customColumn = (name: string) => `${CUSTOM_VALUES_KEY}.${name}`;

/**
 * CSV/TSV columns: the selected fields, else every field (and the embeds the first record has);
 * custom values a column each (custom_fields.NAME), so that a spreadsheet can use them.
 */
function dataColumns(resource: ResourceDef, spec: OutputSpec, first: Rec | undefined): string[] {
  const names = spec.fields ? [...spec.fields] : resource.fields.map((f) => f.name);
  if (!spec.fields && first) for (const e of embedNames(resource)) if (e in first) names.push(e);
  const custom = spec.customFields ?? (customValues(first?.[CUSTOM_VALUES_KEY]) ?? []).map((c) => String(c.name ?? ''));
  return names.flatMap((n) => (n === CUSTOM_VALUES_KEY && resource.customValues ? custom.map(customColumn) : [n]));
}

/**
 * A CSV/TSV cell's value: a field's; a custom field's (custom_fields.NAME: its value, or
 * nothing); the labels of an embedded link or set known by one (`named`), comma-separated (a
 * label with a comma of its own by its uuid).
 */
function dataValue(r: Rec, column: string, named: Map<string, string>): unknown {
  const field = named.get(column);
  const v = r[column];
  if (field && isObject(v) && 'data' in v) {
    if (!Array.isArray(v.data)) return isObject(v.data) ? String(v.data[field] ?? v.data.uuid ?? '') : '';
    // A set's label holding a comma is written as its uuid, so that the list reads back whole.
    const label = (x: unknown) =>
      isObject(x) ? String(typeof x[field] === 'string' && !x[field].includes(',') ? x[field] : (x.uuid ?? '')) : '';
    return v.data.map(label).filter(Boolean).join(', ');
  }
  if (!column.startsWith(`${CUSTOM_VALUES_KEY}.`)) return v;
  const name = column.slice(CUSTOM_VALUES_KEY.length + 1);
  return customValues(r[CUSTOM_VALUES_KEY])?.find((c) => c.name === name)?.value ?? null;
}

const colors = (d: Display): ChalkInstance => new Chalk({ level: d.color ? 1 : 0 });

/** The stderr line that ends a list on a terminal. */
function footer(resource: ResourceDef, count: number, info?: PageInfo): string {
  if (count === 0) {
    if (info && info.total > 0 && info.page > info.totalPages)
      return `No ${resource.plural} on page ${info.page}: there ${info.totalPages === 1 ? 'is 1 page' : `are ${info.totalPages} pages`}.\n`;
    return `No ${resource.plural} found.\n`;
  }
  if (!info) return '';
  const start = (info.page - 1) * info.perPage + 1;
  const range = `showing ${start}-${start + count - 1} of ${info.total}`;
  const line = (info.fetchedPages ?? 1) > 1 ? `${range}\n` : `${range}, page ${info.page} of ${info.totalPages}\n`;
  return info.interrupted ? `\n${line}` : line;
}

// ------------------------------------------------------------------ lists

interface Sink {
  add(records: Rec[]): void;
  end(): Promise<void> | void;
}

/** Text for stdout: on a terminal, no control character or bidi override but tabs and line breaks (terminalText). */
const forTerminal = (d: Display, text: string): string => (d.tty ? terminalText(text) : text);

/** Writes a line (or nothing) per record, as records come. */
function lineSink(d: Display, line: (r: Rec) => string): Sink {
  return {
    add(records) {
      const s = records.map(line).join('');
      if (s) d.stdout.write(s);
    },
    end() {},
  };
}

function jsonSink(spec: OutputSpec, d: Display): Sink {
  let n = 0;
  return {
    ...lineSink(d, (r) => {
      const v = select(r, spec.fields);
      const text = d.tty ? jsonText(JSON.stringify(v, null, 2)).replace(/^/gm, '  ') : jsonText(JSON.stringify(v));
      return (n++ === 0 ? '[\n' : ',\n') + text;
    }),
    end() {
      d.stdout.write(n === 0 ? '[]\n' : '\n]\n');
    },
  };
}

function delimitedSink(resource: ResourceDef, spec: OutputSpec, d: Display, sep: ',' | '\t'): Sink {
  const quoted = sep === '\t' ? tsvCell : spec.csvExact ? csvCell : (s: string) => csvCell(guardCell(s));
  const cell = (s: string) => forTerminal(d, quoted(s));
  const named = namedEmbeds(resource);
  let columns: string[] | undefined;
  const header = (first: Rec | undefined): string => {
    columns = dataColumns(resource, spec, first);
    return `${columns.map(cell).join(sep)}\n`;
  };
  return {
    ...lineSink(d, (r) => {
      const head = columns ? '' : header(r);
      return `${head}${(columns as string[]).map((c) => cell(cellValue(dataValue(r, c, named)))).join(sep)}\n`;
    }),
    end() {
      if (!columns) d.stdout.write(header(undefined));
    },
  };
}

/**
 * The stderr line naming the columns a terminal's table left out, grouped by why:
 * "hidden: status (empty), num_notes (all 0), company (to fit 80 columns); --fields to show them",
 * wrapped to the terminal's width.
 */
function hiddenLine(hidden: TableWriter['hidden'], names: readonly string[], total: number): string {
  const groups = new Map<HiddenWhy, string[]>([
    ['empty', []],
    ['all 0', []],
    ['to fit', []],
  ]);
  for (const h of hidden) groups.set(h.why, [...(groups.get(h.why) ?? []), names[h.index] as string]);
  const parts = [...groups]
    .filter(([, cols]) => cols.length)
    .map(([why, cols]) => `${cols.join(', ')} (${why === 'to fit' ? `to fit ${total} columns` : why})`);
  // Wrapped to the terminal, as the table is.
  return wrap(`${parts.join(', ')}; --fields to show them`.split(' '), total, 'hidden:', '  ');
}

/**
 * The fields a person names a record of `resource` by, other than its uuid: those the links of
 * any resource name it by (a contact's email, a status's label), with the uuid. A table never
 * cuts them short: half an email names no one.
 */
function namingFields(resource: ResourceDef): Set<string> {
  const by = RESOURCES.flatMap((r) => (r.links ?? []).filter((l) => l.target === resource.path).flatMap((l) => l.by));
  return new Set(['uuid', ...by]);
}

/**
 * Piped, a line per record as records come; on a terminal, a table written page by page, its
 * columns as wide as the first page needs (within the terminal).
 */
function tableSink(resource: ResourceDef, spec: OutputSpec, d: Display): Sink {
  const defs = fieldMap(resource);
  const named = namedEmbeds(resource);
  const shown = new Map(shownLinks(resource).map((l) => [l.name, l.shown]));
  const names = spec.fields ?? defaultColumns(resource);
  const times = d.tty ? new TimeFormatter(d.timeZone) : undefined;
  const uuid = d.tty ? shortUuid : (u: string) => u;
  const cell = (r: Rec, n: string) => {
    if (n === PARENT_COLUMN) return parentCell(resource, r, uuid);
    if (d.tty && n === 'uuid' && typeof r[n] === 'string') return visible(shortUuid(r[n]));
    return namedText(named, n, r[n]) ?? lineValue(defs.get(n), r[n], times);
  };
  const row = (r: Rec) => names.map((n) => cell(r, n));
  if (!d.tty) return lineSink(d, (r) => `${row(r).join('\t')}\n`);
  const c = colors(d);
  const whole = namingFields(resource);
  const columns: Column[] = names.map((n) => {
    const f = defs.get(n);
    return {
      header: c.bold(n),
      headerWidth: width(n),
      right: f?.kind === 'int',
      // A uuid shortened would look like a whole one, an email cut names no one: never.
      shrinkable: !whole.has(n) && n !== PARENT_COLUMN && (f === undefined || f.kind === 'text'),
      // Columns asked for with --fields are all kept.
      priority: spec.fields ? 1 : (f?.column ?? shown.get(n) ?? (n === PARENT_COLUMN ? 2 : 1)),
      // A code is one of a few names: a later page's is never cut short.
      ...(f?.kind === 'code' ? { widest: Math.max(...Object.values(f.codes ?? {}).map(width)) } : {}),
    };
  });
  const total = d.stdout.columns || 100;
  // Written as pages come, in the layout of the first (docs: "Long lists on a terminal").
  let table: TableWriter | undefined;
  return {
    add(records) {
      const rows = records.map(row);
      if (table) table.add(rows);
      else if (rows.length) table = startTable(columns, rows, total, (text) => d.stdout.write(text));
    },
    end() {
      if (table?.hidden.length) d.stderr.write(c.dim(`${hiddenLine(table.hidden, names, total)}\n`));
    },
  };
}

function jqSink(jq: string, fields: string[] | undefined, d: Display): Sink {
  const all: Rec[] = [];
  return {
    add(records) {
      for (const r of records) all.push(select(r, fields));
    },
    async end() {
      d.stdout.write(forTerminal(d, await runJq(all, jq, (s) => d.stderr.write(s))));
    },
  };
}

/**
 * An iCalendar calendar of the records (src/core/ics.ts, loaded now): written whole at the end.
 * Records without a due date have no place in it: how many were left out is said on stderr when
 * it is a terminal.
 */
function calendarSink(resource: ResourceDef, d: Display): Sink {
  const all: Rec[] = [];
  return {
    add(records) {
      all.push(...records);
    },
    async end() {
      const { calendarOf } = await import('../../core/ics.js');
      const cal = await calendarOf(resource, all, { now: d.now() });
      d.stdout.write(forTerminal(d, cal.text));
      if (cal.undated && (d.tty || d.stderr.isTTY === true)) {
        const one = cal.undated === 1;
        d.stderr.write(
          `${cal.undated} ${one ? resource.singular : resource.plural} without a due date ${one ? 'was' : 'were'} left out of the calendar.\n`,
        );
      }
    },
  };
}

function sinkFor(resource: ResourceDef, spec: OutputSpec, d: Display): Sink {
  if (spec.quiet) return lineSink(d, (r) => (r.uuid === undefined || r.uuid === null ? '' : `${String(r.uuid)}\n`));
  if (spec.jq !== undefined) return jqSink(spec.jq, spec.fields, d);
  switch (spec.format) {
    case 'json':
      return jsonSink(spec, d);
    case 'ndjson':
      return lineSink(d, (r) => `${jsonText(JSON.stringify(select(r, spec.fields)))}\n`);
    case 'csv':
    case 'tsv':
      return delimitedSink(resource, spec, d, spec.format === 'csv' ? ',' : '\t');
    case CALENDAR_FORMAT:
      return calendarSink(resource, d);
    default:
      return tableSink(resource, spec, d);
  }
}

export function createListPrinter(resource: ResourceDef, spec: OutputSpec, d: Display): ListPrinter {
  const sink = sinkFor(resource, spec, d);
  let count = 0;
  return {
    add(records) {
      count += records.length;
      sink.add(records);
    },
    async end(info) {
      await sink.end();
      if (d.tty && !spec.quiet) {
        const line = footer(resource, count, info);
        if (line) d.stderr.write(line);
      }
    },
  };
}

// ------------------------------------------------------------------ one record

/** Keys of the vertical listing: the selection, else every field then any other key sent. */
function recordKeys(resource: ResourceDef, record: Rec, spec: OutputSpec): string[] {
  if (spec.fields) return spec.fields;
  const names = resource.fields.map((f) => f.name);
  return [...names, ...Object.keys(record).filter((k) => !names.includes(k))];
}

function verticalTerminal(resource: ResourceDef, keys: string[], record: Rec, d: Display): string {
  const defs = fieldMap(resource);
  const named = namedEmbeds(resource);
  const times = new TimeFormatter(d.timeZone);
  const c = colors(d);
  const w = Math.max(...keys.map(width));
  const indent = ' '.repeat(w + 2);
  let s = '';
  for (const k of keys) {
    const f = defs.get(k);
    const v = record[k];
    let text = namedText(named, k, v) ?? humanValue(f, v, times, true);
    if (typeof v === 'string' && (isTimeField(f, v) || f?.kind === 'date_or_datetime')) {
      const when = relative(v, d.now(), times);
      if (when) text += ` ${c.dim(`(${when})`)}`;
    }
    s += text ? `${c.cyan(k)}${' '.repeat(w - width(k))}  ${text.replace(/\n/g, `\n${indent}`)}\n` : `${c.cyan(k)}\n`;
  }
  return s;
}

/** A record piped: `key<TAB>value` lines, values as a table's cells show them. */
function keyValueLines(resource: ResourceDef, keys: string[], record: Rec): string {
  const defs = fieldMap(resource);
  const named = namedEmbeds(resource);
  const line = (k: string) => namedText(named, k, record[k]) ?? lineValue(defs.get(k), record[k], undefined);
  return keys.map((k) => `${k}\t${line(k)}\n`).join('');
}

/**
 * One record (get, create, update). json: the object; ndjson: one line; quiet: the uuid;
 * csv/tsv: header and one row; table on a terminal: a vertical "key  value" listing; piped
 * table: `key<TAB>value` lines with ISO times. Await it when --jq may be set.
 */
export async function printRecord(resource: ResourceDef, record: Rec, spec: OutputSpec, d: Display): Promise<void> {
  // A uuid, one NDJSON line, a CSV/TSV header and row, or a calendar of one event: as a list of one.
  if (spec.quiet || (spec.jq === undefined && spec.format !== 'json' && spec.format !== 'table')) {
    const sink = sinkFor(resource, spec, d);
    sink.add([record]);
    if (spec.format === CALENDAR_FORMAT) await sink.end();
    return;
  }
  if (spec.jq !== undefined || spec.format === 'json') return printJson(select(record, spec.fields), spec, d);
  const keys = recordKeys(resource, record, spec);
  d.stdout.write(d.tty ? verticalTerminal(resource, keys, record, d) : keyValueLines(resource, keys, record));
}

/** A raw JSON value (`pm api`): pretty on a terminal, compact when piped; --jq applied if given. */
export async function printJson(value: unknown, spec: Pick<OutputSpec, 'jq'>, d: Display): Promise<void> {
  if (spec.jq !== undefined) {
    d.stdout.write(forTerminal(d, await runJq(value, spec.jq, (s) => d.stderr.write(s))));
    return;
  }
  if (value === undefined) return;
  d.stdout.write(`${jsonText(d.tty ? JSON.stringify(value, null, 2) : JSON.stringify(value))}\n`);
}

/** The output flags of a command that prints data other than records (a status, settings, tokens). */
export interface DataOutput {
  /** --json, with its fields when given a list. */
  readonly json?: string | true | undefined;
  readonly jq?: string | undefined;
}

/** What DataOutput asks for, checked: the fields --json names, and --jq. */
interface DataSpec {
  readonly fields?: readonly string[] | undefined;
  readonly jq?: string | undefined;
}

/** Whether the data is asked for as JSON (--json or --jq), rather than as the command's text. */
export const wantsData = (o: DataOutput): boolean => o.json !== undefined || o.jq !== undefined;

/**
 * --json's fields checked against the names the data has (`known`), and --jq checked: a usage
 * error before any request, as for records.
 */
export async function dataSpecFrom(o: DataOutput, known: readonly string[]): Promise<DataSpec> {
  const fields = typeof o.json === 'string' ? splitList(o.json) : undefined;
  const bad = fields?.find((x) => !known.includes(x));
  if (bad !== undefined) throw usageError(`--json: unknown field "${bad}".`, `Fields: ${known.join(', ')}.`);
  if (o.jq !== undefined) await prepareOutput({ format: 'json', quiet: false, jq: o.jq });
  return { fields, jq: o.jq };
}

/**
 * A list of data printed as its items come, as printData would print it whole: streamed as compact
 * JSON when piped; gathered and printed at the end on a terminal (pretty) or for --jq.
 */
export function dataStream(spec: DataSpec, d: Display): { write(item: unknown): void; end(): Promise<void> } {
  const pick = (x: unknown) => (isObject(x) ? select(x, spec.fields) : x);
  if (spec.jq !== undefined || d.tty) {
    const all: unknown[] = [];
    return { write: (x) => void all.push(pick(x)), end: () => printJson(all, spec, d) };
  }
  let first = true;
  return {
    write(x) {
      d.stdout.write(`${first ? '[' : ','}${jsonText(JSON.stringify(pick(x)))}`);
      first = false;
    },
    async end() {
      d.stdout.write(first ? '[]\n' : ']\n');
    },
  };
}

/** Data as JSON, an object or a list of them, with the fields asked for: as printJson writes it. */
export async function printData(value: unknown, spec: DataSpec, d: Display): Promise<void> {
  const pick = (x: unknown) => (isObject(x) ? select(x, spec.fields) : x);
  await printJson(Array.isArray(value) ? value.map(pick) : pick(value), spec, d);
}
