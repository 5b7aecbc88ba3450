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
 * Column widths that fit `total`: columns that fit keep their natural width; otherwise the
 * shrinkable ones share what is left, the narrow ones first keeping theirs ("water filling").
 * A column keeps its header whole while that still fits, and never goes below MIN_WIDTH.
 */
export function fitWidths(natural: readonly number[], columns: readonly Column[], total: number): number[] {
  const widths = [...natural];
  const used = natural.reduce((a, b) => a + b, 0) + GAP * Math.max(0, natural.length - 1);
  if (used <= total) return widths;
  const shrink = columns.map((c, i) => (c.shrinkable ? i : -1)).filter((i) => i >= 0);
  if (!shrink.length) return widths;
  const budget = total - (used - shrink.reduce((a, i) => a + (natural[i] ?? 0), 0));
  const floorOf = (i: number, keepHeader: boolean): number =>
    Math.min(natural[i] ?? 0, Math.max(MIN_WIDTH, keepHeader ? (columns[i]?.headerWidth ?? 0) : 0));
  const keepHeaders = shrink.reduce((a, i) => a + floorOf(i, true), 0) <= budget;
  let left = budget;
  const order = [...shrink].sort((a, b) => (natural[a] ?? 0) - (natural[b] ?? 0));
  order.forEach((i, k) => {
    const share = Math.floor(left / (order.length - k));
    const w = Math.max(Math.min(natural[i] ?? 0, share), floorOf(i, keepHeaders));
    widths[i] = w;
    left -= w;
  });
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
export function columnsThatFit(natural: readonly number[], columns: readonly Column[], total: number): number[] {
  const shown = columns.map((_, i) => i);
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

/** A table being written: rows are added as they come, in the layout its first rows set. */
export interface TableWriter {
  /** Writes more rows, in the columns and widths of the first. */
  add(rows: readonly string[][]): void;
  /** The indexes of the columns hidden to fit the terminal. */
  readonly hidden: readonly number[];
}

/**
 * Starts a table: the header and the first rows, then `add` for more. The columns shown and their
 * widths are those the first rows need (within `total`), so rows can be written as they come (a
 * list's pages); a longer value in a later row is shortened with …, as one too wide for the
 * terminal is.
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
  const shown = columnsThatFit(allNatural, allColumns, total);
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
  return { add, hidden: allColumns.map((_, i) => i).filter((i) => !shown.includes(i)) };
}
