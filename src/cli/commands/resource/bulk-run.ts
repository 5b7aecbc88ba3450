/**
 * `pm <resource> create|update|delete --from-file FILE` (and uuids on stdin for delete): the bulk
 * form of each write, for scripts and CI jobs.
 */
import { CliError, EXIT, usageError } from '../../errors.js';
import { bodyFromFlags, setChanges, withClientDefaults } from '../../flag-values.js';
import { readStdin } from '../../input.js';
import { resolveUuid } from '../../uuids.js';
import { fillForUpdate } from '../../writes.js';
import type { SendOptions, Verb } from '../../bulk/flags.js';
import type { InputRecord } from '../../bulk/input.js';
import { createKeyed, recordKey } from '../../bulk/keys.js';
import { checkAll, keyFields, keyOf, prepare, problemLines, readRecords } from '../../bulk/records.js';
import { type Outcome, RESULT_FIELDS, runBulk } from '../../bulk/run.js';
import { type DataOutput, dataSpecFrom, dataStream } from '../../output/index.js';
import { confirmDelete, everyRecord, when, withUnabortedSession } from '../shared.js';
import type { Flags, OnResource } from './options.js';

/** A write from records in a file (or uuids on stdin, for delete). */
export interface BulkOptions extends OnResource {
  readonly verb: Verb;
  /** The file, or - for stdin; undefined when delete reads uuids from stdin. */
  readonly fromFile?: string | undefined;
  /** Every parsed flag: field flags given with --from-file are refused (read through the descriptions). */
  readonly flags: Flags;
  /** delete: do not ask. */
  readonly yes: boolean;
  /** create: skip records that match an existing one on these fields (--skip-existing). */
  readonly skipExisting?: string | undefined;
  readonly validateOnly: boolean;
  readonly send: SendOptions;
  /** What is printed of each record: its uuid alone, JSON or NDJSON; else a summary. */
  readonly output?: 'quiet' | 'json' | 'ndjson' | undefined;
  /** With JSON: the fields --json names (of a result: RESULT_FIELDS), and --jq. */
  readonly dataOutput?: DataOutput;
}

export async function bulkRun(o: BulkOptions): Promise<void> {
  const { f: deps, resource: r, verb, flags } = o;
  // --json's fields and --jq are checked before anything is read or sent.
  const spec = o.output === 'json' ? await dataSpecFrom(o.dataOutput ?? {}, RESULT_FIELDS) : undefined;
  if (
    verb !== 'delete' &&
    (Object.keys(bodyFromFlags(r, flags, verb, when(deps))).length || setChanges(r, flags).length)
  )
    throw usageError('field flags cannot be combined with --from-file: put the fields in the file.');
  if (verb === 'delete' && !o.yes)
    await confirmDelete(deps, () => `Delete every ${r.singular} listed in ${o.fromFile ?? 'standard input'}?`);
  const keys = o.skipExisting !== undefined ? keyFields(r, o.skipExisting, '--skip-existing') : undefined;
  const { records, format, where } =
    o.fromFile === undefined
      ? { records: uuidRecords(await readStdin(deps)), format: 'ndjson' as const, where: 'standard input' }
      : await readRecords(r, o.fromFile, o.send.format, deps);
  if (verb === 'create')
    for (const rec of records) if (!('verbatim' in rec)) withClientDefaults(r, rec.body, when(deps));
  checkAll(r, verb, records);
  const invalid = records.filter((rec) => rec.problems.length);
  const count = (n: number) => `${n} record${n === 1 ? '' : 's'}`;
  if (o.validateOnly) {
    if (!invalid.length) {
      deps.io.stderr.write(`${where}: ${count(records.length)}, all valid; nothing sent.\n`);
      return;
    }
    deps.io.stderr.write(`${where}: ${count(records.length)}, ${invalid.length} with problems; nothing sent.\n`);
    deps.io.stderr.write(problemLines(invalid));
    throw new CliError(EXIT.api, `${invalid.length} of ${count(records.length)} would not go through.`, {
      hint: 'Mend those lines, or send the others: without --validate-only, records with problems fail alone.',
    });
  }
  if (invalid.length) {
    deps.io.stderr.write(`${where}: ${invalid.length} of ${count(records.length)} have problems; they are not sent:\n`);
    deps.io.stderr.write(problemLines(invalid));
  }
  if (!records.length) {
    deps.io.stderr.write(`${where}: no records.\n`);
    return;
  }
  await withUnabortedSession(deps, async (s) => {
    const seen = new Map<string, string>();
    if (keys)
      for await (const rec of everyRecord(s, r, new URLSearchParams())) seen.set(keyOf(keys, rec, r), String(rec.uuid));
    const send = async (rec: InputRecord): Promise<Outcome> => {
      const { body, parent } = prepare(r, verb, rec);
      if (verb === 'delete') {
        const uuid = await resolveUuid(s, r, String(body.uuid).trim().toLowerCase(), 'uuid');
        await s.client.delete(r, uuid);
        return { status: 'deleted', uuid };
      }
      if (verb === 'update') {
        const { uuid, ...rest } = body;
        await fillForUpdate(s.client, r, String(uuid), rest);
        const got = await s.client.update(r, String(uuid), rest);
        return { status: 'updated', uuid: String(got.uuid ?? uuid) };
      }
      if (keys) {
        const k = keyOf(keys, body, r);
        const existing = seen.get(k);
        if (existing !== undefined) return { status: 'skipped', uuid: existing };
        seen.set(k, '');
      }
      // Matched on keys, a record is made under a key derived from it: runs at once make it once.
      const got = keys
        ? await createKeyed(s, r, body, parent, recordKey(r, keys, body, parent))
        : await s.client.create(r, body, parent);
      if (keys) seen.set(keyOf(keys, body, r), String(got.uuid));
      return { status: 'created', uuid: String(got.uuid) };
    };
    await runBulk({
      resource: r,
      records,
      format,
      concurrency: o.send.concurrency,
      send,
      output: spec ? dataStream(spec, await deps.display()) : o.output === 'json' ? undefined : o.output,
      ...(o.send.failedFile !== undefined ? { failedFile: o.send.failedFile } : {}),
      verbs: [`${verb}d`],
      deps,
    });
  });
}

/** Uuids one a line (delete's standard input), as records. */
function uuidRecords(text: string): InputRecord[] {
  return text
    .split(/\r?\n/)
    .map((l, i) => ({ line: i + 1, text: l.trim() }))
    .filter((l) => l.text !== '')
    .map(({ line, text: uuid }) => ({ line, original: { uuid }, body: { uuid }, problems: [] }));
}
