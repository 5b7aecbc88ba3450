/** `pm export`, declared. */
import type { Command } from 'commander';
import { DEPENDENCY_ORDER } from '../../../resources/index.js';
import { commandOf, type Run } from '../../command.js';
import type { Factory } from '../../factory.js';
import { inWords } from '../../help/text.js';
import type { ExportOptions } from './export-run.js';
import { fileOf } from './files.js';

export const EXPORT_SUMMARY =
  'Write every record of the account as NDJSON files (custom field values and note parents included)';

const RUN = async (o: ExportOptions) => (await import('./export-run.js')).exportRun(o);

export function newCmdExport(f: Factory, run: Run<ExportOptions> = RUN): Command {
  return commandOf('export')
    .description(EXPORT_SUMMARY)
    .option('--dir <dir>', 'where to write the files', 'pm-export')
    .option('--force', 'write into a folder that already has files')
    .addHelpText(
      'after',
      `
Writes ${inWords(DEPENDENCY_ORDER.map(fileOf))}.

Examples:
  pm export --dir backup
  pm export --dir move && pm --base-url https://pm.example.com import --dir move`,
    )
    .action((opts: { dir: string; force?: boolean }) => run({ f, dir: opts.dir, force: opts.force === true }));
}
