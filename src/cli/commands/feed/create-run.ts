/** `pm <resource> feed create`: a calendar feed, its URL printed once on stdout and never traced. */
import type { ResourceDef } from '../../../resources/types.js';
import { visible } from '../../../core/redact.js';
import { CliError, EXIT } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { type DataOutput, dataSpecFrom, printData, wantsData } from '../../output/index.js';
import { dataOf, type Feed, FEED_FIELDS, feedsPath } from './feed-run.js';

export interface FeedCreateOptions {
  readonly f: Factory;
  readonly resource: ResourceDef;
  readonly name: string;
  /** --json [fields], --jq: the feed as JSON (its url included). */
  readonly output: DataOutput;
}

/** Hosts a phone never reaches: the machine pm runs on. */
const LOOPBACK = /^(localhost|127(?:\.\d+){3}|\[::1\])$/i;

export async function feedCreateRun(o: FeedCreateOptions): Promise<void> {
  const { f, resource: r } = o;
  const spec = wantsData(o.output) ? await dataSpecFrom(o.output, [...FEED_FIELDS, 'url']) : undefined;
  const s = await f.session();
  if (s.dataFile !== undefined)
    throw new CliError(
      EXIT.usage,
      `a calendar app fetches its feed from a server it can reach, and pm is using the embedded default (the data file ${s.dataFile}), which no phone can reach.`,
      {
        hint: [
          'Serve the data file on a machine your phone can reach, and point pm at that server:',
          `  pm serve --host 0.0.0.0 --port 8080 --data ${s.dataFile}`,
          `  pm serve tokens create --name me --scopes ${r.scope}.read,${r.scope}.write --data ${s.dataFile}`,
          '  pm auth login --base-url http://HOST:8080        # HOST: the name your phone reaches it by',
          `then run \`pm ${r.path} feed create --name "${visible(o.name)}"\` again. Behind a proxy, give pm serve --public-url.`,
        ].join('\n'),
      },
    );
  const res = await s.http.request('POST', feedsPath, { body: { name: o.name } });
  const feed = dataOf(res.body) as Feed;
  if (spec) await printData(feed, spec, await f.display());
  else f.io.stdout.write(`${feed.url}\n`);
  const host = feed.url ? new URL(feed.url).hostname : '';
  f.io.stderr.write(
    `Calendar feed "${visible(feed.name)}" created (${feed.uuid}). Subscribe to its URL in your calendar app; it is shown only now, and anyone who has it can read the ${r.plural}: revoke it with \`pm ${r.path} feed revoke ${feed.uuid}\`. It ends with the token that made it (pm's token now): revoking that token closes the feed too.\n`,
  );
  if (LOOPBACK.test(host))
    f.io.stderr.write(
      `warning: the URL names ${host}, this machine, which a phone cannot reach: reach the server by a name your phone knows (pm auth login --base-url), or give pm serve --public-url.\n`,
    );
}
