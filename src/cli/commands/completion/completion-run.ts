/** `pm completion <shell>`: the scripts, which call back into `pm __complete` (complete-run.ts). */
import type { Shell } from './limits.js';

export function completionScript(shell: Shell): string {
  return { bash: BASH, zsh: ZSH, fish: FISH }[shell];
}

const BASH = `# bash completion for pm                                  -*- shell-script -*-
# Load it in this shell with: source <(pm completion bash); add that line to ~/.bashrc to keep it.
# The candidates come from pm itself: pm __complete -- WORDS... prints them.

_pm() {
    local -a args=()
    local i w joined=0
    # Bash splits "--json=a,b" and "T09:30" at = and :, so put such words back together.
    for (( i = 1; i <= COMP_CWORD; i++ )); do
        w=\${COMP_WORDS[i]}
        if (( \${#args[@]} > 0 )) && { [[ $w == "=" || $w == ":" ]] || (( joined )); }; then
            args[\${#args[@]}-1]+=$w
            if [[ $w == "=" || $w == ":" ]]; then joined=1; else joined=0; fi
        else
            args+=("$w")
            joined=0
        fi
    done
    (( \${#args[@]} > 0 )) || args=("")
    local cur=\${args[\${#args[@]}-1]}
    # A word opened with a quote ("For L): pm completes what is inside; each candidate is quoted again.
    local q=
    if [[ $cur == [\\"\\']* ]]; then
        q=\${cur:0:1}
        cur=\${cur:1}
        args[\${#args[@]}-1]=$cur
    fi

    local pm=\${COMP_WORDS[0]}
    pm=\${pm/#\\~/$HOME}
    local out
    out=$("$pm" __complete -- "\${args[@]}" 2>/dev/null) || return 0

    # Bash replaces only the part of the word after the last = or : (when they break words).
    local pre=
    if [[ $cur == *[=:]* ]]; then
        local c=\${cur%"\${cur##*[=:]}"}
        c=\${c: -1}
        [[ $COMP_WORDBREAKS == *"$c"* ]] && pre=\${cur%"\${cur##*[=:]}"}
    fi

    COMPREPLY=()
    local directive= line safe='^[-A-Za-z0-9_.,:=@/+%]*$'
    while IFS= read -r line; do
        if [[ $line == :* ]]; then
            directive=\${line#:}
            continue
        fi
        line=\${line%%$'\\t'*}
        line=\${line#"$pre"}
        [[ -n $line ]] || continue
        # Bash inserts a candidate as it is: one with a space or a shell character (a label) is escaped.
        if [[ -n $q ]]; then
            line=$q$line$q
        elif [[ ! $line =~ $safe ]]; then
            printf -v line '%q' "$line"
        fi
        COMPREPLY+=("$line")
    done <<< "$out"

    if [[ $directive == *nospace* ]]; then compopt -o nospace 2>/dev/null; fi
    if [[ $directive == *files* ]]; then compopt -o default 2>/dev/null; COMPREPLY=(); fi
    return 0
}
complete -F _pm pm
`;

const ZSH = `#compdef pm
# zsh completion for pm.
# Load it in this shell with: source <(pm completion zsh) (after compinit), or save it as _pm in
# a directory of $fpath. The candidates come from pm itself: pm __complete -- WORDS... prints them.

_pm() {
    local -a args lines candidates
    local out line directive value desc
    args=("\${(@)words[2,CURRENT]}")
    out=$(\${~words[1]} __complete -- "\${args[@]}" 2>/dev/null) || return 1
    lines=("\${(@f)out}")
    for line in "\${lines[@]}"; do
        if [[ $line == :* ]]; then
            directive=\${line#:}
            continue
        fi
        [[ -z $line ]] && continue
        value=\${line%%$'\\t'*}
        value=\${value//:/\\\\:}
        if [[ $line == *$'\\t'* ]]; then
            desc=\${line#*$'\\t'}
            candidates+=("$value:$desc")
        else
            candidates+=("$value")
        fi
    done
    if [[ $directive == *files* ]]; then
        _files
        return
    fi
    (( \${#candidates} )) || return 1
    if [[ $directive == *nospace* ]]; then
        _describe -t values 'pm' candidates -S ''
    else
        _describe -t values 'pm' candidates
    fi
}

if [[ "\${funcstack[1]}" == _pm ]]; then
    _pm "$@"
else
    compdef _pm pm
fi
`;

const FISH = `# fish completion for pm.
# Load it in this shell with: pm completion fish | source; or save it as
# ~/.config/fish/completions/pm.fish. The candidates come from pm itself: pm __complete -- WORDS...

function __pm_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l out ($tokens[1] __complete -- $tokens[2..-1] "$cur" 2>/dev/null)
    or return
    set -l directive
    for line in $out
        if string match -q -- ':*' $line
            set directive (string sub -s 2 -- $line)
        else if test -n "$line"
            printf '%s\\n' $line
        end
    end
    if string match -q -- '*files*' "$directive"
        __fish_complete_path "$cur"
    end
end

complete -c pm -f -a '(__pm_complete)'
`;
