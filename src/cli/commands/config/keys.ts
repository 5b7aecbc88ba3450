/** The keys of `pm config get|set|unset`, as the table of config keys says (config-keys.ts). */
import { type KeyName, keyNames } from '../../config-keys.js';
import { usageError } from '../../errors.js';

export type GetKey = KeyName<{ get: true }>;
export type SetKey = KeyName<{ set: true }>;
export type UnsetKey = KeyName<{ unset: true }>;

export const GET_KEYS = keyNames((k) => k.get) as GetKey[];
export const SET_KEYS = keyNames((k) => k.set) as SetKey[];
export const UNSET_KEYS = keyNames((k) => k.unset) as UnsetKey[];

/** A key among `keys`, or a usage error listing them. */
export function keyOf<K extends string>(key: string, keys: readonly K[], what: string): K {
  if (!(keys as readonly string[]).includes(key))
    throw usageError(`unknown key "${key}".`, `${what}: ${keys.join(', ')}.`);
  return key as K;
}
