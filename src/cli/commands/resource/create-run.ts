/** `pm <resource> create`: one record from its flags, --data or both. */
import { resourceByPath } from '../../../resources/index.js';
import { mark } from '../../../core/timing.js';
import { bodyFromFlags, withClientDefaults } from '../../flag-values.js';
import { kebab } from '../../flags.js';
import { readFileOrStdin, readStdin } from '../../input.js';
import { printRecord } from '../../output/index.js';
import { resolveLinkUuids, resolveUuid } from '../../uuids.js';
import { about } from '../../api-errors.js';
import { when } from '../shared.js';
import { dataOption, dryRun, outputSpec, precheck, withWritten } from './common-run.js';
import type { ParentOption, WriteOptions } from './options.js';

export interface CreateOptions extends WriteOptions {
  readonly parent?: ParentOption | undefined;
  /** The file (or - for stdin) the description's text input is read from (--content-file). */
  readonly textFile?: string | undefined;
}

export async function createRun(o: CreateOptions): Promise<void> {
  const { f, resource: r } = o;
  const spec = await outputSpec(r, o.output);
  const body = { ...(await dataOption(o.data, f)), ...bodyFromFlags(r, o.flags, 'create', when(f)) };
  withClientDefaults(r, body, when(f));
  const text = r.textInput;
  if (text && body[text] === undefined) {
    if (o.textFile !== undefined) body[text] = await readFileOrStdin(o.textFile, f, `--${kebab(text)}-file`);
    else if (!f.io.stdin.isTTY && o.data !== '-') body[text] = (await readStdin(f)).replace(/\n$/, '');
  }
  precheck(r, body, 'create');
  const s = await f.session();
  const flag = `--${r.parents?.find((p) => p.target === o.parent?.resource)?.name}`;
  const parent = o.parent && {
    ...o.parent,
    uuid: await resolveUuid(s, resourceByPath(o.parent.resource), o.parent.uuid, flag),
  };
  await resolveLinkUuids(s, r, body);
  if (o.dryRun) return dryRun(s, f, 'POST', s.client.createPath(r, parent), body, o.output);
  const rec = await s.client.create(r, body, parent).catch((e) => {
    // A parent that is not there is the parent's 404: its list is what to look at.
    throw about(e, parent ? resourceByPath(parent.resource) : r);
  });
  mark('answered');
  await printRecord(r, await withWritten(s, r, rec, body, spec), spec, await f.display());
  mark('printed');
  if (f.io.stderr.isTTY && !spec.quiet) f.io.stderr.write(`Created ${r.singular} ${String(rec.uuid ?? '')}.\n`);
}
