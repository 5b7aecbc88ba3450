/**
 * A run builds in full only the command group it names; what a person sees is the same.
 */
import { describe, expect, it } from 'vitest';
import type { Deps } from '../../src/cli/context.js';
import { createFactory } from '../../src/cli/factory.js';
import { buildProgram } from '../../src/cli/program.js';
import { Buffer_ } from '../helpers/cli.js';

const deps = (): Deps => {
  const out = new Buffer_();
  return {
    io: { stdout: out, stderr: out, stdin: (async function* () {})() },
    env: {},
    cwd: '/',
    home: '/tmp',
    now: () => 0,
  };
};
const group = (argv: string[] | undefined, name: string) =>
  buildProgram(createFactory(deps()), argv).commands.find((c) => c.name() === name);

describe('buildProgram', () => {
  it('builds the named group in full and declares the others by name and summary', () => {
    expect(group(['--profile', 'x', 'properties', 'list'], 'properties')?.commands.map((c) => c.name())).toContain(
      'list',
    );
    const stub = group(['--profile', 'x', 'properties', 'list'], 'reminders');
    expect(stub?.commands).toEqual([]);
    expect(stub?.description()).toBe(group(undefined, 'reminders')?.description());
    expect(group(['help', 'notes'], 'notes')?.commands.length).toBeGreaterThan(0);
    expect(group(['__complete', '--', 'pm'], 'contacts')?.commands.length).toBeGreaterThan(0);
  });

  it('does the same for the groups besides the resources', () => {
    const run = ['properties', 'list'];
    for (const name of ['auth', 'config', 'serve']) {
      expect(group(run, name)?.commands, name).toEqual([]);
      expect(group(run, name)?.description(), name).toBe(group(undefined, name)?.description());
      expect(group([name, 'list'], name)?.commands.length, name).toBeGreaterThan(0);
    }
    expect(group(run, 'export')?.options).toEqual([]);
    expect(group(['import'], 'export')?.options.map((o) => o.long)).toContain('--dir');
    expect(group(['help', 'auth'], 'auth')?.commands.length).toBeGreaterThan(0);
  });

  it('shows the same root help either way', () => {
    expect(buildProgram(createFactory(deps()), ['--help']).helpInformation()).toBe(
      buildProgram(createFactory(deps())).helpInformation(),
    );
  });
});
