/** How the auth commands check a token: a list it may read, one record long. */
import { RESOURCES } from '../../../resources/index.js';
import type { ResourceDef } from '../../../resources/types.js';
import type { Session } from '../../session.js';

/** What a token is checked against: a list it may read, the first resource's as good as any. */
export const PROBE = RESOURCES.find((r) => r.verbs.list) as ResourceDef;
export const probe = (http: Session['http']) =>
  http.request('GET', PROBE.path, { query: new URLSearchParams({ per_page: '1' }) });
