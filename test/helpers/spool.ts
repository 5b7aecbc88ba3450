/**
 * Where an upload's bytes are while it comes. On SQLite (and on PostgreSQL when it may not
 * stream), in a spool file (src/server/spool.ts) whose name is removed as soon as it is opened, so
 * only the process's open files show it (Linux's /proc/PID/fd: "DIR/.pm-upload-UUID (deleted)").
 * On PostgreSQL, in the upload's transaction: a backend running its COPY.
 */
import { readdirSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

/** The sizes of the spool files in `dir` that process `pid` holds open. */
export function openSpoolFiles(dir: string, pid: number | 'self' = 'self'): number[] {
  const fds = join('/proc', String(pid), 'fd');
  const sizes: number[] = [];
  for (const fd of readdirSync(fds)) {
    let target: string;
    try {
      target = readlinkSync(join(fds, fd));
      if (target.startsWith(join(dir, '.pm-upload-'))) sizes.push(statSync(join(fds, fd)).size);
    } catch {
      // Closed while it was looked at.
    }
  }
  return sizes;
}

/** Runs SQL on a PostgreSQL database (`?` placeholders): its rows. */
type Sql = (text: string, params?: readonly unknown[]) => Promise<Record<string, unknown>[]>;

/**
 * A connection of its own to the database at `url`, to look at the server's backends from outside
 * its pool (a query of the pool's own could run on the very connection it looks at).
 */
export async function onlooker(url: string): Promise<{ sql: Sql; close(): Promise<void> }> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  return {
    sql: async (text, params = []) => {
      let n = 0;
      return (
        await c.query(
          text.replace(/\?/g, () => `$${++n}`),
          params as unknown[],
        )
      ).rows;
    },
    close: () => c.end(),
  };
}

/**
 * The backends of the database that `sql` runs on whose upload is under way on PostgreSQL: a
 * COPY into attachment_chunks, within the upload's transaction, waiting for its bytes.
 */
export async function uploadsCopying(sql: Sql): Promise<number[]> {
  const rows = await sql(
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND query LIKE 'COPY attachment_chunks %FROM STDIN%'",
  );
  return rows.map((r) => Number(r.pid));
}

/** What a backend does now (`state`) and what it ran last (`query`); undefined once it has closed. */
export async function backend(sql: Sql, pid: number): Promise<{ state: string; query: string } | undefined> {
  const [row] = await sql('SELECT state, query FROM pg_stat_activity WHERE pid = ?', [pid]);
  return row ? { state: String(row.state), query: String(row.query) } : undefined;
}
