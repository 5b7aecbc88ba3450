/**
 * Case folding for fuzzy filters: what a fold column keeps, what a custom value's value_fold
 * keeps, and what a filter value is compared as; each filter kind says how it folds (kinds.ts:
 * Unicode-aware, unlike SQLite's LIKE and lower(); for a postcode, white space dropped too).
 */
import { FILTER_KINDS, foldText } from '../../core/kinds.js';
import type { FilterKind } from '../../resources/types.js';

export function fold(value: string, filter?: FilterKind): string {
  const kindFold = filter && FILTER_KINDS[filter].fold;
  return kindFold ? kindFold(value) : foldText(value);
}
