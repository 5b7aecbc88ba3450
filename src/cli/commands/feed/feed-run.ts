/** What the run functions of `pm <resource> feed` share: the server's /calendar-feeds. */
import { CALENDAR_FEEDS_PATH } from '../../../core/endpoints.js';
import { isObject } from '../../../core/json.js';
import { CliError, EXIT } from '../../errors.js';

/** The fields of a feed as JSON (its url only when it is made). */
export const FEED_FIELDS = ['uuid', 'name', 'created_at'];

export interface Feed {
  readonly uuid: string;
  readonly name: string;
  readonly created_at: string;
  readonly url?: string;
}

export const feedsPath = CALENDAR_FEEDS_PATH.slice(1);

/** The `data` of an answer, as the API sends it. */
export function dataOf(body: unknown): unknown {
  if (!isObject(body) || !('data' in body)) throw new CliError(EXIT.api, 'unexpected answer from the server: no data');
  return body.data;
}
