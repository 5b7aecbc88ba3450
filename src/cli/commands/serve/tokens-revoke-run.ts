/** `pm serve tokens revoke <id>`. */
import { CliError, EXIT } from '../../errors.js';
import { storeWord, withData } from './store-run.js';
import type { OnDataFile } from './store.js';

export interface TokensRevokeOptions extends OnDataFile {
  readonly id: number;
}

export async function tokensRevokeRun(o: TokensRevokeOptions): Promise<void> {
  await withData(o, async (store) => {
    if (!(await store.revokeToken(o.id)))
      throw new CliError(EXIT.notFound, `No active token ${o.id} in this ${storeWord(o)}.`, {
        hint: 'List them with `pm serve tokens list`.',
      });
    o.f.io.stderr.write(`Revoked token ${o.id}.\n`);
  });
}
