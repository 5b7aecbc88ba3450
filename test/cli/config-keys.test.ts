/**
 * The table of config keys (src/cli/config-keys.ts) is what the config commands, the checks of a
 * config file, the help topic and completion read: a key's entry decides each of them.
 */
import { describe, expect, it } from 'vitest';
import { CONFIG_KEYS, type ConfigKey, keyNames, keysHelp } from '../../src/cli/config-keys.js';
import { runPm, tempHome } from '../helpers/cli.js';

const keys = CONFIG_KEYS as readonly ConfigKey[];

describe('the table of config keys', () => {
  it('what pm config may do with each key', () => {
    expect(keyNames((k) => k.get)).toEqual(['base_url', 'token', 'profile', 'timeout', 'default_profile']);
    expect(keyNames((k) => k.set)).toEqual(['base_url', 'timeout', 'default_profile']);
    // A token is written by pm auth login alone, but can be removed.
    expect(keyNames((k) => k.unset)).toEqual(['base_url', 'token', 'timeout', 'default_profile']);
    expect(keyNames((k) => k.inProfile)).toEqual(['base_url', 'token', 'timeout']);
  });

  it('every key a file holds has a check, but profiles (an object of profiles)', () => {
    for (const k of keys) {
      if (k.name === 'profiles') expect(k.rule).toBeUndefined();
      else expect(k.rule, k.name).toBeDefined();
    }
    const rule = (name: string) => keys.find((k) => k.name === name)?.rule;
    expect(rule('timeout')?.ok(30)).toBe(true);
    expect(rule('timeout')?.ok('30')).toBe(false);
    expect(rule('default_profile')?.ok('work.eu-1')).toBe(true);
    expect(rule('default_profile')?.ok('-work')).toBe(false);
    expect(rule('base_url')?.ok(' ')).toBe(false);
  });

  it('the help topic lists each key with help once, in the table order', () => {
    const named = keysHelp()
      .split('\n')
      .map((l) => /^ {2}(\S+)/.exec(l)?.[1])
      .filter(Boolean);
    expect(named).toEqual(['base_url', 'token', 'timeout', 'default_profile', 'profiles']);
  });

  it('pm help configuration and completion read it', async () => {
    const home = tempHome();
    const help = await runPm(['help', 'configuration'], { home });
    expect(help.stdout).toContain(keysHelp());
    expect(help.stdout).toContain('change the user config: base_url, timeout, default_profile');
    for (const [op, pick] of [
      ['get', (k: ConfigKey) => k.get],
      ['set', (k: ConfigKey) => k.set],
      ['unset', (k: ConfigKey) => k.unset],
    ] as const) {
      const r = await runPm(['__complete', '--', 'config', op, ''], { home });
      expect(r.stdout.split('\n').filter((l) => l && !l.startsWith(':'))).toEqual(keyNames(pick));
    }
  });
});
