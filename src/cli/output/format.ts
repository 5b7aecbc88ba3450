/**
 * How one value of a record is written, per field kind and per audience: a person at a terminal
 * (local times, yes/no, names of codes), a pipe (the same words, ISO times as sent) and a CSV/TSV
 * cell (values as the API sent them).
 */
import type { FieldDef } from '../../resources/types.js';
import { isObject } from '../../core/json.js';
import { FIELD_KINDS, isCodeValue } from '../../core/kinds.js';
import { visible } from '../../core/redact.js';
import { roundedSize } from '../../core/size.js';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** Embedded custom field values arrive as {data: [{uuid, name, label, value}]}. */
export function customValues(v: unknown): { name?: unknown; label?: unknown; value?: unknown }[] | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const list = Array.isArray(v) ? v : (v as { data?: unknown }).data;
  return Array.isArray(list) && list.every((x) => typeof x === 'object' && x !== null) ? list : undefined;
}

const pad2 = (n: number) => String(n).padStart(2, '0');

/** Formats instants as `YYYY-MM-DD HH:mm` in one time zone; one formatter per printer. */
export class TimeFormatter {
  private readonly fmt: Intl.DateTimeFormat;

  constructor(timeZone: string | undefined) {
    const options: Intl.DateTimeFormatOptions = {
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      hourCycle: 'h23',
    };
    try {
      this.fmt = new Intl.DateTimeFormat('en-GB', timeZone ? { ...options, timeZone } : options);
    } catch {
      // An unknown zone name: fall back to the system's rather than fail to print data.
      this.fmt = new Intl.DateTimeFormat('en-GB', options);
    }
  }

  /** `YYYY-MM-DD HH:mm` for an ISO datetime; the text unchanged when it is not one. */
  local(iso: string): string {
    const ms = Date.parse(iso);
    if (Number.isNaN(ms)) return iso;
    const p: Record<string, number> = {};
    for (const part of this.fmt.formatToParts(ms)) if (part.type !== 'literal') p[part.type] = Number(part.value);
    return `${p.year}-${pad2(p.month ?? 0)}-${pad2(p.day ?? 0)} ${pad2(p.hour ?? 0)}:${pad2(p.minute ?? 0)}`;
  }

  /** Today's date (YYYY-MM-DD) in the zone. */
  today(now: number): string {
    return this.local(new Date(now).toISOString()).slice(0, 10);
  }
}

// Made on first use: setting up ICU's relative-time data costs ~12 ms, which a run that prints
// no relative time (--json, a list) should not pay.
let relativeFormat: Intl.RelativeTimeFormat | undefined;

function scaled(seconds: number, wholeDays: boolean): string {
  relativeFormat ??= new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  const a = Math.abs(seconds);
  const days = seconds / 86_400;
  if (!wholeDays) {
    if (a < 60) return relativeFormat.format(0, 'second');
    if (a < 3600) return relativeFormat.format(Math.round(seconds / 60), 'minute');
    if (a < 86_400) return relativeFormat.format(Math.round(seconds / 3600), 'hour');
  }
  if (a < 30 * 86_400) return relativeFormat.format(Math.round(days), 'day');
  if (a < 365 * 86_400) return relativeFormat.format(Math.round(days / 30), 'month');
  return relativeFormat.format(Math.round(days / 365), 'year');
}

/** "in 2 days", "3 hours ago", "tomorrow": for a person reading a single record. */
export function relative(iso: string, now: number, times: TimeFormatter): string | undefined {
  // A date without time is a whole day: count days from today in the user's zone.
  const from = DATE_ONLY.test(iso) ? Date.parse(times.today(now)) : now;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms) || Number.isNaN(from)) return undefined;
  return scaled((ms - from) / 1000, DATE_ONLY.test(iso));
}

export function isTimeField(f: FieldDef | undefined, v: unknown): v is string {
  return typeof v === 'string' && f !== undefined && FIELD_KINDS[f.kind].isTime(v);
}

/**
 * The words a person sees for a value. `times` given: datetimes in local time (terminal);
 * absent: as the API sent them (piped). Line breaks kept only when `multiline`.
 */
export function humanValue(
  f: FieldDef | undefined,
  v: unknown,
  times: TimeFormatter | undefined,
  multiline = false,
): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (isCodeValue(v)) {
    const name = typeof v.name === 'string' ? v.name : f?.codes?.[Number(v.code)];
    return visible(name ?? String(v.code));
  }
  if (typeof v === 'string') {
    if (times && isTimeField(f, v)) return times.local(v);
    // Control characters would let a record's text move the cursor or recolour a terminal.
    return visible(v, multiline);
  }
  if (typeof v === 'number' && times && f?.unit === 'bytes') return roundedSize(v);
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  // An embedded record (a property's contact, a note's parent): its uuid and what names it.
  const one = (v as { data?: unknown }).data;
  if (one === null && typeof v === 'object' && Object.keys(v as object).length === 1) return '';
  if (isObject(one) && 'uuid' in one) {
    const { uuid, ...rest } = one;
    const words = Object.values(rest).filter((x): x is string => typeof x === 'string' && x.trim() !== '');
    return visible(`${String(uuid)}${words.length ? ` (${words.join(', ')})` : ''}`);
  }
  const custom = customValues(v);
  if (custom) {
    const shown = custom.map((c) => {
      const label = String(c.label ?? c.name ?? '');
      return c.value === null || c.value === undefined || c.value === '' ? `${label}:` : `${label}: ${String(c.value)}`;
    });
    return visible(shown.join(', '));
  }
  return visible(JSON.stringify(v));
}

/** A value for a CSV/TSV cell: ISO strings as sent, true/false, codes as numbers, JSON otherwise. */
export function cellValue(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean' || typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (isCodeValue(v)) return String(v.code);
  return JSON.stringify(v);
}

/** RFC 4180: quote a cell holding a quote, comma or line break; double the quotes inside. */
export function csvCell(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * A CSV cell a spreadsheet would run as a formula (it starts with =, +, -, @, a tab or a carriage
 * return) gets a leading quote, as OWASP advises; numbers (-3, +44) are left as they are.
 */
export function guardCell(s: string): string {
  return /^[=+\-@\t\r]/.test(s) && !/^[+-]?\d+(\.\d+)?$/.test(s) ? `'${s}` : s;
}

/**
 * TSV has no quoting: a tab, a line break and a backslash inside a value are escaped as \t, \n,
 * \r and \\ (as PostgreSQL's COPY and MySQL write them), so that one record is one line and
 * every tab separates columns; `printf '%b'` or `sed` reads them back.
 */
export function tsvCell(s: string): string {
  return s.replace(/[\\\t\r\n]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\r' ? '\\r' : '\\n'));
}
