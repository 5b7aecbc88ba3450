import { spawnSync } from 'node:child_process';
import { defineConfig } from 'vitest/config';

/**
 * Five tiers, which `npm test` runs together and `npx vitest run --project <name>` one at a time:
 * - unit: pure code and in-memory pieces, no server and no process (milliseconds);
 * - in-process: commands and the API against the real server, started in the test's process;
 * - black-box: the built bin/pm, shells, a terminal (tmux), and servers in child processes.
 * - postgres: the server suite again, on a private PostgreSQL (below);
 * - package: the tarball `npm pack` makes, installed into a fresh prefix and run (slow: installs).
 * A new test file is in-process unless it is named below.
 */
const unit = [
  'test/core/**/*.test.ts',
  'test/client/pacer.test.ts',
  'test/client/outcome.test.ts',
  'test/server/routes.test.ts',
  'test/server/list-plans.test.ts',
  'test/server/fair-queue.test.ts',
  'test/cli/output/**/*.test.ts',
  'test/cli/config.test.ts',
  'test/cli/config-command.test.ts',
  'test/cli/program.test.ts',
  'test/cli/options.test.ts',
  'test/cli/decisions.test.ts',
  'test/repository.test.ts',
];
const blackBox = [
  'test/cli/apply-overlap.test.ts',
  'test/cli/attachments-blackbox.test.ts',
  'test/cli/blackbox.test.ts',
  'test/cli/labels-blackbox.test.ts',
  'test/cli/bulk-interrupt.test.ts',
  'test/cli/calendar-blackbox.test.ts',
  'test/cli/certificates-blackbox.test.ts',
  'test/cli/completion.test.ts',
  'test/cli/dates.test.ts',
  'test/cli/serve.test.ts',
  'test/cli/serve-operate.test.ts',
  'test/cli/startup.test.ts',
  'test/cli/terminal.test.ts',
  'test/cli/uuids.test.ts',
  'test/cli/prefix-walk.test.ts',
  'test/cli/names.test.ts',
  'test/cli/custom-fields.test.ts',
  'test/cli/list-interrupt.test.ts',
  'test/server/concurrency.test.ts',
  'test/server/crash.test.ts',
  'test/server/embedded.test.ts',
  'test/server/typed-client.test.ts',
];

/**
 * The server suite again on PostgreSQL (PM_TEST_STORE=postgres): every file that tests what the
 * API answers, on a private cluster the global set-up starts (test/helpers/postgres-setup.ts),
 * and the tests of several instances on one database. SQLite's own (the data file, migrations,
 * crash, readers, scale) stay on SQLite alone.
 */
const onPostgres = [
  'test/server/attachments.test.ts',
  'test/server/attachment-bytes.test.ts',
  'test/server/bad-input.test.ts',
  'test/server/calendar-feeds.test.ts',
  'test/server/catalogues.test.ts',
  'test/server/unique-labels.test.ts',
  'test/server/crud.test.ts',
  'test/server/datetime-filters.test.ts',
  'test/server/file-answers.test.ts',
  'test/server/filters.test.ts',
  'test/server/http.test.ts',
  'test/server/idempotency.test.ts',
  'test/server/note-parents.test.ts',
  'test/server/openapi.test.ts',
  'test/server/pagination.test.ts',
  'test/server/property.test.ts',
  'test/server/ratelimit.test.ts',
  'test/server/scopes.test.ts',
  'test/server/typed-client.test.ts',
  'test/server/writes.test.ts',
  'test/server/reminders-about.test.ts',
  'test/server/certificates.test.ts',
  'test/server/postgres.test.ts',
  'test/server/postgres-tls.test.ts',
  'test/server/scale.test.ts',
  'test/server/tables.test.ts',
  'test/cli/serve-postgres.test.ts',
  'test/cli/apply-overlap.test.ts',
  'test/cli/attachments-blackbox.test.ts',
  'test/cli/transfer.test.ts',
  'test/cli/commands.test.ts',
  'test/cli/catalogues.test.ts',
  'test/cli/labels-and-links.test.ts',
  'test/cli/uuids.test.ts',
  'test/cli/prefix-walk.test.ts',
  'test/cli/names.test.ts',
  'test/cli/custom-fields.test.ts',
  'test/faults/budget.test.ts',
  'test/faults/error-bodies.test.ts',
  'test/faults/security.test.ts',
];

/** Whether PostgreSQL can be run here: a server named by PM_TEST_DATABASE_URL, or its binaries on PATH. */
const postgresHere =
  Boolean(process.env.PM_TEST_DATABASE_URL) ||
  ['initdb', 'pg_ctl', 'postgres'].every((b) => spawnSync('sh', ['-c', `command -v ${b}`]).status === 0);
if (!postgresHere)
  console.warn(
    'no PostgreSQL server binaries (initdb, pg_ctl, postgres) on PATH and PM_TEST_DATABASE_URL not set: the postgres project is skipped',
  );

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'unit', include: unit } },
      {
        extends: true,
        test: {
          name: 'in-process',
          include: ['test/**/*.test.ts'],
          exclude: [
            ...unit,
            ...blackBox,
            'test/server/postgres.test.ts',
            'test/server/postgres-tls.test.ts',
            'test/cli/serve-postgres.test.ts',
            'test/package/**',
          ],
        },
      },
      {
        extends: true,
        test: { name: 'package', include: ['test/package/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 900_000 },
      },
      { extends: true, test: { name: 'black-box', include: blackBox } },
      ...(postgresHere
        ? [
            {
              extends: true,
              test: {
                name: 'postgres',
                include: onPostgres,
                env: { PM_TEST_STORE: 'postgres' },
                globalSetup: ['test/helpers/postgres-setup.ts'],
              },
            },
          ]
        : []),
    ],
  },
});
