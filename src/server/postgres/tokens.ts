/** Accounts, their users, and the users' tokens (of which only a hash is kept), in PostgreSQL. */
import { formatTimestamp } from '../../core/datetime.js';
import { type AccountUser, hashToken, newToken, type Principal, type TokenInfo } from '../store.js';
import type { Pg } from './db.js';

export function createAccount(pg: Pg, name: string, userName = 'owner'): Promise<AccountUser> {
  return pg.write(async (tx) => {
    const t = tx.now();
    const accountId = (
      await tx.query('INSERT INTO accounts (name, created_at) VALUES (?, ?) RETURNING id', [name, t])
    )[0]?.id as number;
    const userId = (
      await tx.query('INSERT INTO users (account_id, name, created_at) VALUES (?, ?, ?) RETURNING id', [
        accountId,
        userName,
        t,
      ])
    )[0]?.id as number;
    return { accountId, userId };
  });
}

export async function firstUser(pg: Pg): Promise<AccountUser | undefined> {
  const row = (await pg.query('SELECT id, account_id FROM users ORDER BY id LIMIT 1'))[0];
  return row ? { userId: row.id as number, accountId: row.account_id as number } : undefined;
}

export async function userOfAccount(pg: Pg, accountId: number): Promise<number | undefined> {
  const row = (await pg.query('SELECT id FROM users WHERE account_id = ? ORDER BY id LIMIT 1', [accountId]))[0];
  return row?.id as number | undefined;
}

export async function createToken(
  pg: Pg,
  userId: number,
  name: string,
  scopes: readonly string[],
): Promise<{ token: string; id: number }> {
  const token = newToken();
  const id = (
    await pg.query(
      'INSERT INTO tokens (user_id, name, hash, hint, scopes, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id',
      [userId, name, hashToken(token), token.slice(-4), scopes.join(' '), pg.now()],
    )
  )[0]?.id as number;
  return { token, id };
}

export async function authenticate(pg: Pg, token: string): Promise<Principal | undefined> {
  const row = (
    await pg.query(
      `SELECT t.id, t.user_id, t.scopes, t.last_used_at, u.account_id
       FROM tokens t JOIN users u ON u.id = t.user_id
       WHERE t.hash = ? AND t.revoked_at IS NULL`,
      [hashToken(token)],
    )
  )[0];
  if (!row) return undefined;
  const t = pg.now();
  const last = row.last_used_at as number | null;
  if (last === null || t - last > 60_000) {
    try {
      await pg.run('UPDATE tokens SET last_used_at = ? WHERE id = ?', [t, row.id]);
    } catch {
      // Recording last use is best effort: it must not fail a read.
    }
  }
  return {
    tokenId: row.id as number,
    userId: row.user_id as number,
    accountId: row.account_id as number,
    scopes: new Set((row.scopes as string).split(' ').filter(Boolean)),
  };
}

export async function listTokens(pg: Pg): Promise<TokenInfo[]> {
  const rows = await pg.query(
    `SELECT t.id, t.name, t.hint, t.scopes, t.created_at, t.last_used_at, t.revoked_at, t.user_id, u.account_id
     FROM tokens t JOIN users u ON u.id = t.user_id ORDER BY t.id`,
  );
  const ts = (v: unknown) => (v === null ? null : formatTimestamp(v as number));
  return rows.map((r) => ({
    id: r.id as number,
    name: r.name as string,
    hint: r.hint as string,
    scopes: (r.scopes as string).split(' ').filter(Boolean),
    account_id: r.account_id as number,
    user_id: r.user_id as number,
    created_at: formatTimestamp(r.created_at as number),
    last_used_at: ts(r.last_used_at),
    revoked_at: ts(r.revoked_at),
  }));
}

export async function revokeToken(pg: Pg, id: number): Promise<boolean> {
  return (await pg.run('UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [pg.now(), id])) === 1;
}
