/** `pm <resource> feed revoke`: a feed's URL stops working at once. */
import type { ResourceDef } from '../../../resources/types.js';
import { visible } from '../../../core/redact.js';
import { CliError, EXIT } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { describeApiError } from '../../api-errors.js';
import { feedsPath } from './feed-run.js';

export interface FeedRevokeOptions {
  readonly f: Factory;
  readonly resource: ResourceDef;
  readonly uuid: string;
  readonly json: boolean;
}

export async function feedRevokeRun(o: FeedRevokeOptions): Promise<void> {
  const { f, resource: r } = o;
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
  if (o.json) f.io.stdout.write(`${JSON.stringify({ uuid: o.uuid, revoked: true })}\n`);
  else f.io.stderr.write(`Revoked calendar feed ${visible(o.uuid)}: its URL no longer answers.\n`);
}
