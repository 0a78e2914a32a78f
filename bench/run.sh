#!/usr/bin/env bash
# bench/run.sh: throughput and memory of the stream programs on synthetic
# traces from bench/gen (see bench/README.md, docs/performance.md).
#
# Run from anywhere as `make bench` or `bench/run.sh` once the programs are
# built. Progress goes to stderr; the Markdown report goes to stdout and to
# bench/out/results.md.
#
# Environment:
#   BENCH_SIZES  event counts to run (default "1000000 10000000")
#   BENCH_RUNS   runs per measurement, the best one is reported (default 3)
#   BENCH_SEED   seed for bench/gen (default 1)
#   BENCH_KDEBUG_MB  sizes in MB (10^6 bytes) of the kdebug RAW_VERSION1
#                files from bench/gen-kdebug that argus-decode --format
#                kdebug is timed on (default "200 2000"; empty: none)
#   BENCH_GRAPH_MB  sizes in MB of the kdebug files that \`argus graph\` is
#                timed on beside \`argus-decode\` (default "250";
#                empty: none); needs bench/gen-kdebug
#   BENCH_FTRACE_LINES  line counts of the Linux ftrace text files from
#                bench/gen-ftrace that argus-decode --format ftrace is timed
#                on (default "1000000 10000000"; empty: none)
#   BENCH_FTRACE_REAL  ftrace text files recorded on a real machine to time
#                too (default: none); for FILE.txt with a FILE.dat next to it
#                (trace-cmd extract of the same buffers), `trace-cmd report`
#                is timed on the .dat and the decoder on its text as well
#   BENCH_PERFDATA  perf.data files (.gz taken) to time argus-decode on,
#                against the ftrace decoder on the lines it renders from
#                them (bench/perfdata-text), and perf script (default:
#                fixtures/perfdata/hang.data.gz and the same half second
#                recorded with and without perf record -z, system-z.data.gz
#                and system.data.gz; empty: none)
#   BENCH_PERFETTO_LINES  line counts of bench/gen-ftrace text turned into
#                Perfetto traces by bench/gen-perfetto (plain events and
#                compact_sched), argus-decode timed on each and on the same
#                events as text (default "1000000"; empty: none)
#   BENCH_CTF_EVENTS  event counts of the CTF traces from bench/gen-ctf
#                that argus-decode DIR is timed on, beside the ftrace text of
#                the same events (default "1000000"; empty: none)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=bench/out
sizes=${BENCH_SIZES:-"1000000 10000000"}
runs=${BENCH_RUNS:-3}
seed=${BENCH_SEED:-1}
kdebug_sizes=${BENCH_KDEBUG_MB-"200 2000"}
graph_mb=${BENCH_GRAPH_MB-"250"}
ftrace_lines=${BENCH_FTRACE_LINES-"1000000 10000000"}
ftrace_real=${BENCH_FTRACE_REAL:-}
perfdata_files=${BENCH_PERFDATA-"fixtures/perfdata/hang.data.gz fixtures/perfdata/system-z.data.gz fixtures/perfdata/system.data.gz"}
perfetto_lines=${BENCH_PERFETTO_LINES-"1000000"}
ctf_events=${BENCH_CTF_EVENTS-"1000000"}

say() { printf '%s\n' "$*" >&2; }
die() { say "bench/run.sh: $*"; exit 1; }

[ -x /usr/bin/time ] || die "/usr/bin/time (GNU time) is needed: apt-get install time"
for p in bench/gen bin/argus-validate bin/argus-to-json; do
    [ -x "$p" ] || die "$p is not built: run 'make' first"
done
have_decode=true
if [ ! -x bin/argus-decode ]; then
    have_decode=false
    say "bin/argus-decode is not built: skipping the decode benchmark"
fi
# The kdebug benchmark needs the generator and a decoder that reads kdebug.
have_kdebug=false
if [ -n "$kdebug_sizes$graph_mb" ]; then
    if [ ! -x bench/gen-kdebug ]; then
        say "bench/gen-kdebug is not built: skipping the kdebug benchmark"
    elif ! $have_decode || [[ $(bin/argus-decode --help 2>&1) != *kdebug* ]]; then
        say "bin/argus-decode does not read kdebug: skipping the kdebug benchmark"
    else
        have_kdebug=true
    fi
fi
# The ftrace benchmark needs a decoder that reads ftrace text, and the
# generator for the synthetic files.
have_ftrace=false
if [ -n "$ftrace_lines$ftrace_real$perfdata_files" ]; then
    if ! $have_decode || [[ $(bin/argus-decode --help 2>&1) != *ftrace* ]]; then
        say "bin/argus-decode does not read ftrace: skipping the ftrace benchmark"
    elif [ -n "$ftrace_lines" ] && [ ! -x bench/gen-ftrace ]; then
        say "bench/gen-ftrace is not built: skipping the ftrace benchmark"
    else
        have_ftrace=true
    fi
fi
mkdir -p "$out"
# Other work on the machine skews the figures: say how busy it was.
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

# Minimum targets in million events per second (docs/performance.md).
declare -A target=([gen]=5 [argus-validate]=4 [argus-to-json]=1 [argus-decode]=1)
# The graph stages: each alone >= 3M events/s; argus graph (all seven
# stages, on two cores) <= 20 s for 10M events, i.e. >= 0.5M events/s.
graph_stages="cull-interrupts segment link-ipc link-dispatch link-flags link-wakeups"
for s in $graph_stages; do target[argus-$s]=3; done
target[argus graph]=0.5
# The analysis programs on a graph of N events: <= 10 s for 10M events.
for s in find-spinning similar diff analyze; do target[argus-$s]=1; done

