/**
 * Where pm points, and with which token: the one place that reads the configuration.
 *
 * Settings come, in order, from the flags (--base-url, --profile), the environment (PM_BASE_URL,
 * PM_TOKEN, PM_PROFILE), a project config found by cosmiconfig from the working directory up to
 * the home directory, and the user config ($XDG_CONFIG_HOME/pm/config.json). With no base URL
 * anywhere, pm uses the embedded default (the bundled server on a local data file).
 *
 * A token kept in a config file belongs to the base URL of that same file: it is never sent to a
 * server named by another config file (a cloned repository's .pmrc must not be able to collect
 * the user's token). PM_TOKEN goes to a server the user named (--base-url, PM_BASE_URL, the user
 * config), never to one that only a project config names: tokens go only where the user sent them.
 */
// node:fs alone (not node:fs/promises, whose loading every run would pay): these are small files.
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { printableUrl } from '../core/redact.js';
import { configDir, defaultDataFile } from '../core/paths.js';
import type { Deps } from './context.js';
import { CliError, EXIT, usageError } from './errors.js';
import { CONFIG_KEYS, type ConfigKey, isProfileName, keyNames, PROFILE_NAME_WORDS } from './config-keys.js';
import { writeFileAtomic } from './write-file.js';

export type Source = 'flag' | 'env' | 'project' | 'user' | 'embedded' | 'none';

export interface Target {
  /** undefined: the embedded default. */
  baseUrl: string | undefined;
  token: string | undefined;
  profile: string;
  sources: { baseUrl: Source; token: Source; profile: Source; timeout: Source };
  /** The file cosmiconfig found, if any. */
  projectConfigPath: string | undefined;
  /** configDir/config.json, whether or not it exists. */
  userConfigPath: string;
  /** Set when baseUrl is undefined. */
  embedded: { dataFile: string } | undefined;
  /** Talk for stderr: loose file permissions, ignored settings. */
  warnings: string[];
  /**
   * Set when PM_TOKEN was not sent to a base URL that only a project config names, and no token
   * of a config file was for it either: why (also one of the warnings), and how to send it there.
   */
  withheld?: { message: string; hint: string };
  /** Seconds, if configured. */
  timeout?: number;
}

/** The settings one profile can hold. */
export interface ProfileConfig {
  base_url?: string;
  token?: string;
  /** Seconds. */
  timeout?: number;
}

/**
 * The shape of a config file, project or user. Top-level base_url and token are the profile
 * "default"'s; a top-level timeout applies to every profile that sets none of its own.
 */
export interface UserConfig extends ProfileConfig {
  default_profile?: string;
  profile?: string;
  profiles?: Record<string, ProfileConfig>;
}

export const DEFAULT_PROFILE = 'default';

/** The module name cosmiconfig searches for, and the places it looks in each directory. */
const MODULE = 'pm';
const SEARCH_PLACES = ['package.json', '.pmrc', '.pmrc.json', '.pmrc.yaml', '.pmrc.yml'];

/**
 * Executable configs are not read: a config of a few keys needs no code, and running a file found
 * by walking up directories runs whatever was planted there (as gh and kubectl, pm reads data
 * only). Found, they are named in a warning.
 */
const EXECUTABLE_PLACES = ['pm.config.js', 'pm.config.mjs', 'pm.config.cjs'];

/** The keys a file may hold at its top, and in a profile (config-keys.ts). */
const TOP_KEYS = keyNames((k) => k.top);
const PROFILE_KEYS = keyNames((k) => k.inProfile);

/** A config file as read, with where it came from. */
export interface Layer {
  readonly kind: 'project' | 'user';
  readonly path: string;
  readonly config: UserConfig;
}

// ---------------------------------------------------------------------------------------------
// Small pure helpers

/** The file's own entry for the profile, if it has one. */
export function ownProfile(cfg: UserConfig, profile: string): ProfileConfig | undefined {
  return cfg.profiles !== undefined && Object.hasOwn(cfg.profiles, profile) ? cfg.profiles[profile] : undefined;
}

export function userConfigPath(deps: Pick<Deps, 'env' | 'home'>): string {
  return join(configDir(deps.env, deps.home), 'config.json');
}

/** A redacted form of a token that is safe to print: "pm_…abcd", or "****" when short. */
export function redact(token: string | undefined): string | undefined {
  if (token === undefined) return undefined;
  if (token.length < 16) return '****';
  const prefix = /^[A-Za-z]{1,8}_/.exec(token)?.[0] ?? '';
  return `${prefix}…${token.slice(-4)}`;
}

