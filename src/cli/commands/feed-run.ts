/**
 * The run functions of `pm <resource> feed create|list|revoke` (feed.ts declares them): the
 * server's /calendar-feeds. A feed's URL is printed once, on stdout, and never traced.
 */
import { CALENDAR_FEEDS_PATH } from '../../core/endpoints.js';
import { isObject } from '../../core/json.js';
import { visible } from '../../core/redact.js';
import { CliError, EXIT } from '../errors.js';
import type { FeedCreateOptions, FeedListOptions, FeedRevokeOptions } from './feed.js';
import { describeApiError } from './shared.js';

interface Feed {
  readonly uuid: string;
  readonly name: string;
  readonly created_at: string;
  readonly url?: string;
}

const feedsPath = CALENDAR_FEEDS_PATH.slice(1);

/** The `data` of an answer, as the API sends it. */
function dataOf(body: unknown): unknown {
  if (!isObject(body) || !('data' in body)) throw new CliError(EXIT.api, 'unexpected answer from the server: no data');
  return body.data;
}

/** Hosts a phone never reaches: the machine pm runs on. */
const LOOPBACK = /^(localhost|127(?:\.\d+){3}|\[::1\])$/i;

export async function feedCreateRun(o: FeedCreateOptions): Promise<void> {
  const { f, resource: r } = o;
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
  let feed: Feed;
  try {
    const res = await s.http.request('POST', feedsPath, { body: { name: o.name } });
    feed = dataOf(res.body) as Feed;
  } catch (e) {
    throw describeApiError(e);
  }
  if (o.json) f.io.stdout.write(`${JSON.stringify(feed, null, f.io.stdout.isTTY ? 2 : undefined)}\n`);
  else f.io.stdout.write(`${feed.url}\n`);
  const host = feed.url ? new URL(feed.url).hostname : '';
  f.io.stderr.write(
    `Calendar feed "${visible(feed.name)}" created (${feed.uuid}). Subscribe to its URL in your calendar app; it is shown only now, and anyone who has it can read the ${r.plural}: revoke it with \`pm ${r.path} feed revoke ${feed.uuid}\`.\n`,
  );
  if (LOOPBACK.test(host))
    f.io.stderr.write(
      `warning: the URL names ${host}, this machine, which a phone cannot reach: reach the server by a name your phone knows (pm auth login --base-url), or give pm serve --public-url.\n`,
    );
}

export async function feedListRun(o: FeedListOptions): Promise<void> {
  const { f } = o;
  const s = await f.session();
  let feeds: Feed[];
  try {
    feeds = dataOf((await s.http.request('GET', feedsPath)).body) as Feed[];
  } catch (e) {
    throw describeApiError(e);
  }
  const out = f.io.stdout;
  if (o.json) {
    out.write(`${JSON.stringify(feeds, null, out.isTTY ? 2 : undefined)}\n`);
    return;
  }
  if (!feeds.length) {
    if (out.isTTY) f.io.stderr.write('No calendar feeds.\n');
    return;
  }
  const rows = feeds.map((x) => [x.uuid, x.created_at, visible(x.name)]);
  if (!out.isTTY) {
    out.write(rows.map((row) => `${row.join('\t')}\n`).join(''));
    return;
  }
  const header = ['uuid', 'created_at', 'name'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] as string).length)));
  const line = (row: string[]) =>
    `${row
      .map((c, i) => c.padEnd(widths[i] as number))
      .join('  ')
      .trimEnd()}\n`;
  out.write([header, ...rows].map(line).join(''));
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
