/**
 * `pm <resource> list|get|create|update|delete|apply` (and `due`, `feed` where records have an
 * agenda), generated from the resource descriptions: a command group per resource, a constructor
 * per verb in this folder (docs/architecture.md, "commands/").
 */
import type { Command } from 'commander';
import { RESOURCES } from '../../../resources/index.js';
import type { ResourceDef } from '../../../resources/types.js';
import { adopt, commandOf } from '../../command.js';
import { CliError, EXIT } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { examples } from '../../help/examples.js';
import { inWords } from '../../help/text.js';
import { newCmdFeed } from '../feed/feed.js';
import { newCmdDownload } from '../attachments/download.js';
import { newCmdRemind } from '../attachments/remind.js';
import { newCmdUpload } from '../attachments/upload.js';
import { newCmdApply } from './apply.js';
import { newCmdCreate } from './create.js';
import { newCmdDelete } from './delete.js';
import { newCmdDone } from './done.js';
import { newCmdDue } from './due.js';
import { newCmdGet } from './get.js';
import { newCmdList } from './list.js';
import { newCmdUpdate } from './update.js';

/** "List, show, create, update and delete properties", from the verbs the resource has. */
function verbsSummary(r: ResourceDef): string {
  const words: string[] = (['list', 'show', 'create', 'update', 'delete'] as const).filter((w) =>
    w === 'show' ? r.verbs.get : r.verbs[w],
  );
  if (r.files) words.splice(0, 0, 'upload', 'download');
  const text = `${inWords(words)} ${r.plural}`;
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}${r.verbs.update ? '' : ` (${r.plural} cannot be updated)`}`;
}

/** `update` on a resource that has none: a clear refusal instead of "unknown command". */
function newCmdNoUpdate(r: ResourceDef): Command {
  return commandOf('update')
    .description(`Not possible: ${r.plural} cannot be updated (delete and create again)`)
    .allowUnknownOption()
    .argument('[args...]')
    .action(() => {
      throw new CliError(EXIT.usage, `${r.path} cannot be updated.`, {
        hint: `Delete it with \`pm ${r.path} delete <uuid>\` and create a new one.`,
      });
    });
}

/**
 * A command group per resource. With `only`, the groups it names are built in full (the others
 * are a name and a summary); with `verb` too (`pm properties list`), a group builds that verb's
 * command alone when it has one so named: commander needs no other to run it.
 */
export function registerResources(program: Command, f: Factory, only?: ReadonlySet<string>, verb?: string): void {
  for (const r of RESOURCES) {
    const group = program.command(r.path).description(verbsSummary(r));
    if (only && !only.has(r.path)) continue;
    group.addHelpText('after', examples(r, 'group'));
    // Each verb by its names (aliases included), and how to build it.
    const verbs: [names: readonly string[], build: () => Command, hidden?: boolean][] = [];
    if (r.verbs.list) verbs.push([['list', 'ls'], () => newCmdList(f, r)]);
    if (r.verbs.get) verbs.push([['get'], () => newCmdGet(f, r)]);
    if (r.verbs.create) verbs.push([['create'], () => newCmdCreate(f, r)]);
    if (r.verbs.update) verbs.push([['update'], () => newCmdUpdate(f, r)]);
    else verbs.push([['update'], () => newCmdNoUpdate(r), true]);
    if (r.verbs.delete) verbs.push([['delete', 'rm'], () => newCmdDelete(f, r)]);
    if (r.verbs.create && r.verbs.list) verbs.push([['apply'], () => newCmdApply(f, r)]);
    if (r.files) verbs.push([['upload'], () => newCmdUpload(f, r)], [['download'], () => newCmdDownload(f, r)]);
    if (r.files && r.fields.some((x) => x.kind === 'date')) verbs.push([['remind'], () => newCmdRemind(f, r)]);
    if (r.agenda) verbs.push([['due'], () => newCmdDue(f, r)]);
    if (r.agenda?.done)
      verbs.push([['done'], () => newCmdDone(f, r, false)], [['undone'], () => newCmdDone(f, r, true)]);
    if (r.agenda) verbs.push([['feed'], () => newCmdFeed(f, r)]);
    const named = verb === undefined ? undefined : verbs.find(([names]) => names.includes(verb));
    for (const [, build, hidden] of named ? [named] : verbs) adopt(group, build(), { hidden: hidden === true });
  }
}
