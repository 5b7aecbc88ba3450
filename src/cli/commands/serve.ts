/**
 * `pm serve`: the project's own implementation of the API on an SQLite file, and the management
 * of its accounts and tokens.
 */
import type { Command } from 'commander';
import { ALL_SCOPES } from '../../resources/index.js';
import { defaultDataFile, tokenFileFor } from '../../core/paths.js';
import type { Deps } from '../context.js';
import { usageError } from '../errors.js';

interface ServeOptions {
  host: string;
  port: string;
  data?: string;
  rateLimit?: string;
}

function dataFileOf(deps: Deps, given: string | undefined): string {
  return given ?? defaultDataFile(deps.env, deps.home);
}

/** --data given before or after the subcommand (`pm serve --data F tokens list` or `pm serve tokens list --data F`). */
function dataOf(cmd: Command): string | undefined {
  return (cmd.optsWithGlobals() as { data?: string }).data;
}

function parsePort(text: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535)
    throw usageError(`--port must be a number from 0 to 65535, not "${text}".`);
  return Number(text);
}

function parseScopes(text: string | undefined): string[] {
  if (text === undefined || text === 'all') return [...ALL_SCOPES];
  const scopes = text
    .split(/[,\s]+/)
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = scopes.filter((s) => !ALL_SCOPES.includes(s));
  if (bad.length || !scopes.length)
    throw usageError(
      `--scopes: unknown scope ${bad.map((b) => `"${b}"`).join(', ') || '(none given)'}.`,
      `Valid scopes: ${ALL_SCOPES.join(', ')}, or "all".`,
    );
  return scopes;
}

