/** `pm <resource> feed revoke`: a feed's URL stops working at once. */
import type { ResourceDef } from '../../../resources/types.js';
import { visible } from '../../../core/redact.js';
import { CliError, EXIT } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { describeApiError } from '../../api-errors.js';
import { type DataOutput, dataSpecFrom, printData, wantsData } from '../../output/index.js';
import { dataOf, type Feed, feedsPath } from './feed-run.js';
import type { Session } from '../../session.js';
import { isWholeUuid } from '../../../core/kinds.js';

export interface FeedRevokeOptions {
  readonly f: Factory;
  readonly resource: ResourceDef;
  readonly uuid: string;
  /** --json [fields], --jq: what was revoked, as JSON. */
  readonly output: DataOutput;
}

export async function feedRevokeRun(o: FeedRevokeOptions): Promise<void> {
  const { f, resource: r } = o;
  const spec = wantsData(o.output) ? await dataSpecFrom(o.output, ['uuid', 'revoked']) : undefined;
  const s = await f.session();
  const notFound = () =>
    new CliError(
      EXIT.notFound,
      `no calendar feed ${isWholeUuid(o.uuid) ? '' : 'has a uuid beginning '}${visible(o.uuid)}.`,
      {
        hint: `List them with \`pm ${r.path} feed list\`.`,
      },
    );
  const uuid = await feedUuid(s, o.uuid, notFound);
  try {
    await s.http.request('DELETE', `${feedsPath}/${encodeURIComponent(uuid)}`);
  } catch (e) {
    const err = describeApiError(e);
    if (err.exitCode === EXIT.notFound) throw notFound();
    throw err;
  }
  if (spec) await printData({ uuid, revoked: true }, spec, await f.display());
  else f.io.stderr.write(`Revoked calendar feed ${uuid}: its URL no longer answers.\n`);
}

/**
 * The uuid of the feed `input` names (lower case, as the constructor checked it): a whole uuid as
 * it is; a beginning, the one feed of the account's list whose uuid begins so (an account has a
 * few feeds, listed whole), or an error listing those it begins.
 */
async function feedUuid(s: Session, input: string, notFound: () => CliError): Promise<string> {
  if (isWholeUuid(input)) return input;
  const feeds = dataOf((await s.http.request('GET', feedsPath)).body);
  const found = (Array.isArray(feeds) ? (feeds as Feed[]) : []).filter(
    (x) => typeof x.uuid === 'string' && isWholeUuid(x.uuid) && x.uuid.toLowerCase().startsWith(input),
  );
  const [first, second] = found;
  if (!first) throw notFound();
  if (!second) return first.uuid.toLowerCase();
  throw new CliError(
    EXIT.usage,
    `<uuid> ${input} is the beginning of the uuids of ${found.length} calendar feeds: give more of it.`,
    {
      hint: found.map((x) => `  ${x.uuid.toLowerCase()}  ${visible(String(x.name))}`).join('\n'),
    },
  );
}
