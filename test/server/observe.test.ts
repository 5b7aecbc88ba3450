/**
 * What the access log may write of a request: its id (the client's when sane), and its target with
 * every secret part masked, however the target spells it.
 */
import { describe, expect, it } from 'vitest';
import { maskSecrets, requestIdOf, SECRET_TARGETS } from '../../src/server/observe.js';

describe('maskSecrets', () => {
  it.each([
    ['/feeds/pmf_k3y.ics', '/feeds/***'],
    ['/feeds/k3y.ics?alarm=1', '/feeds/***?alarm=1'],
    ['/Feeds/k3y', '/Feeds/***'],
    // Decoded as the router decodes a path segment.
    ['/%66eeds/k3y.ics', '/feeds/***'],
    ['/fee%64s/k%33y', '/feeds/***'],
    // A feed's secret anywhere else: the query string too.
    ['/reminders?q=pmf_abcdefghijklmnopqrstuvwxyz', '/reminders?q=pmf_***'],
    // A feed's uuid in the routes that manage feeds is no secret.
    ['/calendar-feeds/3f2a9c1e-0000-4000-8000-000000000000', '/calendar-feeds/3f2a9c1e-0000-4000-8000-000000000000'],
    // Nothing else is touched: the query string as sent.
    ['/properties?city=leeds&per_page=10', '/properties?city=leeds&per_page=10'],
    ['/properties/%ZZ', '/properties/%ZZ'],
    ['/feeds/', '/feeds/'],
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
