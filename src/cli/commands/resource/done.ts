/**
 * `pm reminders done <uuid...> [--at WHEN]` and `pm reminders undone <uuid...>`, declared, where
 * records have an agenda that says when they were done. The work is in done-run.ts.
 */
import type { Command } from 'commander';
import type { ResourceDef } from '../../../resources/types.js';
import { commandOf, type Run } from '../../command.js';
import type { Factory } from '../../factory.js';
import { checkUuid } from '../../flags.js';
import { addOutputFlags, outputFlagsOf } from '../../output/flags.js';
import type { DoneOptions } from './done-run.js';
import type { Flags } from './options.js';

const RUN = async (o: DoneOptions) => (await import('./done-run.js')).doneRun(o);

export function newCmdDone(f: Factory, r: ResourceDef, undo: boolean, run: Run<DoneOptions> = RUN): Command {
  const cmd = commandOf(`${undo ? 'undone' : 'done'} <uuid...>`).description(
    undo
      ? `Mark ${r.plural} not done again`
      : `Mark ${r.plural} done (a repeating one moves on to its next due date instead)`,
  );
  if (!undo) cmd.option('--at <when>', 'when it was done: "yesterday 5pm", 2026-12-01T09:00:00Z (default now)');
  addOutputFlags(cmd);
  cmd.addHelpText(
    'after',
    undo
      ? `
Examples:
  pm ${r.path} undone 3f2a9c1e`
      : `
A ${r.singular} that repeats (--repeat P1Y) is never left done: done records when (last_done_at)
and moves due_at on by one period from the date it was due, so a check done late keeps its
cycle (31 Jan + P1M is the last day of February). Done ones leave \`pm ${r.path} due\` and the
calendar; \`pm ${r.path} list --done\` lists them.

Examples:
  pm ${r.path} done 3f2a9c1e
  pm ${r.path} done 3f2a9c1e 7b1c0d2e --at yesterday
  pm ${r.path} done 3f2a9c1e --json due_at,last_done_at`,
  );
  return cmd.action((uuids: string[], flags: Flags) =>
    run({
      f,
      resource: r,
      uuids: uuids.map((u) => checkUuid(u, '<uuid>')),
      at: undo ? null : flags.at === undefined ? undefined : String(flags.at),
      output: outputFlagsOf(flags),
    }),
  );
}
