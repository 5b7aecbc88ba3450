/** `pm import`, declared. */
import type { Command } from 'commander';
import { DEPENDENCY_ORDER } from '../../../resources/index.js';
import { commandOf, type Run } from '../../command.js';
import type { Factory } from '../../factory.js';
import type { ImportOptions } from './import-run.js';

export const IMPORT_SUMMARY = 'Create the records of a pm export on this server, mapping old uuids to new ones';

const RUN = async (o: ImportOptions) => (await import('./import-run.js')).importRun(o);

export function newCmdImport(f: Factory, run: Run<ImportOptions> = RUN): Command {
  return commandOf('import')
    .description(IMPORT_SUMMARY)
    .requiredOption('--dir <dir>', 'the folder pm export wrote')
    .addHelpText(
      'after',
      `
Records are created in order (${DEPENDENCY_ORDER.map((r) => r.plural).join(', ')}), so that
what refers to another record finds it; the old-to-new uuid map is written to DIR/uuid-map.json.
Run again with that map in the folder, an import creates only what is not on the server yet (an
interrupted import carries on); move the map away to create everything anew. A custom field whose
name already exists on the server is reused. Only the folder's own files are read: a symbolic
link is refused, and so is a map whose uuids are not this export's.

Examples:
  pm --profile team import --dir backup
  pm --base-url https://pm.example.com import --dir move`,
    )
    .action((opts: { dir: string }) => run({ f, dir: opts.dir }));
}
