/**
 * The run function of `pm attachments remind`: for each file with an expiry in the window, one
 * reminder about its property, due a lead time before the expiry, kept true on every run.
 *
 * A reminder is the job's when its description holds `MARK <file's uuid>`: the key that finds it
 * again (the title changes with the expiry). A create carries an Idempotency-Key made of the
 * file's uuid and its expiry, so a server that keeps keys makes one record of two runs at once;
 * against one that does not, each run then lists the job's reminders again and keeps, of any
 * twins, the oldest (by created_at, then uuid): runs at once converge on the same one.
 */
import type { Duration } from 'luxon';
import { HttpStatusError } from '../../../client/errors.js';
import { parseHumanDuration, parseHumanRange } from '../../../core/humandate.js';
import { luxon } from '../../../core/luxon.js';
import { visible } from '../../../core/redact.js';
import { aOr } from '../../../core/words.js';
import { CALENDAR_RESOURCE, inputFields } from '../../../resources/index.js';
import type { AgendaDef, FieldDef, ResourceDef } from '../../../resources/types.js';
import { about } from '../../api-errors.js';
import { usageError } from '../../errors.js';
import { typed } from '../../flag-values.js';
import type { Session } from '../../session.js';
import { serverUuid } from '../../untrusted.js';
import { everyRecord, when } from '../shared.js';
import type { OnResource } from '../resource/options.js';

export interface RemindOptions extends OnResource {
  /** The expiries to remind of, in words or ISO ("next 90 days"). */
  readonly expiring: string;
  /** How long before the expiry each reminder is due ("30 days"). */
  readonly before: string;
}

type Rec = Record<string, unknown>;

/** A record's uuid as the server gave it: used in a path, a key or a line only once checked to be one. */
const uuidOf = (x: Rec, what: string): string => serverUuid(x.uuid, `the uuid of ${what}`);

/** A date as an expiry is sent: used in a title and an idempotency key only when it is one. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** What a job's reminder says of the file it is about, in its description. */
const MARK = 'Made by pm attachments remind for attachment';
const MARKED = new RegExp(`${MARK} ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})`);

/** The file a reminder is the job's reminder of, or undefined. */
const markOf = (rec: Rec): string | undefined =>
  typeof rec.description === 'string' ? MARKED.exec(rec.description)?.[1] : undefined;

/** The embedded linked record's data (`{"data": {...}}`), or undefined. */
const dataOf = (v: unknown): Rec | undefined => {
  const d = typeof v === 'object' && v !== null ? (v as { data?: unknown }).data : undefined;
  return typeof d === 'object' && d !== null ? (d as Rec) : undefined;
};

/** What the job wants a file's reminder to be. */
interface Wanted {
  readonly title: string;
  readonly due: string;
  readonly expires: string;
}

