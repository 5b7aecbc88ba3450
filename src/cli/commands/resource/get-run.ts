/** `pm <resource> get`: one record, with what a table shows of the records it links to. */
import { HttpStatusError } from '../../../client/errors.js';
import { MIN_UUID_PREFIX } from '../../../core/kinds.js';
import { mark } from '../../../core/timing.js';
import { referrersOf } from '../../../resources/index.js';
import type { ResourceDef } from '../../../resources/types.js';
import { kebab } from '../../flags.js';
import { aOr } from '../../../core/words.js';
import { serverUuid } from '../../untrusted.js';
import type { Session } from '../../session.js';
import { autoEmbeds, isTable, type OutputFlags, printRecord } from '../../output/index.js';
import { resolveUuid } from '../../uuids.js';
import { about } from '../../api-errors.js';
import { customColumns, embedList, embedRefused, outputSpec } from './common-run.js';
import type { OnResource } from './options.js';

export interface GetOptions extends OnResource {
  readonly uuid: string;
  readonly embed?: string | undefined;
  readonly output: OutputFlags;
}

/** How many of a record's referrers a table shows (the rest are counted, and a command lists them). */
const REFERRERS_SHOWN = 10;

/**
 * The records that name this one and whose lists filter by it (a contact's properties), as a
 * table shows them: a line each, its uuid (on a terminal, its beginning) and its first columns' text, at most
 * REFERRERS_SHOWN, then how many more and the command that lists them. None where the server
 * does not filter by the link (a 400) or the token may not read them.
 */
async function referrers(s: Session, r: ResourceDef, uuid: string, tty: boolean): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const { resource, link } of referrersOf(r)) {
    const q = new URLSearchParams({ [`${link.name}[uuid]`]: uuid, per_page: String(REFERRERS_SHOWN) });
    const page = await s.client.list(resource, q).catch((e) => {
      if (e instanceof HttpStatusError && (e.status === 400 || e.status === 403)) return undefined;
      throw about(e, resource);
    });
    if (!page) continue;
    const words = resource.fields.filter(
      (f) => f.kind === 'text' && !f.readOnly && f.column !== undefined && f.column <= 2,
    );
    const lines = page.records.map((x) => {
      const text = words.map((f) => x[f.name]).filter((v) => typeof v === 'string' && v !== '');
      const id = serverUuid(x.uuid, `the uuid of ${aOr(resource.singular)}`);
      return `${tty ? id.slice(0, MIN_UUID_PREFIX) : id}  ${text.join(', ')}`;
    });
    const more = (page.pagination.total ?? lines.length) - lines.length;
    if (more > 0) lines.push(`and ${more} more: pm ${resource.path} list --${kebab(link.name)} ${uuid}`);
    out[resource.path] = lines.join('\n');
  }
  return out;
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
  const d = await f.display();
  if (isTable(spec)) Object.assign(rec, await referrers(s, r, uuid, d.tty));
  mark('answered');
  await printRecord(r, rec, spec, d);
  mark('printed');
}
