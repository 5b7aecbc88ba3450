/** The text after the root help: where data lives, examples, environment, exit codes. */

export const ROOT_HELP = `
Nothing configured? pm runs on its embedded default: the bundled server on a local SQLite file
($XDG_DATA_HOME/pm/pm.db, else ~/.local/share/pm/pm.db), with the token it created. See
"pm auth status" for where the data lives and which server pm talks to.

Examples:
  pm properties create --address "1 High St" --postcode "LS1 1AA" --city Leeds
  pm properties list --city leeds --bedrooms 3
  pm reminders list --due-at P7D --json title,due_at
  uuid=$(pm reminders create --title "Gas check" --due-at 2026-12-01 -q)
  pm attachments upload gas-safety.pdf --property 3f2a9c1e

Learn more:
  pm <command> --help   a command's flags and examples (or: pm help <command>)
  pm help <topic>       dates, filters, output, input, configuration, exit-codes
  pm completion bash    tab completion for bash (also zsh, fish)

Environment:
  PM_BASE_URL     the API's base URL (default: the embedded default)
  PM_TOKEN        the API token (never pass a token as a flag)
  PM_PROFILE      the configuration profile to use
  PM_DATA_FILE    the embedded default's data file (default: XDG_DATA_HOME/pm/pm.db)
  PM_DEBUG        when "1", stack traces on errors (as --debug)
  HTTPS_PROXY     proxy for https requests (also HTTP_PROXY; NO_PROXY lists hosts to reach directly)
  NODE_EXTRA_CA_CERTS  a PEM file of extra certificate authorities to trust (TLS is always verified)
  PM_PAGER        the pager for long output on a terminal (else PAGER, else less -FRX; "cat": none)
  NO_COLOR        no colour; FORCE_COLOR=1 forces it
  CI              when "true" or "1", pm never prompts (as --no-input)
  XDG_CONFIG_HOME where the user config lives (pm/config.json)
  XDG_DATA_HOME   where the embedded default keeps its data (pm/pm.db)
  XDG_CACHE_HOME  caches: uuids for tab completion (pm/completion), compiled code (pm/v8)

Exit codes:
  0   success (an empty list too)
  1   the API refused the request or failed
  2   usage error: a flag or argument was wrong; nothing was sent
  3   not found
  4   authentication or permission
  5   could not reach the server, it timed out, or it is unavailable (502, 503, 504)
  130 interrupted
`;
