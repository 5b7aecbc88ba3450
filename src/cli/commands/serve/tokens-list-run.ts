/** `pm serve tokens list`: the tokens of a store (never the tokens themselves). */
import { type DataOutput, dataSpecFrom, printData, wantsData } from '../../output/index.js';
import { withData } from './store-run.js';

/** The fields of a token as JSON (never the token itself). */
const TOKEN_FIELDS = [
  'id',
  'name',
  'hint',
  'scopes',
  'account_id',
  'user_id',
  'created_at',
  'last_used_at',
  'revoked_at',
];
import type { OnDataFile } from './store.js';

export interface TokensListOptions extends OnDataFile {
  /** --json [fields], --jq: the tokens as JSON. */
  readonly output: DataOutput;
}

export async function tokensListRun(o: TokensListOptions): Promise<void> {
  const { io } = o.f;
  const spec = wantsData(o.output) ? await dataSpecFrom(o.output, TOKEN_FIELDS) : undefined;
  await withData(o, async (store) => {
    const list = await store.listTokens();
    if (spec) {
      await printData(list, spec, await o.f.display());
      return;
    }
    for (const t of list)
      io.stdout.write(
        `${t.id}\t${t.name}\taccount ${t.account_id}\t…${t.hint}\t${t.revoked_at ? `revoked ${t.revoked_at}` : 'active'}\t${t.scopes.join(' ')}\n`,
      );
  });
}