/**
 * An http(s) base URL without its trailing slash, or a CliError naming `origin` (where the value
 * came from: "--base-url", "PM_BASE_URL", "base_url in /path/.pmrc").
 */
export function normalizeBaseUrl(raw: string, origin: string): string {
  const text = raw.trim();
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw usageError(
      `${origin}: "${raw}" is not an http(s) URL.`,
      'A base URL looks like https://api.example.com (or http://127.0.0.1:8080 for `pm serve`).',
    );
  if (/[?#]/.test(text)) throw usageError(`${origin}: "${raw}" must not have a query or a fragment.`);
  return text.replace(/\/+$/, '');
}

export function parseTimeout(raw: string, origin: string): number {
  // Number() ignores surrounding white space, and reads blank text as 0.
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw usageError(`${origin}: "${raw}" is not a positive number of seconds.`);
  return n;
}

/** The settings a config file gives one profile (undefined where it gives none). */
export function profileSettings(cfg: UserConfig, profile: string): ProfileConfig {
  const p = ownProfile(cfg, profile) ?? {};
  const top = profile === DEFAULT_PROFILE ? cfg : {};
  return { base_url: p.base_url ?? top.base_url, token: p.token ?? top.token, timeout: p.timeout ?? cfg.timeout };
}

/** Does the file hold a token anywhere? */
function holdsToken(cfg: UserConfig): boolean {
  return cfg.token !== undefined || Object.values(cfg.profiles ?? {}).some((p) => p.token !== undefined);
}

// ---------------------------------------------------------------------------------------------
// Reading and checking config files

function malformed(path: string, message: string, cause?: unknown): CliError {
  return new CliError(EXIT.usage, `config file ${path}: ${message}`, {
    hint: `Fix or remove it; \`pm config path\` shows which files pm reads.`,
    ...(cause !== undefined ? { cause } : {}),
  });
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `"${value}"`;
  if (typeof value === 'object') return 'an object';
  return String(value);
}

function checkProfileFields(
  raw: object,
  path: string,
  at: string,
  keys: readonly string[],
  warnings: string[],
): UserConfig {
  const out: UserConfig = {};
  for (const [key, value] of Object.entries(raw)) {
    const name = `${at}${key}`;
    if (!keys.includes(key)) {
      warnings.push(`${path}: unknown key "${name}" (ignored); known keys: ${keys.join(', ')}`);
      continue;
    }
    if (value === undefined || value === null) continue;
    const rule = (CONFIG_KEYS as readonly ConfigKey[]).find((k) => k.name === key)?.rule as NonNullable<
      ConfigKey['rule']
    >;
    if (!rule.ok(value)) throw malformed(path, `"${name}" must be ${rule.mustBe}, not ${describe(value)}.`);
    (out as Record<string, unknown>)[key] = value;
  }
  return out;
}

/** Checks what a file held against the UserConfig shape; unknown keys become warnings. */
function checkConfig(raw: unknown, path: string, warnings: string[]): UserConfig {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw malformed(path, `the configuration must be an object of settings, not ${describe(raw)}.`);
  const { profiles, ...rest } = raw as Record<string, unknown>;
  const cfg = checkProfileFields(rest, path, '', TOP_KEYS, warnings);
  if (profiles !== undefined && profiles !== null) {
    if (typeof profiles !== 'object' || Array.isArray(profiles))
      throw malformed(path, `"profiles" must be an object of profiles by name, not ${describe(profiles)}.`);
    const out: Record<string, ProfileConfig> = Object.create(null);
    for (const [name, value] of Object.entries(profiles as Record<string, unknown>)) {
      if (!isProfileName(name))
        throw malformed(path, `"profiles.${name}": a profile name has letters, digits, "_", "-" and "." only.`);
      if (value === null || typeof value !== 'object' || Array.isArray(value))
        throw malformed(path, `"profiles.${name}" must be an object of settings, not ${describe(value)}.`);
      out[name] = checkProfileFields(value, path, `profiles.${name}.`, PROFILE_KEYS, warnings);
    }
    cfg.profiles = out;
  }
  return cfg;
}

async function readUserLayer(deps: Pick<Deps, 'env' | 'home'>, warnings: string[]): Promise<Layer | undefined> {
  const path = userConfigPath(deps);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw malformed(path, `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).`, err);
  }
  if (text.trim() === '') return { kind: 'user', path, config: {} };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw malformed(path, `is not valid JSON (${(err as Error).message}).`, err);
  }
  return { kind: 'user', path, config: checkConfig(raw, path, warnings) };
}

