/**
 * The keys of a config file, written once: where a file may hold each (at the top, in a profile),
 * what its value must be, what `pm config get|set|unset` may do with it, and its line in
 * `pm help configuration`. config.ts checks files by it; the config commands, their completion
 * and the help topic read it. Pure data: loading it loads nothing else.
 */

/** A profile's name: letters, digits, "_", "-", "." (not first). */
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
/** PROFILE_NAME in words, for messages. */
export const PROFILE_NAME_WORDS = 'letters, digits, "_", "-", "."';

export const isProfileName = (name: unknown): boolean => typeof name === 'string' && PROFILE_NAME.test(name);
const isText = (value: unknown) => typeof value === 'string' && value.trim() !== '';

export interface ConfigKey {
  readonly name: string;
  /** Where a file may hold it: at its top, in a profile (profiles.NAME.key). */
  readonly top: boolean;
  readonly inProfile: boolean;
  /** A value's check, and what a message says it must be; none for `profiles` (checked apart). */
  readonly rule?: { readonly ok: (value: unknown) => boolean; readonly mustBe: string };
  /** What `pm config` may do with it: get its effective value, set it, unset it. */
  readonly get: boolean;
  readonly set: boolean;
  readonly unset: boolean;
  /** Its lines in `pm help configuration`; none for a key another's lines tell of. */
  readonly help?: readonly string[];
}

const profileName = { ok: isProfileName, mustBe: `a profile name (${PROFILE_NAME_WORDS})` };

/** Every key, in the order lists of them are written. */
export const CONFIG_KEYS = [
  {
    name: 'base_url',
    top: true,
    inProfile: true,
    rule: { ok: isText, mustBe: 'a non-empty string' },
    get: true,
    set: true,
    unset: true,
    help: ["the server's base URL, http(s), without query or fragment"],
  },
  {
    name: 'token',
    top: true,
    inProfile: true,
    rule: { ok: isText, mustBe: 'a non-empty string' },
    get: true,
    // Written by `pm auth login` alone: never an argument.
    set: false,
    unset: true,
    help: [
      'the token for that server: written by pm auth login (the user config is',
      'kept mode 0600; pm warns when a file holding a token is readable by others)',
    ],
  },
  {
    // In a file, default_profile's other spelling; to `pm config get`, the active profile.
    name: 'profile',
    top: true,
    inProfile: false,
    rule: profileName,
    get: true,
    set: false,
    unset: false,
  },
  {
    name: 'timeout',
    top: true,
    inProfile: true,
    rule: {
      ok: (value) => typeof value === 'number' && Number.isFinite(value) && value > 0,
      mustBe: 'a positive number of seconds',
    },
    get: true,
    set: true,
    unset: true,
    help: ['seconds to wait for the server (default 30); at the top level, for every', 'profile that sets none'],
  },
  {
    name: 'default_profile',
    top: true,
    inProfile: false,
    rule: profileName,
    get: true,
    set: true,
    unset: true,
    help: ['the profile used when neither --profile nor PM_PROFILE is given (also', 'spelled "profile")'],
  },
  {
    name: 'profiles',
    top: true,
    inProfile: false,
    get: false,
    set: false,
    unset: false,
    help: [
      'named sets of base_url, token and timeout; top-level base_url and token',
      'belong to the profile "default"',
    ],
  },
] as const satisfies readonly ConfigKey[];

/** The names of the keys whose entries have `P` (`{ set: true }`). */
export type KeyName<P> = Extract<(typeof CONFIG_KEYS)[number], P>['name'];

/** The names of the keys `pick` selects, in table order. */
export const keyNames = (pick: (k: ConfigKey) => boolean): string[] =>
  (CONFIG_KEYS as readonly ConfigKey[]).filter(pick).map((k) => k.name);

/** The help topic's list of keys: a name, then its lines in a column. */
export function keysHelp(): string {
  const lines: string[] = [];
  for (const k of CONFIG_KEYS as readonly ConfigKey[])
    k.help?.forEach((line, i) => lines.push(`  ${(i === 0 ? k.name : '').padEnd(18)}${line}`));
  return lines.join('\n');
}
