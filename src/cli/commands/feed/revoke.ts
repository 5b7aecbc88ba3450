/** `pm <resource> feed revoke <uuid>`, declared. */
import type { Command } from 'commander';
import type { ResourceDef } from '../../../resources/types.js';
import { commandOf, type Run } from '../../command.js';
import type { Factory } from '../../factory.js';
import { addDataFlags, dataFlagsOf } from '../../output/flags.js';
import { checkUuid } from '../../flags.js';
import type { FeedRevokeOptions } from './revoke-run.js';

const RUN = async (o: FeedRevokeOptions) => (await import('./revoke-run.js')).feedRevokeRun(o);

export function newCmdFeedRevoke(f: Factory, r: ResourceDef, run: Run<FeedRevokeOptions> = RUN): Command {
  return addDataFlags(
    commandOf('revoke <uuid>').description(
      'Revoke a calendar feed by its uuid or its first 8 characters: its URL stops working at once',
    ),
    'print JSON',
  )
    .addHelpText(
      'after',
      `
Examples:
  pm ${r.path} feed revoke 3f2a9c1e-5b7d-4c1a-9e0f-2b6d8a4c7e15`,
    )
    .action((uuid: string, flags: { json?: string | true; jq?: string }) =>
      run({ f, resource: r, uuid: checkUuid(uuid, '<uuid>'), output: dataFlagsOf(flags) }),
    );
}
