#!/bin/bash
# shell-script: a shell script, `bash ./hang.sh` (comm bash: the user knows
# it as hang.sh), started before the recordings and alive after them,
# answers each line on the fifo `request`: it waits for a line on the
# fifo `reply` (`read -t 10 line < reply`: bash's read waits in pselect6,
# then reads byte by byte) and writes what it got to the file the request
# named. The reply comes from another process, a python3 script (named
# reply-writer), started before the recording: it waits at a gate fifo,
# sleeps 2 s (its own timer), then writes `ok` to `reply`. The recorded
# command opens the gate and sends the request at the same moment, then
# polls for the answer file every 0.1 s (10 s at most: short sleeps, so
# that the recorded command is no hang of its own). Normal run: the writer
# sleeps 0 s. `--proc hang.sh` names the script only through its command
# line (argus-record's `# argus-cmdline:`, decode's DEC-CMDLINE).
# Truth: fixtures/real/shell-script/truth.
. "$(dirname "$0")/lib.sh"
need_root
need bash:bash sleep:coreutils
py=/usr/bin/python3
[ -x $py ] || skip "needs $py (apt-get install python3)"

# the script: it keeps both fifos open read-write (opening a fifo then
# never waits for the other end, and no end of file comes)
cat > "$WORK/hang.sh" <<'EOF'
#!/bin/bash
exec 3<>request 4<>reply
while read -r answer <&3; do
    read -t 10 line < reply || line=timeout
    echo "$line" > "$answer"
done
EOF
cat > "$WORK/writer.py" <<'EOF'
import ctypes, os, sys, time
ctypes.CDLL(None).prctl(15, b"reply-writer", 0, 0, 0)  # PR_SET_NAME
gate = os.open(sys.argv[1], os.O_RDWR)
os.read(gate, 64)
time.sleep(float(sys.argv[3]))
with open(sys.argv[2], "w") as reply:
    reply.write("ok\n")
EOF
mkfifo "$WORK/request" "$WORK/reply" "$WORK/gate"
cd "$WORK" || exit 1
spawn bash ./hang.sh
script=$SPAWNED_PID
wait_for 10 sh -c "ls -l /proc/$script/fd | grep -q '$WORK/reply'"
[ "$(cat "/proc/$script/comm")" = bash ] || { say "the script's comm is not bash"; exit 1; }

# run NAME SECONDS: the writer, then the recorded request
run() {
    spawn $py "$WORK/writer.py" "$WORK/gate" "$WORK/reply" "$2"
    writer=$SPAWNED_PID
    wait_for 10 sh -c "ls -l /proc/$writer/fd | grep -q '$WORK/gate'"
    # shellcheck disable=SC2016  # the inner shell's arguments
    record "$1" sh -c 'echo go > "$0"; echo "$2" > "$1"; i=0
        while [ ! -s "$2" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
        [ "$(cat "$2")" = ok ]' "$WORK/gate" "$WORK/request" "$WORK/answer.$1"
    wait "$writer" || { say "the writer failed"; exit 1; }
    kill -0 "$script" || { say "the script ended"; exit 1; }
}
run normal 0
run hang 2

truth proc hang.sh
truth hang "$script bash/main"
truth culprit "$writer reply-writer/main"
truth ending timeout
truth why "the shell script hang.sh (bash ./hang.sh, comm bash) waited in read -t on the fifo reply, which the other process, reply-writer ($writer), wrote only after sleeping 2 s"
