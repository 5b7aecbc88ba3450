/** The keys of `pm config get|set|unset`. */
import { usageError } from '../../errors.js';

export const GET_KEYS = ['base_url', 'token', 'profile', 'timeout', 'default_profile'] as const;
export const SET_KEYS = ['base_url', 'timeout', 'default_profile'] as const;
/** What set writes, and the token that `pm auth login` wrote. */
export const UNSET_KEYS = [...SET_KEYS, 'token'] as const;
export type SetKey = (typeof SET_KEYS)[number];

export type GetKey = (typeof GET_KEYS)[number];
export type UnsetKey = (typeof UNSET_KEYS)[number];

/** A key among `keys`, or a usage error listing them. */
export function keyOf<K extends string>(key: string, keys: readonly K[], what: string): K {
  if (!(keys as readonly string[]).includes(key))
    throw usageError(`unknown key "${key}".`, `${what}: ${keys.join(', ')}.`);
  return key as K;
}
