/** `pm <resource> get`: one record, with what a table shows of the records it links to. */
import { mark } from '../../../core/timing.js';
import { autoEmbeds, type OutputFlags, printRecord } from '../../output/index.js';
import { resolveUuid } from '../../uuids.js';
import { about } from '../../api-errors.js';
import { customColumns, embedList, embedRefused, outputSpec } from './common-run.js';
import type { OnResource } from './options.js';

export interface GetOptions extends OnResource {
  readonly uuid: string;
  readonly embed?: string | undefined;
  readonly output: OutputFlags;
}

export async function getRun(o: GetOptions): Promise<void> {
  const { f, resource: r } = o;
  const spec = await outputSpec(r, o.output);
  const s = await f.session();
  const uuid = await resolveUuid(s, r, o.uuid, '<uuid>');
  await customColumns(s, r, spec, embedList(r, o.embed, spec, false, true));
  const get = async (auto: boolean) => {
    const embed = embedList(r, o.embed, spec, auto, true);
    return s.client.get(r, uuid, embed.length ? embed.join(',') : undefined);
  };
  const rec = await get(true)
    .catch((e) => {
      // As a list's: the record without what it cannot embed.
      if (!(autoEmbeds(r, spec, true).length && embedRefused(e))) throw e;
      return get(false);
    })
    .catch((e) => {
      throw about(e, r);
    });
  mark('answered');
  await printRecord(r, rec, spec, await f.display());
  mark('printed');
}
