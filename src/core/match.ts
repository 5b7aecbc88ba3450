/**
 * Whether a record, as the API shows it, meets the conditions of a list query: the client's own
 * check of what a server answered, by the rules the stores compile (server/sql/where.ts) and the
 * filter kinds' folding (kinds.ts). A fuzzy filter is a substring of the folded text; exact values
 * are whole; a range is half-open. A condition on other records (a parent's fields, a status's
 * label, custom field values) cannot be checked on the record alone.
 */
import { instantMillis } from './datetime.js';
import { type Condition, FILTER_KINDS, foldText, isCodeValue } from './kinds.js';

/** The conditions a record alone cannot answer: relational and custom-field filters. */
export const uncheckable = (c: Condition): boolean => c.kind === 'relation' || c.kind === 'custom';

/** Two texts equal, ASCII case aside: as a `same` condition compares, and a body's label names a record (SQL NOCASE). */
export const sameText = (a: string, b: string): boolean => asciiLower(a) === asciiLower(b);
/** Text with its ASCII letters in lower case alone, as SQL's NOCASE compares. */
export const asciiLower = (s: string) => s.replace(/[A-Z]/g, (ch) => ch.toLowerCase());

function meetsOne(c: Condition, rec: Readonly<Record<string, unknown>>): boolean {
  switch (c.kind) {
    case 'in': {
      const v = rec[c.field.name];
      return typeof v === 'string' && c.values.includes(v);
    }
    case 'int': {
      const raw = rec[c.field.name];
      const v = isCodeValue(raw) ? raw.code : raw;
      return typeof v === 'number' && c.values.includes(v);
    }
    case 'bool':
      return rec[c.field.name] === c.value;
    case 'fuzzy': {
      const v = rec[c.field.name];
      const fold = (c.field.filter && FILTER_KINDS[c.field.filter].fold) || foldText;
      return typeof v === 'string' && fold(v).includes(fold(c.value));
    }
    case 'same': {
      const v = rec[c.field.name];
      return typeof v === 'string' && c.values.some((x) => sameText(x, v));
    }
    case 'prefix': {
      const v = rec[c.field.name];
      return typeof v === 'string' && v.toLowerCase().startsWith(c.value);
    }
    case 'range': {
      const v = rec[c.field.name];
      const ms = typeof v === 'string' ? instantMillis(v) : undefined;
      return ms !== undefined && ms >= c.range.start && ms < c.range.end;
    }
    case 'relation':
    case 'custom':
      throw new Error(`a ${c.kind} condition cannot be checked on a record alone`);
  }
}

/** Whether `rec` meets every condition; throws (a programming error) on one that `uncheckable` names. */
export function meetsAll(conditions: readonly Condition[], rec: Readonly<Record<string, unknown>>): boolean {
  return conditions.every((c) => meetsOne(c, rec));
}
