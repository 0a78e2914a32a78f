# bash completion for argus and its programs (installed as
# share/bash-completion/completions/argus, and linked as argus-STAGE):
# stages, their options (read from their --help) and formats.

_argus_stages() {
    local dir p seen=""
    dir=$(dirname "$(command -v argus 2>/dev/null || echo .)")
    for p in "$dir"/argus-* $(compgen -c argus- 2>/dev/null); do
        p=${p##*/}
        p=${p#argus-}
        [ "$p" != "*" ] || continue
        case " $seen " in *" $p "*) ;; *) seen="$seen $p" ;; esac
    done
    echo "$seen graph diagnose help"
}

# _argus_options PROGRAM ARGS...: the long options PROGRAM's --help names
_argus_options() {
    "$@" --help 2>/dev/null | grep -oE '(^|[ [,])--[a-z][a-z0-9-]*[a-z0-9]' | sed 's/^[ [,]*//' | sort -u
}

_argus_complete_stage() { # _argus_complete_stage CMD...: the words for CMD
    local cur=$1 prev=$2
    shift 2
    case $prev in
        -f|--format|--trace-format)
            COMPREPLY=($(compgen -W "argus jsonl kdebug trace-text ftrace tracedat perfdata ctf" -- "$cur"))
            return ;;
        --output-format)
            case "$*" in
                *export*) COMPREPLY=($(compgen -W "perfetto dot" -- "$cur")) ;;
                *) COMPREPLY=($(compgen -W "text markdown" -- "$cur")) ;;
            esac
            return ;;
        -S|--stage)
            COMPREPLY=($(compgen -W "decode cull-interrupts segment link-ipc link-dispatch link-flags link-wakeups" -- "${cur#\'}"))
            return ;;
        --hang|--beam|--depth|--choose|--max|--max-pending|--window|--around|--seg) return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_argus_options "$@")" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}

_argus() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    if [ "$COMP_CWORD" = 1 ]; then
        COMPREPLY=($(compgen -W "$(_argus_stages) --help --version" -- "$cur"))
        return
    fi
    local sub=${COMP_WORDS[1]}
    case $sub in
        help) return ;;
        graph|diagnose) _argus_complete_stage "$cur" "$prev" "${COMP_WORDS[0]}" "$sub" ;;
        *) _argus_complete_stage "$cur" "$prev" "argus-$sub" ;;
    esac
}

_argus_program() { # argus-STAGE typed directly
    _argus_complete_stage "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" "${COMP_WORDS[0]}"
}

complete -o filenames -F _argus argus
for _argus_p in $(_argus_stages); do
    case $_argus_p in
        graph|diagnose|help) ;;
        *) complete -o filenames -F _argus_program "argus-$_argus_p" ;;
    esac
done
unset _argus_p