label() { # 1000000 -> 1M
    if [ $(($1 % 1000000)) -eq 0 ]; then echo "$(($1 / 1000000))M"; else echo "$1"; fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rows=()
notes=()
export_rows=()
export_rss=()
failed=0

# measure NAME EVENTS BYTES CMD...: runs CMD $runs times with stdout to
# /dev/null under GNU time, and adds a table row with the fastest wall
# time and the largest peak RSS of the runs. GNU time's %e counts in
# 10 ms steps, 4% of a 1M-event validate run, so the wall time is taken
# from bash's microsecond clock around the same command (GNU time's own
# start-up, about a millisecond, included); %e is kept as a check.
#
# best_of_runs CMD...: runs CMD $runs times (stdout to /dev/null, stderr
# to $tmp/err) and sets best (the fastest wall time), cpu (user + system
# time of that run) and rss (the largest peak RSS, KB); returns CMD's
# status when a run fails. Every measure_* below times through it.
best_of_runs() {
    local i rc t0 t1 secs e u s kb
    best="" cpu="" rss=0
    for ((i = 1; i <= runs; i++)); do
        rc=0
        t0=$EPOCHREALTIME
        /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" || rc=$?
        t1=$EPOCHREALTIME
        [ "$rc" -eq 0 ] || return "$rc"
        read -r e u s kb <"$tmp/time"
        secs=$(awk -v a="$t0" -v b="$t1" -v e="$e" 'BEGIN {
            s = b - a
            if (s < e - 0.02 || s > e + 0.02) { print "clock mismatch" > "/dev/stderr" }
            printf "%.3f", s }')
        if [ -z "$best" ] || awk "BEGIN{exit !($secs < $best)}"; then
            best=$secs
            cpu=$(awk -v u="$u" -v s="$s" 'BEGIN {printf "%.2f", u + s}')
        fi
        [ "$kb" -gt "$rss" ] && rss=$kb
    done
    return 0
}

measure() {
    local name=$1 events=$2 bytes=$3 rc=0
    shift 3
    best_of_runs "$@" || rc=$?
    if [ "$rc" -ne 0 ]; then
        say "$name failed (exit $rc): $*"
        tail -5 "$tmp/err" >&2
        rows+=("| $name | $(label "$events") | | | | | | failed: exit $rc |")
        failed=1
        return
    fi
    say "  $name $(label "$events"): best ${best}s, peak RSS ${rss} KB"
    rows+=("$(awk -v n="$name" -v ev="$events" -v lab="$(label "$events")" \
        -v b="$bytes" -v s="$best" -v kb="$rss" -v t="${target[$name]:-0}" 'BEGIN {
            s0 = s > 0 ? s : 0.001
            rate = ev / s0 / 1e6
            verdict = rate >= t ? "met" : "MISSED"
            printf "| %s | %s | %.1f | %.3f | %.2f | %.0f | %.1f | >= %g: %s |",
                n, lab, b / 1e6, s, rate, b / 1e6 / s0, kb * 1024 / 1e6, t, verdict
        }')")
}

size_of() { stat -c %s "$1"; }

for n in $sizes; do
    lab=$(label "$n")
    cbor="$out/gen-$lab.argus"
    jsonl="$out/gen-$lab.jsonl"
    say "== $lab events"
    say "  generating $cbor"
    bench/gen -n "$n" -s "$seed" >"$cbor"
    summary=$(bin/argus-validate "$cbor") || die "bench/gen output fails validation: $summary"
    case "$summary" in
    *" $n events,"*) ;;
    *) die "bench/gen -n $n: validate counts other than $n events: $summary" ;;
    esac
    measure gen "$n" "$(size_of "$cbor")" bench/gen -n "$n" -s "$seed"
    measure argus-validate "$n" "$(size_of "$cbor")" bin/argus-validate "$cbor"
    measure argus-to-json "$n" "$(size_of "$cbor")" bin/argus-to-json "$cbor"
    for s in $graph_stages; do
        [ -x "bin/argus-$s" ] && measure "argus-$s" "$n" "$(size_of "$cbor")" "bin/argus-$s" "$cbor"
    done
    if [ -x bin/argus-link-wakeups ]; then
        measure "argus graph" "$n" "$(size_of "$cbor")" bin/argus graph "$cbor"
    fi
    if [ -x bin/argus-diff ] && [ -x bin/argus-similar ] && [ -x bin/argus-find-spinning ]; then
        # two runs of one workload: the trace and a baseline from the next seed
        graph="$out/graph-$lab.argus" base="$out/graph-$lab-baseline.argus"
        say "  building $graph and $base"
        bin/argus graph "$cbor" >"$graph"
        bench/gen -n "$n" -s $((seed + 1)) | bin/argus graph >"$base"
        measure argus-find-spinning "$n" "$(size_of "$graph")" bin/argus-find-spinning "$graph"
        bin/argus-find-spinning "$graph" >"$tmp/hangs"
        measure argus-similar "$n" "$(size_of "$tmp/hangs")" bin/argus-similar --in "$base" "$tmp/hangs"
        bin/argus-similar --in "$base" "$tmp/hangs" >"$tmp/similar"
        measure argus-diff "$n" "$(size_of "$tmp/similar")" bin/argus-diff --baseline "$base" "$tmp/similar"
        # the diagnosis half in one process, beside the pipe of
        # its four programs and one validate of the graph (CPU)
        if [ -x bin/argus-analyze ]; then
            measure argus-analyze "$n" "$(size_of "$graph")" bin/argus-analyze --baseline "$base" "$graph"
            analyze_cpu=$cpu
            best_of_runs bash -c "bin/argus-find-spinning '$graph' | bin/argus-similar --in '$base' \
                | bin/argus-diff --baseline '$base' | bin/argus-report" && pipe_cpu=$cpu
            # the yardstick is one validate of the graph itself (larger
            # than the generated stream: segments and edges)
            best_of_runs bin/argus-validate "$graph" && graph_validate_cpu=$cpu
            notes+=("$(awk -v lab="$lab" -v a="$analyze_cpu" -v p="$pipe_cpu" -v v="$graph_validate_cpu" 'BEGIN {
                printf "- %s: the diagnosis half with a baseline: argus-analyze %.2f s CPU, the pipe of find-spinning, similar, diff and report %.2f s, one argus-validate of the graph %.2f s: analyze / validate **%.1fx** (target <= 3x), pipe / validate %.1fx", lab, a, p, v, a / (v > 0 ? v : 0.01), p / (v > 0 ? v : 0.01) }')")
        fi
        # The whole Perfetto export streams: its peak RSS stays the same
        # from one size to the next (docs/performance.md, "The Perfetto export")
        if [ -x bin/argus-export ]; then
            if best_of_runs bin/argus-export --output-format perfetto "$graph"; then
                bin/argus-export --output-format perfetto "$graph" >"$tmp/export.json"
                say "  argus-export $lab: best ${best}s, peak RSS ${rss} KB"
                export_rss+=("$rss")
                export_rows+=("$(awk -v lab="$lab" -v ev="$n" -v b="$(size_of "$graph")" \
                    -v o="$(size_of "$tmp/export.json")" -v s="$best" -v c="$cpu" -v kb="$rss" 'BEGIN {
                    printf "| %s | %.1f | %.1f | %.3f | %.2f | %.2f | %.1f |", lab, b / 1e6, o / 1e6, s, c,
                        ev / (s > 0 ? s : 0.001) / 1e6, kb * 1024 / 1e6 }')")
                rm -f "$tmp/export.json"
            else
                say "argus-export failed on $graph"
                tail -5 "$tmp/err" >&2
                export_rows+=("| $lab | | | | | | failed |")
                failed=1
            fi
        fi
        notes+=("- $lab: find-spinning found $(bin/argus-find-spinning -v "$graph" 2>&1 >/dev/null | sed -n 's/.*hang nodes: //p' | head -1) hang nodes; similar and diff read the hang graph and a baseline graph of seed $((seed + 1)) (the baseline in a second thread).")
        rm -f "$graph" "$base"
    fi
    if $have_decode; then
        say "  rendering $jsonl"
        bin/argus-to-json "$cbor" >"$jsonl"
        measure argus-decode "$n" "$(size_of "$jsonl")" bin/argus-decode --format jsonl "$jsonl"
        # The contract: a rendered stream decodes back byte for byte.
        if bin/argus-decode --format jsonl "$jsonl" | cmp -s - "$cbor"; then
            notes+=("- $lab: \`argus-decode --format jsonl\` of the \`argus-to-json\` rendering gives back the generated stream byte for byte.")
        else
            notes+=("- $lab: **\`argus-decode --format jsonl\` of the \`argus-to-json\` rendering differs from the generated stream.**")
            failed=1
        fi
    fi
