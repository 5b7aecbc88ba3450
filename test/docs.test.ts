/**
 * docs/api.md against the descriptions: its generated sections (scopes, the records' endpoints,
 * each resource's filters) are what scripts/api-docs.mjs makes of the built code today, and each
 * resource's table of fields names every field, link, set and custom values the description has,
 * and nothing else. A field, filter, route or scope added to src/resources fails here until the
 * page says it (`npm run docs` writes the generated sections; the fields' rows are by hand).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CUSTOM_VALUES_KEY, RESOURCES } from '../src/resources/index.js';
// @ts-expect-error: a plain ES module of the repository's scripts, without types
import { API_DOCS, generate } from '../scripts/api-docs.mjs';

const page = readFileSync(API_DOCS, 'utf8');

describe('the generated sections of docs/api.md', () => {
  it('are up to date with the descriptions (npm run docs writes them)', () => {
    expect(generate(page)).toBe(page);
  });

  it('come back when a row is lost, keeping the notes of the others', () => {
    const lost = page.replace(/^\| DELETE \| `\/notes\/:uuid` \|.*\n/m, '').replace(/^\| types \| .*\n/m, '');
    expect(lost).not.toBe(page);
    expect(generate(lost)).toBe(page);
  });

  it('refuse a page without their markers', () => {
    expect(() => generate(page.replace('<!-- generated: filters -->', ''))).toThrow(/no markers for filters/);
  });
});

describe("each resource's table of fields in docs/api.md", () => {
  /** The backticked names of the first column of the table under `### <Singular>`. */
  function documented(heading: string): string[] {
    const at = page.indexOf(`\n### ${heading}\n`);
    if (at < 0) return [];
    const rest = page.slice(at + heading.length + 6);
    const section = rest.slice(0, rest.search(/\n#{2,3} /));
    const names: string[] = [];
    for (const line of section.split('\n')) {
      if (!line.startsWith('| `')) continue;
      const first = line.split(/(?<!\\)\|/)[1] ?? '';
      for (const m of first.matchAll(/`([a-z_0-9]+)`/g)) names.push(m[1] as string);
    }
    return names;
  }

  it.each(RESOURCES.map((r) => [r.singular, r] as const))('%s', (singular, r) => {
    const expected = [
      ...r.fields.map((f) => f.name),
      ...(r.links ?? []).map((l) => l.name),
      ...(r.sets ?? []).map((x) => x.name),
      ...(r.customValues ? [CUSTOM_VALUES_KEY] : []),
    ];
    const heading = singular.charAt(0).toUpperCase() + singular.slice(1);
    expect(documented(heading).sort()).toEqual(expected.sort());
  });
});
