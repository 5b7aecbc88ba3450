/**
 * The terminal table: cli-table3 without box drawing (columns two spaces apart, like gh), long
 * text shortened with … so that a row fits the terminal. cli-table3 is loaded on first use.
 */
import { createRequire } from 'node:module';
import type CliTable3 from 'cli-table3';

export interface Column {
  /** The header, already coloured or not. */
  readonly header: string;
  /** The header's width on screen (without colour codes). */
  readonly headerWidth: number;
  /** Numbers line up on the right. */
  readonly right: boolean;
  /** May be shortened to fit (free text; never uuids, times or numbers). */
  readonly shrinkable: boolean;
  /** 1: always shown; higher numbers are hidden first when the terminal is too narrow. */
  readonly priority: number;
  /** The widest any value of the column can be, when that is known (a code's names). */
  readonly widest?: number;
}

const GAP = 2;
const MIN_WIDTH = 6;
/** Text is not shortened below this before columns of a lower priority are hidden. */
const READABLE = 10;

/** Width on screen, counting code points (good enough to share out the columns). */
export const width = (s: string): number => [...s].length;

/**
 * Widths for the columns in `part` that share `budget` ("water filling"): the narrow ones keep
 * their natural width, the others share what is left; none goes below `floorOf`.
 */
function share(
  widths: number[],
  natural: readonly number[],
  part: readonly number[],
  budget: number,
  floorOf: (i: number) => number,
): void {
  let left = budget;
  const order = [...part].sort((a, b) => (natural[a] ?? 0) - (natural[b] ?? 0));
  order.forEach((i, k) => {
    const w = Math.max(Math.min(natural[i] ?? 0, Math.floor(left / (order.length - k))), floorOf(i));
    widths[i] = w;
    left -= w;
  });
}

/**
 * Column widths that fit `total`: columns that fit keep their natural width; otherwise text is
 * shortened, that of the least important columns (the highest priority number) first, each
 * down to READABLE (its header kept) before a more important one is touched; only when that is
 * not enough do all the shrinkable ones share what is left, never below MIN_WIDTH.
 */
export function fitWidths(natural: readonly number[], columns: readonly Column[], total: number): number[] {
  const widths = [...natural];
  const used = natural.reduce((a, b) => a + b, 0) + GAP * Math.max(0, natural.length - 1);
  if (used <= total) return widths;
  const shrink = columns.map((c, i) => (c.shrinkable ? i : -1)).filter((i) => i >= 0);
  if (!shrink.length) return widths;
  const readable = (i: number) => Math.min(natural[i] ?? 0, Math.max(READABLE, columns[i]?.headerWidth ?? 0));
  let over = used - total;
  const priorities = [...new Set(shrink.map((i) => (columns[i] as Column).priority))].sort((a, b) => b - a);
  for (const p of priorities) {
    const part = shrink.filter((i) => (columns[i] as Column).priority === p);
    const room = part.reduce((a, i) => a + (natural[i] ?? 0) - readable(i), 0);
    const now = part.reduce((a, i) => a + (natural[i] ?? 0), 0);
    share(widths, natural, part, now - Math.min(over, room), readable);
    over -= Math.min(over, room);
    if (over === 0) return widths;
  }
  const budget = total - (used - shrink.reduce((a, i) => a + (natural[i] ?? 0), 0));
  const floorOf = (i: number, keepHeader: boolean): number =>
    Math.min(natural[i] ?? 0, Math.max(MIN_WIDTH, keepHeader ? (columns[i]?.headerWidth ?? 0) : 0));
  const keepHeaders = shrink.reduce((a, i) => a + floorOf(i, true), 0) <= budget;
  share(widths, natural, shrink, budget, (i) => floorOf(i, keepHeaders));
  return widths;
}

const NO_BORDERS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: ' '.repeat(GAP),
};

/** Rows per cli-table3 instance: its layout time grows with the square of the rows, so a long list is drawn in chunks of the same column widths (linear: ~0.1 ms a row). */
const CHUNK = 50;

/**
 * The columns to show in `total`: while even readable widths (text at READABLE) overflow, the
 * column of the highest priority number (the last of equals) is hidden. Returns their indexes.
 */