export function registerServe(program: Command, deps: Deps): void {
  const { io } = deps;
  const serve = program
    .command('serve')
    .description('Run the Property Management Service API on an SQLite file (the embedded default, for a team)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free one)', '8080')
    .option('--data <file>', 'SQLite data file (default: $XDG_DATA_HOME/pm/pm.db, else ~/.local/share/pm/pm.db)')
    .option(
      '--rate-limit <n/min>',
      'limit each user to N requests per minute (or N/s, N/hour), as the hosted service does',
    )
    .addHelpText(
      'after',
      `
On first use of a data file, an account and a full-scope token are created; the token is written
beside the data file (FILE.token, mode 0600) and pm uses it when nothing else is configured.

Examples:
  pm serve
  pm serve --port 9000 --data ./team.db --rate-limit 60/min
  curl -H "Authorization: Bearer $(cat ~/.local/share/pm/pm.db.token)" http://127.0.0.1:8080/properties`,
    )
    .action(async (opts: ServeOptions) => {
      const { startServer, parseRateLimit } = await import('../../server/index.js');
      const port = parsePort(opts.port);
      let rateLimit: import('../../server/index.js').RateLimit | undefined;
      if (opts.rateLimit !== undefined) {
        try {
          rateLimit = parseRateLimit(opts.rateLimit);
        } catch (e) {
          throw usageError(`--rate-limit: ${(e as Error).message}.`);
        }
      }
      const dataFile = dataFileOf(deps, opts.data);
      const server = await startServer({
        dataFile,
        host: opts.host,
        port,
        ...(rateLimit ? { rateLimit } : {}),
        logError: (err) => io.stderr.write(`pm serve: internal error: ${(err as Error)?.stack ?? String(err)}\n`),
      });
      if (server.createdToken)
        io.stderr.write(
          `pm serve: new data file: created an account and a token, written to ${tokenFileFor(dataFile)}\n`,
        );
      io.stderr.write(
        `pm serve: listening on ${server.url} (data: ${dataFile}${rateLimit ? `, rate limit ${rateLimit.limit} per ${rateLimit.windowMs / 1000}s` : ''})\n`,
      );
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          io.stderr.write('pm serve: shutting down\n');
          void server.close().then(resolve);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
        deps.signal?.addEventListener('abort', stop, { once: true });
      });
    });

  const tokens = serve
    .command('tokens')
    .description('Manage the API tokens of a data file')
    .addHelpText(
      'after',
      `
Examples:
  pm serve tokens create --name ci --scopes reminders.read,reminders.write
  pm serve tokens list --data /srv/pm/team.db
  pm serve tokens revoke 3`,
    );
  const dataOption = '--data <file>';
  const dataHelp = 'SQLite data file (default: the embedded default data file)';

  tokens
    .command('create')
    .description('Create a token and print it (it is shown only once)')
    .option('--scopes <list>', `comma-separated scopes, or "all" (${ALL_SCOPES.join(', ')})`, 'all')
    .option('--name <name>', 'a name to recognise the token by', 'token')
    .option('--account <id>', 'account id (default: the first account)')
    .option(dataOption, dataHelp)
    .addHelpText(
      'after',
      `
Examples:
  pm serve tokens create --name ci --scopes reminders.read,reminders.write
  pm serve tokens create --data /srv/pm/team.db --name alice > alice.token`,
    )
    .action(async (opts: { scopes: string; name: string; account?: string; data?: string }, cmd: Command) => {
      const scopes = parseScopes(opts.scopes);
      const { openStore } = await import('../../server/index.js');
      const store = openStore(dataFileOf(deps, dataOf(cmd)));
      try {
        let userId: number | undefined;
        if (opts.account !== undefined) {
          if (!/^\d+$/.test(opts.account))
            throw usageError(`--account must be an account id number, not "${opts.account}".`);
          userId = store.userOfAccount(Number(opts.account));
          if (userId === undefined) throw usageError(`--account: no account ${opts.account} in this data file.`);
        } else {
          userId = store.firstUser()?.userId ?? store.createAccount('default').userId;
        }
        const { token, id } = store.createToken(userId, opts.name, scopes);
        io.stdout.write(`${token}\n`);
        io.stderr.write(
          `Created token ${id} "${opts.name}" with scopes ${scopes.join(' ')}. Store it now: it is not shown again.\n`,
        );
      } finally {
        store.close();
      }
    });

  tokens
    .command('list')
    .description('List the tokens of a data file (never the tokens themselves)')
    .option(dataOption, dataHelp)
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      `
One token a line: id, name, account, the last characters, active or revoked, scopes.

Examples:
  pm serve tokens list
  pm serve tokens list --data /srv/pm/team.db --json`,
    )
    .action(async (opts: { data?: string; json?: boolean }, cmd: Command) => {
      const { openStore } = await import('../../server/index.js');
      const store = openStore(dataFileOf(deps, dataOf(cmd)));
      try {
        const list = store.listTokens();
        if (opts.json) {
          io.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
          return;
        }
        for (const t of list)
          io.stdout.write(
            `${t.id}\t${t.name}\taccount ${t.account_id}\t…${t.hint}\t${t.revoked_at ? `revoked ${t.revoked_at}` : 'active'}\t${t.scopes.join(' ')}\n`,
          );
      } finally {
        store.close();
      }
    });

  tokens
    .command('revoke <id>')
    .description('Revoke a token by its id (see pm serve tokens list)')
    .option(dataOption, dataHelp)
    .addHelpText(
      'after',
      `
Examples:
  pm serve tokens revoke 3
  pm serve tokens revoke 3 --data /srv/pm/team.db`,
    )
    .action(async (id: string, _opts: { data?: string }, cmd: Command) => {
      if (!/^\d+$/.test(id)) throw usageError(`<id> must be a token id number, not "${id}".`);
      const { openStore } = await import('../../server/index.js');
      const store = openStore(dataFileOf(deps, dataOf(cmd)));
      try {
        if (!store.revokeToken(Number(id))) throw usageError(`No active token ${id} in this data file.`);
        io.stderr.write(`Revoked token ${id}.\n`);
      } finally {
        store.close();
      }
    });

  serve
    .command('accounts')
    .description('Manage the accounts of a data file')
    .command('create')
    .description('Create an account with a user and a full-scope token; print the token')
    .requiredOption('--name <name>', 'the account name')
    .option(dataOption, dataHelp)
    .addHelpText(
      'after',
      `
Each account sees only its own records.

Examples:
  pm serve accounts create --name "Acme Lettings"
  token=$(pm serve accounts create --name team --data /srv/pm/team.db)`,
    )
    .action(async (opts: { name: string; data?: string }, cmd: Command) => {
      const { openStore } = await import('../../server/index.js');
      const store = openStore(dataFileOf(deps, dataOf(cmd)));
      try {
        const { accountId, userId } = store.createAccount(opts.name);
        const { token } = store.createToken(userId, 'owner', ALL_SCOPES);
        io.stdout.write(`${token}\n`);
        io.stderr.write(
          `Created account ${accountId} "${opts.name}" and a full-scope token. Store it now: it is not shown again.\n`,
        );
      } finally {
        store.close();
      }
    });
}
