/** `pm config list`: the effective settings of the active profile and where each comes from. */
import { tokenFileFor } from '../../../core/paths.js';
import { printableUrl } from '../../../core/redact.js';
import { redact, resolveTarget, type Source, type Target } from '../../config.js';
import type { Factory } from '../../factory.js';
import { type DataOutput, dataSpecFrom, printData, wantsData } from '../../output/index.js';

/** The fields of the settings as JSON (listJson). */
const LIST_FIELDS = ['profile', 'base_url', 'token', 'timeout', 'sources'];
import { writeWarnings } from './config-run.js';

export interface ConfigListOptions {
  readonly f: Factory;
  /** --json [fields], --jq: the settings as JSON. */
  readonly output: DataOutput;
}

/** Where a setting came from, in words. */
function origin(key: 'profile' | 'base_url' | 'token' | 'timeout', source: Source, target: Target): string {
  const words: Record<Source, string> = {
    flag: key === 'profile' ? '--profile' : '--base-url',
    env: key === 'profile' ? 'PM_PROFILE' : key === 'token' ? 'PM_TOKEN' : 'PM_BASE_URL',
    project: `project config (${target.projectConfigPath})`,
    user: `user config (${target.userConfigPath})`,
    embedded: 'embedded default',
    none: key === 'profile' ? 'default' : 'not set',
  };
  return words[source];
}

function listJson(t: Target, redacted: string | undefined): Record<string, unknown> {
  return {
    profile: t.profile,
    base_url: t.baseUrl === undefined ? null : printableUrl(t.baseUrl),
    token: redacted ?? null,
    timeout: t.timeout ?? null,
    sources: {
      profile: t.sources.profile,
      base_url: t.sources.baseUrl,
      token: t.sources.token,
      timeout: t.sources.timeout,
    },
    data_file: t.embedded?.dataFile ?? null,
    token_file: t.embedded ? tokenFileFor(t.embedded.dataFile) : null,
    user_config: t.userConfigPath,
    project_config: t.projectConfigPath ?? null,
  };
}

function listText(t: Target, redacted: string | undefined): string {
  const rows: [string, string, string][] = [['profile', t.profile, origin('profile', t.sources.profile, t)]];
  if (t.embedded) {
    rows.push(['base_url', '(embedded default)', `the bundled server on ${t.embedded.dataFile}`]);
    rows.push(['token', '(embedded default)', `read from ${tokenFileFor(t.embedded.dataFile)}`]);
  } else {
    rows.push(['base_url', printableUrl(t.baseUrl ?? ''), origin('base_url', t.sources.baseUrl, t)]);
    rows.push(['token', redacted ?? '(none)', origin('token', t.sources.token, t)]);
  }
  rows.push([
    'timeout',
    t.timeout !== undefined ? `${t.timeout}s` : '(not set)',
    t.sources.timeout === 'none' ? 'the client default applies' : origin('timeout', t.sources.timeout, t),
  ]);
  const w0 = Math.max(...rows.map((r) => r[0].length));
  const w1 = Math.max(...rows.map((r) => r[1].length));
  let out = rows.map(([k, v, s]) => `${k.padEnd(w0)}  ${v.padEnd(w1)}  ${s}`.trimEnd()).join('\n');
  out += `\n\nuser config     ${t.userConfigPath}\nproject config  ${t.projectConfigPath ?? '(none found)'}\n`;
  return out;
}

export async function configListRun(o: ConfigListOptions): Promise<void> {
  const { f } = o;
  const spec = wantsData(o.output) ? await dataSpecFrom(o.output, LIST_FIELDS) : undefined;
  const target = await resolveTarget(f.globals(), f);
  writeWarnings(f, target.warnings);
  const redacted = redact(target.token);
  if (spec) await printData(listJson(target, redacted), spec, await f.display());
  else f.io.stdout.write(listText(target, redacted));
}
