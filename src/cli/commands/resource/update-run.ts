/** `pm <resource> update`: the fields given, changed; the others keep their values. */
import { inputFields } from '../../../resources/index.js';
import { bodyFromFlags, setChanges } from '../../flag-values.js';
import { kebab, setChangeFlags } from '../../flags.js';
import { usageError } from '../../errors.js';
import { printRecord } from '../../output/index.js';
import { resolveLinkUuids, resolveUuid } from '../../uuids.js';
import { fillForUpdate } from '../../writes.js';
import { about } from '../../api-errors.js';
import { when } from '../shared.js';
import { dataOption, dryRun, outputSpec, precheck, withWritten } from './common-run.js';
import type { WriteOptions } from './options.js';

export interface UpdateOptions extends WriteOptions {
  readonly uuid: string;
}

export async function updateRun(o: UpdateOptions): Promise<void> {
  const { f, resource: r } = o;
  const spec = await outputSpec(r, o.output);
  const body = { ...(await dataOption(o.data, f)), ...bodyFromFlags(r, o.flags, 'update', when(f)) };
  const changes = setChanges(r, o.flags);
  if (Object.keys(body).length === 0 && !changes.length)
    throw usageError(
      `nothing to update: give at least one field flag (e.g. --${kebab(inputFields(r)[0]?.name ?? 'uuid')}), --unset or --data.`,
    );
  const twice = changes.find((c) => body[c.set.name] !== undefined);
  if (twice) {
    const { add, remove } = setChangeFlags(twice.set);
    throw usageError(
      `--${kebab(add)} and --${kebab(remove)} change the ${twice.set.name} the ${r.singular} has: leave ${twice.set.name} out of --data.`,
    );
  }
  const s = await f.session();
  const uuid = await resolveUuid(s, r, o.uuid, '<uuid>');
  try {
    await resolveLinkUuids(s, r, body);
    await fillForUpdate(s.client, r, uuid, body, changes);
    precheck(r, body, 'update');
    if (o.dryRun) return dryRun(s, f, 'PUT', s.client.recordPath(r, uuid), body, o.output);
    const rec = await s.client.update(r, uuid, body);
    await printRecord(r, await withWritten(s, r, rec, body, spec), spec, await f.display());
    if (f.io.stderr.isTTY && !spec.quiet) f.io.stderr.write(`Updated ${r.singular} ${uuid}.\n`);
  } catch (e) {
    throw about(e, r);
  }
}
