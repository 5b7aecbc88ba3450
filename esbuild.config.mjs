// Bundles the CLI into one CommonJS file, dist/bundle/pm.cjs: what a command imports lazily is
// still evaluated only when imported, and Node 20 loads one CommonJS file faster than a graph of
// ES module chunks (some 15-20 ms less for `pm properties list`, measured side by side). Native
// and WebAssembly packages stay outside. Then writes the root help as a pipe gets it, for bin/pm
// to print without loading the CLI.
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';

// better-sqlite3's JavaScript goes into the bundle, so the build needs the package. npm installs
// an optional dependency whose install step fails (its native part did not build: no compiler, or
// no Node headers for node-gyp) by leaving it out, without an error: say so here, not as esbuild's
// "Could not resolve".
try {
  createRequire(import.meta.url).resolve('better-sqlite3');
} catch {
  process.stderr.write(
    'build: better-sqlite3 is not installed. npm leaves out an optional dependency whose install step failed;\n' +
      '  `npm ci --foreground-scripts` shows why (its native part needs python3, make, a C++ compiler and\n' +
      "  Node's headers for node-gyp), then `npm ci` again.\n",
  );
  process.exit(1);
}

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

/**
 * Two of Node's modules undici loads at its top for little, which a run that sends one request
 * pays for (some 3 ms together): node:assert, for assert(value) on its invariants only, is given
 * an assert that throws the same way; node:http, for two things in two files (whether a request
 * body is an IncomingMessage, which pm never sends, and the default limit of an answer's header,
 * http.maxHeaderSize), is given those two: a class no body is an instance of, and Node's default
 * limit, 16 KiB. Any other undici file that requires node:http gets the real one; the build fails
 * if undici uses assert beyond assert(value).
 */
const UNDICI_HTTP_USERS = /[/\\]undici[/\\]lib[/\\](core[/\\]util|dispatcher[/\\]client)\.js$/;
const undiciLighter = {
  name: 'undici-lighter',
  setup(b) {
    b.onResolve({ filter: /^(node:)?(assert|http)$/ }, (args) => {
      if (!args.importer.includes('/node_modules/undici/')) return undefined;
      const name = args.path.replace(/^node:/, '');
      if (name === 'http' && !UNDICI_HTTP_USERS.test(args.importer)) return undefined;
      return { path: name, namespace: 'undici-lighter' };
    });
    b.onLoad({ filter: /^assert$/, namespace: 'undici-lighter' }, () => ({
      contents: `module.exports = function assert(value, message) {
        if (value) return;
        const e = new Error(message ?? 'assertion failed');
        e.name = 'AssertionError';
        e.code = 'ERR_ASSERTION';
        throw e;
      };`,
      loader: 'js',
    }));
    b.onLoad({ filter: /^http$/, namespace: 'undici-lighter' }, () => ({
      contents: 'module.exports = { IncomingMessage: class IncomingMessage {}, maxHeaderSize: 16 * 1024 };',
      loader: 'js',
    }));
  },
};

/**
 * chalk evaluated when a run first colours something (a terminal's table, a record, an agenda),
 * not on every run (its styles are built at its top: half a millisecond). pm takes only the
 * Chalk class from it; in the bundle that class is one that requires chalk when first made.
 */
const lazyChalk = {
  name: 'lazy-chalk',
  setup(b) {
    b.onResolve({ filter: /^chalk$/ }, (args) =>
      /[/\\]src[/\\]/.test(args.importer) ? { path: 'chalk', namespace: 'lazy-chalk' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-chalk' }, () => ({
      contents: `let chalk;
        export class Chalk {
          constructor(options) {
            chalk ??= require('chalk');
            return new chalk.Chalk(options);
          }
        }`,
      resolveDir: process.cwd(),
      loader: 'js',
    }));
  },
};

/**
 * A lazy require in the sources, `createRequire(import.meta.url)('luxon')` (an ES module has no
 * require of its own), is a plain require in the bundle: esbuild then bundles the package (unless
 * it is external), still evaluated only when that line runs, and compiled from the bundle's code
 * cache rather than from node_modules on every run.
 */
