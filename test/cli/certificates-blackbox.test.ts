/**
 * The built pm, from an empty home on its embedded default, doing what the README says: attach
 * this year's gas certificate, expiring next March, and have a reminder a month before, every
 * year; then the check done late, and the compliance job run twice.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pmBin, tempHome } from '../helpers/cli.js';

describe('a certificate that expires, and a yearly reminder (the built pm)', () => {
  it('is done as the README shows', async () => {
    const home = tempHome();
    const env = { HOME: home, PATH: process.env.PATH ?? '' };
    const pm = (...args: string[]) => pmBin(args, env, { cwd: home });
    writeFileSync(join(home, 'gas-safety.pdf'), '%PDF-1.4 gas safety record');
    const property = (
      await pm('properties', 'create', '--address', '1 High St', '--postcode', 'LS1 1AA', '-q')
    ).stdout.trim();
    const up = await pm(
      'attachments',
      'upload',
      'gas-safety.pdf',
      '--property',
      property.slice(0, 8),
      '--expires',
      '2027-03-01',
    );
    expect(up.code, up.stderr).toBe(0);
    const made = await pm(
      'reminders',
      'create',
      '--title',
      'Renew the gas certificate',
      '--property',
      property.slice(0, 8),
      '--due-at',
      '2027-02-01',
      '--repeat',
      'every year',
      '--json',
      'uuid,repeat',
    );
    expect(made.code, made.stderr).toBe(0);
    const { uuid, repeat } = JSON.parse(made.stdout);
    expect(repeat).toBe('P1Y');
    // Done three weeks late: next due on the same day next year.
    const done = await pm('reminders', 'done', uuid, '--at', '2027-02-22T10:00:00Z', '--json', 'due_at,last_done_at');
    expect(JSON.parse(done.stdout)).toEqual({ due_at: '2028-02-01', last_done_at: '2027-02-22T10:00:00+00:00' });
    const listed = await pm(
      'attachments',
      'list',
      '--expires-on',
      '2027-01-01/2027-12-31',
      '--json',
      'name,expires_on',
    );
    expect(JSON.parse(listed.stdout)).toEqual([{ name: 'gas-safety.pdf', expires_on: '2027-03-01' }]);
    // The job, twice: one reminder of the certificate (a window far enough to hold its expiry).
    for (let i = 0; i < 2; i++) {
      const job = await pm('attachments', 'remind', '--expiring', '2026-01-01/2028-01-01', '--before', '30 days');
      expect(job.code, job.stderr).toBe(0);
    }
    const all = JSON.parse((await pm('reminders', 'list', '--json', 'title,due_at')).stdout);
    expect(all).toContainEqual({ title: 'Renew gas-safety.pdf, 1 High St: expires 1 Mar 2027', due_at: '2027-01-30' });
    expect(all).toHaveLength(2);
    const ics = await pm('reminders', 'list', '-o', 'ics');
    expect(ics.stdout).toContain('RRULE:FREQ=YEARLY');
    expect(ics.stdout).toContain('LOCATION:1 High St\\, LS1 1AA');
  });
});
