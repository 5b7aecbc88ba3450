/**
 * The run function of `pm <resource> done|undone`: one update a record, its agenda's done field
 * set (the server moves a repeating one on) or cleared.
 */
import type { AgendaDef } from '../../../resources/types.js';
import { parseHumanInstant } from '../../../core/humandate.js';
import { about } from '../../api-errors.js';
import { typed } from '../../flag-values.js';
import { createListPrinter, type OutputFlags, printRecord } from '../../output/index.js';
import { resolveUuid } from '../../uuids.js';
import { when } from '../shared.js';
import { outputSpec } from './common-run.js';
import type { OnResource } from './options.js';

export interface DoneOptions extends OnResource {
  readonly uuids: readonly string[];
  /** When it was done, in words or ISO (undefined: now); null: undone. */
  readonly at: string | null | undefined;
  readonly output: OutputFlags;
}

export async function doneRun(o: DoneOptions): Promise<void> {
  const { f, resource: r } = o;
  const agenda = r.agenda as AgendaDef;
  const done = agenda.done as string;
  const spec = await outputSpec(r, o.output);
  const at =
    o.at === null
      ? null
      : o.at === undefined
        ? new Date(f.now()).toISOString()
        : typed('at', () => parseHumanInstant(o.at as string, when(f)).iso);
  const s = await f.session();
  const records: Record<string, unknown>[] = [];
  for (const input of o.uuids) {
    const uuid = await resolveUuid(s, r, input, '<uuid>');
    records.push(await s.client.update(r, uuid, { [done]: at }).catch((e) => Promise.reject(about(e, r))));
  }
  const d = await f.display();
  if (records.length === 1) await printRecord(r, records[0] as Record<string, unknown>, spec, d);
  else {
    const printer = createListPrinter(r, spec, d);
    printer.add(records);
    await printer.end();
  }
  if (d.stderr.isTTY && !spec.quiet)
    for (const rec of records) {
      const next = agenda.repeat && rec[agenda.repeat] && at !== null ? `; next due ${String(rec[agenda.due])}` : '';
      d.stderr.write(`${at === null ? 'Not done' : 'Done'}: ${r.singular} ${String(rec.uuid ?? '')}${next}.\n`);
    }
}
