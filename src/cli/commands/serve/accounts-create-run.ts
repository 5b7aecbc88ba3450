/** `pm serve accounts create`: an account with a user and a full-scope token; the token printed. */
import { withData } from './store-run.js';
import type { OnDataFile } from './store.js';

export interface AccountsCreateOptions extends OnDataFile {
  readonly name: string;
  readonly scopes: readonly string[];
}

export async function accountsCreateRun(o: AccountsCreateOptions): Promise<void> {
  const { io } = o.f;
  await withData(o, async (store) => {
    const { accountId, userId } = await store.createAccount(o.name);
    const { token } = await store.createToken(userId, 'owner', o.scopes);
    io.stdout.write(`${token}\n`);
    io.stderr.write(
      `Created account ${accountId} "${o.name}" and a full-scope token. Store it now: it is not shown again.\n`,
    );
  });
}
