/**
 * Reading records for bulk writes: NDJSON, a JSON array, or CSV with a header row. Each record
 * keeps its line number (for errors) and its original form (to write it back to a --failed file
 * in the same format). Keys starting with "_" (such as the _error a --failed file carries) are
 * ignored, so a failed file can be fed straight back in. A record that cannot be read (a line
 * that is not JSON, a cell that is not of its field's kind) is kept with its problems: it fails
 * alone, and the others go through.
 */
import { extname } from 'node:path';
import { CUSTOM_VALUES_KEY, fieldOf } from '../../resources/index.js';
import type { FieldDef, LinkDef, ResourceDef } from '../../resources/types.js';
import { blankValue, type ClientContext, FIELD_KINDS, isBlank, isWholeUuid, KindError } from '../../core/kinds.js';
import { knownBy } from '../flags.js';
import { MAX_BODY_BYTES } from '../../core/limits.js';
import { CliError, usageError } from '../errors.js';
import { nameOf } from '../flag-values.js';
import { isObject } from '../../core/json.js';

const FORMATS = ['ndjson', 'json', 'csv'] as const;
export type Format = (typeof FORMATS)[number];

export interface InputRecord {
  /** 1-based position in the input: the line (NDJSON, CSV) or element (JSON array). */
  readonly line: number;
  /** The record as given (CSV: column -> cell). */
  readonly original: Record<string, unknown>;
  /** A line or element that is no record, as it was (then `original` is empty). */
  readonly verbatim?: unknown;
  /** The record as the API wants it (CSV cells typed by the description). */
  readonly body: Record<string, unknown>;
  /** Why it cannot be sent ("not valid JSON: ...", "bedrooms: must be a whole number ..."). */
  readonly problems: string[];
}

/** A line or element that is no record: written back to --failed exactly as it was. */
const unreadable = (line: number, verbatim: unknown, problem: string): InputRecord => ({
  line,
  original: {},
  verbatim,
  body: {},
  problems: [problem],
});

/** The format --format gives, or else the one the file's name or text says; `where` names the file in errors. */
export function formatOf(file: string, where: string, forced: string | undefined, text: string): Format {
  if (forced !== undefined) {
    const f = forced.toLowerCase();
    if (!FORMATS.includes(f as Format))
      throw usageError(`--format must be one of ${FORMATS.join(', ')}, not "${forced}".`);
    return f as Format;
  }
  const ext = extname(file).toLowerCase();
  if (ext === '.csv') return 'csv';
  if (ext === '.ndjson' || ext === '.jsonl') return 'ndjson';
  // By the text: a .json file that is not an array is NDJSON.
  const head = text.trimStart();
  if (head.startsWith('[')) return 'json';
  if (ext === '.json' || head.startsWith('{')) return 'ndjson';
  throw usageError(`cannot tell the format of ${where}: give --format ndjson, json or csv.`);
}

const strip = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([k]) => !k.startsWith('_')));

/** A record larger than a request may carry can never be sent. */
const tooLarge = (bytes: number) =>
  `a record of ${bytes} bytes is larger than the ${MAX_BODY_BYTES} bytes (1 MiB) a request may carry`;

function parseNdjson(r: ResourceDef, text: string): InputRecord[] {
  const out: InputRecord[] = [];
  text.split(/\r?\n/).forEach((lineText, i) => {
    const line = i + 1;
    if (lineText.trim() === '') return;
    const bytes = Buffer.byteLength(lineText);
    if (bytes > MAX_BODY_BYTES) return out.push(unreadable(line, lineText, tooLarge(bytes)));
    let v: unknown;
    try {
      v = JSON.parse(lineText);
    } catch (e) {
      return out.push(unreadable(line, lineText, `not valid JSON: ${(e as Error).message}`));
    }
    if (!isObject(v)) return out.push(unreadable(line, lineText, 'each line must be a JSON object'));
    const problems: string[] = [];
    out.push({ line, original: v, body: withBlanks(r, strip(v), problems), problems });
  });
  return out;
}

function parseJsonArray(r: ResourceDef, text: string, where: string): InputRecord[] {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw usageError(`${where}: not valid JSON: ${(e as Error).message}.`);
  }
  if (!Array.isArray(v)) throw usageError(`${where}: a JSON file must hold an array of objects.`);
  return v.map((item, i) => {
    if (!isObject(item)) return unreadable(i + 1, item, 'must be a JSON object');
    const bytes = Buffer.byteLength(JSON.stringify(item));
    if (bytes > MAX_BODY_BYTES) return unreadable(i + 1, item, tooLarge(bytes));
    const problems: string[] = [];
    return { line: i + 1, original: item, body: withBlanks(r, strip(item), problems), problems };
  });
}

/**
 * A value given blank, by the one rule (core/kinds.ts `isBlank`): what it stands for in a body,
 * or undefined when it is not blank. An input field's is null (cleared), or a problem when the
 * field may not be empty; a link's null, a set's none; a custom value's null. The uuid and the
 * parents that address a record are never blank: left out, they are missed by name.
 */
function blankOf(r: ResourceDef, key: string, value: unknown, problems: string[]): { value: unknown } | undefined {
  if (typeof value !== 'string') return undefined;
  const f = fieldOf(r, key);
  if (f && !f.readOnly) {
    if (!isBlank(f, value)) return undefined;
    try {
      return { value: blankValue(f) };
    } catch (e) {
      if (!(e instanceof KindError)) throw e;
      problems.push(`${f.name}: ${e.message}`);
      return { value: undefined };
    }
  }
  if (value.trim() !== '') return undefined;
  if ((r.links ?? []).some((l) => l.name === key)) return { value: null };
  if ((r.sets ?? []).some((x) => x.name === key)) return { value: [] };
  return undefined;
}

