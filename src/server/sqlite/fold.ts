/**
 * Case folding for fuzzy filters, in one function: what a fold column keeps, what a custom value's
 * value_fold keeps, and what a filter value is compared as. Unicode-aware, unlike SQLite's LIKE
 * and lower(); for a postcode, white space is dropped too, so that `sw1a1aa` finds `SW1A 1AA`.
 */
import type { FilterKind } from '../../resources/types.js';

export function fold(value: string, filter?: FilterKind): string {
  const folded = value.toLowerCase();
  return filter === 'postcode' ? folded.replace(/\s+/g, '') : folded;
}