const lazyRequires = {
  name: 'lazy-requires',
  setup(b) {
    b.onLoad({ filter: /[/\\]src[/\\].*\.ts$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      return { contents: text.replace(/createRequire\(import\.meta\.url\)\(/g, 'require('), loader: 'ts' };
    });
  },
};

/**
 * Two packages load at their top what pm's runs never use, and each load costs every run: commander
 * requires node:child_process (with net, dgram and their kin) for executable subcommands, which
 * pm has none of; chalk asks node:tty which colours the terminal has, when pm always tells it
 * (output/index.ts: new Chalk({ level })). In the bundle, commander's require waits until used,
 * and chalk takes its own browser build of that check, which asks nothing. The build fails if
 * either package changes what is replaced here.
 */
const lighterPackages = {
  name: 'lighter-packages',
  setup(b) {
    const LAZY = "const childProcess = require('node:child_process');";
    b.onLoad({ filter: /[/\\]node_modules[/\\]commander[/\\]lib[/\\]command\.js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes(LAZY)) throw new Error(`${args.path} no longer has: ${LAZY}`);
      const lazy = "const childProcess = { spawn: (...a) => require('node:child_process').spawn(...a) };";
      return { contents: text.replace(LAZY, lazy), loader: 'js' };
    });
    // better-sqlite3's backup() (which pm never calls) makes its promisified
    // fs.access at the package's top: made when first called instead.
    const EAGER = 'const fsAccess = promisify(fs.access);';
    b.onLoad({ filter: /[/\\]node_modules[/\\]better-sqlite3[/\\]lib[/\\]methods[/\\]backup\.js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes(EAGER)) throw new Error(`${args.path} no longer has: ${EAGER}`);
      return { contents: text.replace(EAGER, 'const fsAccess = (p) => promisify(fs.access)(p);'), loader: 'js' };
    });
    b.onResolve({ filter: /^#supports-color$/ }, (args) => {
      if (!args.importer.includes('/node_modules/chalk/')) return undefined;
      return { path: join(dirname(args.importer), 'vendor', 'supports-color', 'browser.js') };
    });
  },
};

/**
 * Packages few runs use, each a file of its own (dist/bundle/vendor/NAME.cjs) that the bundle
 * requires where the sources import it (always lazily, by import()): a run that does not use them
 * does not read them (bin/pm reads the whole bundle on every run, about 2.5 ms a megabyte here,
 * and these were half of it). bin/pm compiles a chunk with its own code cache, as it does the
 * bundle. Each is a package, or a module of pm's that holds nothing but what it takes from one
 * (src/client/undici.ts), so no module of pm's is ever in two files.
 */
const CHUNKS = {
  undici: 'src/client/undici.ts',
  // An ES module whose one export is its default: the chunk's module.exports is that default, as
  // `(await import('ical.js')).default` takes it through the bundle's require (Node's rule).
  ical: 'default:ical.js',
  'file-type': 'file-type',
  busboy: '@fastify/busboy',
  'csv-parse': 'csv-parse/sync',
  'csv-stringify': 'csv-stringify/sync',
  // Durations, ranges and dates in words (an ISO date is read without it: src/core/datetime.ts).
  luxon: 'luxon',
};
const chunkOf = new Map(
  Object.entries(CHUNKS).map(([name, entry]) => [entry.replace(/^src\/(.*)\.ts$/, '$1').replace(/^default:/, ''), name]),
);
const vendorChunks = {
  name: 'vendor-chunks',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (!/[/\\]src[/\\]/.test(args.importer)) return undefined;
      // A package by name, or a module of pm's by its path under src/ (without .js).
      const local = args.path.startsWith('.')
        ? join(dirname(args.importer), args.path).replace(/^.*[/\\]src[/\\]/, '').replace(/\.js$/, '')
        : undefined;
      const chunk = chunkOf.get(local ?? args.path);
      return chunk ? { path: `./vendor/${chunk}.cjs`, external: true } : undefined;
    });
  },
};

/**
 * The head and tail of every file: `(wrap)(function (exports, require, module, __filename,
 * __dirname) { ... })`, where wrap gives back the function when the text is run as a script (bin/pm:
 * no `module` there) and calls it when Node runs the file as a module.
 */
const WRAPPED_HEAD =
  '((f) => (typeof module === "object" && typeof exports === "object" ? f.call(exports, exports, require, module, __filename, __dirname) : f))(function (exports, require, module, __filename, __dirname) {';
const WRAPPED_TAIL = '\n});';

