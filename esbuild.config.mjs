// Bundles the CLI into a few files so that start-up reads little: dist/bundle/pm.js and the
// chunks of what commands import lazily. Native and WebAssembly packages stay outside. Then
// writes the root help as a pipe gets it, for bin/pm to print without loading the CLI.
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

rmSync('dist/bundle', { recursive: true, force: true });

/**
 * pm speaks HTTP/1.1 and never enables undici's HTTP/2 client, whose module loads node:http2
 * (some 6 ms of start-up) at its top. undici already copes with a Node built without http2:
 * its require is in a try/catch, so the bundle gives it one that fails.
 */
const withoutHttp2 = {
  name: 'without-http2',
  setup(b) {
    b.onResolve({ filter: /^(node:)?http2$/ }, (args) =>
      args.importer.includes('/node_modules/undici/') ? { path: 'http2', namespace: 'without-http2' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'without-http2' }, () => ({
      contents: "throw new Error('pm does not use HTTP/2');",
      loader: 'js',
    }));
  },
};

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
  external: ['better-sqlite3', 'jq-web', 'typescript', 'cosmiconfig', 'cli-progress'],
  plugins: [withoutHttp2],
  // CommonJS dependencies inside an ES module bundle need a require of their own.
  banner: {
    js: "import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
});

// `pm --help` into a pipe, as commander renders it (80 columns): bin/pm prints this file when
// stdout is not a terminal. --no-color keeps bin/pm on its full path, which renders it.
const help = spawnSync(process.execPath, ['bin/pm', '--no-color', '--help'], {
  encoding: 'utf8',
  env: { PATH: process.env.PATH ?? '' },
});
if (help.status !== 0 || !help.stdout.startsWith('Usage: pm')) {
  process.stderr.write(`build: could not render pm --help (exit ${help.status}):\n${help.stderr}`);
  process.exit(1);
}
writeFileSync('dist/bundle/help.txt', help.stdout);
