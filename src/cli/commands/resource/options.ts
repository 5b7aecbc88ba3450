/**
 * What the resource commands share: the types their options build on, and the checks of flags
 * more than one of their constructors reads. Types and flag checks only: no run code.
 */
import type { Command } from 'commander';
import { embedNames } from '../../../resources/index.js';
import type { ResourceDef } from '../../../resources/types.js';
import { usageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { splitList } from '../../flags.js';
import { outputFlagsOf } from '../../output/flags.js';
import type { OutputFlags } from '../../output/index.js';

/**
 * The flags of a resource's fields and filters, named by the descriptions: read through them
 * (flag-values.ts: filterQuery, bodyFromFlags), never by a name written in a run function.
 */
export type Flags = Readonly<Record<string, unknown>>;

/** What every resource command is given: the factory, and the resource it works on. */
export interface OnResource {
  readonly f: Factory;
  readonly resource: ResourceDef;
}

/** The record a new one is created under (a note's property), by path and uuid. */
export interface ParentOption {
  readonly resource: string;
  readonly uuid: string;
}

/** What create and update share. */
export interface WriteOptions extends OnResource {
  /** The field flags (see Flags). */
  readonly flags: Flags;
  /** --data: inline JSON, @file or - for stdin. */
  readonly data?: string | undefined;
  readonly dryRun: boolean;
  readonly output: OutputFlags;
}

export const str = (v: unknown): string | undefined => (v === undefined ? undefined : String(v));

/** What create and update read alike: the field flags, --data, --dry-run and the output flags. */
export function writeOptions(f: Factory, r: ResourceDef, flags: Flags): WriteOptions {
  return { f, resource: r, flags, data: str(flags.data), dryRun: flags.dryRun === true, output: outputFlagsOf(flags) };
}

/** A page number flag: a whole number from 1 (at most `max`). */
export function pageNumber(flag: string, v: unknown, max?: number): number | undefined {
  if (v === undefined) return undefined;
  const s = String(v);
  if (!/^\d+$/.test(s) || Number(s) < 1) throw usageError(`--${flag} must be a whole number from 1, not "${s}".`);
  if (max !== undefined && Number(s) > max) throw usageError(`--${flag} must be at most ${max}, not ${s}.`);
  return Number(s);
}

const BULK_ONLY = ['skipExisting', 'validateOnly', 'concurrency', 'failed', 'format'] as const;

/** A bulk flag means nothing without --from-file: given alone, it is refused, not silently ignored. */
export function bulkFlagsAlone(flags: Flags): void {
  const given = BULK_ONLY.find((k) => flags[k] !== undefined);
  if (given)
    throw usageError(
      `--${given.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} goes with --from-file: it means nothing for a single record.`,
    );
}

/** --embed: names the resource can embed, checked before any request. */
export function embedOf(r: ResourceDef, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const bad = splitList(String(value)).find((n) => !embedNames(r).includes(n));
  if (bad) throw usageError(`--embed: ${r.path} cannot embed "${bad}"; they can embed ${embedNames(r).join(', ')}.`);
  return String(value);
}

export function addEmbedFlag(cmd: Command, r: ResourceDef): void {
  if (embedNames(r).length) cmd.option('--embed <names>', `embed related data: ${embedNames(r).join(', ')}`);
}
