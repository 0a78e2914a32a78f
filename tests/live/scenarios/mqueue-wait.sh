#!/bin/bash
# mqueue-wait: a python3 program (mq-receiver) waits in mq_receive on a
# POSIX message queue (glibc's mq_open/mq_receive through ctypes; the
# kernel's mqueue, neither traced system call is in argus-record's list)
# for a message that another python3 process (mq-sender), started before
# the recording and waiting at a gate fifo that the receiver opens first,
# sends (mq_send) only after sleeping 2 s. Normal run: the sender sleeps 0 s.
# Truth: fixtures/real/mqueue-wait/truth.
. "$(dirname "$0")/lib.sh"
need_root
py=/usr/bin/python3
[ -x $py ] || skip "needs $py (apt-get install python3)"
grep -qw mqueue /proc/filesystems || skip "this kernel has no POSIX message queues"

# mq.py ROLE NAME GATE SECONDS: ROLE sender or receiver
cat > "$WORK/mq.py" <<'EOF'
import ctypes, os, sys, time
libc = ctypes.CDLL("libc.so.6", use_errno=True)
role, name, gate, seconds = sys.argv[1], sys.argv[2].encode(), sys.argv[3], float(sys.argv[4])
libc.prctl(15, b"mq-" + role.encode(), 0, 0, 0)  # PR_SET_NAME
class Attr(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_long), ("maxmsg", ctypes.c_long),
                ("msgsize", ctypes.c_long), ("curmsgs", ctypes.c_long), ("pad", ctypes.c_long * 4)]
libc.mq_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_uint, ctypes.POINTER(Attr)]
libc.mq_send.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint]
libc.mq_receive.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p]
libc.mq_receive.restype = ctypes.c_ssize_t
if role == "sender":
    attr = Attr(0, 4, 64, 0)
    q = libc.mq_open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600, ctypes.byref(attr))
    if q < 0:
        sys.exit("sender: mq_open failed: %d" % ctypes.get_errno())
    open(gate + ".ready", "w").close()
    with open(gate) as g:
        g.readline()
    time.sleep(seconds)
    if libc.mq_send(q, b"ok", 2, 0) != 0:
        sys.exit("sender: mq_send failed: %d" % ctypes.get_errno())
else:
    q = libc.mq_open(name, os.O_RDONLY, 0, None)
    if q < 0:
        sys.exit("receiver: mq_open failed: %d" % ctypes.get_errno())
    with open(gate, "w") as g:
        g.write("go\n")
    buf = ctypes.create_string_buffer(64)
    if libc.mq_receive(q, buf, 64, None) != 2:
        sys.exit("receiver: mq_receive failed: %d" % ctypes.get_errno())
EOF
mkfifo "$WORK/gate"
queue=/argus-mq-$$
trap 's=$?; $py -c "import ctypes, sys; ctypes.CDLL(\"libc.so.6\").mq_unlink(sys.argv[1].encode())" "$queue" 2>/dev/null; (exit $s); cleanup' EXIT

# run NAME SECONDS: the sender, then the recorded receiver
run() {
    $py -c 'import ctypes, sys; ctypes.CDLL("libc.so.6").mq_unlink(sys.argv[1].encode())' "$queue"
    rm -f "$WORK/gate.ready"
    spawn $py "$WORK/mq.py" sender "$queue" "$WORK/gate" "$2"
    sender=$SPAWNED_PID
    wait_for 10 test -e "$WORK/gate.ready"
    record "$1" $py "$WORK/mq.py" receiver "$queue" "$WORK/gate" 0
    wait "$sender" || { say "the sender failed"; exit 1; }
}
run normal 0
run hang 2

truth proc mq-receiver
truth hang "$RECORDED_PID mq-receiver/main"
truth culprit "$sender mq-sender/main"
truth ending timeout
truth why "the program waited in mq_receive on a POSIX message queue for a message that the other process, mq-sender ($sender), sent only after sleeping 2 s"