/** What every file of the bundle is built with. */
const common = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  // Without whitespace and comments: a smaller file to read, and pure ASCII (some packages'
  // comments are not), which V8 keeps as one byte a character. Stack traces go through the
  // source map (--debug); the packages' licence notices go to pm.cjs.LEGAL.txt.
  minifyWhitespace: true,
  legalComments: 'linked',
  // import() of a package outside the bundle becomes a require() too: bin/pm compiles the bundle
  // with V8's code cache (vm.Script), where a real import() would have no loader to call.
  supported: { 'dynamic-import': false },
  // The sources are ES modules: their import.meta.url is the bundle's own file URL, and their
  // import.meta.dirname its folder (Node's __dirname, without a URL made). The version
  // is written in (src/cli/version.ts), not read from package.json on every run.
  define: {
    'import.meta.url': '__pmImport.meta.url',
    'import.meta.dirname': '__dirname',
    __PM_VERSION__: JSON.stringify(JSON.parse(await readFile('package.json', 'utf8')).version),
  },
  // Each file is its module's function already, as Node would wrap it: bin/pm compiles the text as
  // it is read (a wrapper added there would copy the whole text again, and that copy of the
  // bundle alone fills V8's young generation: a collection on every run). Required by Node (Node
  // 22's own code cache, --debug, a worker), the file calls that function with the module's own
  // arguments. And import.meta.url, made when first read (most runs never do), once.
  banner: {
    js: `${WRAPPED_HEAD}const __pmImport = { meta: { get url() { return (this.href ??= require('node:url').pathToFileURL(__filename).href); } } };`,
  },
  footer: { js: WRAPPED_TAIL },
  logLevel: 'warning',
};

for (const defaults of [false, true]) {
  const entries = Object.entries(CHUNKS).filter(([, entry]) => entry.startsWith('default:') === defaults);
  await build({
    ...common,
    entryPoints: Object.fromEntries(entries.map(([name, entry]) => [`vendor/${name}`, entry.replace(/^default:/, '')])),
    outdir: 'dist/bundle',
    outExtension: { '.js': '.cjs' },
    plugins: [withoutHttp2, undiciLighter, lazyRequires],
    ...(defaults ? { footer: { js: `module.exports = module.exports.default;${WRAPPED_TAIL}` } } : {}),
  });
}

await build({
  ...common,
  // The CLI, and the module of pm serve's reader threads (src/server/sqlite/readers.ts).
  entryPoints: { pm: 'src/cli/main.ts', 'reader-worker': 'src/server/sqlite/reader-worker.ts' },
  outdir: 'dist/bundle',
  outExtension: { '.js': '.cjs' },
  // pm's own code and the packages bundled with it, minified (shorter names, simpler syntax): a
  // third less text for every run to read, and fewer instructions to deserialize its code cache
  // (2.4% of a list's). No code of pm's reads a function's or a class's own name (errors set
  // theirs); stack traces go through the source map (--debug). The chunks keep their names: the
  // build checks undici's text below.
  minifyIdentifiers: true,
  minifySyntax: true,
  // Loaded by Node itself from node_modules: native or WebAssembly code, and big packages few
  // commands use.
  // better-sqlite3's JavaScript is bundled (compiled with the rest, from the code cache); its
  // compiled part (.node) is loaded by path (src/server/db.ts).
  // chrono-node (dates in words) stays out too: few runs read one. pm serve's access log and
  // metrics (pino, prom-client) are loaded when it starts.
  external: ['jq-web', 'typescript', 'cosmiconfig', 'cli-progress', 'pg', 'pg-copy-streams', 'chrono-node', 'pino', 'prom-client'],
  plugins: [vendorChunks, lazyChalk, lazyRequires, lighterPackages],
});

if (/\bassert\d*\.\w+\(/.test(await readFile('dist/bundle/vendor/undici.cjs', 'latin1'))) {
  process.stderr.write('build: undici uses more of node:assert than assert(value): see undiciLighter\n');
  process.exit(1);
}

// bin/pm reads the bundle and its chunks as latin1, which is the same text only while it is ASCII
// (esbuild escapes what is not, in strings; comments are gone).
for (const file of ['pm.cjs', ...Object.keys(CHUNKS).map((name) => `vendor/${name}.cjs`)]) {
  const bytes = await readFile(join('dist/bundle', file));
  const wide = bytes.findIndex((byte) => byte > 0x7f);
  if (wide !== -1) {
    process.stderr.write(`build: dist/bundle/${file} is not ASCII at byte ${wide}: bin/pm reads it as latin1\n`);
    process.exit(1);
  }
}

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
