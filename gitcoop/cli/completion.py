"""Shell completion for `git coop` and `git-coop`: the scripts, and item ids on demand.

A script is made from the commands themselves when `git coop completion SHELL`
runs (the only time every command is built for it): their names and
summaries, options, and what each option's value and each argument is (one
of fixed words, an item id, a file, a git remote, or free text). The shell
completes all of that without starting gitcoop. Only item ids are asked for,
as `git coop __complete ids WORD`, which `cli/main.py` answers before typer
is even imported: two characters of an id name one fan-out directory of the
ledger, so only its items are read (fewer come from the read cache).

Under git: git's bash completion calls `_git_coop` for `git coop` (and loads
the file installed for `git-coop` to find it), zsh's calls `_git-coop`, and
fish's completes `git coop` as it completes `git-coop`. No ordinary command
pays for any of this: typer's own completion option stays off.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

ID_METAVARS = ("ID", "[ID]", "A", "B")
FILE_METAVARS = ("FILE",)
REMOTE_METAVARS = ("REMOTE", "[REMOTE]")
GLOBAL_OPTIONS = ("--color=", "--no-color", "-h")


@dataclass
class Spec:
    """One command (or group) as a shell sees it."""

    path: str  # "list", "remote setup"; "" for git coop itself
    summary: str = ""
    commands: list[tuple[str, str]] = field(default_factory=list)  # (name, summary) of a group
    options: list[tuple[list[str], str, str | None]] = field(default_factory=list)
    arguments: list[str] = field(default_factory=list)  # the kind of each positional argument


def complete(args: list[str]) -> int:
    """`__complete ids [--describe|--zsh] WORD`: matching ids, one a line (with their titles
    after a tab, or as zsh's `_describe` reads them); silent on any failure."""
    form = next((a for a in args if a in ("--describe", "--zsh")), "")
    describe = bool(form)
    words = [a for a in args if a not in ("--describe", "--zsh")]
    if words[:1] != ["ids"]:
        return 0
    try:
        from gitcoop.cli.invocation import make_context
        from gitcoop.service.search import completions

        found = completions(make_context(), words[1] if len(words) > 1 else "", describe)
    except Exception:  # a completion never prints an error into the command line being typed
        return 0
    from gitcoop.cli.terminal import printable

    for label, title in found:
        shown = printable(title)
        if form == "--zsh":
            line = label + ":" + shown.replace("\\", "\\\\").replace(":", "\\:")
        else:
            line = f"{label}\t{shown}" if describe else label
        sys.stdout.write(line + "\n")
    return 0


def script(shell: str, app: Any) -> str:
    """The completion script of `app` (every command built) for a shell."""
    specs = specs_of_commands(app)
    return {"bash": bash, "zsh": zsh, "fish": fish}[shell](specs)


def specs_of_commands(app: Any) -> list[Spec]:
    from gitcoop.cli.compact import command
    from gitcoop.cli.helptext import restore_argument_help

    root = command(app)
    restore_argument_help(root)
    found: list[Spec] = []
    _walk(root, "", found)
    return found


def _walk(command: Any, path: str, found: list[Spec]) -> None:
    from gitcoop.cli.helptext import summary

    spec = Spec(path, summary(command) if path else "")
    found.append(spec)
    subcommands = getattr(command, "commands", None)
    if subcommands is not None:
        for name, inner in subcommands.items():
            if not inner.hidden:
                spec.commands.append((name, summary(inner)))
                _walk(inner, f"{path} {name}".strip(), found)
        return
    for param in command.params:
        if getattr(param, "hidden", False):
            continue
        if param.param_type_name == "argument":
            spec.arguments.append(_kind(param))
        else:
            value = None if param.is_flag else _kind(param)
            spec.options.append(([*param.opts, *param.secondary_opts], param.help or "", value))


def _kind(param: Any) -> str:
    """What a value is: `=a,b` (one of these words), id, file, remote, or `-` (free text)."""
    choices = getattr(param.type, "choices", None)
    if choices:
        return "=" + ",".join(str(c) for c in choices)
    metavar = param.metavar or ""
    if metavar in ID_METAVARS:
        return "id"
    if metavar in FILE_METAVARS:
        return "file"
    if metavar in REMOTE_METAVARS:
        return "remote"
    return "-"


# -- bash --------------------------------------------------------------------------------

BASH = r"""# bash completion for git coop and git-coop; made by: git coop completion bash
# Install: git coop completion bash > ~/.local/share/bash-completion/completions/git-coop
# (bash-completion then loads it for git-coop, and git's own completion for git coop)

__git_coop_commands() {
    case "$1" in
%(commands)s
    esac
}

__git_coop_options() {
    case "$1" in
%(options)s
    esac
}

__git_coop_option_value() {
    case "$1 $2" in
%(values)s
    esac
}

__git_coop_arguments() {
    case "$1" in
%(arguments)s
    esac
}

# __git_coop_value KIND WORD: COMPREPLY for a value of this kind
__git_coop_value() {
    local IFS=$'\n'
    case "$1" in
        id) COMPREPLY=($(compgen -W "$(git coop __complete ids "$2" 2>/dev/null)" -- "$2")) ;;
        file) COMPREPLY=($(compgen -f -- "$2")) ;;
        remote) COMPREPLY=($(compgen -W "$(git remote 2>/dev/null)" -- "$2")) ;;
        =*) local words="${1#=}"; COMPREPLY=($(compgen -W "${words//,/$'\n'}" -- "$2")) ;;
        *) COMPREPLY=() ;;
    esac
}

# __git_coop_reply WORD...: COMPREPLY for the last word; the others are those after `coop`
__git_coop_reply() {
    local n=$(($# - 1)) cur="${!#}" path="" position=0 value="" word i
    local -a words=("${@:1:n}")
    for ((i = 0; i < n; i++)); do
        word="${words[i]}"
        if [[ -n "$value" ]]; then value=""; continue; fi
        case "$word" in
            -*=*) ;;
            -*) value="$(__git_coop_option_value "$path" "$word")" ;;
            *)
                if [[ $position -eq 0 && " $(__git_coop_commands "$path") " == *" $word "* ]]; then
                    path="${path:+$path }$word"
                else
                    position=$((position + 1))
                fi
                ;;
        esac
    done
    if [[ -n "$value" ]]; then
        __git_coop_value "$value" "$cur"
    elif [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$(__git_coop_options "$path") %(global)s" -- "$cur"))
    elif [[ $position -eq 0 && -n "$(__git_coop_commands "$path")" ]]; then
        COMPREPLY=($(compgen -W "$(__git_coop_commands "$path")" -- "$cur"))
    else
        local -a kinds=($(__git_coop_arguments "$path"))
        __git_coop_value "${kinds[position]}" "$cur"
    fi
}

# git coop ...: git's completion calls _git_coop
_git_coop() {
    local i start=0
    for ((i = 1; i < COMP_CWORD; i++)); do
        if [[ "${COMP_WORDS[i]}" == coop ]]; then start=$((i + 1)); break; fi
    done
    [[ $start -eq 0 ]] && return
    __git_coop_reply "${COMP_WORDS[@]:start:COMP_CWORD-start}" "${COMP_WORDS[COMP_CWORD]}"
    COMPREPLY=("${COMPREPLY[@]/%%/ }")  # git completes with -o nospace: a word ends here
}

# git-coop ...
__git_coop_main() {
    __git_coop_reply "${COMP_WORDS[@]:1:COMP_CWORD-1}" "${COMP_WORDS[COMP_CWORD]}"
}

complete -F __git_coop_main git-coop
"""


def bash(specs: list[Spec]) -> str:
    commands: list[str] = []
    options: list[str] = []
    values: list[str] = []
    arguments: list[str] = []
    for spec in specs:
        key = _bash_word(spec.path)
        if spec.commands:
            words = " ".join(name for name, _ in spec.commands)
            commands.append(f"        {key}) echo {_bash_word(words)} ;;")
            continue
        flags = " ".join(flag for names, _, _ in spec.options for flag in names)
        options.append(f"        {key}) echo {_bash_word(flags)} ;;")
        for names, _, value in spec.options:
            if value is not None:
                keys = "|".join(_bash_word(f"{spec.path} {name}") for name in names)
                values.append(f"        {keys}) echo {_bash_word(value)} ;;")
        if spec.arguments:
            arguments.append(f"        {key}) echo {_bash_word(' '.join(spec.arguments))} ;;")
    return BASH % {
        "commands": "\n".join(commands),
        "options": "\n".join(options),
        "values": "\n".join(values),
        "arguments": "\n".join(arguments),
        "global": " ".join(GLOBAL_OPTIONS),
    }


def _bash_word(text: str) -> str:
    return _quote(text)


# -- zsh ---------------------------------------------------------------------------------

ZSH_HEAD = """#compdef git-coop
# zsh completion for git coop and git-coop; made by: git coop completion zsh
# Install: git coop completion zsh > ~/.zfunc/_git-coop, with ~/.zfunc on $fpath before
# compinit (zsh's git completion then completes git coop too)

__git_coop_ids() {
    local -a found
    found=(${(f)"$(git coop __complete ids --zsh "$PREFIX" 2>/dev/null)"})
    _describe -t ids 'item' found
}

__git_coop_remotes() {
    local -a found
    found=(${(f)"$(git remote 2>/dev/null)"})
    _describe -t remotes 'remote' found
}
"""
ZSH_TAIL = """
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
    _git-coop "$@"
else
    compdef _git-coop git-coop
fi
"""
ZSH_GROUP = """%(name)s() {
    local curcontext="$curcontext" state line
    local -a commands
    _arguments -C %(options)s'1: :->command' '*:: :->argument' && return
    case $state in
        command)
            commands=(%(described)s)
            _describe -t commands 'command' commands ;;
        argument)
            case $line[1] in
%(cases)s
            esac ;;
    esac
}
"""


def zsh(specs: list[Spec]) -> str:
    return "\n".join([ZSH_HEAD, *(_zsh_function(spec) for spec in specs), ZSH_TAIL])


def _zsh_name(path: str) -> str:
    return "_git-coop" if not path else "__git_coop_" + path.replace(" ", "_").replace("-", "_")


def _zsh_function(spec: Spec) -> str:
    name = _zsh_name(spec.path)
    if spec.commands:
        described = " ".join(_quote(f"{sub}:{_zsh_text(text)}") for sub, text in spec.commands)
        cases = "\n".join(
            f"                {sub}) {_zsh_name(f'{spec.path} {sub}'.strip())} ;;"
            for sub, _ in spec.commands
        )
        top = "'--color=[colour]:when:(auto always never)' '--no-color[no colour]' "
        options = top if not spec.path else ""
        fields = {"name": name, "options": options, "described": described, "cases": cases}
        return ZSH_GROUP % fields
    specs = [_zsh_option(names, text, value) for names, text, value in spec.options]
    specs += [
        _quote(f"{at}:{_zsh_value_name(kind)}:{_zsh_action(kind)}")
        for at, kind in enumerate(spec.arguments, 1)
    ]
    body = " \\\n        ".join(specs)
    return f"{name}() {{\n    _arguments -S \\\n        {body}\n}}\n"


def _zsh_option(names: list[str], text: str, value: str | None) -> str:
    after = "" if value is None else f":{_zsh_value_name(value)}:{_zsh_action(value)}"
    described = f"[{_zsh_text(text)}]{after}"
    if len(names) == 1:
        return _quote(names[0] + described)
    return _quote("(" + " ".join(names) + ")") + "{" + ",".join(names) + "}" + _quote(described)


def _zsh_value_name(kind: str) -> str:
    return {"id": "ID", "file": "FILE", "remote": "REMOTE", "-": "TEXT"}.get(kind, "value")


def _zsh_action(kind: str) -> str:
    if kind.startswith("="):
        return "(" + " ".join(kind[1:].split(",")) + ")"
    return {"id": "__git_coop_ids", "file": "_files", "remote": "__git_coop_remotes"}.get(kind, " ")


def _zsh_text(text: str) -> str:
    """Help text as _arguments and _describe take it: no brackets, colons or line breaks."""
    flat = " ".join(text.split())
    return flat.replace("[", "(").replace("]", ")").replace(":", " -").replace("\\", "/")


def _quote(text: str) -> str:
    """A single-quoted word for bash or zsh."""
    return "'" + text.replace("'", "'\\''") + "'"


# -- fish --------------------------------------------------------------------------------

FISH_HEAD = """# fish completion for git coop and git-coop; made by: git coop completion fish
# Install: git coop completion fish > ~/.config/fish/completions/git-coop.fish
# (fish's git completion completes git coop as it completes git-coop)

function __git_coop_words --description 'the words after coop (or git-coop) before the cursor'
    set -l after 0
    for word in (commandline -opc)
        if test $after = 1
            printf '%s\\n' $word
        else if test "$word" = coop; or string match -q -- '*git-coop' $word
            set after 1
        end
    end
end

function __git_coop_at --description 'whether the command typed so far is this one'
    set -l typed
    for word in (__git_coop_words)
        string match -q -- '-*' $word; and continue
        set -l here (string join ' ' -- $typed)
        if contains -- "$here" $__git_coop_groups
            set -a typed $word
        else
            break
        end
    end
    set -l here (string join ' ' -- $typed)
    test "$here" = "$argv[1]"
end

function __git_coop_ids
    git coop __complete ids --describe (commandline -ct) 2>/dev/null
end

complete -c git-coop -f
"""


def fish(specs: list[Spec]) -> str:
    groups = " ".join(_fish_quote(spec.path) for spec in specs if spec.commands)
    lines = [FISH_HEAD, f"set -g __git_coop_groups {groups}", ""]
    for spec in specs:
        at = "-n " + _fish_quote(f"__git_coop_at {_fish_quote(spec.path)}")
        for name, text in spec.commands:
            described = f"-d {_fish_quote(_short(text))}"
            lines.append(f"complete -c git-coop {at} -a {_fish_quote(name)} {described}")
        for names, text, value in spec.options:
            flags = " ".join(
                f"-l {name[2:]}" if name.startswith("--") else f"-s {name[1:]}" for name in names
            )
            values = "" if value is None else f" {_fish_option_value(value)}"
            described = f"-d {_fish_quote(_short(text))}"
            lines.append(f"complete -c git-coop {at} {flags}{values} {described}")
        for kind in sorted({kind for kind in spec.arguments if kind != "-"}):
            lines.append(f"complete -c git-coop {at} {_fish_values(kind)}")
    lines.append("complete -c git-coop -l color -x -a 'auto always never' -d 'When to colour'")
    lines.append("complete -c git-coop -l no-color -d 'Same as --color=never'")
    return "\n".join(lines) + "\n"


def _fish_option_value(kind: str) -> str:
    if kind == "file":
        return "-r -F"
    return "-x " + _fish_values(kind) if kind != "-" else "-x"


def _fish_values(kind: str) -> str:
    if kind.startswith("="):
        return "-a " + _fish_quote(" ".join(kind[1:].split(",")))
    return {
        "id": "-a '(__git_coop_ids)'",
        "file": "-F",
        "remote": "-a '(git remote 2>/dev/null)'",
    }.get(kind, "")


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= 70 else flat[:69] + "…"


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
