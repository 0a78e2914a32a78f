#!/bin/bash
# inotify-wait: `inotifywait -t 10 -e close_write FILE` (inotify-tools, recorded)
# waits for a file to be written; a python3 process (file-writer), started
# before the recording and waiting at a gate fifo that the recorded glue
# (bash) opens once inotifywait has its watch, sleeps 2 s, then writes and closes the
# file: the filesystem's notification (fsnotify, in the writer's close)
# wakes the watcher. Normal run: the writer sleeps 0 s.
# Truth: fixtures/real/inotify-wait/truth.
. "$(dirname "$0")/lib.sh"
need_root
need inotifywait:inotify-tools
py=/usr/bin/python3
[ -x $py ] || skip "needs $py (apt-get install python3)"

cat > "$WORK/writer.py" <<'EOF'
import ctypes, sys, time
ctypes.CDLL(None).prctl(15, b"file-writer", 0, 0, 0)  # PR_SET_NAME
open(sys.argv[2] + ".ready", "w").close()
with open(sys.argv[2]) as g:
    g.readline()
time.sleep(float(sys.argv[3]))
with open(sys.argv[1], "w") as f:
    f.write("done\n")
EOF
mkfifo "$WORK/gate"

# run NAME SECONDS: the writer, then the recorded watcher
run() {
    : > "$WORK/watched"
    rm -f "$WORK/gate.ready"
    spawn $py "$WORK/writer.py" "$WORK/watched" "$WORK/gate" "$2"
    writer=$SPAWNED_PID
    wait_for 10 test -e "$WORK/gate.ready"
    # the gate opens after the watch is set: inotifywait says "Watches
    # established." on stderr, then waits
    record "$1" bash -c 'exec 2> >(while read -r l; do case $l in "Watches established."*) echo go > "$0";; esac; done); exec "$@"' \
        "$WORK/gate" inotifywait -t 10 -e close_write "$WORK/watched"
    wait "$writer" || { say "the writer failed"; exit 1; }
}
run normal 0
run hang 2

truth proc inotifywait
truth hang "$RECORDED_PID inotifywait/main"
truth culprit "$writer file-writer/main"
truth ending timeout
truth why "inotifywait waited for the file to be written and closed, which the other process, file-writer ($writer), did only after sleeping 2 s; its close's notification (inotify) woke the watcher"
