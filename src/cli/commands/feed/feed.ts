/**
 * `pm <resource> feed create|list|revoke`, declared, on the resource whose records have a due
 * date (reminders): calendar feeds, secret URLs a calendar app subscribes to. A leaf command a
 * module pair each (create, list, revoke), its run loaded when it runs.
 */
import type { Command } from 'commander';
import type { ResourceDef } from '../../../resources/types.js';
import { group, type Run } from '../../command.js';
import type { Factory } from '../../factory.js';
import { newCmdFeedCreate } from './create.js';
import type { FeedCreateOptions } from './create-run.js';
import { newCmdFeedList } from './list.js';
import type { FeedListOptions } from './list-run.js';
import { newCmdFeedRevoke } from './revoke.js';
import type { FeedRevokeOptions } from './revoke-run.js';

/** The run functions of the feed commands, each replaceable (tests record what they are given). */
interface FeedRuns {
  readonly create: Run<FeedCreateOptions>;
  readonly list: Run<FeedListOptions>;
  readonly revoke: Run<FeedRevokeOptions>;
}

export function newCmdFeed(f: Factory, r: ResourceDef, runs: Partial<FeedRuns> = {}): Command {
  return group(
    'feed',
    `Calendar feeds: a secret URL that puts the ${r.plural} on a phone's calendar`,
    [newCmdFeedCreate(f, r, runs.create), newCmdFeedList(f, r, runs.list), newCmdFeedRevoke(f, r, runs.revoke)],
    `
A calendar app subscribes to the URL and fetches it every few minutes, with no token: the URL is
the whole credential. It publishes every ${r.singular} of the account that has a due date. A calendar
app needs a server it can reach: \`pm serve --host 0.0.0.0\` on a machine your phone can reach
(or behind a proxy, with --public-url), and pm pointed at it (pm auth login --base-url URL).

Examples:
  pm ${r.path} feed create --name "My phone"
  pm ${r.path} feed list
  pm ${r.path} feed revoke 3f2a9c1e        # its uuid, or its first 8 characters or more`,
  );
}