/** The user config, {} when there is none. Throws a CliError (exit 2) when it is malformed. */
export async function readUserConfig(deps: Pick<Deps, 'env' | 'home'>): Promise<UserConfig> {
  return (await readUserLayer(deps, []))?.config ?? {};
}

/**
 * Writes the user config atomically (a temporary file beside it, then a rename), mode 0600 in a
 * directory created 0700.
 */
export async function writeUserConfig(deps: Pick<Deps, 'env' | 'home'>, cfg: UserConfig): Promise<void> {
  const path = userConfigPath(deps);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileAtomic(path, `${JSON.stringify(cfg, null, 2)}\n`);
  chmodSync(path, 0o600);
}

/** Refuses cosmiconfig's `$import` in project files: it could pull the user's token into a project config. */
function withoutImports(loader: (filepath: string, content: string) => unknown) {
  return async (filepath: string, content: string): Promise<unknown> => {
    const loaded = await loader(filepath, content);
    const cfg =
      basename(filepath) === 'package.json' && loaded && typeof loaded === 'object'
        ? (loaded as Record<string, unknown>)[MODULE]
        : loaded;
    if (cfg && typeof cfg === 'object' && Object.hasOwn(cfg, '$import')) {
      const err = new Error('"$import" is not supported in pm config files.') as Error & { filepath?: string };
      err.filepath = filepath;
      throw err;
    }
    return loaded;
  };
}

/**
 * The directories searched for a project config: from cwd up to the first of the home directory
 * and a repository root (a directory holding .git), both included; never above. Outside home
 * and outside any repository, cwd alone: a shared folder above (/tmp) is never read.
 */
export function searchDirs(
  cwd: string,
  home: string,
  isRepoRoot = (dir: string) => existsSync(join(dir, '.git')),
): string[] {
  const dirs: string[] = [];
  const stop = resolve(home);
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    dirs.push(dir);
    if (dir === stop || isRepoRoot(dir)) return dirs;
    // Reached the root without meeting home or a repository: cwd alone.
    if (dirname(dir) === dir) return [resolve(cwd)];
  }
}

/**
 * Why a config file found is not read, if it is not: another user's, or in a folder anyone may
 * write to (a file planted in /tmp, say).
 */
function untrusted(file: string): string | undefined {
  try {
    const st = statSync(file);
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid && st.uid !== 0) return `it belongs to another user (uid ${st.uid})`;
    if ((st.mode & 0o002) !== 0) return 'anyone may write to it';
    const folder = statSync(dirname(file));
    if ((folder.mode & 0o002) !== 0) return `anyone may write to ${dirname(file)}`;
  } catch {
    // Gone or out of reach since it was read: nothing to say.
  }
  return undefined;
}

export interface ProjectSearch {
  /** The file found (also when it could not be loaded). */
  path?: string;
  layer?: Layer;
  /** The load failure, when the file found is malformed. */
  error?: CliError;
}

/**
 * Whether a directory holds a file the search would read (a package.json only with a "pm" key,
 * or one that cannot be parsed): most runs find none, and never load cosmiconfig.
 */
function holdsCandidate(dir: string): boolean {
  for (const name of SEARCH_PLACES) {
    const file = join(dir, name);
    if (!existsSync(file)) continue;
    if (name !== 'package.json') return true;
    try {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as unknown;
      if (typeof pkg !== 'object' || pkg === null || MODULE in pkg) return true;
    } catch {
      return true;
    }
  }
  return false;
}

/**
 * Searches for a project config with cosmiconfig (loaded here, lazily). Each directory is searched
 * on its own (strategy "none") so that the walk stops at the home directory and never falls back
 * to cosmiconfig's global directory, which would read the real environment, not deps.env.
 */