/** A JSON record's blank values as the rule reads them, in place (`problems` for those that cannot be blank). */
function withBlanks(r: ResourceDef, body: Record<string, unknown>, problems: string[]): Record<string, unknown> {
  for (const [k, v] of Object.entries(body)) {
    const blank = blankOf(r, k, v, problems);
    if (blank === undefined) continue;
    if (blank.value === undefined) delete body[k];
    else body[k] = blank.value;
  }
  const custom = body[CUSTOM_VALUES_KEY];
  if (Array.isArray(custom))
    for (const item of custom)
      if (isObject(item) && typeof item.value === 'string' && item.value === '') item.value = null;
  return body;
}

/** A CSV cell typed by the description: "3" -> 3, "yes" -> true, "property" -> {code: 2}. */
function typedCell(f: FieldDef, cell: string, problems: string[], ctx: ClientContext): unknown {
  try {
    return FIELD_KINDS[f.kind].fromText(f, f.kind === 'text' ? cell : cell.trim(), ctx);
  } catch (e) {
    if (e instanceof KindError) {
      problems.push(`${f.name}: ${e.message}`);
      return undefined;
    }
    throw e;
  }
}

/**
 * A CSV cell of a link or a set (as `-o csv` writes them): the record a link names, by uuid when
 * the cell is one, else by the field its records are known by (a status's label, a contact's
 * email); a set's records, comma-separated. Undefined for any other column.
 */
function namedCell(r: ResourceDef, name: string, cell: string): unknown {
  const rel = [...(r.links ?? []), ...(r.sets ?? [])].find((x) => x.name === name);
  const by = rel && (knownBy(rel) ?? rel.by.find((b) => b !== 'uuid'));
  if (!rel || !by) return undefined;
  const one = (text: string) => (isWholeUuid(text) ? { uuid: text.trim() } : { [by]: text.trim() });
  if ('one' in rel)
    return cell
      .split(',')
      .filter((x) => x.trim() !== '')
      .map(one);
  return one(cell);
}

/** A CSV cell naming a linked record (a property's uuid, a contact's email), as a body names it. */
function linkCell(link: LinkDef, cell: string, problems: string[]): unknown {
  try {
    return nameOf(link, cell.trim(), link.name);
  } catch (e) {
    if (e instanceof CliError) {
      problems.push(e.message.replace(/^--/, ''));
      return undefined;
    }
    throw e;
  }
}

/** Dates in a file are read as written: ISO dates and datetimes, which the server checks. */
const ISO_ONLY: ClientContext = { range: (text) => text, instant: (text) => text };

async function parseCsv(r: ResourceDef, text: string, where: string): Promise<InputRecord[]> {
  const { parse } = await import('csv-parse/sync');
  let rows: string[][];
  try {
    rows = parse(text, {
      relax_column_count: true,
      skip_empty_lines: true,
      bom: true,
      max_record_size: MAX_BODY_BYTES,
    }) as string[][];
  } catch (e) {
    throw usageError(`${where}: ${(e as Error).message}.`);
  }
  const [header, ...data] = rows;
  if (!header) return [];
  const names = header.map((h) => h.trim());
  return data.map((row, i) => {
    const original: Record<string, unknown> = {};
    const body: Record<string, unknown> = {};
    const custom: { name: string; value: string | null }[] = [];
    const problems: string[] =
      row.length === names.length ? [] : [`has ${row.length} cells where the header has ${names.length}`];
    names.forEach((name, c) => {
      const cell = row[c] ?? '';
      original[name] = cell;
      if (name.startsWith('_')) return;
      if (name.startsWith(`${CUSTOM_VALUES_KEY}.`)) {
        // A blank cell clears the custom value.
        custom.push({ name: name.slice(CUSTOM_VALUES_KEY.length + 1), value: cell === '' ? null : cell });
        return;
      }
      // A blank cell, by the one rule: the column is given, so the field is cleared (or, required, a problem).
      const blank = blankOf(r, name, cell, problems);
      if (blank !== undefined) {
        if (blank.value !== undefined) body[name] = blank.value;
        return;
      }
      if (cell === '') return;
      const f = fieldOf(r, name);
      const link = f ? undefined : r.links?.find((l) => l.name === name);
      const v = f
        ? typedCell(f, cell, problems, ISO_ONLY)
        : (namedCell(r, name, cell) ?? (link ? linkCell(link, cell, problems) : cell));
      if (v !== undefined) body[name] = v;
    });
    if (custom.length) body[CUSTOM_VALUES_KEY] = custom;
    return { line: i + 2, original, body, problems };
  });
}

export async function parseRecords(
  r: ResourceDef,
  text: string,
  format: Format,
  where: string,
): Promise<InputRecord[]> {
  if (format === 'ndjson') return parseNdjson(r, text);
  if (format === 'json') return parseJsonArray(r, text, where);
  return parseCsv(r, text, where);
}

/**
 * Writes records back in their input format, each with the reason it did not go through (a line
 * that was no record goes back exactly as it was: its reason is in the summary).
 */
export async function formatFailed(format: Format, records: { record: InputRecord; error: string }[]): Promise<string> {
  // CSV has no such lines; an NDJSON one is its text.
  const rows = records.map(({ record: r, error }) => ('verbatim' in r ? r.verbatim : { ...r.original, _error: error }));
  if (format === 'ndjson') return rows.map((x) => `${typeof x === 'string' ? x : JSON.stringify(x)}\n`).join('');
  if (format === 'json') return `${JSON.stringify(rows, null, 2)}\n`;
  const { stringify } = await import('csv-stringify/sync');
  const columns = [...new Set(rows.flatMap((o) => Object.keys(o as object)))];
  return stringify(rows as object[], { header: true, columns });
}
