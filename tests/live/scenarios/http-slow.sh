#!/bin/bash
# http-slow: curl fetches http://127.0.0.1:PORT/cgi-bin/slow.py?2 from
# Python's http.server (python3 -m http.server --cgi). The server's
# request thread sends the status line, forks and execs the CGI script
# with the socket as its stdout, and waits for it; the script (a Python
# CGI program, comm slow.py) sleeps 2 s before it writes its body, so
# curl's main thread waits on the socket for the CGI process. Normal run:
# the same request with ?0 (no sleep). Truth: fixtures/real/http-slow/truth.
. "$(dirname "$0")/lib.sh"
need_root
need curl:curl /usr/bin/python3:python3
/usr/bin/python3 -c 'import http.server' 2>/dev/null || skip "needs python3's http.server (apt-get install python3)"
# http.server runs CGI scripts as nobody: it must reach the script
chmod 711 "$WORK"
mkdir -p "$WORK/www/cgi-bin"
cat > "$WORK/www/cgi-bin/slow.py" <<'CGI'
#!/usr/bin/python3
import os, sys, time
time.sleep(float(os.environ.get("QUERY_STRING") or 0))
sys.stdout.write("Content-Type: text/plain\r\n\r\nslow.py done\n")
CGI
chmod 755 "$WORK/www" "$WORK/www/cgi-bin" "$WORK/www/cgi-bin/slow.py"
port=$(free_port)
spawn /usr/bin/python3 -m http.server --cgi --bind 127.0.0.1 --directory "$WORK/www" "$port" > "$WORK/server.log" 2>&1
wait_for 10 curl -sf -o /dev/null "http://127.0.0.1:$port/"
url="http://127.0.0.1:$port/cgi-bin/slow.py"
record normal curl -sS --max-time 20 -o "$WORK/normal.out" "$url?0"

record hang curl -sS --max-time 20 -o "$WORK/hang.out" "$url?2"
grep -qx 'slow.py done' "$WORK/normal.out" && grep -qx 'slow.py done' "$WORK/hang.out" ||
    { say "CGI failed: $(cat "$WORK"/*.out "$WORK/server.log")"; exit 1; }
# the CGI process (forked by the server's request thread) is in the trace
cgi=$(grep -m1 -oE 'sched_process_exec: filename=[^ ]*/cgi-bin/slow.py pid=[0-9]+' "$OUT/hang.txt" | sed 's/.*pid=//')
[ -n "$cgi" ] || { say "no exec of slow.py in the trace"; exit 1; }
grep -qE "^ *slow.py-$cgi " "$OUT/hang.txt" || { say "the CGI process $cgi is not named slow.py"; exit 1; }
truth proc curl
truth hang "$RECORDED_PID curl/main"
truth culprit "$cgi slow.py/main"
truth ending timeout
truth why "the CGI script slow.py that python3's http.server ran for the request slept 2 s before it wrote the response body to curl's socket"
