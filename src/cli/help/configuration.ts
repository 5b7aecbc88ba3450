/**
 * `pm help configuration`: where pm points and with which token, as src/cli/config.ts resolves
 * it; profiles; the config files and their keys (config-keys.ts); the environment, as `pm --help`
 * lists it (the one place the variables are written).
 */
import { keyNames, keysHelp } from '../config-keys.js';
import { ROOT_HELP } from './root.js';
import { section } from './text.js';

export function configurationTopic(): string {
  return `CONFIGURATION

pm needs two things: which server (a base URL) and a token for it. With neither configured it
uses the embedded default: the bundled server, run inside pm on a local SQLite file
($XDG_DATA_HOME/pm/pm.db, else ~/.local/share/pm/pm.db), with the token it wrote beside that
file. Nothing to set up; pm auth status says where the data is.

Precedence: settings belong to a profile, and the profile is chosen first (--profile, else
PM_PROFILE, else a project config's profile, else the user config's default_profile, else
"default"). Then, for each setting of that profile, the first that gives a value wins:
  1. flags             --base-url URL, --profile NAME (before or after the command)
  2. the environment   PM_BASE_URL, PM_TOKEN, PM_PROFILE
  3. a project config  found from the working directory up to your home directory or the
                       repository root, whichever comes first (outside both: the working
                       directory alone): a "pm" key in package.json, .pmrc, .pmrc.json,
                       .pmrc.yaml or .pmrc.yml. Executable configs (pm.config.js) are never
                       run, and a file others may write to is not read: both are warned of
  4. the user config   $XDG_CONFIG_HOME/pm/config.json, else ~/.config/pm/config.json
  5. the embedded default

  A file's top-level base_url and token are the profile "default"'s: with default_profile set in
  the user config, a project's top-level base_url does not apply (pm warns when that happens).

  A token is never taken as a flag. A token kept in a config file is sent only to that file's
  own base_url (or, when the file names none, to --base-url or PM_BASE_URL): a project's .pmrc
  cannot send your token elsewhere. PM_TOKEN is ignored when no base URL is configured.

  PM_TOKEN goes only to a server you named: --base-url, PM_BASE_URL or a base_url in the user
  config. A base URL that only a project config names (a cloned repository's .pmrc.json could
  name any server) does not get it: pm stops with exit 4 and says why. To send it there, name
  that server yourself: --base-url URL, PM_BASE_URL=URL, or the URL as a base_url in your user
  config (a profile of its own will do: pm --profile NAME config set base_url URL).

A config file
  {
    "default_profile": "work",
    "timeout": 30,
    "base_url": "https://pm.example.com",
    "profiles": {
      "work":    { "base_url": "https://pm.work.example", "timeout": 60 },
      "staging": { "base_url": "https://staging.pm.example" }
    }
  }

${keysHelp()}

Profiles
  pm --profile work properties list      this command only
  export PM_PROFILE=work                 this shell
  pm config set default_profile work     from now on
  An unknown profile is a usage error (exit 2) that lists the known ones. pm auth login and pm
  config set create a profile when given a new name.

Commands
  pm auth login --base-url URL     store a token (asked without echo, or --with-token from stdin)
  pm auth status                   which server, which profile, where the token comes from
  pm config list                   every setting and where it comes from
  pm config set KEY VALUE          change the user config: ${keyNames((k) => k.set).join(', ')}
  pm config path                   the config files pm reads

Environment
${section(ROOT_HELP, 'Environment:').join('\n')}

Examples:
  echo "$TOKEN" | pm auth login --base-url https://pm.example.com --with-token
  PM_BASE_URL=https://pm.example.com PM_TOKEN=$TOKEN pm reminders list
  pm --profile staging config set base_url https://staging.pm.example
  echo '{ "base_url": "https://pm.example.com" }' > .pmrc.json    # for everyone in this project
  pm auth status
`;
}