done

# ---- kdebug: argus-decode --format kdebug on RAW_VERSION1 files
# Target: >= 300 MB/s of input on one core, peak RSS flat in the file size.
kdebug_target=300
kdebug_rows=()
kdebug_notes=()
kdebug_rss=()

# events_offset FILE: where a RAW_VERSION1 file's records start,
# round_up(24 + 32 * thread_count, 4096).
events_offset() {
    local count
    count=$(od -An -t d4 -j 4 -N 4 "$1" | tr -d ' ')
    echo $(((24 + 32 * count + 4095) / 4096 * 4096))
}

# kdebug_file MB: bench/out/kdebug-MB.kdebug, written by bench/gen-kdebug
# unless one is there from the same command (kept in FILE.cmd) and from a
# generator no newer than it: one file per size, rewritten in place.
kdebug_file() {
    local mb=$1 f="$out/kdebug-$1MB.kdebug"
    local cmd="bench/gen-kdebug --size-mb $mb --seed $seed"
    if [ -f "$f" ] && [ -f "$f.cmd" ] && [ "$(cat "$f.cmd")" = "$cmd" ] &&
        [ ! bench/gen-kdebug -nt "$f" ]; then
        say "  reusing $f"
    else
        say "  generating $f: $cmd"
        rm -f "$f.cmd"
        local t0=$EPOCHREALTIME
        $cmd >"$f"
        say "  ($(awk -v a="$t0" -v b="$EPOCHREALTIME" -v mb="$mb" 'BEGIN {printf "%.1f s, %.0f MB/s", b - a, mb / (b - a)}'))"
        echo "$cmd" >"$f.cmd"
    fi
    echo "$f"
}

