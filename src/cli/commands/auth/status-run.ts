/** `pm auth status`: which server and profile pm uses, and where the token comes from (never the token). */
import { printableUrl, visible } from '../../../core/redact.js';
import { resolveTarget } from '../../config.js';
import { CliError, EXIT } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { targetFlags, withSession } from '../../session.js';
import { describeApiError } from '../../api-errors.js';
import { type DataOutput, dataSpecFrom, printData, wantsData } from '../../output/index.js';
import { PROBE, probe } from './probe-run.js';

/** The fields of the status as JSON. */
const STATUS_FIELDS = [
  'server',
  'embedded',
  'profile',
  'profile_source',
  'base_url_source',
  'token_source',
  'token_check',
  'user_config',
  'project_config',
];

export interface AuthStatusOptions {
  readonly f: Factory;
  /** --json [fields], --jq: the status as JSON. */
  readonly output: DataOutput;
  /** Do not ask the server. */
  readonly offline: boolean;
}

export async function authStatusRun(o: AuthStatusOptions): Promise<void> {
  const { f: deps } = o;
  const { io } = deps;
  const globals = deps.globals();
  const spec = wantsData(o.output) ? await dataSpecFrom(o.output, STATUS_FIELDS) : undefined;
  const target = await resolveTarget(targetFlags(globals), deps);
  for (const w of target.warnings) io.stderr.write(`warning: ${visible(w)}\n`);
  const tokenFrom: Record<string, string> = {
    env: 'the PM_TOKEN environment variable',
    project: `the project config ${target.projectConfigPath ?? ''}`.trim(),
    user: `the user config ${target.userConfigPath}`,
    embedded: target.embedded
      ? `the file beside the data file (${target.embedded.dataFile}.token)`
      : 'the embedded default',
    none: 'nowhere: no token is configured',
  };
  let check = 'not checked';
  let exit: CliError | undefined;
  if (!o.offline && (target.token || target.embedded)) {
    try {
      await withSession(globals, deps, (s) => probe(s.http));
      check = 'accepted';
    } catch (e) {
      const err = describeApiError(e);
      check = err.status === 403 ? `accepted (lacks ${PROBE.scope}.read)` : `failed: ${err.message}`;
      if (err.status !== 403) exit = err;
    }
  }
  const info = {
    server: target.baseUrl === undefined ? null : printableUrl(target.baseUrl),
    embedded: target.embedded ? { data_file: target.embedded.dataFile } : null,
    profile: target.profile,
    profile_source: target.sources.profile,
    base_url_source: target.sources.baseUrl,
    token_source: target.sources.token,
    token_check: check,
    user_config: target.userConfigPath,
    project_config: target.projectConfigPath ?? null,
  };
  if (spec) await printData(info, spec, await deps.display());
  else {
    const server = target.embedded
      ? `the embedded default (the bundled server on ${target.embedded.dataFile})`
      : `${printableUrl(target.baseUrl ?? '')} (from ${target.sources.baseUrl === 'flag' ? '--base-url' : target.sources.baseUrl === 'env' ? 'PM_BASE_URL' : `the ${target.sources.baseUrl} config`})`;
    io.stdout.write(
      [
        `Server:  ${server}`,
        `Profile: ${target.profile}${target.sources.profile === 'none' ? '' : ` (from ${target.sources.profile})`}`,
        `Token:   from ${tokenFrom[target.sources.token] ?? target.sources.token}; ${check}`,
        `Config:  ${target.userConfigPath}${target.projectConfigPath ? `, ${target.projectConfigPath}` : ''}`,
      ].join('\n') + '\n',
    );
  }
  if (exit) throw new CliError(exit.exitCode, `the token check failed: ${exit.message}`);
  // Scripts and CI jobs check this: no usable token is a failure (as gh auth status).
  if (!target.token && !target.embedded)
    throw new CliError(EXIT.auth, `no token for ${printableUrl(target.baseUrl ?? '')}`, {
      hint: 'Log in with `pm auth login`, or set PM_TOKEN.',
    });
}
