#!/bin/bash
# udp-timeout: dig (bind9-dnsutils) asks a local UDP "DNS server" for
# slow.test, one try with a 2 s timeout (+tries=1 +time=2 +noedns); the
# server, a python3 script (udp-dns-sink), reads every query but answers
# only those for fast.test: the reply never comes, and dig gives up when
# its own 2 s timer ends its network thread's epoll_wait, which then
# signals dig's main thread (waiting in sigtimedwait) to finish.
# Normal run: dig asks for fast.test, answered at once (NXDOMAIN).
# The truth: the hang is dig's main thread; what held it up is dig's own
# timeout (the network thread's 2 s epoll_wait, ended by its timer), on a
# reply that the server read the query for and never sent: both dig's
# network thread and the server's thread are named culprits (either is
# right). dig exits 9 ("no servers could be reached").
# Truth: fixtures/real/udp-timeout/truth.
. "$(dirname "$0")/lib.sh"
need_root
need dig:bind9-dnsutils
py=/usr/bin/python3
[ -x $py ] || skip "needs $py (apt-get install python3)"

# the server: answers queries for fast.test (NXDOMAIN), reads and drops
# every other one
cat > "$WORK/sink.py" <<'EOF'
import ctypes, socket, sys
ctypes.CDLL(None).prctl(15, b"udp-dns-sink", 0, 0, 0)  # PR_SET_NAME
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[1])))
while True:
    query, peer = s.recvfrom(4096)
    if b"\x04fast\x04test\x00" in query:
        # the query's id and question; QR, RD, RA, NXDOMAIN; no records
        s.sendto(query[:2] + b"\x81\x83" + query[4:6] + b"\x00" * 6 + query[12:], peer)
EOF
port=$(free_port)
spawn $py "$WORK/sink.py" "$port"
sink=$SPAWNED_PID
wait_for 10 dig @127.0.0.1 -p "$port" +tries=1 +time=1 +noedns fast.test

# ask NAME STATUS QNAME: the recorded command runs dig as its child (its pid to
# $WORK/STATUS.dig) and succeeds when dig exits STATUS
ask() {
    record "$1" sh -c '"$@" > /dev/null & echo $! > "$0.dig"; wait $!; test $? = "$0"' "$2" \
        dig @127.0.0.1 -p "$port" +tries=1 +time=2 +noedns "$3"
}
cd "$WORK"
ask normal 0 fast.test
ask hang 9 slow.test
dig=$(cat "$WORK/9.dig")
# dig's network thread: the one that sent the query (sendmmsg)
net=$(awk -v tgid="$dig" '
    /sys_sendmmsg\(fd: / {
        t = $0; sub(/^ *.*-/, "", t); sub(/ .*/, "", t)
        g = $0; sub(/^[^(]*\( */, "", g); sub(/\).*/, "", g)
        if (g == tgid) { print t; exit }
    }' "$OUT/hang.txt")
[ -n "$net" ] || { say "no query sent by dig ($dig) in the trace"; exit 1; }

truth proc dig
truth hang "$dig dig/main"
truth culprit "$net dig/$(awk -v t="$net" '$0 ~ "-" t " " { c = $1; sub(/-[0-9]+$/, "", c); print c; exit }' "$OUT/hang.txt")"
truth culprit "$sink udp-dns-sink/main"
truth ending timeout
truth why "dig waited for a UDP reply that never came: the server (udp-dns-sink, $sink) read the query and did not answer; dig's network thread ($net) gave up when its own 2 s timeout ended its epoll_wait, and signalled dig's main thread"
