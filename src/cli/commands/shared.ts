/** Pieces every command shares: confirmation, a number flag, a record's short description, every page. */
import type { ResourceDef } from '../../resources/types.js';
import { visible } from '../../core/redact.js';
import { parseSize } from '../../core/size.js';
import type { Deps } from '../context.js';
import { about } from '../api-errors.js';
import { CliError, EXIT, usageError } from '../errors.js';
import type { Factory } from '../factory.js';
import type { GlobalOptions } from '../globals.js';
import type { Session } from '../session.js';

/** The clock and zone human dates are read in. */
export const when = (deps: Deps) => ({ now: deps.now(), ...(deps.timeZone ? { zone: deps.timeZone } : {}) });

/** Whether a person can be asked: a terminal on both ends, and neither --no-input nor CI=true. */
export function interactive(deps: Deps, globals: GlobalOptions): boolean {
  return (
    globals.input !== false &&
    deps.env.CI !== 'true' &&
    deps.env.CI !== '1' &&
    deps.io.stdin.isTTY === true &&
    deps.io.stderr.isTTY === true &&
    deps.prompter !== undefined
  );
}

/**
 * Asks before a delete; "no" stops the command. When no one is there to answer, refuses before
 * the question is made (making it may read the records from the server).
 */
export async function confirmDelete(f: Factory, question: () => Promise<string> | string): Promise<void> {
  if (!interactive(f, f.globals()))
    throw new CliError(EXIT.usage, 'refusing to delete without confirmation: pass --yes when not at a terminal.', {
      hint: 'pm never prompts with --no-input or CI=true.',
    });
  if (!(await f.prompter!.confirm(await question()))) throw new CliError(EXIT.usage, 'nothing deleted.');
}

/**
 * A whole-number flag from `min` to `max`, in no more digits than `max` has; else a usage error
 * that says it in `words`.
 */
export function numberFlag(
  flag: string,
  text: string | undefined,
  min: number,
  max: number,
  words = `a whole number from ${min} to ${max}`,
): number | undefined {
  if (text === undefined) return undefined;
  if (!new RegExp(`^\\d{1,${String(max).length}}$`).test(text) || Number(text) < min || Number(text) > max)
    throw usageError(`${flag} must be ${words}, not "${text}".`);
  return Number(text);
}

/** A short line naming a record: its first text columns (address, city; name, email…). */
export function describeRecord(r: ResourceDef, rec: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const f of r.fields) {
    if (!f.column || f.name === 'uuid' || parts.length >= 2) continue;
    const v = rec[f.name];
    if (typeof v === 'string' && v.trim()) parts.push(visible(v.trim()));
  }
  return parts.join(', ');
}

/** The field of a parent that counts a child's records (a property's num_notes), if any. */
export const countOf = (parent: ResourceDef, child: ResourceDef) =>
  parent.fields.find((f) => f.computed && 'count' in f.computed && f.computed.count === child.path);

/** Every record of `r` that `query` selects, 100 a page, one page held at a time. */
export async function* everyRecord(s: Session, r: ResourceDef, query: URLSearchParams) {
  query.set('per_page', '100');
  try {
    for await (const page of s.client.pages(r, query)) yield* page.records;
  } catch (e) {
    throw about(e, r);
  }
}

/**
 * Runs `fn` with a session of its own, closed after it, that gets no abort signal: its requests in
 * flight finish after Ctrl-C, and the command (a bulk write, an import) stops sending by itself.
 */
export async function withUnabortedSession(f: Factory, fn: (s: Session) => Promise<void>): Promise<void> {
  const { withSession } = await import('../session.js');
  await withSession(f.globals(), { ...f, signal: undefined }, fn);
}

/** A size flag: bytes, or with a unit (512KiB, 100MiB, 1GiB). */
export function sizeFlag(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const bytes = parseSize(text);
  if (bytes === undefined)
    throw usageError(`${flag} must be a size: bytes, or with a unit (512KiB, 100MiB, 1GiB), not "${text}".`);
  return bytes;
}
