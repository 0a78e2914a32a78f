#!/bin/bash
# make sweep (and make check, after the sanitizer build): every real
# recording through the front command, whole and cut short, on the
# programs of ARGUS_BIN (build-san/bin: AddressSanitizer and UBSan), and
# no crash anywhere (docs/reliability.md, "The real-trace sweep").
#
#   scripts/sweep.sh [TRACE...]
#
# The traces: each fixtures/real/*/hang.txt.gz and normal.txt.gz (the
# other of the pair is its baseline), the fixtures/demo pair, each
# fixtures/diagnose NAME.bug.jsonl and NAME.base.jsonl pair, and every
# file of ../shared/traces but its README (when the folder is there; read
# in place, never copied into the project; each its own baseline). Named
# on the command line instead: those traces only, each its own baseline.
# A new fixtures/real folder is swept as soon as it is there.
#
# Each trace whole, then cut: the last third of its lines (a trace that
# starts mid-activity, as a ring buffer that overwrote its start), and
# its first third of bytes (a recording stopped early, ending in the
# middle of a line). Each case:
#
#   argus graph T
#   argus diagnose T
#   argus diagnose --hang 500 --keep F T
#   argus diagnose --baseline B --html P T  (B: the pair's other run, whole)
#   argus export --output-format perfetto|dot|html F
#   argus-watch --replay T (the hangs found as if live, each diagnosed)
#
# (That argus graph --no-chain, the stages as separate programs, gives
# the same bytes: tests/chain.bats, on every real recording.)
#
# A command fails the sweep when it reports a sanitizer error, is killed
# by a signal or runs past SWEEP_TIMEOUT (300 s), or exits with a status
# the programs do not give for such input (docs/stream-format.md, "Exit
# status"): graph 0 or 65, diagnose 0, 1 or 65, export 0, 1 or 65; a 65
# must come with one line, `PROGRAM: WHERE: what`; a whole recording
# must make a graph (0); argus-watch 0 or 65. Each failure is printed with its command, how to
# make its input again, its status and the first lines of its messages;
# the work folder is then kept for a look.
#
# SWEEP_CUTS=0: the whole traces only. Cases (a trace whole or one cut)
# run SWEEP_JOBS (2) at a time, each with its own folder. Time: see
# docs/reliability.md ("The real-trace sweep"); it is mostly the
# sanitized programs' start-up and the LeakSanitizer check at their exit
# (whole traces only: SWEEP_LEAKS=all for every case).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${ARGUS_BIN:-$top/build-san/bin}
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
self=$top/scripts/sweep.sh
timeout_s=${SWEEP_TIMEOUT:-300}
# a sanitizer's report ends the program (its exit status may be 1, which
# argus diagnose also gives): the report on stderr is what is looked for
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1"

