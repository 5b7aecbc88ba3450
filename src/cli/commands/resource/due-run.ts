/**
 * The run function of `pm reminders due` (due.ts declares it, and its help says what overdue
 * means). On a terminal, grouped under Overdue / Today / Upcoming in the user's zone, all-day ones
 * (a date, no time) by their date against today's; otherwise the same records, in that order,
 * through the shared output layer (--json, -o ndjson|csv|tsv, -q, --jq), each with its `agenda`.
 */
import { Chalk } from 'chalk';
import type { DateTime, Duration } from 'luxon';
import { luxon } from '../../../core/luxon.js';
import { parseHumanDuration, parseHumanInstant, utcText } from '../../../core/humandate.js';
import { visible } from '../../../core/redact.js';
import { fieldOf } from '../../../resources/index.js';
import type { AgendaDef, FieldDef, ResourceDef } from '../../../resources/types.js';
import type { Deps } from '../../context.js';
import { usageError } from '../../errors.js';
import { typed } from '../../flag-values.js';
import {
  createListPrinter,
  type Display,
  type OutputFlags,
  outputSpecFrom,
  prepareOutput,
  shortUuid,
} from '../../output/index.js';
import { width } from '../../output/table.js';
import { everyRecord } from '../shared.js';
import type { OnResource } from './options.js';

/** `resource` has an agenda (reminders). */
export interface DueOptions extends OnResource {
  /** How far ahead to look (default 7 days). */
  readonly within?: string | undefined;
  /** How far back overdue ones go (default 30 days). */
  readonly overdueSince?: string | undefined;
  /** Show at most this many, in agenda order (the most overdue first). */
  readonly limit?: number | undefined;
  readonly output: OutputFlags;
}

/** The flags that set the window. */
type WindowFlags = Pick<DueOptions, 'within' | 'overdueSince'>;

/** The groups, in agenda order. */
const GROUPS = ['overdue', 'today', 'upcoming'] as const;
type AgendaGroup = (typeof GROUPS)[number];

/** The description plus the one field the agenda adds. */
function agendaResource(reminders: ResourceDef): ResourceDef {
  const agenda: FieldDef = {
    name: 'agenda',
    kind: 'text',
    description: 'overdue, today or upcoming',
    readOnly: true,
    column: 2,
  };
  return { ...reminders, fields: [...reminders.fields, agenda] };
}

/** The window the agenda covers, as instants and as local dates, worked out from the flags. */
interface AgendaWindow {
  /** Overdue ones due at or after this instant (timed) or on or after this local date (all day). */
  readonly since: number;
  readonly sinceDate: string;
  /** Upcoming ones due before this instant (timed) or on or before this local date (all day). */
  readonly until: number;
  readonly untilDate: string;
  readonly now: number;
  readonly today: string;
  readonly zone: string;
}

