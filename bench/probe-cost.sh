#!/usr/bin/env bash
# bench/probe-cost.sh: what argus-record's uprobes (filters/record/probes.c)
# cost a busy GTK 3 app (docs/performance.md, "Probes").
#
# A python3-gi GTK 3 app under an Xvfb of its own runs, for a fixed time,
# in each of three modes:
#   spin    an always-ready idle source: the GLib loop iterates as fast as
#           it can (4 probe hits an iteration: dispatch, its return, g_poll,
#           its return); the work rate is iterations/s
#   frames  a spinner and a label redrawn on every tick of the frame clock
#           (60 fps); the work rate is frames/s, the cost its CPU time
#   keys    typed into at 10 keys a second (xdotool type --delay 100;
#           skipped without xdotool): each key press changes the label;
#           the work rate is key presses handled a second
#   idle    a window that waits for events
# and each mode three ways, side by side in every round, in an order that
# turns from round to round: under `argus-record` (probes on, the default),
# under `argus-record --no-probes`, and not recorded. The app counts its
# iterations or frames and reads its CPU time (getrusage) between two
# CLOCK_MONOTONIC readings (the trace's clock: trace_clock mono); the
# trace's lines and bytes between them are counted: all of them, the
# uprobe lines (argus_*), and the app's own. Each round gives ratios
# (probes / no-probes, probes / not recorded); the report gives their
# minimum and median over the rounds, and the median figures.
#
# With BENCH_PROBE_DECODE=1 (the default) it also times argus-decode on
# the uprobe lines alone and on the kernel lines alone of the last spin
# trace recorded with probes (lines/s of each kind).
#
# Root only: exit 77 (the reason on stderr) without root, tracefs, Xvfb,
# /usr/bin/python3 with GTK 3 (python3-gi, gir1.2-gtk-3.0). Recordings are
# system-wide: it holds /tmp/argus-live.lock (tests/live) while it runs,
# so no other recording runs meanwhile. Every process it starts is ended
# by its pid; every wait is bounded in time. The Markdown report goes to
# stdout and to bench/out/probe-cost/results.md, every run's figures to
# bench/out/probe-cost/runs.jsonl, progress to stderr.
#
# Environment:
#   BENCH_PROBE_RUNS     rounds (default 5)
#   BENCH_PROBE_SECONDS  seconds each run is measured (default 4), after
#                        1 s of warm-up
#   BENCH_PROBE_MODES    modes (default "spin frames keys idle")
#   BENCH_PROBE_BUFFER_MB  argus-record's --buffer-mb (default 128 per CPU:
#                        a spin run writes 20 to 30 MB of text a second;
#                        at 64 one run of 40 lost its first events)
#   BENCH_PROBE_DECODE   1: time the decoder too (default), 0: not
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
runs=${BENCH_PROBE_RUNS:-5}
secs=${BENCH_PROBE_SECONDS:-4}
modes=${BENCH_PROBE_MODES:-"spin frames keys idle"}
buffer_mb=${BENCH_PROBE_BUFFER_MB:-128}
decode=${BENCH_PROBE_DECODE:-1}
warmup=1
out=bench/out/probe-cost
py=/usr/bin/python3

say() { printf 'probe-cost: %s\n' "$*" >&2; }
skip() { say "skipped: $*"; exit 77; }
die() { say "$*"; exit 1; }

[ "$(id -u)" = 0 ] || skip "recording with tracefs needs root"
grep -qw tracefs /proc/filesystems || skip "this kernel has no tracefs"
command -v Xvfb >/dev/null || skip "needs Xvfb (apt-get install xvfb)"
[ -x $py ] || skip "needs $py (apt-get install python3)"
$py -c 'import gi; gi.require_version("Gtk", "3.0"); from gi.repository import Gtk' 2>/dev/null ||
    skip "needs GTK 3 for python (apt-get install python3-gi gir1.2-gtk-3.0)"
