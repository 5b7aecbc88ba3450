/** `pm <resource> feed list`: the calendar feeds of the account, without their URLs. */
import { visible } from '../../../core/redact.js';
import type { Factory } from '../../factory.js';
import { type DataOutput, dataSpecFrom, printData, wantsData } from '../../output/index.js';
import { dataOf, type Feed, FEED_FIELDS, feedsPath } from './feed-run.js';

export interface FeedListOptions {
  readonly f: Factory;
  /** --json [fields], --jq: the feeds as JSON. */
  readonly output: DataOutput;
}

export async function feedListRun(o: FeedListOptions): Promise<void> {
  const { f } = o;
  const spec = wantsData(o.output) ? await dataSpecFrom(o.output, FEED_FIELDS) : undefined;
  const s = await f.session();
  const feeds = dataOf((await s.http.request('GET', feedsPath)).body) as Feed[];
  const out = f.io.stdout;
  if (spec) {
    await printData(feeds, spec, await f.display());
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
