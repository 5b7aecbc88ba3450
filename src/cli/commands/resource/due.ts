/**
 * `pm reminders due`, declared: an agenda of the reminders that are overdue, due today and coming
 * up. The work is in due-run.ts, loaded when the command runs.
 */
import type { Command } from 'commander';
import type { ResourceDef } from '../../../resources/types.js';
import { commandOf, type Run } from '../../command.js';
import type { Factory } from '../../factory.js';
import { addOutputFlags, outputFlagsOf } from '../../output/flags.js';
import { numberFlag } from '../shared.js';
import type { DueOptions } from './due-run.js';

export function newCmdDue(
  f: Factory,
  r: ResourceDef,
  run: Run<DueOptions> = async (o) => (await import('./due-run.js')).dueRun(o),
): Command {
  const cmd = commandOf('due')
    .description('Reminders overdue, due today and coming up: an agenda in your time zone')
    .option('--within <period>', 'how far ahead to look: P7D, "2 weeks", 10d (default 7 days)')
    .option(
      '--overdue-since <when>',
      'how far back overdue ones go: a length (P30D, "2 weeks") or a date (2026-11-01, "last monday"); default 30 days',
    )
    .option('--limit <n>', 'show at most N, in agenda order (the headings still count them all)');
  addOutputFlags(cmd)
    .addHelpText(
      'after',
      `
Overdue means due before now, and not done: \`pm reminders done <uuid>\` takes one off the
agenda (a repeating one moves on to its next due date). A reminder about a property shows its
address beside its title. Data output (--json, -o, or piped) has the same records in the same order,
each with an "agenda" field: overdue, today or upcoming.

Examples:
  pm reminders due
  pm reminders due --within "2 weeks" --overdue-since 2026-11-01
  pm reminders due --within P1D -q
  pm reminders due --limit 5
  pm reminders due --json title,due_at,agenda`,
    )
    .action((flags: Record<string, unknown>) =>
      run({
        f,
        resource: r,
        within: flags.within === undefined ? undefined : String(flags.within),
        overdueSince: flags.overdueSince === undefined ? undefined : String(flags.overdueSince),
        limit: numberFlag('--limit', flags.limit as string | undefined, 1, 999_999_999, 'a whole number from 1'),
        output: outputFlagsOf(flags),
      }),
    );
  return cmd;
}