export async function searchProjectConfig(
  deps: Pick<Deps, 'cwd' | 'home'>,
  warnings: string[] = [],
): Promise<ProjectSearch> {
  const dirs = searchDirs(deps.cwd, deps.home);
  for (const dir of dirs)
    for (const name of EXECUTABLE_PLACES)
      if (existsSync(join(dir, name)))
        warnings.push(
          `${join(dir, name)} is not read: pm reads no executable config (it would run code found in a folder); put its settings in .pmrc.json`,
        );
  if (!dirs.some(holdsCandidate)) return {};
  const { cosmiconfig, defaultLoaders } = await import('cosmiconfig');
  const loaders = Object.fromEntries(Object.entries(defaultLoaders).map(([ext, l]) => [ext, withoutImports(l)]));
  const explorer = cosmiconfig(MODULE, { searchPlaces: SEARCH_PLACES, searchStrategy: 'none', cache: false, loaders });
  for (const dir of dirs) {
    let found: Awaited<ReturnType<typeof explorer.search>>;
    try {
      found = await explorer.search(dir);
    } catch (err) {
      const path = (err as { filepath?: unknown }).filepath;
      const file = typeof path === 'string' ? path : dir;
      const first =
        ((err as Error).message ?? String(err)).split('\n').find((l) => l.trim() && !l.includes(file)) ?? '';
      return { path: file, error: malformed(file, `could not be loaded: ${first.trim()}`, err) };
    }
    if (found && !found.isEmpty) {
      const why = untrusted(found.filepath);
      if (why) {
        warnings.push(`${found.filepath} is not read: ${why}`);
        continue;
      }
      try {
        const config = checkConfig(found.config, found.filepath, warnings);
        return { path: found.filepath, layer: { kind: 'project', path: found.filepath, config } };
      } catch (err) {
        return { path: found.filepath, error: err as CliError };
      }
    }
  }
  return {};
}

