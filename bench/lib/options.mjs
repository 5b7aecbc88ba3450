/**
 * The bench's arguments (--quick, --only, --check) and the sizes and rounds they imply.
 */
const USAGE = `usage: npm run bench -- [--quick] [--only N[,M...]] [--repeat N] [--check]

  --quick      fewer rounds and smaller sizes (a smoke check, not figures to quote)
  --only LIST  run only these figures (1-14, or scale for 7, pg-scale for 8, feed for 9, isolation for 10, files for 11, feed-load for 12, sharing for 13, against for 14), e.g. --only 1,4
  --repeat N   figures 7 and 8: measure each size N times in a row, pm serve started afresh each time
               (the seeded stores kept), every row once a run
  --against DIR  figure 14 (--only against): another checkout of pm, built (npm run build),
               whose pm serve this build's is timed beside at 1,000 records
  --check      exit 1 when a figure misses its target
  --help       this text

Figures: 1 start-up (--version, --help), 2 list against pm serve, 3 list, get and create on the
embedded default, 4 bulk create, 5 list --all (time and peak RSS), 6 server requests/second (autocannon),
7 scale (not in the default run: --only scale): requests at 10k, 100k and 1M properties of one
  account beside 1,000 of another, and the counting lists against their count and page by hand,
8 the same on PostgreSQL (--only pg-scale; needs initdb, pg_ctl and postgres on PATH),
9 calendar feed polls/second: 304s and a full feed of 1,000 reminders vs GET /reminders?per_page=100,
10 search isolation (not in the default run: --only isolation): a search's cost while another
  account holds 200,000 matches, against one nobody matches.
11 files (not in the default run: --only files; PostgreSQL's half needs initdb on PATH): a 256 MiB
  attachment uploaded and downloaded by pm through pm serve on SQLite and on PostgreSQL, against
  curl and a plain node:http server writing to a file; the peak RSS of pm and of pm serve.
12 large calendar feeds (not in the default run: --only feed-load): eight clients read the feed of
  an account of 5,000 reminders of 64 KB at once; another account's GET p99 beside its p99 alone,
  pm serve's RSS growth, and how long SIGTERM takes with a 2 s grace while they are written.
13 files shared (not in the default run: --only sharing; PostgreSQL's half needs initdb on PATH):
  another account's GET p99 alone and while one account runs 4 uploads of 100 MiB (SQLite) or 48
  downloads; pm serve's RSS with 64 downloads whose clients read nothing, and after (PostgreSQL).
14 this build against another (not in the default run: --only against --against DIR): each request
  kind of figure 7 at 1,000 properties, on this build's pm serve and the other's, in turns.`;

function parseArgs(argv) {
  const o = { quick: false, check: false, repeat: 1, against: undefined, only: [1, 2, 3, 4, 5, 6, 9] };
  const NAMES = {
    scale: 7,
    'pg-scale': 8,
    feed: 9,
    isolation: 10,
    files: 11,
    'feed-load': 12,
    sharing: 13,
    against: 14,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') o.quick = true;
    else if (a === '--check') o.check = true;
    else if (a === '--against' || a.startsWith('--against=')) {
      o.against = a === '--against' ? argv[++i] : a.slice('--against='.length);
      if (!o.against) usage('--against takes the folder of another checkout of pm, built');
    } else if (a === '--repeat' || a.startsWith('--repeat=')) {
      const v = a === '--repeat' ? argv[++i] : a.slice('--repeat='.length);
      if (!/^[1-9]$/.test(String(v ?? ''))) usage(`--repeat takes a number of runs from 1 to 9, not "${v ?? ''}"`);
      o.repeat = Number(v);
    } else if (a === '--help' || a === '-h') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    } else if (a === '--only' || a.startsWith('--only=')) {
      const v = a === '--only' ? argv[++i] : a.slice('--only='.length);
      const nums = String(v ?? '')
        .split(',')
        .map((s) => String(NAMES[s.trim()] ?? s.trim()))
        .filter(Boolean);
      if (!nums.length || nums.some((n) => !/^([1-9]|1[0-4])$/.test(n)))
        usage(
          `--only takes figure numbers 1-14 (or scale, pg-scale, feed, isolation, files, feed-load, sharing, against), not "${v ?? ''}"`,
        );
      o.only = [...new Set(nums.map(Number))].sort((a, b) => a - b);
    } else usage(`unknown argument "${a}"`);
  }
  return o;
}

function usage(msg) {
  process.stderr.write(`bench: ${msg}\n${USAGE}\n`);
  process.exit(2);
}

export const opts = parseArgs(process.argv.slice(2));

export const Q = opts.quick;

export const SIZES = {
  startupRounds: Q ? 8 : 30,
  listRounds: Q ? 6 : 40,
  smallProperties: 50,
  bulkRecords: Q ? 1_000 : 10_000,
  bulkRounds: Q ? 2 : 5,
  bulkConcurrency: 8,
  pageRecords: Q ? 10_000 : 100_000,
  pageRounds: Q ? 2 : 5,
  perPage: 100,
  serverProperties: 3_000,
  cannonSeconds: Q ? 2 : 5,
  cannonWarmupSeconds: Q ? 0.5 : 1,
  cannonRounds: Q ? 1 : 3,
  cannonConnections: 10,
  logSeconds: Q ? 1 : 2,
  logRounds: Q ? 1 : 8,
  scaleSizes: Q ? [10_000, 100_000] : [10_000, 100_000, 1_000_000],
  scaleRounds: Q ? 3 : 4,
  againstRounds: Q ? 4 : 40,
  repeat: opts.repeat,
  scaleRequests: Q ? 15 : 40,
  isolationMatches: Q ? 20_000 : 200_000,
  isolationRounds: Q ? 5 : 15,
  isolationRequests: 10,
  fileMiB: Q ? 32 : 256,
  fileRounds: Q ? 1 : 3,
  quick: Q,
};
