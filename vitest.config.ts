import { defineConfig } from 'vitest/config';

/**
 * Three tiers, which `npm test` runs together and `npx vitest run --project <name>` one at a time:
 * - unit: pure code and in-memory pieces, no server and no process (milliseconds);
 * - in-process: commands and the API against the real server, started in the test's process;
 * - black-box: the built bin/pm, shells, a terminal (tmux), and servers in child processes.
 * A new test file is in-process unless it is named below.
 */
const unit = [
  'test/core/**/*.test.ts',
  'test/client/pacer.test.ts',
  'test/cli/output/**/*.test.ts',
  'test/cli/config.test.ts',
  'test/cli/config-command.test.ts',
  'test/cli/program.test.ts',
  'test/cli/options.test.ts',
];
const blackBox = [
  'test/cli/blackbox.test.ts',
  'test/cli/bulk-interrupt.test.ts',
  'test/cli/completion.test.ts',
  'test/cli/dates.test.ts',
  'test/cli/serve.test.ts',
  'test/cli/terminal.test.ts',
  'test/server/concurrency.test.ts',
  'test/server/crash.test.ts',
  'test/server/embedded.test.ts',
  'test/server/typed-client.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'unit', include: unit } },
      { extends: true, test: { name: 'in-process', include: ['test/**/*.test.ts'], exclude: [...unit, ...blackBox] } },
      { extends: true, test: { name: 'black-box', include: blackBox } },
    ],
  },
});
