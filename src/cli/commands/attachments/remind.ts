/**
 * `pm attachments remind --expiring RANGE --before LENGTH`, declared: the compliance job. The work
 * is in remind-run.ts, loaded when the command runs.
 */
import type { Command } from 'commander';
import type { ResourceDef } from '../../../resources/types.js';
import { commandOf, type Run } from '../../command.js';
import type { Factory } from '../../factory.js';
import type { RemindOptions } from './remind-run.js';

type Flags = Record<string, string | boolean | undefined>;

export function newCmdRemind(
  f: Factory,
  r: ResourceDef,
  run: Run<RemindOptions> = async (o) => (await import('./remind-run.js')).remindRun(o),
): Command {
  return commandOf('remind')
    .description(`Keep one reminder about each ${r.singular} that expires soon (a nightly job)`)
    .option('--expiring <range>', 'the expiries to remind of: "next 90 days", P90D, 2027-01-01/2027-06-30', 'P90D')
    .option('--before <length>', 'how long before the expiry each is due: "30 days", P1M, "2 weeks"', 'P30D')
    .addHelpText(
      'after',
      `
For every ${r.singular} of a property whose expires_on falls in --expiring, one reminder about
that property, due --before the expiry ("Renew gas-safety.pdf, 1 High St: expires 1 Mar 2027"),
and kept true: an expiry changed moves its reminder; a ${r.singular} deleted, or its expiry
cleared, marks its reminder done. Each reminder names its ${r.singular}'s uuid in its
description, and each create carries an Idempotency-Key of the ${r.singular} and its expiry: run
twice, or twice at once, it makes nothing more. What it did is said on stderr; with nothing to
do it says nothing and exits 0.

Examples:
  pm ${r.path} remind
  pm ${r.path} remind --expiring "next 90 days" --before "30 days"
  pm ${r.path} remind --expiring P1Y --before P2M`,
    )
    .action((flags: Flags) => run({ f, resource: r, expiring: String(flags.expiring), before: String(flags.before) }));
}
