/**
 * The output flags, declared once for every command that prints records (like gh's shared --json
 * flags): what they mean is output/index.ts, loaded when the command runs.
 */
import type { Command } from 'commander';
import type { OutputFlags } from './index.js';

export function addOutputFlags(cmd: Command): Command {
  return cmd
    .option('--json [fields]', 'print JSON; with a comma-separated list, only those fields (--json uuid,city)')
    .option('--fields <list>', 'comma-separated fields to show, in this order, in any format')
    .option(
      '-o, --output <format>',
      'table, json, ndjson, csv or tsv (default: table; tab-separated when piped); ics for records with a due date',
    )
    .option('-q, --quiet', 'print only uuids, one a line (for $(...) and xargs)')
    .option('--jq <expr>', 'filter the JSON with a jq expression; strings print raw (see: pm help output)')
    .option('--csv-exact', 'with -o csv: cells as they are, not guarded against spreadsheet formulas');
}

/** The output flags among a command's parsed options. */
export function outputFlagsOf(opts: Readonly<Record<string, unknown>>): OutputFlags {
  const { json, fields, output, quiet, jq, csvExact } = opts;
  return { json, fields, output, quiet, jq, csvExact };
}
