/** `pm config path`: the user config's path, and the project config's when one is found. */
import { searchProjectConfig, userConfigPath } from '../../config.js';
import type { Factory } from '../../factory.js';

export interface ConfigPathOptions {
  readonly f: Factory;
}

export async function configPathRun(o: ConfigPathOptions): Promise<void> {
  const { f } = o;
  const { io } = f;
  // The search tolerates a malformed project file: its path is what is needed to fix it.
  const project = await searchProjectConfig(f);
  io.stdout.write(`${userConfigPath(f)}\n`);
  if (project.path) io.stdout.write(`${project.path}\n`);
  if (project.error) io.stderr.write(`warning: ${project.error.message}\n`);
}