# check CASE_DIR ALLOWED WHOLE LABEL CMD...: runs CMD (stdout to
# CASE_DIR/out, stderr to CASE_DIR/err) and appends a failure to
# CASE_DIR/failures when it crashed or exited otherwise than ALLOWED
# (a space-separated list).
check() {
    local d=$1 allowed=$2 whole=$3 label=$4 st=0 why=""
    shift 4
    timeout -k 10 "$timeout_s" "$@" > "$d/out" 2> "$d/err" || st=$?
    if grep -q -E 'ERROR: (Address|Leak|Memory|Thread)Sanitizer|runtime error:|SUMMARY: [A-Za-z]*Sanitizer' "$d/err"; then
        why="sanitizer report"
    elif [ "$st" = 124 ] || [ "$st" = 137 ]; then
        why="ran past ${timeout_s} s"
    elif [ "$st" -ge 128 ]; then
        why="killed by signal $((st - 128))"
    elif [ "$whole" = 1 ] && [ "$label" = graph ] && [ "$st" != 0 ]; then
        why="a whole recording made no graph"
    elif [[ " $allowed " != *" $st "* ]]; then
        why="exit status $st (allowed: $allowed)"
    elif [ "$st" = 65 ] && { [ "$(wc -l < "$d/err")" != 1 ] ||
        ! grep -q -E '^argus[-a-z ]*: [^ ].*: [^ ]' "$d/err"; }; then
        why="exit 65 without one line PROGRAM: WHERE: what"
    fi
    [ -z "$why" ] && return 0
    local cmd="$*"
    cmd=${cmd//"$bin"\//}
    cmd=${cmd//"$d"\//}
    {
        echo "FAIL: $why: $cmd"
        echo "  input: $(cat "$d/input")"
        echo "  status $st; stderr (first 25 lines):"
        head -25 "$d/err" | sed 's/^/    /'
    } >> "$d/failures"
    return 1
}

# run_case CASE_DIR SOURCE BASELINE CUT MAKE: every command on one trace,
# SOURCE whole or cut (CUT: whole, tail or bytes); MAKE says how
# SOURCE is made from the repository's file.
run_case() {
    local d=$1 src=$2 b=$3 cut=$4 make_it=$5 t whole=0 f lines n off bytes
    t=$d/trace
    mkdir -p "$d"
    cd "$d" || exit 1
    case $cut in
        whole) t=$src whole=1
            echo "$make_it (whole)" > input ;;
        tail) lines=$(wc -l < "$src") n=$((lines / 3))
            tail -n "$n" "$src" > trace
            echo "$make_it | tail -n $n (the last third of its $lines lines)" > input ;;
        bytes) bytes=$(wc -c < "$src") off=$((bytes / 3))
            # moved on while it would end at a line's end: mid-line
            while [ "$off" -gt 1 ] && [ "$off" -lt "$bytes" ] &&
                [ "$(tail -c +"$off" "$src" | head -c 1 | od -An -tx1 | tr -d ' ')" = 0a ]; do
                off=$((off + 1))
            done
            head -c "$off" "$src" > trace
            echo "$make_it | head -c $off (a third of its $bytes bytes, mid-line)" > input ;;
    esac
    # LeakSanitizer's check at each exit triples the time of a small run:
    # whole recordings only, unless SWEEP_LEAKS=all
    [ $whole = 1 ] || [ "${SWEEP_LEAKS-}" = all ] || export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
    : > failures
    check "$d" "0 65" $whole graph "$bin/argus" graph "$t" || true
    check "$d" "0 1 65" $whole diagnose "$bin/argus" diagnose "$t" || true
    check "$d" "0 1 65" $whole diagnose-hang "$bin/argus" diagnose --hang 500 --keep findings.argus "$t" || true
    check "$d" "0 1 65" $whole diagnose-baseline "$bin/argus" diagnose --baseline "$b" --html page.html "$t" || true
    # the exports, of the findings (the graph with them)
    if [ -s findings.argus ]; then
        for f in perfetto dot html; do
            check "$d" "0 1 65" $whole export "$bin/argus" export --output-format $f findings.argus || true
        done
    fi
    check "$d" "0 65" $whole watch "$bin/argus-watch" -q --no-notify --replay "$t" --dir hangs || true
    # what a case leaves is small: its failures and how its input was made
    rm -rf out err findings.argus page.html hangs
    [ -s failures ] || rm -f trace
    : > finished
}

if [ "${1-}" = --case ]; then # one case, as xargs runs it
    run_case "$2" "$3" "$4" "$5" "$6"
    exit 0
fi

