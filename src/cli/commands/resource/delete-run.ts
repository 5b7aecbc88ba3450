/** `pm <resource> delete`: records by uuid, after a question a person answers (or --yes). */
import { CUSTOM_VALUES_KEY, childrenOf, RESOURCES } from '../../../resources/index.js';
import { encodeListQuery } from '../../../core/query.js';
import type { ResourceDef } from '../../../resources/types.js';
import { isWholeUuid } from '../../../core/kinds.js';
import { visible } from '../../../core/redact.js';
import { CliError, EXIT, oneKind } from '../../errors.js';
import { type DataOutput, dataSpecFrom, printData } from '../../output/index.js';
import type { Session } from '../../session.js';
import { resolveUuid } from '../../uuids.js';
import { describeApiError } from '../../api-errors.js';
import { confirmDelete, countOf, describeRecord } from '../shared.js';
import { dryRun } from './common-run.js';
import type { OnResource } from './options.js';

export interface DeleteOptions extends OnResource {
  readonly uuids: readonly string[];
  readonly yes: boolean;
  readonly dryRun: boolean;
  readonly quiet: boolean;
  /** The result is printed as JSON (--json or --jq), as `output` says. */
  readonly json: boolean;
  readonly output: DataOutput;
  /** A record already gone counts as deleted. */
  readonly ignoreNotFound?: boolean;
}

/** Records named one by one in a delete's question, at most; more are counted. */
const NAMED = 5;

/**
 * What a delete would take away, in words: the records by their first columns, and what goes with
 * them (their notes, their custom values), read from the server. A record that is not there is
 * the same "not found" the delete would be (unless --ignore-not-found).
 */
async function describeForDelete(s: Session, r: ResourceDef, uuids: readonly string[], ignoreMissing: boolean) {
  const found: Record<string, unknown>[] = [];
  for (const u of uuids.slice(0, 20)) {
    try {
      found.push(await s.client.get(r, u, r.customValues ? CUSTOM_VALUES_KEY : undefined));
    } catch (e) {
      const err = describeApiError(e, r);
      if (err.exitCode === EXIT.notFound && ignoreMissing) continue;
      // Without the custom fields' read scope, the record alone.
      if (err.exitCode === EXIT.auth && r.customValues) found.push(await s.client.get(r, u).catch(() => ({ uuid: u })));
      else throw err;
    }
  }
  const goes: string[] = [];
  for (const { child } of childrenOf(r)) {
    const count = countOf(r, child);
    const n = count ? found.reduce((sum, x) => sum + (Number(x[count.name]) || 0), 0) : 0;
    if (n) goes.push(`${n} ${n === 1 ? child.singular : child.plural}`);
  }
  if (r.customValues) {
    const n = found.reduce((sum, x) => sum + ((x[CUSTOM_VALUES_KEY] as { data?: unknown[] })?.data?.length ?? 0), 0);
    if (n) goes.push(`${n} custom value${n === 1 ? '' : 's'}`);
  }
  const kept = await keptAbout(
    s,
    r,
    found.map((x) => String(x.uuid)),
  );
  const name = (x: Record<string, unknown>) => describeRecord(r, x) || String(x.uuid);
  const which =
    uuids.length === 1
      ? `${r.singular} ${found[0] ? name(found[0]) : uuids[0]}`
      : `${uuids.length} ${r.plural}${uuids.length <= NAMED ? ` (${found.map(name).join('; ')})` : ''}`;
  return `${which}${goes.length ? ` and ${uuids.length === 1 ? 'its' : 'their'} ${goes.join(' and ')}` : ''}${kept}`;
}

/**
 * The records about these (a property's reminders: a link listed by the target's filters,
 * `where`), which a delete keeps with the link cleared, in words: " (2 reminders about it are
 * kept, no longer linked)". A count the server will not give is left out.
 */
async function keptAbout(s: Session, r: ResourceDef, uuids: readonly string[]): Promise<string> {
  if (!uuids.length) return '';
  const parts: string[] = [];
  for (const other of RESOURCES)
    for (const link of (other.links ?? []).filter((l) => l.where && l.target === r.path)) {
      const query = encodeListQuery(other, { relations: { [link.name]: { uuid: uuids } }, perPage: 1 });
      const n = await s.client
        .list(other, query)
        .then((page) => page.pagination.total)
        .catch(() => 0);
      if (n) parts.push(`${n} ${n === 1 ? other.singular : other.plural}`);
    }
  if (!parts.length) return '';
  const it = uuids.length === 1 ? 'it' : 'them';
  const verb = parts.length === 1 && /^1 /.test(parts[0] as string) ? 'is' : 'are';
  return ` (${parts.join(' and ')} about ${it} ${verb} kept, no longer linked)`;
}

/** What --json [fields] of a delete may name: a result's fields. */
const RESULT_FIELDS = ['uuid', 'deleted', 'error'];

export async function deleteRun(o: DeleteOptions): Promise<void> {
  const { f, resource: r } = o;
  // --json's fields and --jq checked before anything is deleted.
  const spec = o.json ? await dataSpecFrom(o.output, RESULT_FIELDS) : undefined;
  // Beginnings of uuids resolved first: an ambiguous one is refused before anything is deleted.
  const resolved: string[] = [];
  if (o.uuids.some((u) => !isWholeUuid(u))) {
    const s = await f.session();
    for (const u of o.uuids) resolved.push(await resolveUuid(s, r, u, '<uuid>'));
  }
  const unique = [...new Set(resolved.length ? resolved : o.uuids)];
  if (!o.yes && !o.dryRun)
    await confirmDelete(f, async () => {
      const what = await describeForDelete(await f.session(), r, unique, o.ignoreNotFound === true);
      return `Delete ${what}? This cannot be undone.`;
    });
  const s = await f.session();
  if (o.dryRun) {
    for (const u of unique) dryRun(s, f, 'DELETE', s.client.recordPath(r, u), undefined, {});
    return;
  }
  const results: { uuid: string; deleted: boolean; error?: string }[] = [];
  const failed: CliError[] = [];
  for (const u of unique) {
    try {
      await s.client.delete(r, u);
      results.push({ uuid: u, deleted: true });
      if (!o.quiet && !o.json) f.io.stderr.write(`Deleted ${r.singular} ${u}.\n`);
    } catch (e) {
      const err = describeApiError(e, r);
      if (err.exitCode === EXIT.notFound && o.ignoreNotFound) {
        results.push({ uuid: u, deleted: true });
        if (!o.quiet && !o.json) f.io.stderr.write(`No ${r.singular} ${u}: already gone.\n`);
        continue;
      }
      if (err.exitCode === EXIT.interrupted || err.exitCode === EXIT.network || err.exitCode === EXIT.auth) throw err;
      results.push({ uuid: u, deleted: false, error: err.message });
      failed.push(err);
      if (unique.length > 1) f.io.stderr.write(`error: ${visible(err.message)}\n`);
    }
  }
  if (spec) await printData(results, spec, await f.display());
  if (failed.length) {
    if (unique.length === 1) throw failed[0];
    const codes = failed.map((e) => e.exitCode);
    throw new CliError(oneKind(codes), `${codes.length} of ${unique.length} ${r.plural} not deleted.`);
  }
}