# measure_kdebug FILE: best wall time of $runs decodes of FILE to
# /dev/null, the largest peak RSS from GNU time (%M), and a table row.
measure_kdebug() {
    local f=$1 bytes records rc=0
    bytes=$(size_of "$f")
    records=$(((bytes - $(events_offset "$f")) / 64))
    best_of_runs bin/argus-decode --format kdebug "$f" || rc=$?
    if [ "$rc" -ne 0 ]; then
        say "argus-decode --format kdebug failed (exit $rc): $f"
        tail -5 "$tmp/err" >&2
        kdebug_rows+=("| $(basename "$f") | $(awk -v b="$bytes" 'BEGIN {printf "%.0f", b / 1e6}') | $records | | | | | failed: exit $rc |")
        failed=1
        return
    fi
    say "  argus-decode --format kdebug $(basename "$f"): best ${best}s, peak RSS ${rss} KB"
    kdebug_rss+=("$rss")
    kdebug_rows+=("$(awk -v n="$(basename "$f")" -v b="$bytes" -v r="$records" \
        -v s="$best" -v kb="$rss" -v t="$kdebug_target" 'BEGIN {
            s0 = s > 0 ? s : 0.001
            mbs = b / 1e6 / s0
            printf "| %s | %.0f | %d | %.3f | %.0f | %.2f | %.1f | >= %g MB/s: %s |",
                n, b / 1e6, r, s, mbs, r / s0 / 1e6, kb * 1024 / 1e6, t,
                (mbs >= t ? "met" : "MISSED")
        }')")
}

