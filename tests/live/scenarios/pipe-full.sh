#!/bin/bash
# pipe-full: dd (coreutils) writes 1 MiB into a named pipe whose reader, a
# python3 script (named pipe-reader), has it open but sleeps 2 s before it
# reads: the pipe (64 KiB) fills at once and dd blocks in write until the
# reader wakes and drains it. The reader is started before the recording
# and waits at a gate fifo; the recorded command's first act, before it
# execs dd, is to open the gate. Normal run: the reader sleeps 0 s.
# Truth: fixtures/real/pipe-full/truth.
. "$(dirname "$0")/lib.sh"
need_root
need dd:coreutils
py=/usr/bin/python3
[ -x $py ] || skip "needs $py (apt-get install python3)"

# the reader: opens the pipe argv[1], waits for the gate argv[2], sleeps
# argv[3] seconds, then reads the 1 MiB dd writes (not to EOF: before dd
# opens the pipe, a read would see no writer and end)
cat > "$WORK/reader.py" <<'EOF'
import ctypes, os, sys, time
ctypes.CDLL(None).prctl(15, b"pipe-reader", 0, 0, 0)  # PR_SET_NAME
pipe = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
os.set_blocking(pipe, True)
with open(sys.argv[2]) as gate:
    gate.readline()
time.sleep(float(sys.argv[3]))
left = 16 * 65536
while left > 0:
    data = os.read(pipe, left)
    if not data:
        sys.exit(1)
    left -= len(data)
EOF
mkfifo "$WORK/pipe" "$WORK/gate"

# run NAME SECONDS: the reader, then the recorded dd
run() {
    spawn $py "$WORK/reader.py" "$WORK/pipe" "$WORK/gate" "$2"
    reader=$SPAWNED_PID
    # the reader has the pipe open once its fd points at it
    wait_for 10 sh -c "ls -l /proc/$reader/fd | grep -q '$WORK/pipe'"
    record "$1" sh -c 'echo go > "$0"; exec "$@"' "$WORK/gate" \
        dd if=/dev/zero of="$WORK/pipe" bs=64k count=16 status=none
    wait "$reader" || { say "the reader failed"; exit 1; }
}
run normal 0
run hang 2

truth proc dd
truth hang "$RECORDED_PID dd/main"
truth culprit "$reader pipe-reader/main"
truth ending timeout
truth why "dd's write blocked on the full pipe (64 KiB) while its reader, pipe-reader ($reader), slept 2 s before it read; the reader's reads woke dd"
