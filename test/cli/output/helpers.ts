import { properties, reminders, customFields } from '../../../src/resources/index.js';
import type { Display } from '../../../src/cli/output/index.js';

export { properties, reminders, customFields };

export interface FakeStream {
  write(s: string): boolean;
  readonly isTTY: boolean;
  readonly columns: number | undefined;
  text: string;
}

function stream(isTTY: boolean, columns?: number): FakeStream {
  return {
    text: '',
    isTTY,
    columns,
    write(s: string) {
      this.text += s;
      return true;
    },
  };
}

/** 2026-06-10T12:00:00Z */
export const NOW = Date.UTC(2026, 5, 10, 12, 0, 0);

export interface Screen extends Display {
  out: FakeStream;
  err: FakeStream;
}

/** A terminal (tty) or a pipe, colour off unless asked, London time, a fixed clock. */
export function screen(opts: { tty: boolean; color?: boolean; columns?: number; timeZone?: string }): Screen {
  const out = stream(opts.tty, opts.columns);
  const err = stream(opts.tty);
  return {
    out,
    err,
    stdout: out,
    stderr: err,
    tty: opts.tty,
    color: opts.color ?? false,
    timeZone: opts.timeZone ?? 'Europe/London',
    now: () => NOW,
  };
}

export const ANSI = /\x1b\[/;

export function property(n: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    uuid: `0b6e2a0e-5b1d-4f3a-9c51-00000000000${n}`,
    created_at: '2026-01-15T09:30:00+00:00',
    updated_at: '2026-06-01T17:05:00+00:00',
    address: `${n} High Street`,
    address2: null,
    city: 'Leeds',
    county: null,
    postcode: 'LS1 1AA',
    type: 'house',
    bedrooms: n,
    bathrooms: 1,
    has_garage: n % 2 === 1,
    has_garden: false,
    has_parking: false,
    num_attachments: 0,
    num_notes: 2,
    ...extra,
  };
}

export const P1 = property(1);
export const P2 = property(2);
export const P3 = property(3);

const T0 = '2026-01-15T09:30:00+00:00';

/** Due 2026-06-12 08:00 UTC (09:00 in London, summer time): two days after NOW. */
export const R1 = {
  uuid: 'a1000000-0000-4000-8000-000000000001',
  created_at: T0,
  updated_at: T0,
  title: 'Gas safety check',
  description: null,
  due_at: '2026-06-12T08:00:00+00:00',
  anytime: false,
};

/** All day on 2026-12-01; a long title; a description over two lines. */
export const R2 = {
  uuid: 'a1000000-0000-4000-8000-000000000002',
  created_at: T0,
  updated_at: T0,
  title: 'Renew the insurance before it runs out at the end of the month',
  description: 'Call the broker\nthen pay',
  due_at: '2026-12-01',
  anytime: true,
};

export const CF1 = {
  uuid: 'c1000000-0000-4000-8000-000000000001',
  created_at: T0,
  updated_at: T0,
  name: 'colour',
  label: 'Colour',
  type: { code: 1, name: 'Text' },
  entity_type: { code: 2, name: 'Property' },
};
