/**
 * The postgres project's global set-up: one private PostgreSQL cluster for the whole run (each
 * test file makes a database of its own on it), removed at the end. Not started when
 * PM_TEST_DATABASE_URL names a server, nor where there are no PostgreSQL binaries.
 */
import type { TestProject } from 'vitest/node';
import { type Cluster, pgMissing, startCluster } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The superuser URL of the run's cluster ('' when none was started). */
    pmPostgresAdminUrl: string;
  }
}

let cluster: Cluster | undefined;

export async function setup(project: TestProject): Promise<void> {
  if (!process.env.PM_TEST_DATABASE_URL && !pgMissing) cluster = await startCluster();
  project.provide('pmPostgresAdminUrl', cluster?.url ?? '');
}

export function teardown(): void {
  cluster?.destroy();
}