export async function remindRun(o: RemindOptions): Promise<void> {
  const { f, resource: r } = o;
  const reminders = CALENDAR_RESOURCE;
  const agenda = reminders.agenda as AgendaDef;
  const expiry = inputFields(r).find((x) => x.kind === 'date') as FieldDef;
  // The link of a reminder to the record a file belongs to (a property).
  const parents = r.parents ?? [];
  const link = (reminders.links ?? []).find((l) => l.name === agenda.where);
  const parent = parents.find((p) => p.target === link?.target);
  if (!expiry || !link || !parent) throw usageError(`${r.plural} cannot be reminded of here.`);
  const range = typed('expiring', () => parseHumanRange(o.expiring, when(f)));
  const lead: Duration = typed('before', () => parseHumanDuration(o.before));
  if (lead.toMillis() < 0) throw usageError(`--before must be a length of time, not "${o.before}".`);
  const { DateTime } = luxon();
  const wanted = (file: Rec, place: Rec): Wanted | undefined => {
    const expires = file[expiry.name];
    if (typeof expires !== 'string' || !ISO_DATE.test(expires)) return undefined;
    const day = DateTime.fromISO(expires, { zone: 'utc' });
    const where = [place.address].filter((x) => typeof x === 'string' && x !== '').join(', ');
    return {
      expires,
      due: day.minus(lead).toISODate() as string,
      title: `Renew ${String(file.name)}${where ? `, ${where}` : ''}: expires ${day.toFormat('d LLL yyyy')}`,
    };
  };

  const s = await f.session();
  const say = (line: string) => f.io.stderr.write(`${visible(line)}\n`);
  const open = await jobReminders(s, reminders, agenda);
  const seen = new Set<string>();
  const files = everyRecord(s, r, new URLSearchParams({ [expiry.name]: range, embed: parent.name }));
  for await (const file of files) {
    const place = dataOf(file[parent.name]);
    const want = place && wanted(file, place);
    if (!place || !want) continue;
    const uuid = uuidOf(file, aOr(r.singular));
    seen.add(uuid);
    const mine = open.get(uuid)?.[0];
    if (mine) await keep(s, reminders, agenda, mine, want, say);
    else {
      const body = {
        [agenda.title]: want.title,
        [agenda.due]: want.due,
        [link.name]: { uuid: uuidOf(place, `the ${parent.name} of ${r.singular} ${uuid}`) },
        ...(agenda.details ? { [agenda.details]: `${MARK} ${uuid} (${want.expires}).` } : {}),
      };
      const made = await s.client
        .create(reminders, body, undefined, `pm-remind-${uuid}-${want.expires}`)
        .catch((e) => Promise.reject(about(e, reminders)));
      say(`Created reminder ${uuidOf(made, 'the reminder made')}: ${want.title}, due ${want.due}.`);
    }
  }
  // The job's reminders of files not in the window: gone, no longer expiring, or moved away.
  for (const [uuid, [mine]] of open) {
    if (seen.has(uuid) || !mine) continue;
    let file: Rec | undefined;
    try {
      file = await s.client.get(r, uuid, parent.name);
    } catch (e) {
      if (!(e instanceof HttpStatusError && e.status === 404)) throw about(e, r);
    }
    const place = file && dataOf(file[parent.name]);
    const want = file && place ? wanted(file, place) : undefined;
    if (want) await keep(s, reminders, agenda, mine, want, say);
    else {
      const done = uuidOf(mine, 'a reminder');
      await s.client.update(reminders, done, { [agenda.done as string]: new Date(f.now()).toISOString() });
      const why = file ? `its ${r.singular} no longer expires` : `its ${r.singular} was deleted`;
      say(`Done reminder ${done}: ${why}.`);
    }
  }
  // Twins made by runs at once (a server without idempotency keys): the oldest of each is kept.
  for (const [, twins] of await jobReminders(s, reminders, agenda))
    for (const twin of twins.slice(1)) {
      await s.client.delete(reminders, uuidOf(twin, 'a reminder')).catch((e) => {
        if (!(e instanceof HttpStatusError && e.status === 404)) throw about(e, reminders);
      });
    }
}

/** The job's open reminders, by the file each is of, oldest first (created_at, then uuid). */
async function jobReminders(s: Session, reminders: ResourceDef, agenda: AgendaDef): Promise<Map<string, Rec[]>> {
  const out = new Map<string, Rec[]>();
  const done = reminders.fields.find((x) => x.computed && 'set' in x.computed && x.computed.set === agenda.done);
  const query = new URLSearchParams(done ? { [done.name]: 'false' } : {});
  for await (const rec of everyRecord(s, reminders, query)) {
    const uuid = markOf(rec);
    if (!uuid || (agenda.done && rec[agenda.done])) continue;
    out.set(uuid, [...(out.get(uuid) ?? []), rec]);
  }
  const key = (x: Rec) => `${String(x.created_at)} ${String(x.uuid)}`;
  for (const list of out.values()) list.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  return out;
}

/** A job's reminder made to say what the file says now: its due date and title moved when the expiry moved. */
async function keep(
  s: Session,
  reminders: ResourceDef,
  agenda: AgendaDef,
  mine: Rec,
  want: Wanted,
  say: (line: string) => void,
): Promise<void> {
  if (mine[agenda.due] === want.due && mine[agenda.title] === want.title) return;
  const uuid = uuidOf(mine, 'a reminder');
  await s.client.update(reminders, uuid, { [agenda.title]: want.title, [agenda.due]: want.due });
  say(`Moved reminder ${uuid}: ${want.title}, due ${want.due}.`);
}