export function columnsThatFit(
  natural: readonly number[],
  columns: readonly Column[],
  total: number,
  from: readonly number[] = columns.map((_, i) => i),
): number[] {
  const shown = [...from];
  const least = (i: number) =>
    (columns[i] as Column).shrinkable ? Math.min(natural[i] ?? 0, READABLE) : (natural[i] ?? 0);
  const need = () => shown.reduce((a, i) => a + least(i), 0) + GAP * Math.max(0, shown.length - 1);
  const priority = (i: number) => (columns[i] as Column).priority;
  while (need() > total) {
    let drop = -1;
    for (const i of shown) if (priority(i) > 1 && (drop < 0 || priority(i) >= priority(drop))) drop = i;
    if (drop < 0) break;
    shown.splice(shown.indexOf(drop), 1);
  }
  return shown;
}

/**
 * Why a column is not shown: every value of the first rows is empty, or (a number) 0, so that it
 * says nothing; or the terminal is too narrow for it.
 */
export type HiddenWhy = 'empty' | 'all 0' | 'to fit';

/** A table being written: rows are added as they come, in the layout its first rows set. */
export interface TableWriter {
  /** Writes more rows, in the columns and widths of the first. */
  add(rows: readonly string[][]): void;
  /** The columns not shown, by index, and why, in the order of the columns. */
  readonly hidden: readonly { readonly index: number; readonly why: HiddenWhy }[];
}

/** 'empty' or 'all 0' when every cell of column `i` says nothing (a number column's 0 too). */
function saysNothing(column: Column, rows: readonly string[][], i: number): HiddenWhy | undefined {
  const cells = rows.map((r) => (r[i] ?? '').trim());
  if (cells.every((x) => x === '')) return 'empty';
  if (column.right && cells.every((x) => x === '0' || x === '')) return 'all 0';
  return undefined;
}

const totalWidth = (natural: readonly number[], shown: readonly number[]): number =>
  shown.reduce((a, i) => a + (natural[i] ?? 0), 0) + GAP * Math.max(0, shown.length - 1);

/**
 * Starts a table: the header and the first rows, then `add` for more. The columns shown and their
 * widths are those the first rows need (within `total`), so rows can be written as they come (a
 * list's pages); a longer value in a later row is shortened with …, as one too wide for the
 * terminal is. When the columns do not fit `total`, those that say nothing (empty, or all 0 in
 * the first rows) are left out first, before any text is shortened or another column hidden.
 */
export function startTable(
  allColumns: readonly Column[],
  firstRows: readonly string[][],
  total: number,
  write: (text: string) => void,
): TableWriter {
  const Table = createRequire(import.meta.url)('cli-table3') as typeof CliTable3;
  const allNatural = allColumns.map((c, i) =>
    firstRows.reduce((w, r) => Math.max(w, width(r[i] ?? '')), Math.max(c.headerWidth, c.widest ?? 0)),
  );
  const every = allColumns.map((_, i) => i);
  const nothing = new Map<number, HiddenWhy>();
  if (totalWidth(allNatural, every) > total)
    allColumns.forEach((c, i) => {
      const why = c.priority > 1 ? saysNothing(c, firstRows, i) : undefined;
      if (why) nothing.set(i, why);
    });
  const shown = columnsThatFit(
    allNatural,
    allColumns,
    total,
    every.filter((i) => !nothing.has(i)),
  );
  const columns = shown.map((i) => allColumns[i] as Column);
  const natural = shown.map((i) => allNatural[i] ?? 0);
  const colWidths = fitWidths(natural, columns, total);
  const align = (c: Column) => (c.right ? 'right' : 'left') as 'right' | 'left';
  const chunk = (head: boolean, part: readonly string[][]): string => {
    const table = new Table({
      ...(head ? { head: columns.map((c) => ({ content: c.header, hAlign: align(c) })) as unknown as string[] } : {}),
      chars: NO_BORDERS,
      style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
      colWidths,
      truncate: '…',
      wordWrap: false,
    });
    for (const r of part) table.push(columns.map((c, i) => ({ content: r[i] ?? '', hAlign: align(c) })));
    return table
      .toString()
      .split('\n')
      .map((l) => `${l.trimEnd()}\n`)
      .join('');
  };
  const add = (allRows: readonly string[][]) => {
    const rows = allRows.map((r) => shown.map((i) => r[i] ?? ''));
    for (let i = 0; i < rows.length; i += CHUNK) write(chunk(false, rows.slice(i, i + CHUNK)));
  };
  const first = firstRows.map((r) => shown.map((i) => r[i] ?? ''));
  write(chunk(true, first.slice(0, CHUNK)));
  add(firstRows.slice(CHUNK));
  const hidden = every
    .filter((i) => !shown.includes(i))
    .map((index) => ({ index, why: nothing.get(index) ?? ('to fit' as const) }));
  return { add, hidden };
}
