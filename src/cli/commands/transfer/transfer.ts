/**
 * `pm export` and `pm import`: every record of an account as NDJSON files, and back onto another
 * server (from the embedded default to a team server, say), mapping old uuids to new ones. A module
 * pair each (export.ts, export-run.ts; import.ts, import-run.ts).
 */
import type { Command } from 'commander';
import { adopt } from '../../command.js';
import type { Factory } from '../../factory.js';
import { EXPORT_SUMMARY, newCmdExport } from './export.js';
import { IMPORT_SUMMARY, newCmdImport } from './import.js';

export const TRANSFER_COMMANDS = { export: EXPORT_SUMMARY, import: IMPORT_SUMMARY };

export function registerTransfer(program: Command, f: Factory): void {
  adopt(program, newCmdExport(f));
  adopt(program, newCmdImport(f));
}
