// Bundles the CLI into a few files so that start-up reads little: dist/bundle/pm.mjs and the
// chunks of what commands import lazily. Native and WebAssembly packages stay outside.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

rmSync('dist/bundle', { recursive: true, force: true });

await build({
  entryPoints: { pm: 'src/cli/main.ts' },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  // Loaded by Node itself: native or WebAssembly code, and CommonJS packages imported lazily
  // (an ES module bundle would give their named exports only under default).
  external: ['better-sqlite3', 'jq-web', 'typescript', 'cosmiconfig', 'cli-progress', 'undici'],
  // CommonJS dependencies inside an ES module bundle need a require of their own.
  banner: {
    js: "import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
