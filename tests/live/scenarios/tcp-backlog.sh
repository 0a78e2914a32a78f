#!/bin/bash
# tcp-backlog: curl connects to a local HTTP server (python3, tcp-slow-accept)
# whose listen backlog is full: the server listens with a backlog of 0 and
# does not accept for 2 s, and a filler (python3) already holds the one
# queued connection, so the kernel drops curl's SYN; curl's connect waits
# until its own kernel's SYN retransmission (1 s, then 2 s later) finds
# room, after the server woke and accepted the filler. No process wakes
# curl: its connection is made by a retransmit timer and the server's
# SYN-ACK, in the kernel. The server is started before the recording and
# waits at a gate fifo; the recorded command opens the gate first (the
# recorded glue execs curl, same pid). Normal run: the server accepts at
# once (sleeps 0 s), with no filler.
# Truth: fixtures/real/tcp-backlog/truth.
. "$(dirname "$0")/lib.sh"
need_root
need curl:curl
py=/usr/bin/python3
[ -x $py ] || skip "needs $py (apt-get install python3)"

# the server: listen(0), say so, wait for the gate, sleep argv[3] s, then
# accept and answer every connection (HTTP 200, "ok") until argv[4]
# connections were served
cat > "$WORK/server.py" <<'EOF'
import ctypes, socket, sys, time
ctypes.CDLL(None).prctl(15, b"tcp-slow-accept", 0, 0, 0)  # PR_SET_NAME
port, gate, seconds, count = int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port))
s.listen(0)
open(gate + ".listening", "w").close()
with open(gate) as g:
    g.readline()
time.sleep(seconds)
s.settimeout(15)
for i in range(count):
    c, _ = s.accept()
    c.settimeout(5)
    try:
        c.recv(4096)
        c.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok")
    except OSError:
        pass
    c.close()
EOF
# the filler: one connection, queued unaccepted, held until the server
# takes it
cat > "$WORK/filler.py" <<'EOF'
import socket, sys, time
c = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
open(sys.argv[2] + ".filled", "w").close()
c.settimeout(20)
c.sendall(b"GET / HTTP/1.0\r\n\r\n")
c.recv(4096)
EOF
mkfifo "$WORK/gate"

# run NAME SECONDS FILLER: the server (and the filler), then the recorded curl
run() {
    local port
    port=$(free_port)
    rm -f "$WORK/gate.listening" "$WORK/gate.filled"
    spawn $py "$WORK/server.py" "$port" "$WORK/gate" "$2" $((1 + $3))
    server=$SPAWNED_PID
    wait_for 10 test -e "$WORK/gate.listening"
    if [ "$3" = 1 ]; then
        spawn $py "$WORK/filler.py" "$port" "$WORK/gate"
        filler=$SPAWNED_PID
        wait_for 10 test -e "$WORK/gate.filled"
    fi
    record "$1" sh -c 'echo go > "$0"; exec "$@"' "$WORK/gate" \
        curl -sf -o /dev/null --connect-timeout 10 "http://127.0.0.1:$port/"
    wait "$server" || { say "the server failed"; exit 1; }
}
run normal 0 0
run hang 2 1

truth proc curl
truth hang "$RECORDED_PID curl/main"
truth culprit "$server tcp-slow-accept/main"
truth ending timeout
truth why "curl's connect waited because the server (tcp-slow-accept, $server) did not accept for 2 s with its listen backlog full (one queued connection of a filler): the kernel dropped curl's SYN, and its retransmission (by curl's kernel timer) connected once the server had accepted the filler"
