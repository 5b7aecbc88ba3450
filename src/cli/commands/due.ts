/**
 * `pm reminders due`, declared: an agenda of the reminders that are overdue, due today and coming
 * up. The work is in due-run.ts, loaded when the command runs.
 */
import type { Command } from 'commander';
import type { Deps } from '../context.js';
import { addOutputFlags } from '../output/flags.js';

type Opts = Record<string, unknown>;

export function registerDue(remindersCommand: Command, deps: Deps): void {
  const cmd = remindersCommand
    .command('due')
    .description('Reminders overdue, due today and coming up: an agenda in your time zone')
    .option('--within <period>', 'how far ahead to look: P7D, "2 weeks", 10d (default 7 days)')
    .option(
      '--overdue-since <when>',
      'how far back overdue ones go: a length (P30D, "2 weeks") or a date (2026-11-01, "last monday"); default 30 days',
    );
  addOutputFlags(cmd)
    .addHelpText(
      'after',
      `
Overdue means due before now: a reminder has no "done" flag, so delete it (or move its date)
once it is done. Data output (--json, -o, or piped) has the same records in the same order,
each with an "agenda" field: overdue, today or upcoming.

Examples:
  pm reminders due
  pm reminders due --within "2 weeks" --overdue-since 2026-11-01
  pm reminders due --within P1D -q
  pm reminders due --json title,due_at,agenda`,
    )
    .action(async (opts: Opts, c: Command) => {
      const { runDue } = await import('./due-run.js');
      return runDue(opts, c, deps);
    });
}