/** The window from the flags, the clock and the user's zone. Usage errors for bad values. */
function agendaWindow(opts: WindowFlags, deps: Pick<Deps, 'now' | 'timeZone'>): AgendaWindow {
  const zone = deps.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const now = luxon().DateTime.fromMillis(deps.now(), { zone });
  if (!now.isValid) throw usageError(`"${zone}" is not a time zone I know; use an IANA name such as Europe/London.`);
  const within = opts.within;
  const until = now.plus(within === undefined ? { days: 7 } : typed('within', () => parseHumanDuration(within)));
  // Only a --within can fail this: 7 days are ahead.
  if (until <= now) throw usageError(`--within must be a length of time ahead, not "${within}".`);

  let since: DateTime = now.minus({ days: 30 });
  if (opts.overdueSince !== undefined) {
    const text = String(opts.overdueSince);
    let back: Duration | undefined;
    try {
      back = parseHumanDuration(text);
    } catch {
      back = undefined;
    }
    if (back) {
      since = now.minus(back);
      if (since > now) since = now.plus(back);
    } else {
      const at = typed('overdue-since', () => parseHumanInstant(text, { now: deps.now(), zone }));
      // A day starts at midnight here; a datetime without offset is UTC, as everywhere in pm.
      since = at.dateOnly
        ? luxon().DateTime.fromISO(at.iso, { zone }).startOf('day')
        : luxon().DateTime.fromISO(at.iso, { zone: 'utc' }).setZone(zone);
    }
    if (since > now) throw usageError(`--overdue-since must be in the past, not "${text}".`);
  }
  return {
    since: since.toMillis(),
    sinceDate: since.toISODate() as string,
    until: until.toMillis(),
    untilDate: until.toISODate() as string,
    now: now.toMillis(),
    today: now.toISODate() as string,
    zone,
  };
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

interface Entry {
  readonly record: Record<string, unknown>;
  readonly group: AgendaGroup;
  /** Sort key: the instant, or for an all-day one the start of its day in the user's zone. */
  readonly key: number;
  /** The local date (YYYY-MM-DD) it is due on. */
  readonly date: string;
  /** Local time HH:mm, or undefined for all day. */
  readonly time: string | undefined;
}

/**
 * The records of the window, grouped and in agenda order (overdue, today, upcoming; by due time
 * within each, all-day ones first on their day). Records outside the window (the fetch asks for
 * a day more on each side, for all-day dates) and without a due_at are dropped. Pure.
 */
function agendaEntries(
  records: Record<string, unknown>[],
  w: AgendaWindow,
  fields: { readonly due: string; readonly allDay?: string | undefined; readonly done?: string | undefined },
): Entry[] {
  const out: Entry[] = [];
  for (const record of records) {
    // Done ones are not due (a repeating one is never left done: its due date moved on).
    if (fields.done !== undefined && record[fields.done] !== null && record[fields.done] !== undefined) continue;
    const due = record[fields.due];
    if (typeof due !== 'string') continue;
    if (DATE_ONLY.test(due) || (fields.allDay !== undefined && record[fields.allDay] === true)) {
      const date = due.slice(0, 10);
      if (!DATE_ONLY.test(date) || date < w.sinceDate || date > w.untilDate) continue;
      const group: AgendaGroup = date < w.today ? 'overdue' : date === w.today ? 'today' : 'upcoming';
      const key = luxon().DateTime.fromISO(date, { zone: w.zone }).startOf('day').toMillis();
      out.push({ record, group, key, date, time: undefined });
      continue;
    }
    const at = luxon().DateTime.fromISO(due, { setZone: false }).setZone(w.zone);
    if (!at.isValid) continue;
    const ms = at.toMillis();
    if (ms < w.since || ms >= w.until) continue;
    const date = at.toISODate() as string;
    const group: AgendaGroup = ms < w.now ? 'overdue' : date === w.today ? 'today' : 'upcoming';
    out.push({ record, group, key: ms, date, time: at.toFormat('HH:mm') });
  }
  return out.sort((a, b) => GROUPS.indexOf(a.group) - GROUPS.indexOf(b.group) || a.key - b.key);
}

export async function dueRun(o: DueOptions): Promise<void> {
  const { f, resource } = o;
  const agenda = resource.agenda as AgendaDef;
  const r = agendaResource(resource);
  const spec = outputSpecFrom(r, o.output);
  await prepareOutput(spec);
  const w = agendaWindow(o, f);

  // A day of slack each side: an all-day record's due date is the date, which the server places
  // at midnight UTC, while its day here is the user's.
  const range = `${utcText(w.since - 86_400_000)}/${utcText(w.until + 86_400_000)}`;
  const s = await f.session();
  const records: Record<string, unknown>[] = [];
  const query = new URLSearchParams({ [agenda.due]: range });
  // Where each is (a reminder's property), shown beside its title.
  if (agenda.where) query.set('embed', agenda.where);
  for await (const x of everyRecord(s, resource, query)) records.push(x);
  const entries = agendaEntries(records, w, {
    due: agenda.due,
    allDay: fieldOf(resource, agenda.due)?.allDayFlag,
    done: agenda.done,
  });
  const d = await f.display({ paged: true });
  const agendaView = d.tty && spec.format === 'table' && !spec.fields && !spec.quiet && spec.jq === undefined;
  if (agendaView) {
    await printAgenda(entries, w, d, o.within ?? '7 days', agenda, o.limit);
    return;
  }
  const printer = createListPrinter(r, spec, d);
  printer.add(entries.slice(0, o.limit).map((e) => ({ ...e.record, agenda: e.group })));
  await printer.end();
}

/** A line's title: the record's, and where it is (its property's address) when it is about one. */
function titleWithPlace(record: Record<string, unknown>, agenda: AgendaDef): string {
  const title = String(record[agenda.title] ?? '');
  const linked = agenda.where === undefined ? undefined : record[agenda.where];
  const data = typeof linked === 'object' && linked !== null ? (linked as { data?: unknown }).data : undefined;
  const where = typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : undefined;
  const place = where && Object.entries(where).find(([k, v]) => k !== 'uuid' && typeof v === 'string')?.[1];
  return typeof place === 'string' && place !== '' ? `${title} · ${place}` : title;
}

/**
 * The agenda on a terminal: a heading per group, then `date  time  title  uuid` lines, in one
 * layout for every group; uuids as a table shows them (their first 8 characters).
 */
async function printAgenda(
  entries: Entry[],
  w: AgendaWindow,
  d: Display,
  period: string,
  agenda: AgendaDef,
  limit = Number.POSITIVE_INFINITY,
): Promise<void> {
  const c = new Chalk({ level: d.color ? 1 : 0 });
  if (!entries.length) {
    const since = luxon().DateTime.fromISO(w.sinceDate).toFormat('d LLLL');
    d.stderr.write(`Nothing due in the next ${period}, and nothing overdue since ${since}.\n`);
    return;
  }
  const today = luxon().DateTime.fromISO(w.today);
  const dayLabel = (date: string): string => {
    const day = luxon().DateTime.fromISO(date);
    const diff = Math.round(day.diff(today, 'days').days);
    if (diff === 0) return 'today';
    if (diff === 1) return 'tomorrow';
    if (diff === -1) return 'yesterday';
    return day.toFormat(day.year === today.year ? 'ccc d LLL' : 'd LLL yyyy');
  };
  const columns = d.stdout.columns || 100;
  const headings: Record<AgendaGroup, string> = {
    overdue: 'Overdue',
    today: `Today, ${today.toFormat('cccc d LLLL')}`,
    upcoming: 'Upcoming',
  };
  // The groups' lines within --limit, then one layout for all of them: the times, titles and
  // uuids of every section line up.
  let quota = limit;
  const groups = GROUPS.flatMap((group) => {
    const all = entries.filter((e) => e.group === group);
    if (!all.length) return [];
    const list = all.slice(0, Math.max(0, quota));
    quota -= list.length;
    return [{ group, count: all.length, list }];
  });
  const shown = groups.flatMap((g) => g.list);
  // Today's lines need no date: theirs is blank, as wide as the others'.
  const dateOf = (e: Entry) => (e.group === 'today' ? '' : dayLabel(e.date));
  const dateWidth = Math.max(0, ...shown.map((e) => dateOf(e).length));
  const when = (e: Entry) => `${dateWidth ? `${dateOf(e).padEnd(dateWidth)}  ` : ''}${(e.time ?? 'all day').padEnd(7)}`;
  const titleOf = (e: Entry) => visible(titleWithPlace(e.record, agenda));
  const uuidWidth = Math.max(0, ...shown.map((e) => shortUuid(String(e.record.uuid ?? '')).length));
  // The title column: as wide as the longest title, or what the terminal leaves for it.
  const whenWidth = dateWidth ? dateWidth + 2 + 7 : 7;
  const room = Math.max(10, columns - 2 - whenWidth - 2 - (uuidWidth ? uuidWidth + 2 : 0));
  const titleWidth = Math.min(room, Math.max(0, ...shown.map((e) => width(titleOf(e)))));
  let text = '';
  for (const { group, count, list } of groups) {
    if (text) text += '\n';
    // Each heading says how many are under it.
    const heading = `${headings[group]} (${count})`;
    text += `${group === 'overdue' ? c.red.bold(heading) : c.bold(heading)}\n`;
    for (const e of list) {
      let name = titleOf(e);
      if (width(name) > titleWidth) name = `${[...name].slice(0, titleWidth - 1).join('')}…`;
      const at = when(e);
      const uuid = shortUuid(String(e.record.uuid ?? ''));
      const padded = name + ' '.repeat(titleWidth - width(name));
      const line = `  ${group === 'overdue' ? c.red(at) : at}  ${padded}${uuid ? `  ${c.dim(uuid)}` : ''}`;
      text += `${line.trimEnd()}\n`;
    }
    const left = count - list.length;
    if (left) text += `  … ${left} more (--limit)\n`;
  }
  d.stdout.write(text);
}