if $have_kdebug && [ -n "$kdebug_sizes" ]; then
    say "== kdebug"
    for mb in $kdebug_sizes; do
        f=$(kdebug_file "$mb")
        measure_kdebug "$f"
    done
    # What the smallest file decodes to, so that a fast decoder is also
    # seen to decode everything.
    small=$(printf '%s\n' $kdebug_sizes | sort -n | head -1)
    if summary=$(bin/argus-decode --format kdebug "$out/kdebug-${small}MB.kdebug" | bin/argus-validate -); then
        kdebug_notes+=("- kdebug-${small}MB.kdebug decodes to a valid stream: $summary")
    else
        kdebug_notes+=("- **kdebug-${small}MB.kdebug does not decode to a valid stream: $summary**")
        failed=1
    fi
    if [ ${#kdebug_rss[@]} -ge 2 ]; then
        kdebug_notes+=("$(printf '%s\n' "${kdebug_rss[@]}" | sort -n | awk '
            NR == 1 { lo = $1 } { hi = $1 }
            END { printf "- peak RSS from %.1f to %.1f MB over the file sizes (the largest %.2f times the smallest)", lo * 1024 / 1e6, hi * 1024 / 1e6, hi / lo }')")
    fi
fi

# ---- the graph beside its decoder: CPU of `argus graph K`
# against CPU of `argus-decode K` on one kdebug file, measured in turns
# (decode, graph, graph --no-chain, again) so that the machine's load
# falls on all three alike. Target: the graph <= 3x the decoder's CPU;
# a 2 GB file to a graph in <= 10 s wall on two cores.
graph_rows=()
# cpu_of CMD...: user + system seconds of CMD and its children, and its
# wall time and peak RSS, in the globals cpu, wall, rss.
cpu_of() {
    local t0=$EPOCHREALTIME e u s kb
    /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" ||
        { tail -5 "$tmp/err" >&2; return 1; }
    read -r e u s kb <"$tmp/time"
    cpu=$(awk -v u="$u" -v s="$s" 'BEGIN {printf "%.2f", u + s}')
    wall=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.2f", b - a}')
    rss=$kb
}
if $have_kdebug && [ -n "$graph_mb" ]; then
    say "== argus graph beside argus-decode"
    for mb in $graph_mb; do
        f=$(kdebug_file "$mb")
        best_dec="" best_graph="" best_sep="" wall_graph="" rss_graph=0
        for ((i = 1; i <= runs; i++)); do
            cpu_of bin/argus-decode --format kdebug "$f" || { failed=1; break; }
            { [ -z "$best_dec" ] || awk "BEGIN{exit !($cpu < $best_dec)}"; } && best_dec=$cpu
            cpu_of bin/argus graph --format kdebug "$f" || { failed=1; break; }
            if [ -z "$best_graph" ] || awk "BEGIN{exit !($cpu < $best_graph)}"; then
                best_graph=$cpu
            fi
            if [ -z "$wall_graph" ] || awk "BEGIN{exit !($wall < $wall_graph)}"; then
                wall_graph=$wall
            fi
            [ "$rss" -gt "$rss_graph" ] && rss_graph=$rss
            cpu_of bin/argus graph --no-chain --format kdebug "$f" || { failed=1; break; }
            { [ -z "$best_sep" ] || awk "BEGIN{exit !($cpu < $best_sep)}"; } && best_sep=$cpu
        done
        [ -n "$best_sep" ] || continue
        say "  $(basename "$f"): decode ${best_dec} s CPU, graph ${best_graph} s CPU (${wall_graph} s wall), --no-chain ${best_sep} s CPU"
        graph_rows+=("$(awk -v n="$(basename "$f")" -v d="$best_dec" -v g="$best_graph" \
            -v p="$best_sep" -v w="$wall_graph" -v mb="$mb" -v kb="$rss_graph" 'BEGIN {
                r = g / (d > 0 ? d : 0.01)
                printf "| %s | %.2f | %.2f | %.2f | **%.1fx** | %.1fx | %.2f | %.1f | <= 3x: %s |",
                    n, d, g, p, r, p / (d > 0 ? d : 0.01), w, kb * 1024 / 1e6,
                    (r <= 3 ? "met" : "MISSED")
            }')")
    done
fi

# ---- ftrace: argus-decode --format ftrace on Linux ftrace text
# Target: >= 1M lines/s on one core, peak RSS flat in the file size. Next
# to it, on the same files: floors that parse less (wc -l reads and finds
# the lines; mawk splits each line at ": " and counts the event names) and,
# for a real recording with its trace.dat, trace-cmd report.
ftrace_target=1
ftrace_rows=()
ftrace_notes=()
awk_floor=$(command -v mawk || command -v awk)

# ftrace_file LINES: bench/out/ftrace-LABEL.txt from bench/gen-ftrace,
# reused when it comes from the same command (FILE.cmd) and a generator no
# newer than it.
ftrace_file() {
    local n=$1 f="$out/ftrace-$(label "$1").txt"
    local cmd="bench/gen-ftrace --lines $n --seed $seed"
    if [ -f "$f" ] && [ -f "$f.cmd" ] && [ "$(cat "$f.cmd")" = "$cmd" ] &&
        [ ! bench/gen-ftrace -nt "$f" ]; then
        say "  reusing $f"
    else
        say "  generating $f: $cmd"
        rm -f "$f.cmd"
        $cmd >"$f"
        echo "$cmd" >"$f.cmd"
    fi
    echo "$f"
}

# measure_ftrace INPUT LINES PROGRAM CMD...: best wall time of $runs runs
# of CMD (stdout to /dev/null), its CPU time (user + system) in that run,
# the largest peak RSS, and a table row; the target applies to
# argus-decode only.
measure_ftrace() {
    local input=$1 lines=$2 prog=$3
    shift 3
    local bytes rc=0
    bytes=$(size_of "$input")
    best_of_runs "$@" || rc=$?
    if [ "$rc" -ne 0 ]; then
        say "$prog failed (exit $rc): $*"
        tail -5 "$tmp/err" >&2
        ftrace_rows+=("| $(basename "$input") | $lines | $prog | | | | | | failed: exit $rc |")
        [[ $prog == argus-decode* ]] && failed=1
        return
    fi
    say "  $prog $(basename "$input"): best ${best}s (CPU ${cpu}s), peak RSS ${rss} KB"
    ftrace_rows+=("$(awk -v inp="$(basename "$input")" -v n="$lines" -v p="$prog" -v b="$bytes" \
        -v s="$best" -v c="$cpu" -v kb="$rss" -v t="$ftrace_target" 'BEGIN {
            s0 = s > 0 ? s : 0.001
            rate = n / s0 / 1e6
            verdict = p ~ /^argus-decode/ ? sprintf(">= %g: %s", t, rate >= t ? "met" : "MISSED") : ""
            printf "| %s | %d | %s | %.0f | %.3f | %.2f | %.2f | %.0f | %.1f | %s |",
                inp, n, p, b / 1e6, s, c, rate, b / 1e6 / s0, kb * 1024 / 1e6, verdict
        }')")
}

# ftrace_floors FILE LINES: the two floors on FILE.
ftrace_floors() {
    measure_ftrace "$1" "$2" "wc -l (floor)" wc -l "$1"
    measure_ftrace "$1" "$2" "$(basename "$awk_floor") split (floor)" \
        "$awk_floor" -F': ' '{ n[$2]++ } END { for (e in n) print n[e], e }' "$1"
}

if $have_ftrace; then
    say "== ftrace"
    for n in $ftrace_lines; do
        f=$(ftrace_file "$n")
        measure_ftrace "$f" "$n" "argus-decode" bin/argus-decode --format ftrace "$f"
        ftrace_floors "$f" "$n"
    done
    for f in $ftrace_real; do
        [ -f "$f" ] || { say "BENCH_FTRACE_REAL: no such file: $f"; failed=1; continue; }
        n=$(grep -vc '^#' "$f")
        measure_ftrace "$f" "$n" "argus-decode" bin/argus-decode --format ftrace "$f"
        ftrace_floors "$f" "$n"
        dat=${f%.txt}.dat
        if [ "$dat" != "$f" ] && [ -f "$dat" ]; then
            if ! command -v trace-cmd >/dev/null; then
                ftrace_notes+=("- $(basename "$dat"): trace-cmd is not installed (apt-get install trace-cmd): not timed.")
                continue
            fi
            measure_ftrace "$dat" "$n" "trace-cmd report" trace-cmd report -i "$dat"
            # Its text, for the decoder: a buffer recorded with -B (or
            # extracted from an instance) prefixes each line with "NAME: ";
            # without it the text is that of a top-buffer recording.
            rep="$out/$(basename "${f%.txt}")-report.txt"
            trace-cmd report -i "$dat" 2>/dev/null >"$rep"
            prefix=$(sed -n '2s/^\([^ :]*\): .*/\1/p' "$rep")
            if [ -n "$prefix" ]; then
                sed -i "s/^$prefix: //" "$rep"
                ftrace_notes+=("- $(basename "$rep"): \`trace-cmd report -i $(basename "$dat")\` with the instance prefix \`$prefix: \` taken off each line (what a recording of the top buffer prints).")
            fi
            rn=$(grep -vc '^cpus=' "$rep")
            [ "$rn" -eq "$n" ] || ftrace_notes+=("- **$(basename "$rep") has $rn event lines, $(basename "$f") $n: not the same data.**")
            measure_ftrace "$rep" "$rn" "argus-decode (report text)" bin/argus-decode --format ftrace "$rep"
        fi
    done
    # perf.data (BENCH_PERFDATA): the decoder on the file against the text
    # decoder on the lines it renders (bench/perfdata-text), the same events
    for f in $perfdata_files; do
        [ -f "$f" ] || { say "BENCH_PERFDATA: no such file: $f"; failed=1; continue; }
        if [[ $f == *.gz ]]; then
            gunzip -c "$f" > "$out/$(basename "${f%.gz}")"
            f=$out/$(basename "${f%.gz}")
        fi
        rep="$out/$(basename "$f")-lines.txt"
        bench/perfdata-text "$f" > "$rep" || { say "bench/perfdata-text $f failed"; failed=1; continue; }
        n=$(grep -vc '^#' "$rep")
        measure_ftrace "$f" "$n" "argus-decode (perf.data)" bin/argus-decode --format perfdata "$f"
        measure_ftrace "$rep" "$n" "argus-decode (its ftrace lines)" bin/argus-decode --format ftrace "$rep"
        if command -v perf >/dev/null; then
            measure_ftrace "$f" "$n" "perf script" perf script -i "$f"
        fi
    done
    # Perfetto: the same events as text and as Perfetto traces (the text
    # keeps the lines gen-perfetto converts, so that the three decode to
    # one stream), the decoder timed on each.
    if [ -n "$perfetto_lines" ] && [ -x bench/gen-perfetto ]; then
        for n in $perfetto_lines; do
            src=$(ftrace_file "$n")
            txt="$out/perfetto-$(label "$n").txt"
            if [ ! -f "$txt" ] || [ "$src" -nt "$txt" ] || [ bench/gen-perfetto -nt "$txt" ]; then
                say "  making $txt and its Perfetto traces"
                grep -v -E ' (sched_stat_runtime|tick_stop|cpu_idle|sched_wake_idle_without_ipi|softirq_raise|sched_migrate_task): ' \
                    "$src" >"$txt"
                bench/gen-perfetto <"$txt" >"${txt%.txt}.pb" 2>/dev/null
                bench/gen-perfetto --compact <"$txt" >"${txt%.txt}-compact.pb" 2>/dev/null
            fi
            m=$(grep -vc '^#' "$txt")
            measure_ftrace "$txt" "$m" "argus-decode (text)" bin/argus-decode --format ftrace "$txt"
            measure_ftrace "${txt%.txt}.pb" "$m" "argus-decode (perfetto)" \
                bin/argus-decode --format perfetto "${txt%.txt}.pb"
            measure_ftrace "${txt%.txt}-compact.pb" "$m" "argus-decode (perfetto compact_sched)" \
                bin/argus-decode --format perfetto "${txt%.txt}-compact.pb"
            if cmp -s <(bin/argus-decode "$txt" | bin/argus-to-json | sed 1d) \
                      <(bin/argus-decode "${txt%.txt}.pb" | bin/argus-to-json | sed 1d); then
                ftrace_notes+=("- $(basename "$txt") and $(basename "${txt%.txt}.pb") (bench/gen-perfetto of it) decode to the same stream, header aside.")
            else
                ftrace_notes+=("- **$(basename "$txt") and $(basename "${txt%.txt}.pb") do not decode to the same stream.**")
            fi
        done
    fi
    # What the smallest file decodes to, so that a fast decoder is also seen
    # to decode everything.
    if [ -n "$ftrace_lines" ]; then
        small=$(printf '%s\n' $ftrace_lines | sort -n | head -1)
        f="$out/ftrace-$(label "$small").txt"
        if summary=$(bin/argus-decode --format ftrace "$f" | bin/argus-validate -); then
            ftrace_notes+=("- $(basename "$f") decodes to a valid stream: $summary")
        else
            ftrace_notes+=("- **$(basename "$f") does not decode to a valid stream: $summary**")
            failed=1
        fi
        counts=$(bin/argus-decode --format ftrace -v "$f" 2>&1 >/dev/null | tr '\n' ';' | sed 's/;$//; s/;/; /g')
        [ -z "$counts" ] || ftrace_notes+=("- \`argus-decode -v\` on $(basename "$f"): $counts")
    fi
fi

# ---- ctf: argus-decode DIR on a CTF trace (libbabeltrace2, each event
# rendered into its ftrace line, two passes) against the ftrace text
# decoder on the text of the same events: bench/gen-ctf writes both. Next
# to them, babeltrace2 reading the trace into its dummy sink (one pass of
# the library alone; the babeltrace2 command, when installed).
ctf_rows=()
ctf_notes=()
have_ctf=false
if [ -n "$ctf_events" ]; then
    if ! $have_decode || [[ $(bin/argus-decode --help 2>&1) != *ctf* ]]; then
        say "bin/argus-decode does not read CTF: skipping the ctf benchmark"
    elif [ ! -x bench/gen-ctf ]; then
        say "bench/gen-ctf is not built: skipping the ctf benchmark"
    else
        have_ctf=true
    fi
fi

# measure_ctf INPUT EVENTS PROGRAM CMD...: as measure_ftrace, into ctf_rows.
measure_ctf() {
    local input=$1 n=$2 prog=$3
    shift 3
    local bytes rc=0
    bytes=$(du -sb "$input" | cut -f1)
    best_of_runs "$@" || rc=$?
    if [ "$rc" -ne 0 ]; then
        say "$prog failed (exit $rc): $*"
        tail -5 "$tmp/err" >&2
        ctf_rows+=("| $(basename "$input") | $n | $prog | | | | | | failed: exit $rc |")
        [[ $prog == argus-decode* ]] && failed=1
        return
    fi
    say "  $prog $(basename "$input"): best ${best}s (CPU ${cpu}s), peak RSS ${rss} KB"
    ctf_rows+=("$(awk -v inp="$(basename "$input")" -v n="$n" -v p="$prog" -v b="$bytes" \
        -v s="$best" -v c="$cpu" -v kb="$rss" 'BEGIN {
            s0 = s > 0 ? s : 0.001
            c0 = c > 0 ? c : 0.001
            printf "| %s | %d | %s | %.0f | %.3f | %.2f | %.2f | %.2f | %.1f |",
                inp, n, p, b / 1e6, s, c, n / s0 / 1e6, n / c0 / 1e6, kb * 1024 / 1e6
        }')")
}

if $have_ctf; then
    say "== ctf"
    for n in $ctf_events; do
        d="$out/ctf-$(label "$n")"
        cmd="bench/gen-ctf --events $n --seed $seed --text $d.txt $d"
        if [ -d "$d" ] && [ -f "$d.cmd" ] && [ "$(cat "$d.cmd")" = "$cmd" ] &&
            [ ! bench/gen-ctf -nt "$d.cmd" ]; then
            say "  reusing $d"
        else
            say "  generating $d: $cmd"
            rm -rf "$d" "$d.cmd"
            $cmd
            echo "$cmd" >"$d.cmd"
        fi
        measure_ctf "$d" "$n" "argus-decode DIR (CTF)" bin/argus-decode "$d"
        measure_ctf "$d.txt" "$n" "argus-decode (the same events as ftrace text)" \
            bin/argus-decode --format ftrace "$d.txt"
        if command -v babeltrace2 >/dev/null; then
            measure_ctf "$d" "$n" "babeltrace2 -o dummy (one pass of the library)" \
                babeltrace2 "$d" -o dummy
        fi
    done
    small=$(printf '%s\n' $ctf_events | sort -n | head -1)
    d="$out/ctf-$(label "$small")"
    if cmp -s <(bin/argus-decode "$d" | bin/argus-to-json | sed 1d) \
        <(bin/argus-decode --format ftrace "$d.txt" | bin/argus-to-json | sed 1d); then
        ctf_notes+=("- $(basename "$d") and its text decode to the same records (the header aside): $(bin/argus-decode "$d" | bin/argus-validate -)")
    else
        ctf_notes+=("- **$(basename "$d") and its text decode to different records**")
        failed=1
    fi
fi

mem=$(awk '/^MemTotal:/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)
cpu=$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo)
{
    echo "# argus benchmark results"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- machine: $(nproc) cores, ${cpu:-unknown CPU}, $mem memory, Linux $(uname -r)"
    echo "- load average (1, 5, 15 min) before the run: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg)"
    if rev=$(git rev-parse --short HEAD 2>/dev/null); then
        dirty=$(git status --porcelain -- lib include filters Makefile 2>/dev/null | wc -l)
        [ "$dirty" -eq 0 ] || rev="$rev + uncommitted changes in lib/, include/, filters/ or the Makefile"
        echo "- source: commit $rev"
    fi
    echo "- compiler: $(${CC:-cc} --version | head -1), flags from the Makefile (-O2 -g)"
    echo "- input: \`bench/gen -n N -s $seed\` (20 processes, 200 threads + 4 kernel threads);"
    echo "  each program reads the file named on its command line and writes to /dev/null"
    echo "- seconds: wall time of the run under GNU time (bash's \$EPOCHREALTIME"
    echo "  around it, as %e has 10 ms steps), best of $runs runs;"
    echo "  peak RSS: GNU time's %M, largest of the runs; MB = 10^6 bytes of input"
    echo "  (for gen: of its output)"
    echo
    echo "| program | events | MB | seconds | Mevents/s | MB/s | peak RSS MB | target Mevents/s |"
    echo "|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
    $have_decode || { echo; echo "- argus-decode: skipped (bin/argus-decode is not built)."; }
    if [ ${#notes[@]} -gt 0 ]; then
        echo
        printf '%s\n' "${notes[@]}"
    fi
    if $have_kdebug && [ -n "$kdebug_sizes" ]; then
        echo
        echo "## kdebug decoding"
        echo
        echo "- input: \`bench/gen-kdebug --size-mb MB --seed $seed\` (RAW_VERSION1, 1000 threads,"
        echo "  8 CPUs, 64-byte records); \`bin/argus-decode --format kdebug FILE\` to /dev/null"
        echo "- seconds: wall time, best of $runs runs; peak RSS: GNU time %M, largest"
        echo "  of the runs; MB = 10^6 bytes of input, the whole file"
        echo
        echo "| file | MB | records | seconds | MB/s | Mrecords/s | peak RSS MB | target |"
        echo "|---|---|---|---|---|---|---|---|"
        printf '%s\n' "${kdebug_rows[@]}"
        [ ${#kdebug_notes[@]} -eq 0 ] || { echo; printf '%s\n' "${kdebug_notes[@]}"; }
    elif [ -n "$kdebug_sizes" ]; then
        echo
        echo "- kdebug decoding: skipped (bench/gen-kdebug not built, or argus-decode does not read kdebug)."
    fi
    if [ ${#export_rows[@]} -gt 0 ]; then
        echo
        echo "## The Perfetto export"
        echo
        echo "- input: the graph of \`bench/gen -n N -s $seed | argus graph\` (no findings);"
        echo "  \`bin/argus-export --output-format perfetto GRAPH\` to /dev/null; seconds: wall"
        echo "  time, best of $runs runs; CPU: user + system seconds of that run; peak RSS:"
        echo "  GNU time %M, largest of the runs; MB = 10^6 bytes"
        echo
        echo "| events | graph MB | JSON MB | seconds | CPU s | Mevents/s | peak RSS MB |"
        echo "|---|---|---|---|---|---|---|"
        printf '%s\n' "${export_rows[@]}"
        if [ ${#export_rss[@]} -ge 2 ]; then
            echo
            printf '%s\n' "${export_rss[@]}" | sort -n | awk '
                NR == 1 { lo = $1 } { hi = $1 }
                END { printf "- peak RSS from %.1f to %.1f MB across the sizes: %s (target: flat, the largest within 1.5x of the smallest)\n",
                      lo * 1024 / 1e6, hi * 1024 / 1e6, hi <= 1.5 * lo ? "flat" : "**NOT FLAT**" }'
        fi
    fi
    if [ ${#graph_rows[@]} -gt 0 ]; then
        echo
        echo "## argus graph beside its decoder"
        echo
        echo "- input: \`bench/gen-kdebug --size-mb MB --seed $seed\`; each command reads the"
        echo "  file and writes to /dev/null; CPU: user + system seconds of the command and"
        echo "  its children (GNU time), the least of $runs turns of decode, graph, graph"
        echo "  --no-chain; wall: the graph's least; peak RSS: the largest process of the graph"
        echo
        echo "| file | decode CPU s | graph CPU s | graph --no-chain CPU s | graph / decode | --no-chain / decode | graph wall s | peak RSS MB | target |"
        echo "|---|---|---|---|---|---|---|---|---|"
        printf '%s\n' "${graph_rows[@]}"
    fi
    if $have_ftrace; then
        echo
        echo "## ftrace text decoding"
        echo
        echo "- input: \`bench/gen-ftrace --lines N --seed $seed\` (tracefs \`trace\` text as"
        echo "  argus-record writes it: 4 CPUs, 40 processes, (TGID) and flags columns,"
        echo "  \`# argus-thread:\` header)${ftrace_real:+, and the recorded files $ftrace_real}"
        [ -z "$perfetto_lines" ] || echo "- perfetto-N.txt: that text with only the events bench/gen-perfetto converts; perfetto-N.pb and perfetto-N-compact.pb: bench/gen-perfetto of it (Perfetto ftrace events; compact_sched): the same events, lines counted in the text"
        echo "- each program reads the file named on its command line and writes to"
        echo "  /dev/null; seconds: wall time, best of $runs runs; CPU: user + system"
        echo "  seconds of that run; peak RSS: GNU time, largest of the runs; lines:"
        echo "  event lines (no \`#\` lines); MB = 10^6 bytes of input. wc -l and the"
        echo "  $(basename "$awk_floor") split are floors that parse less than a decoder, not competitors"
        echo
        echo "| input | lines | program | MB | seconds | CPU s | Mlines/s | MB/s | peak RSS MB | target Mlines/s |"
        echo "|---|---|---|---|---|---|---|---|---|---|"
        printf '%s\n' "${ftrace_rows[@]}"
        [ ${#ftrace_notes[@]} -eq 0 ] || { echo; printf '%s\n' "${ftrace_notes[@]}"; }
    elif [ -n "$ftrace_lines$ftrace_real" ]; then
        echo
        echo "- ftrace decoding: skipped (bench/gen-ftrace not built, or argus-decode does not read ftrace)."
    fi
    if $have_ctf; then
        echo
        echo "## CTF decoding"
        echo
        echo "- input: \`bench/gen-ctf --events N --seed $seed --text DIR.txt DIR\` (a CTF 1.8"
        echo "  kernel trace in LTTng's names, 4 CPUs, 64 threads, no contexts, the statedump"
        echo "  first; and the tracefs text of the same events)"
        echo "- seconds: wall time, best of $runs runs; CPU: user + system seconds of that"
        echo "  run; Mev/s: events a wall second, and a CPU second (the machine may be"
        echo "  shared); MB: the input's bytes (10^6)"
        echo
        echo "| input | events | program | MB | seconds | CPU s | Mev/s | Mev/CPU s | peak RSS MB |"
        echo "|---|---|---|---|---|---|---|---|---|"
        printf '%s\n' "${ctf_rows[@]}"
        [ ${#ctf_notes[@]} -eq 0 ] || { echo; printf '%s\n' "${ctf_notes[@]}"; }
    elif [ -n "$ctf_events" ]; then
        echo
        echo "- CTF decoding: skipped (bench/gen-ctf not built, or argus-decode does not read CTF)."
    fi
} | tee "$out/results.md"
exit $failed
