/** `pm <resource> feed revoke`: a feed's URL stops working at once. */
import type { ResourceDef } from '../../../resources/types.js';
import { visible } from '../../../core/redact.js';
import { CliError, EXIT } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { describeApiError } from '../../api-errors.js';
import { type DataOutput, dataSpecFrom, printData, wantsData } from '../../output/index.js';
import { feedsPath } from './feed-run.js';

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
  try {
    await s.http.request('DELETE', `${feedsPath}/${encodeURIComponent(o.uuid)}`);
  } catch (e) {
    const err = describeApiError(e);
    if (err.exitCode === EXIT.notFound)
      throw new CliError(EXIT.notFound, `no calendar feed ${visible(o.uuid)}.`, {
        hint: `List them with \`pm ${r.path} feed list\`.`,
      });
    throw err;
  }
  if (spec) await printData({ uuid: o.uuid, revoked: true }, spec, await f.display());
  else f.io.stderr.write(`Revoked calendar feed ${visible(o.uuid)}: its URL no longer answers.\n`);
}
