#!/bin/bash
# make accuracy: argus diagnose on every scenario with a known truth, and
# one line each saying whether it found the right hang first and named the
# right culprit first (docs/accuracy.md).
#
#   scripts/accuracy.sh [SCENARIO_DIR...]
#
# Scenarios: each fixtures/real/NAME/ (real recordings: hang.txt.gz,
# normal.txt.gz, truth), diagnosed alone and against its normal run, with
# the default options and --proc (the truth's proc), and with no flag at
# all (shown, with whether similar matched the hang to a node of the
# normal run, in a second table; not counted); and each hand-written
# diagnosis fixture (fixtures/diagnose/NAME.truth beside NAME.bug.jsonl and
# NAME.base.jsonl, fixtures/demo/hang.truth), which are built for the
# baseline comparison: they count with their baseline, alone is shown.
#
# A truth file holds `hang=TID LABEL`, one or more `culprit=TID LABEL` (any
# is right), `proc=NAME` (real ones that need it), `hangs=N` (how many
# hangs there must be), `ending=WORD` and `why=TEXT`. Right hang: the
# truth's hang thread is the first hang reported (and there are N). Right culprit:
# that hang's first culprit is one of the truth's. A real scenario counts
# when both are right alone and with its baseline. The last line is
# "accuracy: N/M scenarios"; the exit status is 0 when every one is right.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
export PATH="$top/bin:$PATH"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/argus-accuracy.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

truth_field() { sed -n "s/^$1=//p" "$2" | head -1; }
truth_tids() { sed -n "s/^$1=\([0-9]*\).*/\1/p" "$2"; }

