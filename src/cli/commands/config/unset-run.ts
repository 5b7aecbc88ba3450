/** `pm config unset <key>`: a setting removed from the user config. */
import { DEFAULT_PROFILE, ownProfile, writeUserConfig } from '../../config.js';
import type { Factory } from '../../factory.js';
import { forWrite, tidy } from './config-run.js';
import type { UnsetKey } from './keys.js';

export interface ConfigUnsetOptions {
  readonly f: Factory;
  readonly key: UnsetKey;
  readonly profileScope: boolean;
}

export async function configUnsetRun(o: ConfigUnsetOptions): Promise<void> {
  const { key } = o;
  const { io } = o.f;
  const { loaded, profile, cfg, topLevel, where } = await forWrite(o);
  let removed = false;
  const drop = (obj: object | undefined, k: string) => {
    if (obj && Object.hasOwn(obj, k)) {
      delete (obj as Record<string, unknown>)[k];
      removed = true;
    }
  };
  if (topLevel) drop(cfg, key);
  else {
    drop(ownProfile(cfg, profile), key);
    if (profile === DEFAULT_PROFILE && key !== 'timeout') drop(cfg, key);
  }
  if (!removed) {
    io.stderr.write(`${key} was not set for ${where} in ${loaded.userConfigPath}; nothing changed.\n`);
    return;
  }
  tidy(cfg, profile);
  await writeUserConfig(o.f, cfg);
  io.stderr.write(`unset ${key} for ${where} in ${loaded.userConfigPath}\n`);
  if (key === 'token') io.stderr.write('note: the token was removed from the file, not revoked on the server.\n');
}
