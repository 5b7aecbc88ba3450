/**
 * `pm <resource> feed create|list|revoke`, declared, on the resource whose records have a due
 * date (reminders): calendar feeds, secret URLs a calendar app subscribes to. The work is in
 * feed-run.ts, loaded when a command runs.
 */
import { Command } from 'commander';
import type { ResourceDef } from '../../resources/types.js';
import { adopt, commandOf } from '../command.js';
import type { Factory } from '../factory.js';

export interface FeedCreateOptions {
  readonly f: Factory;
  readonly resource: ResourceDef;
  readonly name: string;
  readonly json: boolean;
}

export interface FeedListOptions {
  readonly f: Factory;
  readonly json: boolean;
}

export interface FeedRevokeOptions {
  readonly f: Factory;
  readonly resource: ResourceDef;
  readonly uuid: string;
  readonly json: boolean;
}

const run = () => import('./feed-run.js');
const RUNS = {
  create: async (o: FeedCreateOptions) => (await run()).feedCreateRun(o),
  list: async (o: FeedListOptions) => (await run()).feedListRun(o),
  revoke: async (o: FeedRevokeOptions) => (await run()).feedRevokeRun(o),
};
type FeedRuns = typeof RUNS;

export function newCmdFeed(f: Factory, r: ResourceDef, runs: FeedRuns = RUNS): Command {
  const feed = new Command('feed')
    .description(`Calendar feeds: a secret URL that puts the ${r.plural} on a phone's calendar`)
    .addHelpText(
      'after',
      `
A calendar app subscribes to the URL and fetches it every few minutes, with no token: the URL is
the whole credential. It publishes every ${r.singular} of the account that has a due date. A calendar
app needs a server it can reach: \`pm serve --host 0.0.0.0\` on a machine your phone can reach
(or behind a proxy, with --public-url), and pm pointed at it (pm auth login --base-url URL).

Examples:
  pm ${r.path} feed create --name "My phone"
  pm ${r.path} feed list
  pm ${r.path} feed revoke 3f2a9c1e-…`,
    );
  adopt(
    feed,
    commandOf('create')
      .description('Make a calendar feed and print its URL (shown this once)')
      .requiredOption('--name <name>', 'what the feed is for, e.g. "My phone"')
      .option('--json', 'print the feed as JSON (its url included)')
      .addHelpText(
        'after',
        `
The URL goes to stdout, alone on its line; what to do with it, to stderr. On the embedded
default, nothing is made: a calendar app needs a server it can reach.

Examples:
  pm ${r.path} feed create --name "My phone"
  pm ${r.path} feed create --name "Family calendar" --json`,
      )
      .action((flags: { name: string; json?: boolean }) =>
        runs.create({ f, resource: r, name: flags.name, json: flags.json === true }),
      ),
  );
  adopt(
    feed,
    commandOf('list')
      .description('List the calendar feeds of the account (without their URLs)')
      .option('--json', 'print JSON')
      .addHelpText(
        'after',
        `
Examples:
  pm ${r.path} feed list
  pm ${r.path} feed list --json`,
      )
      .action((flags: { json?: boolean }) => runs.list({ f, json: flags.json === true })),
  );
  adopt(
    feed,
    commandOf('revoke <uuid>')
      .description('Revoke a calendar feed: its URL stops working at once')
      .option('--json', 'print JSON')
      .addHelpText(
        'after',
        `
Examples:
  pm ${r.path} feed revoke 3f2a9c1e-5b7d-4c1a-9e0f-2b6d8a4c7e15`,
      )
      .action((uuid: string, flags: { json?: boolean }) =>
        runs.revoke({ f, resource: r, uuid, json: flags.json === true }),
      ),
  );
  return feed;
}
