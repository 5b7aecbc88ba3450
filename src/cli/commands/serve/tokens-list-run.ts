/** `pm serve tokens list`: the tokens of a store (never the tokens themselves). */
import { withData } from './store-run.js';
import type { OnDataFile } from './store.js';

export interface TokensListOptions extends OnDataFile {
  readonly json: boolean;
}

export async function tokensListRun(o: TokensListOptions): Promise<void> {
  const { io } = o.f;
  await withData(o, async (store) => {
    const list = await store.listTokens();
    if (o.json) {
      io.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
      return;
    }
    for (const t of list)
      io.stdout.write(
        `${t.id}\t${t.name}\taccount ${t.account_id}\t…${t.hint}\t${t.revoked_at ? `revoked ${t.revoked_at}` : 'active'}\t${t.scopes.join(' ')}\n`,
      );
  });
}