[ -x bin/argus-record ] || die "bin/argus-record is not built: run 'make' first"
[ -x bin/argus-decode ] || decode=0
if [[ " $modes " == *" keys "* ]] && ! command -v xdotool >/dev/null; then
    say "no xdotool (apt-get install xdotool): the keys mode is left out"
    modes=$(echo " $modes " | sed 's/ keys / /; s/^ *//; s/ *$//')
fi
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "BENCH_PROBE_RUNS=$runs: expected a count"
[[ $secs =~ ^[1-9][0-9]*$ ]] || die "BENCH_PROBE_SECONDS=$secs: expected whole seconds"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/argus-probe-cost.XXXXXX")

. "$(dirname "$0")/../tests/live/procs.sh"

cleanup() {
    local status=$? i
    set +e
    # an app left by a recorder that was stopped, then the rest, latest first
    for i in "$WORK"/*.pid; do
        [ -s "$i" ] && stop "$(cat "$i")"
    done
    stop_spawned
    rm -rf "$WORK"
    exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# finish PID SECONDS: waits for PID to end, SECONDS at most (then stops
# it and fails); returns its exit status.
finish() {
    local pid=$1 limit=$2 i rc=0
    for i in $(seq $((limit * 10))); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        stop "$pid"
        die "process $pid still ran after $limit s: stopped"
    fi
    wait "$pid" || rc=$?
    return $rc
}

exec 9>"${TMPDIR:-/tmp}/argus-live.lock"
say "waiting for the recording lock (20 minutes at most)"
flock -w 1200 9 || die "another recording held /tmp/argus-live.lock for 20 minutes"

# a display, a home and runtime directories of its own; no accessibility
# bus, dconf or gvfs: only the app talks
spawn Xvfb -displayfd 5 -nolisten tcp -screen 0 640x480x24 5>"$WORK/display" 2>"$WORK/xvfb.log"
wait_for 10 test -s "$WORK/display"
DISPLAY=:$(cat "$WORK/display")
export DISPLAY
export XDG_RUNTIME_DIR=$WORK/run HOME=$WORK/home XDG_CACHE_HOME=$WORK/cache \
    XDG_CONFIG_HOME=$WORK/config XDG_DATA_HOME=$WORK/data
mkdir -m 700 "$XDG_RUNTIME_DIR" "$HOME"
export NO_AT_BRIDGE=1 GSETTINGS_BACKEND=memory GIO_USE_VFS=local

# The app: MODE WARMUP SECONDS STARTED; prints one JSON line of what it
# measured; creates the file STARTED when it starts measuring.
cat > "$WORK/app.py" <<'EOF'
import ctypes, json, os, resource, sys, time
ctypes.CDLL(None).prctl(15, b"probe-cost-app", 0, 0, 0)  # PR_SET_NAME
import gi
gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk

mode, warmup, seconds, started = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
count, counting = 0, False
win = Gtk.Window(title="argus-probe-cost")
win.set_default_size(320, 240)
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
label = Gtk.Label(label="frame 0")
spinner = Gtk.Spinner()
box.pack_start(label, False, False, 0)
box.pack_start(spinner, True, True, 0)
win.add(box)

def on_tick(widget, clock):
    # once a frame: a new text (layout and redraw), and the spinner turns
    global count
    if counting:
        count += 1
    label.set_text("frame %d" % clock.get_frame_counter())
    return True

def on_idle():
    global count
    count += 1
    return True

def on_key(widget, event):
    global count
    if counting:
        count += 1
    label.set_text("key %d" % event.keyval)
    return True

if mode == "frames":
    spinner.start()
    label.add_tick_callback(on_tick)
elif mode == "spin":
    GLib.idle_add(on_idle)
elif mode == "keys":
    win.connect("key-press-event", on_key)

def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime, r.ru_stime

def start():
    global count, counting, t0, c0
    count, counting = 0, True
    t0, c0 = time.clock_gettime(time.CLOCK_MONOTONIC), cpu()
    GLib.timeout_add(int(seconds * 1000), stop)
    open(started, "w").close()
    return False

def stop():
    t1, c1 = time.clock_gettime(time.CLOCK_MONOTONIC), cpu()
    print(json.dumps({"pid": os.getpid(), "t0": t0, "t1": t1, "count": count,
                      "user": c1[0] - c0[0], "sys": c1[1] - c0[1]}), flush=True)
    Gtk.main_quit()
    return False

win.show_all()
GLib.timeout_add(int(warmup * 1000), start)
Gtk.main()
EOF

# One run: what the app measured, and the trace's lines in its window.
# analyze.py run MODE CONFIG ROUND APP.json [TRACE RECORD.err] > one line
# analyze.py report RUNS.jsonl > Markdown
cat > "$WORK/analyze.py" <<'EOF'
import json, re, statistics, sys

HEAD = re.compile(rb"\(\s*([-\d]+)\) \[(\d+)\] \S+ +(\d+\.\d+): ([^:]+):")

def run(mode, config, rnd, app_json, trace=None, err=None):
    app = json.load(open(app_json))
    t0, t1 = app["t0"], app["t1"]
    span = t1 - t0
    r = {"mode": mode, "config": config, "round": int(rnd), "seconds": span,
         "rate": app["count"] / span, "count": app["count"],
         "cpu": (app["user"] + app["sys"]) / span, "user": app["user"], "sys": app["sys"]}
    if trace:
        pid = str(app["pid"]).encode()
        lines = nbytes = uprobe = own = own_uprobe = 0
        first = {}  # the first line of each CPU's buffer
        with open(trace, "rb") as f:
            for line in f:
                if line[:1] == b"#":
                    continue
                m = HEAD.search(line)
                if not m:
                    continue
                ts = float(m.group(3))
                first.setdefault(m.group(2), ts)
                if ts < t0 or ts > t1:
                    continue
                lines += 1
                nbytes += len(line)
                up = m.group(4).startswith(b"argus_")
                uprobe += up
                if m.group(1).strip() == pid:
                    own += 1
                    own_uprobe += up
        m = re.search(r"(\d+) overwritten", open(err).read())
        r.update({"lines_s": lines / span, "bytes_s": nbytes / span, "uprobe_s": uprobe / span,
                  "app_lines_s": own / span, "app_uprobe_s": own_uprobe / span,
                  "overwritten": int(m.group(1)) if m else -1,
                  # every CPU's buffer still held the start of the window
                  "complete": bool(first) and max(first.values()) <= t0})
    print(json.dumps(r))

def med(xs):
    return statistics.median(xs) if xs else float("nan")

def report(path):
    runs = [json.loads(l) for l in open(path) if l.strip()]
    modes = list(dict.fromkeys(r["mode"] for r in runs))
    what = {"spin": ("iterations/s", "µs CPU/iteration"), "frames": ("frames/s", "µs CPU/frame"),
            "keys": ("keys/s", "µs CPU/key"), "idle": ("-", "-")}
    print("| mode | recording | runs | work/s (median) | CPU % (median) | CPU per unit µs | "
          "trace lines/s | of them uprobe | the app's lines/s | trace KB/s | lost |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    by = {}
    for mode in modes:
        for config in ("probes", "no-probes", "none"):
            rs = [r for r in runs if r["mode"] == mode and r["config"] == config]
            if not rs:
                continue
            by[mode, config] = {r["round"]: r for r in rs}
            unit = med([(r["user"] + r["sys"]) / r["count"] * 1e6 for r in rs if r["count"]])
            rec = config != "none"
            lost = sum(1 for r in rs if rec and (r["overwritten"] != 0 or not r["complete"]))
            f = lambda k, s=1: "%.0f" % med([r[k] / s for r in rs]) if rec else "-"
            print("| %s | %s | %d | %s | %.1f | %s | %s | %s | %s | %s | %s |" % (
                mode, {"none": "not recorded"}.get(config, config), len(rs),
                "%.1f" % med([r["rate"] for r in rs]) if mode != "idle" else "-",
                100 * med([r["cpu"] for r in rs]),
                "%.1f" % unit if mode != "idle" else "-",
                f("lines_s"), f("uprobe_s"), f("app_lines_s"), f("bytes_s", 1000),
                "%d runs" % lost if lost else ("none" if rec else "-")))
    print()
    print("Ratios, each from the runs of one round side by side (min / median / max over rounds):")
    print()
    print("| mode | figure | probes / no-probes | probes / not recorded | no-probes / not recorded |")
    print("|---|---|---|---|---|")
    for mode in modes:
        for key, name in (("rate", "work rate"), ("cpu", "CPU time / s"), ("unit", "CPU time / unit")):
            if mode == "idle" and key != "cpu":
                continue
            cells = []
            for a, b in (("probes", "no-probes"), ("probes", "none"), ("no-probes", "none")):
                xa, xb = by.get((mode, a), {}), by.get((mode, b), {})
                qs = []
                for rnd in sorted(set(xa) & set(xb)):
                    ra, rb = xa[rnd], xb[rnd]
                    if key == "unit":
                        va = (ra["user"] + ra["sys"]) / max(ra["count"], 1)
                        vb = (rb["user"] + rb["sys"]) / max(rb["count"], 1)
                    else:
                        va, vb = ra[key], rb[key]
                    if vb > 0:
                        qs.append(va / vb)
                cells.append("%.2f / %.2f / %.2f" % (min(qs), med(qs), max(qs)) if qs else "-")
            print("| %s | %s | %s |" % (mode, name, " | ".join(cells)))
    if ("spin", "probes") in by and ("spin", "no-probes") in by:
        xa, xb = by["spin", "probes"], by["spin", "no-probes"]
        d = [((xa[k]["user"] + xa[k]["sys"]) / xa[k]["count"]
              - (xb[k]["user"] + xb[k]["sys"]) / xb[k]["count"]) * 1e6
             for k in sorted(set(xa) & set(xb)) if xa[k]["count"] and xb[k]["count"]]
        if d:
            print()
            print("spin: the probes add %.1f µs of CPU per loop iteration (median of %d rounds; "
                  "min %.1f, max %.1f), %.1f µs per probe hit (4 hits an iteration)."
                  % (med(d), len(d), min(d), max(d), med(d) / 4))

if sys.argv[1] == "run":
    run(*sys.argv[2:])
else:
    report(sys.argv[2])
EOF

mkdir -p "$out"
: > "$out/runs.jsonl"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
configs=(probes no-probes none)
limit=$((warmup + secs + 60))

# run_one MODE CONFIG ROUND: one run; its line goes to runs.jsonl.
run_one() {
    local mode=$1 config=$2 rnd=$3 pid rc=0 args=()
    local app=("$py" "$WORK/app.py" "$mode" "$warmup" "$secs" "$WORK/started")
    rm -f "$WORK/app.json" "$WORK/trace.txt" "$WORK/record.err" "$WORK/app.pid" "$WORK/started"
    case $config in
    none)
        spawn sh -c 'echo $$ > "$0"; exec "$@"' "$WORK/app.pid" "${app[@]}" > "$WORK/app.json"
        ;;
    *)
        [ "$config" = no-probes ] && args=(--no-probes)
        # shellcheck disable=SC2016  # $$ is the inner shell's
        spawn bin/argus-record --buffer-mb "$buffer_mb" "${args[@]}" -o "$WORK/trace.txt" -- \
            sh -c 'echo $$ > "$0"; exec "$@"' "$WORK/app.pid" "${app[@]}" \
            > "$WORK/app.json" 2> "$WORK/record.err"
        ;;
    esac
    pid=$SPAWNED_PID
    if [ "$mode" = keys ]; then
        # 10 keys a second into the app's window from the start of its
        # measurement, ending 0.5 s before it ends
        wait_for 30 test -e "$WORK/started"
        timeout 10 xdotool search --sync --name '^argus-probe-cost$' windowfocus --sync >/dev/null
        timeout $((secs + 10)) xdotool type --delay 100 "$(head -c $((secs * 10 - 5)) /dev/zero | tr '\0' a)"
    fi
    finish "$pid" "$limit" || rc=$?
    [ $rc = 0 ] || { cat "$WORK/record.err" >&2 2>/dev/null || true; die "$mode/$config run exited $rc"; }
    rm -f "$WORK/app.pid"
    [ -s "$WORK/app.json" ] || die "$mode/$config: the app measured nothing"
    if [ "$config" = none ]; then
        $py "$WORK/analyze.py" run "$mode" "$config" "$rnd" "$WORK/app.json" >> "$out/runs.jsonl"
    else
        $py "$WORK/analyze.py" run "$mode" "$config" "$rnd" "$WORK/app.json" \
            "$WORK/trace.txt" "$WORK/record.err" >> "$out/runs.jsonl"
        # the last spin trace with probes, for the decoder
        [ "$mode/$config" = spin/probes ] && mv "$WORK/trace.txt" "$WORK/spin-probes.txt"
    fi
    say "round $rnd $mode $config: $(tail -1 "$out/runs.jsonl" | cut -c1-160)"
}

for rnd in $(seq "$runs"); do
    for mode in $modes; do
        for i in 0 1 2; do
            run_one "$mode" "${configs[$(((i + rnd) % 3))]}" "$rnd"
        done
    done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# The decoder on each kind of line: the uprobe lines alone, the kernel
# lines alone (both with the trace's header and thread lines): CPU time
# (user + system, GNU time), the best of 3 runs, as the machine is shared.
decode_table=
[ -x /usr/bin/time ] || { [ "$decode" = 0 ] || say "no /usr/bin/time (apt-get install time): the decoder is not timed"; decode=0; }
if [ "$decode" = 1 ] && [ -s "$WORK/spin-probes.txt" ]; then
    grep '^#' "$WORK/spin-probes.txt" > "$WORK/head.txt" || true
    { cat "$WORK/head.txt"; grep -v '^#' "$WORK/spin-probes.txt" | grep ': argus_' || true; } > "$WORK/uprobe.txt"
    { cat "$WORK/head.txt"; grep -v '^#' "$WORK/spin-probes.txt" | grep -v ': argus_' || true; } > "$WORK/kernel.txt"
    decode_table="| lines | count | MB | CPU seconds (best of 3) | lines/s of CPU | µs/line |
|---|---|---|---|---|---|"
    for kind in uprobe kernel; do
        n=$(grep -vc '^#' "$WORK/$kind.txt" || true)
        mb=$(stat -c %s "$WORK/$kind.txt")
        best=
        for i in 1 2 3; do
            timeout 120 /usr/bin/time -f '%U %S' -o "$WORK/time" \
                bin/argus-decode --format ftrace "$WORK/$kind.txt" > /dev/null
            best=$(awk -v best="$best" \
                '{ d = $1 + $2; if (best == "" || d < best) best = d; printf "%.3f", best }' "$WORK/time")
        done
        decode_table+=$'\n'$(awk -v k="$kind" -v n="$n" -v mb="$mb" -v s="$best" \
            'BEGIN { printf "| %s | %d | %.1f | %.3f | %.2fM | %.3f |", k, n, mb / 1e6, s, n / s / 1e6, s / n * 1e6 }')
    done
fi

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
{
    echo "## argus-record's probes: what they cost (bench/probe-cost.sh)"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $commit, $(nproc) CPUs,"\
        "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), Linux $(uname -r);"\
        "load average $load_before before, $load_after after."
    echo "$runs rounds of $secs s a run (after $warmup s of warm-up), modes: $modes;"\
        "argus-record --buffer-mb $buffer_mb."
    echo
    $py "$WORK/analyze.py" report "$out/runs.jsonl"
    if [ -n "$decode_table" ]; then
        echo
        echo "argus-decode --format ftrace on the last spin trace with probes, split by kind of line:"
        echo
        echo "$decode_table"
    fi
} | tee "$out/results.md"
