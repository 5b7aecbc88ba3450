/**
 * Done on a record with an agenda that repeats (a reminder, `agenda.repeat`): marking it done
 * moves its due date on by one period from the date it was due (not from when it was done, so a
 * check done late keeps its cycle), records when it was done in `lastDone`, and leaves it not
 * done. A record that does not repeat keeps its done time.
 */
import { plusPeriod } from '../../core/datetime.js';
import { fieldOf } from '../../resources/index.js';
import type { ResourceDef } from '../../resources/types.js';
import { dateFlagColumn } from './rows.js';
import type { Row } from './steps.js';

/** The columns of a write (`cols`, in place) to a record of `r`; `current` is the stored row on update. */
export function doneOnRepeat(r: ResourceDef, cols: Row, current?: Row): void {
  const a = r.agenda;
  if (!a?.done || !a.repeat || !a.lastDone) return;
  const done = cols[a.done];
  if (typeof done !== 'number') return;
  const has = (c: string) => cols[c] !== undefined;
  const repeat = has(a.repeat) ? cols[a.repeat] : current?.[a.repeat];
  const due = has(a.due) ? cols[a.due] : current?.[a.due];
  if (typeof repeat !== 'string' || typeof due !== 'number') return;
  const dueField = fieldOf(r, a.due);
  const flag = dueField ? dateFlagColumn(dueField) : undefined;
  cols[a.due] = plusPeriod(due, repeat);
  // A date stays a date (all day), a time stays a time.
  if (flag) cols[flag] = has(flag) ? cols[flag] : (current?.[flag] ?? 0);
  cols[a.lastDone] = done;
  cols[a.done] = null;
}
