/** What the run functions of the resource commands share: output, embeds, bodies, --dry-run. */
import { CUSTOM_FIELD_KEYS, customFields, CUSTOM_VALUES_KEY, embedsOf } from '../../../resources/index.js';
import type { ResourceDef } from '../../../resources/types.js';
import { HttpStatusError } from '../../../client/errors.js';
import { isObject } from '../../../core/json.js';
import { encodeListQuery } from '../../../core/query.js';
import { printableUrl } from '../../../core/redact.js';
import { CliError, EXIT, usageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { kebab, splitList } from '../../flags.js';
import { readInline } from '../../input.js';
import {
  autoEmbeds,
  customColumnsWanted,
  embedsFor,
  type OutputFlags,
  type OutputSpec,
  outputSpecFrom,
  prepareOutput,
} from '../../output/index.js';
import type { Session } from '../../session.js';
import { fieldErrors } from '../../writes.js';
import { everyRecord } from '../shared.js';

/** The output flags, checked (a bad --jq is a usage error before any request). */
export async function outputSpec(r: ResourceDef, flags: OutputFlags): Promise<OutputSpec> {
  const spec = outputSpecFrom(r, flags);
  await prepareOutput(spec);
  return spec;
}

/**
 * --embed, plus what the selected fields need (--json custom_fields embeds them) and, with `auto`,
 * what a table shows of the records it links to: of a list (a note's parent, a status), or of
 * `one` record (its links and sets too).
 */
export function embedList(
  r: ResourceDef,
  embed: string | undefined,
  spec: OutputSpec,
  auto: boolean,
  one = false,
): string[] {
  const given = splitList(embed ?? '');
  return [...new Set([...given, ...embedsFor(r, spec), ...(auto ? autoEmbeds(r, spec, one) : [])])];
}

/**
 * An answer refusing what a table embeds of itself: a server that does not know the embed (a 400
 * naming it), a token without the embed's read scope (403). Any other 400 is the request's own.
 */
export const embedRefused = (e: unknown): boolean =>
  e instanceof HttpStatusError && (e.status === 403 || (e.status === 400 && /\bembed\b/i.test(e.message)));

/**
 * CSV and TSV with custom values embedded: the names of every custom field of `r`, a column each
 * (custom_fields.NAME), read before the first record is written. Where they cannot be read, the
 * columns of the first record's values.
 */
export async function customColumns(s: Session, r: ResourceDef, spec: OutputSpec, embed: readonly string[]) {
  if (!r.customValues || !customColumnsWanted(spec) || !embed.includes(CUSTOM_VALUES_KEY)) return;
  const entity = { [CUSTOM_FIELD_KEYS.entity]: [String(r.customValues.entity)] };
  const names: string[] = [];
  try {
    for await (const cf of everyRecord(s, customFields, encodeListQuery(customFields, { fields: entity })))
      names.push(String(cf[CUSTOM_FIELD_KEYS.name]));
  } catch {
    return;
  }
  spec.customFields = names;
}

/** --data: inline JSON, @file, or - for stdin; a JSON object. */
export async function dataOption(value: string | undefined, f: Factory): Promise<Record<string, unknown>> {
  if (value === undefined) return {};
  const { text, where } = await readInline(value, f, '--data');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw usageError(`${where} is not valid JSON: ${(e as Error).message}.`);
  }
  if (!isObject(parsed)) throw usageError(`${where} must be a JSON object.`);
  return parsed;
}

/** Client-side check of a body, so mistakes fail before any request; unknown keys go to the server. */
export function precheck(r: ResourceDef, body: Record<string, unknown>, mode: 'create' | 'update'): void {
  const errors = fieldErrors(r, body, mode);
  if (!errors) return;
  const fields: Record<string, string[]> = {};
  for (const [k, msgs] of Object.entries(errors)) fields[`--${kebab(k.split('.')[0] as string)}`] = msgs;
  throw new CliError(EXIT.usage, `the ${r.singular} is not valid.`, {
    fields,
    hint: `Run 'pm ${r.path} ${mode} --help' for the flags.`,
  });
}

/** --dry-run: the request that would be sent, token redacted. */
export function dryRun(s: Session, f: Factory, method: string, path: string, body: unknown, output: OutputFlags): void {
  const url = printableUrl(s.http.url(path).toString());
  const headers = s.http.headers(body !== undefined, true);
  if (output.json !== undefined || output.output === 'json') {
    // JSON leaves out an undefined body.
    f.io.stdout.write(`${JSON.stringify({ method, url, headers, body }, null, 2)}\n`);
    return;
  }
  let text = `${method} ${url}\n`;
  for (const [k, v] of Object.entries(headers)) text += `${k}: ${v}\n`;
  if (body !== undefined) text += `\n${JSON.stringify(body, null, 2)}\n`;
  f.io.stdout.write(text);
}

/**
 * The record a write answered, with the links and sets the write set (a status, competencies)
 * embedded, so that what was set is seen: a write's answer has no embeds, so they are read once
 * more, and only when the body gave one. Where they cannot be read, the answer as it came.
 */
export async function withWritten(
  s: Session,
  r: ResourceDef,
  rec: Record<string, unknown>,
  body: Record<string, unknown>,
  spec: OutputSpec,
): Promise<Record<string, unknown>> {
  const names = embedsOf(r)
    .filter((e) => e.kind !== 'custom_values' && body[e.name] !== undefined)
    .map((e) => e.name);
  if (!names.length || spec.quiet || typeof rec.uuid !== 'string') return rec;
  return s.client.get(r, rec.uuid, names.join(',')).catch(() => rec);
}
