/**
 * How SQLite plans a list (server/sqlite/records.ts), as tables: whether the trigram index may
 * drive it, and how a page's rows are read. What the lists answer is test/server/pagination's,
 * filters' and trigram-pages'; this is the choice between the ways that give those answers.
 */
import { describe, expect, it } from 'vitest';
import { ORDER_BLOCK } from '../../src/server/schema.js';
import { mayUseIndex, type PageShape, pageWays } from '../../src/server/sqlite/records.js';

const fuzzy = { kind: 'fuzzy' } as const;
const exact = { kind: 'in' } as const;

describe('whether the trigram index may drive a list', () => {
  it.each([
    ['a fuzzy filter alone, any size', [fuzzy], 10, true],
    ['two fuzzy filters', [fuzzy, fuzzy], 10, true],
    ['a fuzzy filter beside another, few records: the other filter, tested', [fuzzy, exact], 19_999, false],
    ['a fuzzy filter beside another, many records', [fuzzy, exact], 20_000, true],
    ['no fuzzy filter (nothing for the index, whatever the size)', [exact], 10, true],
    ['no filter', [], 10, true],
  ] as const)('%s', (_, conditions, kept, may) => {
    expect(mayUseIndex(conditions, () => kept, 20_000)).toBe(may);
  });

  it('reads the records kept only when a fuzzy filter stands beside another', () => {
    let reads = 0;
    const kept = () => {
      reads++;
      return 5;
    };
    mayUseIndex([fuzzy], kept, 20_000);
    mayUseIndex([exact, exact], kept, 20_000);
    expect(reads).toBe(0);
    mayUseIndex([fuzzy, exact], kept, 20_000);
    expect(reads).toBe(1);
  });
});

describe('how a page is read', () => {
  const shape = (over: Partial<Omit<PageShape, 'kept'>> & { kept?: number } = {}): PageShape => {
    const { kept = 1000, ...rest } = over;
    return {
      offset: 0,
      perPage: 25,
      total: 1000,
      indexed: false,
      unfiltered: false,
      fresh: false,
      ...rest,
      kept: () => kept,
    };
  };
  it.each([
    ['past the end: nothing', { offset: 1000 }, ['none']],
    ['an empty list', { total: 0, unfiltered: true }, ['none']],
    ['a filtered first page: ids on the order index', {}, ['ids']],
    ['the page after the last one read, nothing written since', { offset: 25, fresh: true }, ['after']],
    ['a shallow unfiltered page', { unfiltered: true, offset: 2 * ORDER_BLOCK - 25, total: 10 ** 6 }, ['ids']],
    [
      'a deep unfiltered page: its order block, else ids',
      { unfiltered: true, offset: 2 * ORDER_BLOCK, total: 10 ** 6 },
      ['block', 'ids'],
    ],
    [
      'a deep unfiltered page right after the last: its block, else from where that ended',
      { unfiltered: true, offset: 3 * ORDER_BLOCK, total: 10 ** 6, fresh: true },
      ['block', 'after'],
    ],
    // (0 + 25) * 100,000 / 10 = 250,000 rows walked, against 8 * 10 matches: sorting wins.
    [
      'an index-driven list with sparse matches: the matches, sorted',
      { indexed: true, total: 10, kept: 100_000 },
      ['matches'],
    ],
    // (0 + 25) * 1,000 / 500 = 50 rows walked, against 8 * 500: walking the order index wins.
    ['an index-driven list with dense matches: the order index, tested', { indexed: true, total: 500 }, ['ids']],
    ['an index-driven list past its matches', { indexed: true, total: 10, offset: 10, kept: 100_000 }, ['none']],
  ] as const)('%s', (_, over, ways) => {
    expect(pageWays(shape(over))).toEqual(ways);
  });

  it('the walk and the sort cost the same at WALK_PER_MATCH rows a match: the walk is kept', () => {
    // (0 + 25) * 3,200 / 100 = 800 rows walked = 8 a match for 100 matches: the boundary, walked.
    expect(pageWays(shape({ indexed: true, total: 100, kept: 3200 }))).toEqual(['ids']);
    expect(pageWays(shape({ indexed: true, total: 100, kept: 3201 }))).toEqual(['matches']);
  });
});
