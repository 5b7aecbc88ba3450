/**
 * The route table (server/routes.ts) on its own: which path is which route, what each method on
 * it does, and the Allow header of the others. The server's answers on these routes are
 * test/server/*'s; this is the table they come from.
 */
import { describe, expect, it } from 'vitest';
import { RESOURCES } from '../../src/resources/index.js';
import { allRoutes, decodeSegment, matchRoute } from '../../src/server/routes.js';

/** A route as a table row: its template, the uuid found, and each method's operation. */
function row(pathname: string) {
  const m = matchRoute(pathname);
  if (!m) return undefined;
  const ops = Object.fromEntries(
    [...m.route.endpoints].map(([method, e]) => [
      method,
      `${e.op} ${e.resource.path}${e.parent ? ` under ${e.parent.path}` : ''}`,
    ]),
  );
  return { template: m.route.template, uuid: m.uuid, allow: m.route.allow, ops };
}

describe('a path and its route', () => {
  it.each([
    [
      '/properties',
      {
        template: '/properties',
        uuid: '',
        allow: 'GET, POST, HEAD',
        ops: { GET: 'list properties', POST: 'create properties' },
      },
    ],
    [
      '/properties/3F2A0000-AAAA-4BBB-8CCC-000000000001',
      {
        template: '/properties/{uuid}',
        uuid: '3f2a0000-aaaa-4bbb-8ccc-000000000001',
        allow: 'GET, PUT, DELETE, HEAD',
        ops: { GET: 'get properties', PUT: 'update properties', DELETE: 'delete properties' },
      },
    ],
    [
      '/properties/abc/notes',
      {
        template: '/properties/{uuid}/notes',
        uuid: 'abc',
        allow: 'POST',
        ops: { POST: 'create notes under properties' },
      },
    ],
    [
      '/contacts/abc/notes',
      { template: '/contacts/{uuid}/notes', allow: 'POST', ops: { POST: 'create notes under contacts' } },
    ],
    // Notes are created under their parent only, and never updated.
    ['/notes', { template: '/notes', allow: 'GET, HEAD', ops: { GET: 'list notes' } }],
    [
      '/notes/abc',
      { template: '/notes/{uuid}', allow: 'GET, DELETE, HEAD', ops: { GET: 'get notes', DELETE: 'delete notes' } },
    ],
    ['/custom-fields', { template: '/custom-fields', ops: { GET: 'list custom-fields' } }],
    ['/custom%2Dfields/a%20b', { template: '/custom-fields/{uuid}', uuid: 'a b' }],
  ])('%s', (pathname, expected) => {
    expect(row(pathname)).toMatchObject(expected);
  });

  it.each([
    ['an unknown resource', '/nothing'],
    ['an unknown resource with a uuid', '/nothing/abc'],
    ['an empty uuid', '/properties/'],
    ['a child that is not one', '/properties/abc/contacts'],
    ['a path too deep', '/properties/abc/notes/def'],
    ['no leading slash', 'properties'],
    ['the root', '/'],
  ])('%s has no route: %s', (_, pathname) => {
    expect(matchRoute(pathname)).toBeUndefined();
  });
});

describe('the table from the descriptions', () => {
  it('every resource with a list has its path; with a get, its item path', () => {
    const templates = allRoutes().map((r) => r.template);
    for (const r of RESOURCES) {
      expect(templates.includes(`/${r.path}`)).toBe(r.verbs.list || (r.verbs.create && !r.parents));
      expect(templates.includes(`/${r.path}/{uuid}`)).toBe(r.verbs.get || r.verbs.update || r.verbs.delete);
    }
  });

  it('HEAD is allowed wherever GET is, and only there', () => {
    for (const r of allRoutes()) expect(r.allow.includes('HEAD')).toBe(r.endpoints.has('GET'));
  });
});

it('a path segment is percent-decoded, an escape that is not UTF-8 kept as it is', () => {
  expect(decodeSegment('a%20b%2Fc')).toBe('a b/c');
  expect(decodeSegment('%E2%82%AC')).toBe('€');
  expect(decodeSegment('%FF%FEx')).toBe('%FF%FEx');
});
