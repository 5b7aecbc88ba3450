/** `pm auth login`: a token stored for a server, read from a prompt without echo or from stdin, never from argv. */
import { printableUrl } from '../../../core/redact.js';
import { readUserConfig, resolveTarget, writeUserConfig } from '../../config.js';
import { CliError, EXIT, usageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { readStdin } from '../../input.js';
import { httpOptions, targetFlags } from '../../session.js';
import { describeApiError } from '../../api-errors.js';
import { interactive } from '../shared.js';
import { probe } from './probe-run.js';

export interface AuthLoginOptions {
  readonly f: Factory;
  /** Read the token from standard input (else a prompt without echo). */
  readonly withToken: boolean;
  /** Check the token against the server before storing it. */
  readonly verify: boolean;
}

export async function authLoginRun(o: AuthLoginOptions): Promise<void> {
  const { f: deps } = o;
  const globals = deps.globals();
  const target = await resolveTarget(targetFlags(globals), deps, { allowNewProfile: true });
  const baseUrl = target.baseUrl;
  if (!baseUrl)
    throw usageError(
      'which server? Give --base-url URL (the embedded default needs no login).',
      'Example: pm auth login --base-url https://pm.example.com',
    );
  let token: string;
  if (o.withToken) token = (await readStdin(deps)).trim().split(/\r?\n/)[0] ?? '';
  else if (interactive(deps, globals) && deps.prompter)
    token = (await deps.prompter.secret(`Token for ${printableUrl(baseUrl)}: `)).trim();
  else
    throw usageError(
      'no terminal to ask for the token: pipe it in with --with-token.',
      `Example: echo "$TOKEN" | pm auth login --base-url ${printableUrl(baseUrl)} --with-token`,
    );
  if (!token) throw usageError('the token is empty.');
  if (/\s/.test(token)) throw usageError('the token contains white space; paste it as one word.');

  if (o.verify) {
    const { HttpClient } = await import('../../../client/http.js');
    let http: InstanceType<typeof HttpClient> | undefined;
    try {
      http = new HttpClient({ baseUrl, token, ...httpOptions(globals, deps, target) });
      await probe(http);
    } catch (e) {
      const err = describeApiError(e);
      if (err.exitCode === EXIT.usage) throw err;
      if (err.status !== 403)
        throw new CliError(err.exitCode, `the token was not stored: ${err.message}`, {
          hint: err.status === 401 ? 'The server does not accept this token.' : 'Use --no-verify to store it anyway.',
        });
    } finally {
      await http?.close();
    }
  }
  const cfg = await readUserConfig(deps);
  const profiles = { ...(cfg.profiles ?? {}) };
  profiles[target.profile] = { ...(profiles[target.profile] ?? {}), base_url: baseUrl, token };
  await writeUserConfig(deps, { ...cfg, profiles });
  deps.io.stderr.write(
    `Logged in to ${printableUrl(baseUrl)} (profile "${target.profile}"); the token is stored in ${target.userConfigPath}.\n`,
  );
}
