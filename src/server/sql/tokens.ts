/** Accounts, their users, and the users' tokens (of which only a hash is kept), for both stores. */
import { formatTimestamp } from '../../core/datetime.js';
import { ALL_SCOPES } from '../../resources/index.js';
import type { AccountUser, Principal, TokenInfo } from '../store.js';
import { type Dialect, get, insert, type Row, rows, run, type Steps } from './steps.js';

/*
 * node:crypto is loaded when a token is made or checked (process.getBuiltinModule): a run of the
 * CLI's embedded default does neither, and loading it costs some milliseconds.
 */
export const crypto = () => process.getBuiltinModule('node:crypto');

/** What is kept of a secret (a token, a calendar feed's): its SHA-256, looked up as it is. */
export const hashSecret = (secret: string) => crypto().createHash('sha256').update(secret).digest('hex');

/**
 * What a full-scope token stores for its scopes: a rule, not a list, so that it also has the
 * scopes of resources added after it was made (migration 4 made every full token of before so).
 */
const EVERY_SCOPE = '*';

/** The scopes a token's stored text gives it. */
function scopesOf(stored: string): string[] {
  return stored === EVERY_SCOPE ? [...ALL_SCOPES] : stored.split(' ').filter(Boolean);
}

export function* createAccount(d: Dialect, name: string): Steps<AccountUser> {
  const t = d.now();
  const accountId = (yield insert('INSERT INTO accounts (name, created_at) VALUES (?, ?)', [name, t])) as number;
  const sql = 'INSERT INTO users (account_id, name, created_at) VALUES (?, ?, ?)';
  const userId = (yield insert(sql, [accountId, 'owner', t])) as number;
  return { accountId, userId };
}

export function* firstUser(): Steps<AccountUser | undefined> {
  const row = (yield get('SELECT id, account_id FROM users ORDER BY id LIMIT 1')) as Row | undefined;
  return row ? { userId: row.id as number, accountId: row.account_id as number } : undefined;
}

export function* userOfAccount(accountId: number): Steps<number | undefined> {
  const sql = 'SELECT id FROM users WHERE account_id = ? ORDER BY id LIMIT 1';
  return ((yield get(sql, [accountId])) as Row | undefined)?.id as number | undefined;
}

export function* createToken(
  d: Dialect,
  userId: number,
  name: string,
  scopes: readonly string[],
): Steps<{ token: string; id: number }> {
  const token = `pm_${crypto().randomBytes(32).toString('base64url')}`;
  const id = (yield insert(
    'INSERT INTO tokens (user_id, name, hash, hint, scopes, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    [
      userId,
      name,
      hashSecret(token),
      token.slice(-4),
      ALL_SCOPES.every((s) => scopes.includes(s)) ? EVERY_SCOPE : scopes.join(' '),
      d.now(),
    ],
  )) as number;
  return { token, id };
}

export function* authenticate(d: Dialect, token: string): Steps<Principal | undefined> {
  const row = (yield get(
    `SELECT t.id, t.user_id, t.scopes, t.last_used_at, u.account_id
       FROM tokens t JOIN users u ON u.id = t.user_id
       WHERE t.hash = ? AND t.revoked_at IS NULL`,
    [hashSecret(token)],
  )) as Row | undefined;
  if (!row) return undefined;
  const t = d.now();
  const last = row.last_used_at as number | null;
  if (last === null || t - last > 60_000) {
    try {
      yield run('UPDATE tokens SET last_used_at = ? WHERE id = ?', [t, row.id]);
    } catch {
      // Recording last use is best effort: a busy database must not fail a read.
    }
  }
  return {
    userId: row.user_id as number,
    accountId: row.account_id as number,
    scopes: new Set(scopesOf(row.scopes as string)),
    tokenId: Number(row.id),
  };
}

export function* listTokens(): Steps<TokenInfo[]> {
  const found = (yield rows(
    `SELECT t.id, t.name, t.hint, t.scopes, t.created_at, t.last_used_at, t.revoked_at, t.user_id, u.account_id
       FROM tokens t JOIN users u ON u.id = t.user_id ORDER BY t.id`,
  )) as Row[];
  const ts = (v: unknown) => (v === null ? null : formatTimestamp(v as number));
  return found.map((r) => ({
    id: r.id as number,
    name: r.name as string,
    hint: r.hint as string,
    scopes: scopesOf(r.scopes as string),
    account_id: r.account_id as number,
    user_id: r.user_id as number,
    created_at: formatTimestamp(r.created_at as number),
    last_used_at: ts(r.last_used_at),
    revoked_at: ts(r.revoked_at),
  }));
}

export function* revokeToken(d: Dialect, id: number): Steps<boolean> {
  return (
    ((yield run('UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [d.now(), id])) as number) === 1
  );
}