# judge FINDINGS TRUTH: "HANG CULPRIT FIRST_CULPRIT ENDING", HANG and
# CULPRIT "ok" or "WRONG"
judge() {
    local findings=$1 truth=$2 want_hang want_hangs nhangs cul first got tid end hang_ok=WRONG cul_ok=WRONG
    want_hang=$(truth_tids hang "$truth")
    want_hangs=$(truth_field hangs "$truth")
    first=$(argus-to-json "$findings" | jq -r 'select(.type == "hang" and .hang == 0) | .tid')
    nhangs=$(argus-to-json "$findings" | jq -s '[.[] | select(.type == "hang")] | length')
    [ "$first" = "$want_hang" ] && { [ -z "$want_hangs" ] || [ "$nhangs" = "$want_hangs" ]; } &&
        hang_ok=ok
    # the first culprit of the truth's hang, wherever it ranks
    read -r tid got < <(argus-to-json "$findings" | jq -r --argjson t "${want_hang:-0}" '
        (map(select(.type == "thread")) | map({key: (.tid | tostring),
            value: (.proc + "/" + (if .main then "main" else .name // "?" end))}) | from_entries) as $name
        | [.[] | select(.type == "hang" and .tid == $t)][0].hang as $h
        | [.[] | select(.type == "culprit" and .hang == $h and .rank == 1)][0]
        | if . == null then "- none" else "\(.tid) \($name[.tid | tostring])" end' --slurp)
    end=$(argus-to-json "$findings" | jq -r --argjson t "${want_hang:-0}" --slurp '
        [.[] | select(.type == "hang" and .tid == $t)][0].hang as $h
        | [.[] | select(.type == "wait_chain" and .hang == $h)][0].end // "-"')
    for cul in $(truth_tids culprit "$truth"); do
        [ "$tid" = "$cul" ] && cul_ok=ok
    done
    echo "$hang_ok $cul_ok ${got// /_} $end"
}

# run NAME MODE TRUTH TRACE [BASELINE]: diagnose, print the verdict words
run() {
    local name=$1 mode=$2 truth=$3 trace=$4 base=${5-} proc
    local -a opts=(--keep "$tmp/$name.$mode")
    proc=$(truth_field proc "$truth")
    [ -z "$proc" ] || [ "$mode" = noflag ] || opts+=(--proc "$proc")
    [ "$mode" = alone ] || [ "$mode" = noflag ] || opts+=(--baseline "$base")
    if ! argus diagnose "${opts[@]}" "$trace" > "$tmp/$name.$mode.report" 2> "$tmp/$name.$mode.err"; then
        echo "WRONG WRONG (no_hang) -"
        return
    fi
    judge "$tmp/$name.$mode" "$truth"
}

ok_of() { [[ $1 == "ok ok "* ]]; }

# watched NAME TRUTH TRACE [--proc]: the pids argus watch --replay reports
# in TRACE (with the truth's proc when --proc), space-separated
watched() {
    local name=$1 truth=$2 trace=$3 proc
    local -a opts=()
    proc=$(truth_field proc "$truth")
    [ -z "${4-}" ] || [ -z "$proc" ] || opts=(--proc "$proc")
    rm -rf "$tmp/$name.watch"
    argus-watch -q --no-notify "${opts[@]}" --replay "$trace" --dir "$tmp/$name.watch" 2> /dev/null |
        sed -n 's/.*  [^ ]* \[\([0-9]*\)\]  .*/\1/p' | tr '\n' ' '
}

# matched FINDINGS TRUTH: "yes" when similar matched the truth's hang to a
# node of the baseline (a match record of rank 1), else "no"
matched() {
    argus-to-json "$1" | jq -r --slurp --argjson t "$(truth_tids hang "$2" | head -1)" '
        [.[] | select(.type == "hang" and .tid == $t)][0].hang as $h
        | if [.[] | select(.type == "match" and .hang == $h and .rank == 1)] | length > 0
          then "yes" else "no" end' 2>/dev/null || echo no
}

show() { # show NAME ALONE BASELINE COUNTED
    local -a a=($2) b=($3)
    printf '%-22s %-5s %-5s %-34s %-9s | %-5s %-5s %-34s %-9s | %s\n' "$1" \
        "${a[@]}" "${b[@]}" "$4"
}

right=0 total=0 noflag_right=0 matched_n=0 real_n=0 extra=""
watch_right=0 watch_noflag=0 watch_false=0 watch_lines=""

dirs=("$@")
if [ ${#dirs[@]} = 0 ]; then
    dirs=("$top"/fixtures/real/*/ "$top"/fixtures/diagnose "$top"/fixtures/demo)
fi
printf '%-22s %-5s %-5s %-34s %-9s | %-5s %-5s %-34s %-9s | %s\n' scenario hang \
    culpr "alone: first culprit" "chain end" hang culpr "with its baseline: first culprit" \
    "chain end" right
for d in "${dirs[@]}"; do
    d=${d%/}
    if [ -f "$d/truth" ]; then      # a real recording
        name=real/$(basename "$d")
        mkdir -p "$tmp/real"
        gzip -dc "$d/hang.txt.gz" > "$tmp/$name.hang.txt"
        gzip -dc "$d/normal.txt.gz" > "$tmp/$name.normal.txt"
        a=$(run "$name" alone "$d/truth" "$tmp/$name.hang.txt")
        b=$(run "$name" baseline "$d/truth" "$tmp/$name.hang.txt" "$tmp/$name.normal.txt")
        n=$(run "$name" noflag "$d/truth" "$tmp/$name.hang.txt")
        m=$(matched "$tmp/$name.baseline" "$d/truth")
        verdict=no
        ok_of "$a" && ok_of "$b" && verdict=yes
        [ $verdict = yes ] || ! grep -q '^open=' "$d/truth" || verdict="no (open)"
        show "$name" "$a" "$b" "$verdict"
        total=$((total + 1))
        real_n=$((real_n + 1))
        [ "$verdict" != yes ] || right=$((right + 1))
        ok_of "$n" && noflag_right=$((noflag_right + 1))
        [ "$m" = yes ] && matched_n=$((matched_n + 1))
        extra+=$(printf '%-22s %-5s %-5s %-34s %-9s | %s' "$name" $n "$m")$'\n'
        # argus watch --replay: the truth's hang reported (with its proc),
        # the GUI ones with no flag, nothing in the normal run
        want=$(truth_tids hang "$d/truth" | head -1)
        w=$(watched "$name" "$d/truth" "$tmp/$name.hang.txt" --proc)
        wn=$(watched "$name" "$d/truth" "$tmp/$name.hang.txt")
        wb=$(watched "$name" "$d/truth" "$tmp/$name.normal.txt" --proc)
        [[ " $w" == *" $want "* ]] && watch_right=$((watch_right + 1))
        [[ " $wn" == *" $want "* ]] && watch_noflag=$((watch_noflag + 1))
        [ -z "$wb" ] || watch_false=$((watch_false + 1))
        watch_lines+=$(printf '%-22s %-18s %-18s %s' "$name" "${w:--}" "${wn:--}" "${wb:--}")$'\n'
        continue
    fi
    for truth in "$d"/*.truth; do   # hand-written
        [ -f "$truth" ] || continue
        name=$(basename "$d")/$(basename "$truth" .truth)
        bug=${truth%.truth}.bug.jsonl base=${truth%.truth}.base.jsonl
        [ -f "$bug" ] || { bug=${truth%.truth}.jsonl; base=$d/normal.jsonl; }
        mkdir -p "$tmp/$(basename "$d")"
        a=$(run "$name" alone "$truth" "$bug")
        b=$(run "$name" baseline "$truth" "$bug" "$base")
        verdict=no
        ok_of "$b" && verdict=yes
        show "$name" "$a" "$b" "$verdict (with its baseline)"
        total=$((total + 1))
        [ $verdict = no ] || right=$((right + 1))
    done
done
echo
printf '%-22s %-5s %-5s %-34s %-9s | %s\n' scenario hang culpr "no flag at all: first culprit" \
    "chain end" "baseline matched"
printf '%s' "$extra"
echo "no flag at all: $noflag_right/$real_n real scenarios; baseline matched: $matched_n/$real_n"
echo
printf '%-22s %-18s %-18s %s\n' scenario "watch (its proc)" "watch (no flag)" "watch (normal run)"
printf '%s' "$watch_lines"
echo "argus watch --replay: the hang reported in $watch_right/$real_n; with no flag in $watch_noflag/$real_n (it watches GUI programs only then); a report on $watch_false/$real_n normal runs"
echo "accuracy: $right/$total scenarios"
[ "$right" = "$total" ]