for p in argus argus-chain argus-analyze argus-export argus-watch; do
    [ -x "$bin/$p" ] || { echo "sweep: no $bin/$p (make san-programs, or set ARGUS_BIN)" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/argus-sweep.XXXXXX")
keep=0
trap '[ $keep = 1 ] || rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$work/in" "$work/cases"

# The traces, as lines TRACE<TAB>BASELINE<TAB>NAME.
list="$work/traces"
: > "$list"
if [ $# -gt 0 ]; then
    for t in "$@"; do
        [ -f "$t" ] || { echo "sweep: $t: no such file" >&2; exit 2; }
        printf '%s\t%s\t%s\n' "$(realpath -- "$t")" "$(realpath -- "$t")" "$t" >> "$list"
    done
else
    for dir in "$top"/fixtures/real/*/; do
        dir=${dir%/}
        [ -e "$dir/hang.txt.gz" ] && [ -e "$dir/normal.txt.gz" ] || continue
        n=${dir#"$top"/}
        printf '%s\t%s\t%s\n' "$dir/hang.txt.gz" "$dir/normal.txt.gz" "$n/hang.txt.gz" \
            "$dir/normal.txt.gz" "$dir/hang.txt.gz" "$n/normal.txt.gz" >> "$list"
    done
    printf '%s\t%s\t%s\n' "$top/fixtures/demo/hang.jsonl" "$top/fixtures/demo/normal.jsonl" \
        fixtures/demo/hang.jsonl "$top/fixtures/demo/normal.jsonl" \
        "$top/fixtures/demo/hang.jsonl" fixtures/demo/normal.jsonl >> "$list"
    for bug in "$top"/fixtures/diagnose/*.bug.jsonl; do
        base=${bug%.bug.jsonl}.base.jsonl
        [ -e "$base" ] || continue
        printf '%s\t%s\t%s\n' "$bug" "$base" "${bug#"$top"/}" \
            "$base" "$bug" "${base#"$top"/}" >> "$list"
    done
    shared=$top/../shared/traces
    if [ -d "$shared" ]; then
        for t in "$shared"/*; do
            [ -f "$t" ] && [ "${t##*/}" != README.md ] || continue
            printf '%s\t%s\t%s\n' "$t" "$t" "../shared/traces/${t##*/}" >> "$list"
        done
    else
        echo "sweep: no ../shared/traces here: its traces skipped"
    fi
fi

# The cases: each trace whole and in two cuts (SWEEP_CUTS=0: whole),
# each cut made by its case, in its folder.
ntraces=0
cases="$work/case-list"
: > "$cases"
cuts="whole tail bytes"
[ "${SWEEP_CUTS:-1}" = 1 ] || cuts=whole
while IFS=$'\t' read -r t b name; do
    ntraces=$((ntraces + 1))
    k=$ntraces
    src=$t
    make_it="$name"
    # gzip: decompressed once, in the work folder (argus reads text)
    case $t in *.gz)
        src=$work/in/$k.txt
        gzip -dc "$t" > "$src" || { echo "sweep: $t: cannot decompress" >&2; exit 2; }
        make_it="gzip -dc $name" ;;
    esac
    case $b in *.gz)
        gzip -dc "$b" > "$work/in/$k.base.txt" || exit 2
        b=$work/in/$k.base.txt ;;
    esac
    for cut in $cuts; do
        printf '%s\0%s\0%s\0%s\0%s\0' "$work/cases/$k.$cut" "$src" "$b" "$cut" "$make_it" >> "$cases"
    done
done < "$list"
ncases=$((ntraces * $(echo $cuts | wc -w)))

echo "sweep: $ntraces traces, $ncases cases, on $bin, ${SWEEP_JOBS:-2} at a time"
start=$(date +%s)
xargs -0 -n 5 -P "${SWEEP_JOBS:-2}" "$self" --case < "$cases"
secs=$(($(date +%s) - start))
# the CPU time of the cases (user and system, as bash's times says it)
times > "$work/times"
cpu=$(tail -1 "$work/times")

failed=0
while IFS= read -r -d '' d && IFS= read -r -d '' _ && IFS= read -r -d '' _ &&
    IFS= read -r -d '' _ && IFS= read -r -d '' _; do
    if [ ! -e "$d/finished" ]; then
        echo "FAIL: the case $d did not finish (the sweep's own error above)"
        failed=$((failed + 1))
    elif [ -s "$d/failures" ]; then
        cat "$d/failures"
        failed=$((failed + $(grep -c '^FAIL' "$d/failures")))
    fi
done < "$cases"
if [ "$failed" -gt 0 ]; then
    keep=1
    echo "sweep: $failed failures in $ncases cases ($secs s; CPU $cpu); the cases are in $work/cases"
    exit 1
fi
echo "sweep: $ncases cases, no crash ($secs s of wall time; CPU user and system $cpu)"
