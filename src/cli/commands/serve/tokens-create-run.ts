/** `pm serve tokens create`: a token, printed once. */
import { usageError } from '../../errors.js';
import type { AccountsCreateOptions } from './accounts-create-run.js';
import { storeWord, withData } from './store-run.js';

export interface TokensCreateOptions extends AccountsCreateOptions {
  readonly account?: number | undefined;
}

export async function tokensCreateRun(o: TokensCreateOptions): Promise<void> {
  const { io } = o.f;
  await withData(o, async (store) => {
    const userId =
      o.account === undefined
        ? ((await store.firstUser()) as { userId: number }).userId
        : await store.userOfAccount(o.account);
    if (userId === undefined) throw usageError(`--account: no account ${o.account} in this ${storeWord(o)}.`);
    const { token, id } = await store.createToken(userId, o.name, o.scopes);
    io.stdout.write(`${token}\n`);
    io.stderr.write(
      `Created token ${id} "${o.name}" with scopes ${o.scopes.join(' ')}. Store it now: it is not shown again.\n`,
    );
  });
}
