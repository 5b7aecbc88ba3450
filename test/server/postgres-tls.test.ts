/**
 * TLS to PostgreSQL through the URL's `sslmode`, with the meanings PostgreSQL's own clients give
 * it: a private cluster that refuses unencrypted connections, its certificate signed by a CA made
 * here. `require` encrypts; `verify-full` checks the certificate against `sslrootcert` (and the
 * host name); a certificate from another CA is refused with a message that says so and never the
 * password. Needs its own cluster (its TLS settings), so it skips on PM_TEST_DATABASE_URL.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPm } from '../helpers/cli.js';
import { type Cluster, pgMissing, startCluster } from '../helpers/postgres.js';

const skip =
  pgMissing ??
  (process.env.PM_TEST_DATABASE_URL
    ? 'PM_TEST_DATABASE_URL set: the TLS tests need a cluster of their own'
    : undefined);
if (skip) console.warn(skip);

describe.skipIf(skip !== undefined)('pm serve --database over TLS (sslmode)', () => {
  let cluster: Cluster;
  let certs: string;
  /** The database's URL with a password (which trust ignores) and these query parameters. */
  const url = (query: string) => `postgres://postgres:s3cret-pw@127.0.0.1:${cluster.port}/postgres?${query}`;
  /** `pm serve tokens list` on the database with these query parameters: it connects, migrates, lists. */
  const tokensList = (query: string) => runPm(['serve', 'tokens', 'list', '--database', url(query)]);

  beforeAll(async () => {
    cluster = await startCluster();
    certs = cluster.dir;
    const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: certs, stdio: 'pipe' });
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=pm test CA');
    openssl('req', '-x509', ...ec, '-keyout', 'other.key', '-out', 'other.crt', '-days', '2', '-subj', '/CN=other CA');
    openssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
    writeFileSync(join(certs, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
    openssl(
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.crt',
      '-days',
      '2',
      '-extfile',
      'san.ext',
    );
    if (process.getuid?.() === 0) {
      const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString());
      for (const f of ['server.key', 'server.crt']) chownSync(join(certs, f), id('-u'), id('-g'));
    }
    execFileSync('chmod', ['600', join(certs, 'server.key')]);
    // Unencrypted connections refused: a connection that works went over TLS.
    const hba = join(cluster.dir, 'data', 'pg_hba.conf');
    writeFileSync(hba, `hostnossl all all 127.0.0.1/32 reject\n${readFileSync(hba, 'utf8')}`);
    const c = new pg.Client({ connectionString: cluster.url });
    await c.connect();
    await c.query(`ALTER SYSTEM SET ssl_cert_file = '${join(certs, 'server.crt')}'`);
    await c.query(`ALTER SYSTEM SET ssl_key_file = '${join(certs, 'server.key')}'`);
    await c.query('ALTER SYSTEM SET ssl = on');
    await c.end();
    cluster.stop();
    cluster.start();
  });
  afterAll(() => cluster?.destroy());

  it('sslmode=require connects encrypted; without TLS the server refuses, and pm says so', async () => {
    const ok = await tokensList('sslmode=require');
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toMatch(/new database: created an account/);
    const plain = await tokensList('sslmode=disable');
    expect(plain.code).not.toBe(0);
    expect(plain.stderr).toMatch(/no encryption/);
    expect(plain.stderr).not.toContain('s3cret-pw');
  });

  it('sslmode=verify-full checks the certificate against sslrootcert: the right CA passes, another is refused', async () => {
    const right = await tokensList(`sslmode=verify-full&sslrootcert=${join(certs, 'ca.crt')}`);
    expect(right.code, right.stderr).toBe(0);
    const wrong = await tokensList(`sslmode=verify-full&sslrootcert=${join(certs, 'other.crt')}`);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/TLS certificate is not trusted: give the CA that signed it with sslrootcert=FILE/);
    expect(wrong.stderr).not.toContain('s3cret-pw');
    // verify-full with no CA given checks against the system's CAs, which never signed this one.
    const none = await tokensList('sslmode=verify-full');
    expect(none.code).not.toBe(0);
    expect(none.stderr).toMatch(/certificate/i);
  });
});
