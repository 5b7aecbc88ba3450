/** `pm config get <key>`: the effective value of one setting (a token redacted, never in full). */
import { tokenFileFor } from '../../../core/paths.js';
import { printableUrl } from '../../../core/redact.js';
import { readUserConfig, redact, resolveTarget } from '../../config.js';
import type { Factory } from '../../factory.js';
import { writeWarnings } from './config-run.js';
import type { GetKey } from './keys.js';

export interface ConfigGetOptions {
  readonly f: Factory;
  readonly key: GetKey;
}

const TOKEN_NOTE = 'note: tokens are never printed; this is a redacted form of it.\n';

export async function configGetRun(o: ConfigGetOptions): Promise<void> {
  const { f, key } = o;
  const { io } = f;
  const target = await resolveTarget(f.globals(), f);
  writeWarnings(f, target.warnings);
  const value = await {
    profile: () => target.profile,
    base_url: () => (target.baseUrl === undefined ? undefined : printableUrl(target.baseUrl)),
    token: () => redact(target.token),
    timeout: () => (target.timeout === undefined ? undefined : String(target.timeout)),
    default_profile: async () => (await readUserConfig(f)).default_profile,
  }[key]();
  if (value !== undefined) {
    if (key === 'token') io.stderr.write(TOKEN_NOTE);
    io.stdout.write(`${value}\n`);
  } else if (target.embedded && key === 'base_url')
    io.stderr.write(`base_url is not set: pm uses the embedded default (${target.embedded.dataFile}).\n`);
  else if (target.embedded && key === 'token')
    io.stderr.write(`the embedded default's token is read from ${tokenFileFor(target.embedded.dataFile)}.\n`);
  else io.stderr.write(`${key} is not set.\n`);
}
