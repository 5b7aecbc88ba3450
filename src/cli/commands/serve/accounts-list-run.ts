/** `pm serve accounts list`: the accounts of a store, and the bytes of files each keeps. */
import { sizeInWords } from '../../../core/size.js';
import { type DataOutput, dataSpecFrom, printData, wantsData } from '../../output/index.js';
import { terminalText } from '../../../core/redact.js';
import type { OnDataFile } from './store.js';
import { withData } from './store-run.js';

/** The fields of an account as JSON. */
const ACCOUNT_FIELDS = ['id', 'name', 'files', 'bytes', 'quota'];

export interface AccountsListOptions extends OnDataFile {
  /** --json [fields], --jq: the accounts as JSON. */
  readonly output: DataOutput;
  /** The quota shown against (`--quota`), bytes. */
  readonly quotaBytes: number | undefined;
}

export async function accountsListRun(o: AccountsListOptions): Promise<void> {
  const { io } = o.f;
  const spec = wantsData(o.output) ? await dataSpecFrom(o.output, ACCOUNT_FIELDS) : undefined;
  await withData(o, async (store) => {
    const quota = o.quotaBytes ?? null;
    const list = (await store.blobs.usage()).map((a) => ({ ...a, quota }));
    if (spec) {
      await printData(list, spec, await o.f.display());
      return;
    }
    for (const a of list) {
      const share =
        quota === null ? '' : ` of ${sizeInWords(quota)} (${quota ? Math.floor((a.bytes / quota) * 100) : 100}%)`;
      io.stdout.write(
        `${a.id}\t${terminalText(a.name).replace(/[\t\n]/g, ' ')}\t${a.files} ${a.files === 1 ? 'file' : 'files'}\t${a.bytes} bytes${share}\n`,
      );
    }
  });
}