function permissionWarning(layer: Layer): string | undefined {
  if (process.platform === 'win32' || !holdsToken(layer.config)) return undefined;
  try {
    const st = statSync(layer.path);
    if ((st.mode & 0o077) !== 0)
      return `${layer.path} holds a token and is readable by others; run chmod 600 ${layer.path}`;
  } catch {
    // Gone since it was read: nothing to say.
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Resolution

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function label(layer: Layer): string {
  return `${layer.kind} config ${layer.path}`;
}

interface ProfileChoice {
  profile: string;
  source: Source;
  /** For messages: "--profile", "PM_PROFILE", "default_profile in /x/config.json". */
  origin: string;
}

function chooseProfile(flags: { profile?: string }, deps: Pick<Deps, 'env'>, layers: readonly Layer[]): ProfileChoice {
  const flag = nonEmpty(flags.profile);
  if (flag !== undefined) return { profile: flag, source: 'flag', origin: '--profile' };
  const env = nonEmpty(deps.env.PM_PROFILE);
  if (env !== undefined) return { profile: env, source: 'env', origin: 'PM_PROFILE' };
  for (const layer of layers) {
    const keys =
      layer.kind === 'project' ? (['profile', 'default_profile'] as const) : (['default_profile', 'profile'] as const);
    for (const key of keys) {
      const value = layer.config[key];
      if (value !== undefined) return { profile: value, source: layer.kind, origin: `${key} in ${layer.path}` };
    }
  }
  return { profile: DEFAULT_PROFILE, source: 'none', origin: 'the default' };
}

/**
 * A usage error unless `name` is a profile name some config file defines (with `allowNew`, any
 * valid name). `origin`, where the name came from ("--profile", "PM_PROFILE"…), if given, is named.
 */
export function checkProfile(name: string, layers: readonly Layer[], origin?: string, allowNew = false): void {
  if (!isProfileName(name))
    throw usageError(`${origin ? `${origin}: ` : ''}"${name}" is not a profile name (${PROFILE_NAME_WORDS}).`);
  const known = knownProfiles(layers);
  if (!allowNew && !known.includes(name))
    throw usageError(
      `no profile "${name}"${origin ? ` (from ${origin})` : ''} in any config file.`,
      `Known profiles: ${known.join(', ')}. Create it with: pm --profile ${name} config set base_url <url>`,
    );
}

/** Every profile some config defines, "default" first. */
export function knownProfiles(layers: readonly Layer[]): string[] {
  const names = new Set<string>([DEFAULT_PROFILE]);
  for (const layer of layers) for (const name of Object.keys(layer.config.profiles ?? {})) names.add(name);
  return [...names];
}

export interface LoadedConfig {
  project: ProjectSearch;
  user: Layer | undefined;
  /** Project first, then user: the order of precedence. */
  layers: Layer[];
  userConfigPath: string;
  warnings: string[];
}

/** Reads both config files; throws a CliError (exit 2) when one is malformed. */
export async function loadConfig(deps: Pick<Deps, 'env' | 'cwd' | 'home'>): Promise<LoadedConfig> {
  const warnings: string[] = [];
  const [project, user] = await Promise.all([searchProjectConfig(deps, warnings), readUserLayer(deps, warnings)]);
  if (project.error) throw project.error;
  const layers = [project.layer, user].filter((l): l is Layer => l !== undefined);
  return { project, user, layers, userConfigPath: userConfigPath(deps), warnings };
}

/**
 * The active profile and where it came from. With `allowNew`, a profile no config defines yet is
 * accepted (to create it with `pm config set`); otherwise it is a usage error.
 */
export function activeProfile(
  flags: { profile?: string },
  deps: Pick<Deps, 'env'>,
  layers: readonly Layer[],
  opts: { allowNew?: boolean } = {},
): ProfileChoice {
  const choice = chooseProfile(flags, deps, layers);
  checkProfile(choice.profile, layers, choice.origin, opts.allowNew);
  return choice;
}

/**
 * Where the token comes from, the first decision of resolveTarget: no base URL anywhere is the
 * embedded default (its own token); else PM_TOKEN when it may go to that server (asked only then);
 * else the config files.
 */
export function tokenOrigin(o: {
  readonly baseUrl: boolean;
  readonly envToken: boolean;
  readonly envMaySend: () => boolean;
}): 'embedded' | 'env' | 'files' {
  if (!o.baseUrl) return 'embedded';
  return o.envToken && o.envMaySend() ? 'env' : 'files';
}

/**
 * Whether a file's token goes to the base URL in use: to its own file's base URL, or, when its
 * file names none, to one given by --base-url or PM_BASE_URL; never to a server another config
 * file names. `tokenUrl`: the base URL beside the token in its file, if any.
 */
export function fileTokenFits(tokenUrl: string | undefined, baseUrl: string, baseFromFile: boolean): boolean {
  return tokenUrl === undefined ? !baseFromFile : tokenUrl === baseUrl;
}

/** The first file's token that fits the base URL, and why each one before it did not. */
function fileToken(
  settings: readonly { layer: Layer; values: ProfileConfig }[],
  baseUrl: string,
  baseLayer: Layer | undefined,
  where: (layer: Layer, key: string) => string,
): { token?: string; layer?: Layer; skipped: string[] } {
  const skipped: string[] = [];
  for (const { layer, values } of settings) {
    if (values.token === undefined) continue;
    const tokenUrl = values.base_url?.trim().replace(/\/+$/, '');
    if (fileTokenFits(tokenUrl, baseUrl, baseLayer !== undefined)) return { token: values.token, layer, skipped };
    skipped.push(
      tokenUrl === undefined
        ? `${where(layer, 'token')} is not sent to ${printableUrl(baseUrl)} (from ${label(baseLayer as Layer)}): a token is only sent to the base URL of its own file, --base-url or PM_BASE_URL.`
        : `${where(layer, 'token')} is for ${printableUrl(tokenUrl)}, so it is not sent to ${printableUrl(baseUrl)}.`,
    );
  }
  return { skipped };
}

/**
 * Where pm points and with which token, for the given global flags. With `allowNewProfile`, a
 * profile no config defines yet is accepted (for commands that create it, as `pm auth login`).
 */
export async function resolveTarget(
  flags: { baseUrl?: string | undefined; profile?: string | undefined },
  deps: Deps,
  opts: { allowNewProfile?: boolean } = {},
): Promise<Target> {
  const loaded = await loadConfig(deps);
  const { layers, warnings } = loaded;
  const { profile, source: profileSource } = activeProfile(flags, deps, layers, { allowNew: opts.allowNewProfile });
  const settings = layers.map((layer) => ({ layer, values: profileSettings(layer.config, profile) }));
  const where = (layer: Layer, key: string) =>
    `${profile === DEFAULT_PROFILE ? key : `profiles.${profile}.${key}`} in ${label(layer)}`;

  // Base URL: flag > env > project > user > the embedded default.
  const bases: { raw: string | undefined; source: Source; origin: string; layer?: Layer }[] = [
    { raw: flags.baseUrl, source: 'flag', origin: '--base-url' },
    { raw: nonEmpty(deps.env.PM_BASE_URL), source: 'env', origin: 'PM_BASE_URL' },
    ...settings.map(({ layer, values }) => ({
      raw: values.base_url,
      source: layer.kind,
      origin: where(layer, 'base_url'),
      layer,
    })),
  ];
  const base = bases.find((candidate) => candidate.raw !== undefined);
  const baseUrl = base && normalizeBaseUrl(base.raw as string, base.origin);

  // Token: env > project > user, each file's token only for that file's own server.
  let token: string | undefined;
  let tokenSource: Source = 'none';
  const envToken = nonEmpty(deps.env.PM_TOKEN);
  let withheld: Target['withheld'];
  let embedded: Target['embedded'];
  const from = tokenOrigin({
    baseUrl: baseUrl !== undefined,
    envToken: envToken !== undefined,
    envMaySend: () => envTokenMaySend(base?.source, baseUrl as string, loaded.user),
  });
  if (from === 'embedded') {
    const fromEnv = nonEmpty(deps.env.PM_DATA_FILE);
    embedded = { dataFile: fromEnv ? resolve(deps.cwd, fromEnv) : defaultDataFile(deps.env, deps.home) };
    tokenSource = 'embedded';
    if (envToken !== undefined)
      warnings.push(
        'PM_TOKEN is ignored: no base URL is configured, so pm uses the embedded default and its own token. Set PM_BASE_URL to use PM_TOKEN.',
      );
  } else if (from === 'env') {
    token = envToken;
    tokenSource = 'env';
  } else {
    const url = baseUrl as string;
    if (envToken !== undefined) withheld = envTokenWithheld(url, base?.layer as Layer);
    const found = fileToken(settings, url, base?.layer, where);
    if (found.layer === undefined) {
      warnings.push(...found.skipped);
      if (withheld) warnings.push(withheld.message);
    } else {
      token = found.token;
      tokenSource = found.layer.kind;
      if (withheld) warnings.push(`${withheld.message} The ${where(found.layer, 'token')} is used instead.`);
      withheld = undefined;
    }
  }

  const withTimeout = settings.find((s) => s.values.timeout !== undefined);

  warnings.push(...layers.flatMap((layer) => permissionWarning(layer) ?? []));

  // Settings belong to a profile, chosen first: a project file's top-level base_url is the
  // "default" profile's, which a user's default_profile sets aside. Say so rather than surprise.
  const project = loaded.project.layer;
  if (
    project?.config.base_url !== undefined &&
    profile !== DEFAULT_PROFILE &&
    base?.source !== 'project' &&
    profileSource === 'user'
  )
    warnings.push(
      `the base_url in ${label(project)} is the "${DEFAULT_PROFILE}" profile's, and the active profile is "${profile}" (default_profile in the user config): run with --profile ${DEFAULT_PROFILE} to use it, or put it under profiles.${profile} in that file.`,
    );

  return {
    baseUrl,
    token,
    profile,
    sources: {
      baseUrl: base?.source ?? 'embedded',
      token: tokenSource,
      profile: profileSource,
      timeout: withTimeout?.layer.kind ?? 'none',
    },
    projectConfigPath: loaded.project.path,
    userConfigPath: loaded.userConfigPath,
    embedded,
    warnings,
    ...(withheld ? { withheld } : {}),
    timeout: withTimeout?.values.timeout,
  };
}

/** Every base URL the user config names, at the top or in a profile, as normalizeBaseUrl leaves it. */
function userBaseUrls(user: Layer | undefined): string[] {
  if (!user) return [];
  const raw = [user.config.base_url, ...Object.values(user.config.profiles ?? {}).map((p) => p.base_url)];
  return raw.filter((u): u is string => u !== undefined).map((u) => u.trim().replace(/\/+$/, ''));
}

/**
 * Whether PM_TOKEN may go to the base URL chosen: one the user named (--base-url, PM_BASE_URL, the
 * user config), or one a project config names that the user config names too. A project config
 * alone is a file anyone could have written (a cloned repository's .pmrc.json): as gh sends
 * GH_TOKEN to github.com alone, pm sends PM_TOKEN only where the user said.
 */
function envTokenMaySend(source: Source | undefined, baseUrl: string, user: Layer | undefined): boolean {
  return source !== 'project' || userBaseUrls(user).includes(baseUrl);
}

/** Why PM_TOKEN is not sent to a base URL only `project` names, and how to send it there. */
function envTokenWithheld(baseUrl: string, project: Layer): { message: string; hint: string } {
  const url = printableUrl(baseUrl);
  return {
    message: `PM_TOKEN is not sent to ${url}: that server is named only by ${label(project)}, and a token from the environment goes only to a server you named yourself.`,
    hint: `To send it there, name the server yourself: --base-url ${url}, PM_BASE_URL=${url}, or base_url in your user config (a profile of its own will do: pm --profile NAME config set base_url ${url}).`,
  };
}
