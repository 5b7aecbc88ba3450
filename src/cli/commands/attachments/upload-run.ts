/**
 * `pm <files resource> upload`: each file sent as it is read (client/bytes.ts), under the record
 * it belongs to; with --skip-existing, a file whose name and SHA-256 the record already has is
 * not sent again.
 */
import { stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { parseHumanInstant } from '../../../core/humandate.js';
import { encodeListQuery } from '../../../core/query.js';
import { inputFields } from '../../../resources/index.js';
import { typed } from '../../flag-values.js';
import { when } from '../shared.js';
import { jsonText, visible } from '../../../core/redact.js';
import type { ResourceDef } from '../../../resources/types.js';
import { CliError, usageError } from '../../errors.js';
import type { OutStream } from '../../context.js';
import type { Factory } from '../../factory.js';
import { whyUnreadable } from '../../input.js';
import type { Session } from '../../session.js';
import { serverUuid } from '../../untrusted.js';
import { resolveUuid } from '../../uuids.js';
import { describeApiError } from '../../api-errors.js';
import { type Source, sha256Of, uploadFile } from './files.js';

export interface UploadOptions {
  readonly f: Factory;
  readonly resource: ResourceDef;
  /** Paths, or - for standard input (with `name`). */
  readonly files: readonly string[];
  /** The record they belong to: its uuid, or the beginning of it. */
  readonly parent: { readonly resource: ResourceDef; readonly uuid: string };
  readonly name?: string | undefined;
  readonly description?: string | undefined;
  /** The day it expires (ours): 2027-03-01, "in 1 year", "next march". */
  readonly expires?: string | undefined;
  readonly skipExisting: boolean;
  readonly json: boolean;
  /** -q: the uuids alone, no talk (as --json: the data alone). */
  readonly quiet?: boolean | undefined;
}

export async function uploadRun(o: UploadOptions): Promise<void> {
  const { resource: r } = o;
  // The data alone is asked for: what is skipped and uploaded is not said (as for every write).
  const f = o.quiet || o.json ? withoutTalk(o.f) : o.f;
  const expiry = inputFields(r).find((x) => x.kind === 'date');
  const expires =
    o.expires === undefined || !expiry
      ? undefined
      : typed('expires', () => parseHumanInstant(o.expires as string, when(f)).iso.slice(0, 10));
  const s = await f.session();
  const parentUuid = await resolveUuid(s, o.parent.resource, o.parent.uuid, `--${relationName(o)}`);
  const files = await Promise.all(o.files.map((file) => fileOf(f.cwd, file)));
  const existing = o.skipExisting ? await namesAndDigests(s, o, parentUuid) : undefined;
  for (const file of files) {
    const name = o.name ?? basename(file.path);
    if (existing && file.path !== '-') {
      const digest = await sha256Of(file.path);
      if (existing.has(`${name}\u0000${digest}`)) {
        f.io.stderr.write(`Skipped ${visible(name)}: the ${o.parent.resource.singular} has it already.\n`);
        continue;
      }
    }
    const rec = await uploadFile(f, s, r, { resource: o.parent.resource, uuid: parentUuid }, file, name, {
      description: o.description,
      ...(expiry && expires !== undefined ? { [expiry.name]: expires } : {}),
    });
    // What the server answered is printed only as what it claims to be: a uuid, and text made visible.
    const uuid = serverUuid(rec.uuid, `the uuid of the ${r.singular} made of ${visible(name)}`);
    if (o.json) f.io.stdout.write(`${jsonText(JSON.stringify(rec))}\n`);
    else f.io.stdout.write(`${uuid}\n`);
    f.io.stderr.write(
      `Uploaded ${visible(String(rec.name))} (${visible(String(rec.size))} bytes) as ${r.singular} ${uuid}.\n`,
    );
  }
}

/** The factory with its stderr saying nothing (no talk, no progress bar); errors still reach the user through run.ts. */
function withoutTalk(f: Factory): Factory {
  const silent: OutStream = { write: () => true, isTTY: false };
  return { ...f, io: { ...f.io, stderr: silent } };
}

/** The flag the parent was named by (--property). */
function relationName(o: UploadOptions): string {
  return o.resource.parents?.find((p) => p.target === o.parent.resource.path)?.name ?? o.parent.resource.singular;
}

/** A file to send: its path and size, checked before anything is sent (a usage error naming it). */
async function fileOf(cwd: string, file: string): Promise<Source> {
  if (file === '-') return { path: '-', size: undefined };
  const path = resolve(cwd, file);
  try {
    const st = await stat(path);
    if (!st.isFile()) throw usageError(`${file} is not a file.`);
    return { path, size: st.size };
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw usageError(`cannot read ${file}: ${whyUnreadable(e)}.`);
  }
}

/** `name NUL sha256` of every file the record has already. */
async function namesAndDigests(s: Session, o: UploadOptions, parentUuid: string): Promise<Set<string>> {
  const r = o.resource;
  const out = new Set<string>();
  try {
    const query = encodeListQuery(r, { relations: { [relationName(o)]: { uuid: [parentUuid] } }, perPage: 100 });
    for await (const page of s.client.pages(r, query))
      for (const rec of page.records) out.add(`${rec.name}\u0000${rec.sha256}`);
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw describeApiError(e, r);
  }
  return out;
}
