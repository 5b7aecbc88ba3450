/**
 * The output flags, declared once for every command that prints records (like gh's shared --json
 * flags): what they mean is output/index.ts, loaded when the command runs.
 */
import type { Command } from 'commander';
import type { DataOutput, OutputFlags } from './index.js';

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

/**
 * --json [fields] and --jq on a command that prints data other than records, declared once:
 * `what` is --json's help ("print JSON"). printData (output/index.ts) writes what they ask for.
 */
export function addDataFlags(cmd: Command, what = 'print JSON'): Command {
  return cmd
    .option('--json [fields]', `${what}; with a comma-separated list, only those fields`)
    .option('--jq <expr>', 'filter the JSON with a jq expression; strings print raw (see: pm help output)');
}

/** The data output flags among a command's parsed options. */
export function dataFlagsOf(opts: { json?: unknown; jq?: unknown }): DataOutput {
  return {
    json: opts.json === undefined ? undefined : opts.json === true ? true : String(opts.json),
    jq: opts.jq === undefined ? undefined : String(opts.jq),
  };
}
