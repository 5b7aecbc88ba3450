/**
 * What the access log may write of a request: its id (the client's when sane), and its target with
 * every secret part masked, however the target spells it.
 */
import { describe, expect, it } from 'vitest';
import { maskSecrets, requestIdOf, SECRET_TARGETS } from '../../src/server/observe.js';

describe('maskSecrets', () => {
  it.each([
    ['/calendar-feeds/k3y', '/calendar-feeds/***'],
    ['/calendar-feeds/k3y/reminders.ics?alarm=1', '/calendar-feeds/***?alarm=1'],
    ['/Calendar-Feeds/k3y', '/Calendar-Feeds/***'],
    // Decoded as the router decodes a path segment.
    ['/%63alendar-feeds/k3y', '/calendar-feeds/***'],
    ['/calendar%2Dfeeds/k%33y', '/calendar-feeds/***'],
    // Nothing else is touched: the query string as sent.
    ['/properties?city=leeds&per_page=10', '/properties?city=leeds&per_page=10'],
    ['/properties/%ZZ', '/properties/%ZZ'],
    ['/calendar-feeds/', '/calendar-feeds/'],
  ])('%s -> %s', (target, logged) => {
    expect(maskSecrets(target)).toBe(logged);
  });

  it('masks what a route adds to SECRET_TARGETS', () => {
    const pattern = /^\/invites\/(?<secret>[^/?]+)/;
    SECRET_TARGETS.push(pattern);
    try {
      expect(maskSecrets('/invites/abc123?x=1')).toBe('/invites/***?x=1');
    } finally {
      SECRET_TARGETS.splice(SECRET_TARGETS.indexOf(pattern), 1);
    }
    expect(maskSecrets('/invites/abc123')).toBe('/invites/abc123');
  });
});

describe('requestIdOf', () => {
  it("keeps the client's id when it is printable and at most 128 characters", () => {
    for (const id of ['7f3c', 'ci-job:0312/run#4', 'x'.repeat(128)]) expect(requestIdOf(id)).toBe(id);
  });

  it('makes a new one otherwise', () => {
    for (const id of [undefined, '', 'two words', 'x'.repeat(129), 'tab\there', 'é', ['a', 'b']]) {
      const made = requestIdOf(id);
      expect(made).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    }
    expect(requestIdOf(undefined)).not.toBe(requestIdOf(undefined));
  });
});
