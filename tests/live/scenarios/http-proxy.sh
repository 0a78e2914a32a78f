#!/bin/bash
# http-proxy: curl fetches a page through a local HTTP proxy (tinyproxy,
# 127.0.0.1) from a local HTTP server (python3, 127.0.0.1) whose handler
# sleeps 2 s before it answers (GET /2; normal run: GET /0, at once).
# curl waits on its socket to the proxy, the proxy's connection thread on
# its socket to the server, the server's thread sleeps.
# Truth: fixtures/real/http-proxy/truth.
. "$(dirname "$0")/lib.sh"
need_root
need curl:curl tinyproxy:tinyproxy
py=/usr/bin/python3
[ -x $py ] || skip "needs $py (apt-get install python3)"

# the server: GET /N sleeps N seconds, then answers; one request at a time,
# on its main thread
cat > "$WORK/server.py" <<'EOF'
import ctypes, sys, time
ctypes.CDLL(None).prctl(15, b"slow-http-srv", 0, 0, 0)  # PR_SET_NAME
from http.server import BaseHTTPRequestHandler, HTTPServer
class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        time.sleep(float(self.path.rsplit("/", 1)[1]))
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")
    def log_message(self, *args):
        pass
HTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
EOF
port=$(free_port)
spawn $py "$WORK/server.py" "$port"
server=$SPAWNED_PID
wait_for 10 curl -sf -o /dev/null "http://127.0.0.1:$port/0"

proxy_port=$(free_port)
cat > "$WORK/tinyproxy.conf" <<EOF
Port $proxy_port
Listen 127.0.0.1
Timeout 60
MaxClients 10
Allow 127.0.0.1
LogLevel Error
LogFile "$WORK/tinyproxy.log"
DisableViaHeader Yes
EOF
spawn tinyproxy -d -c "$WORK/tinyproxy.conf"
proxy=$SPAWNED_PID
wait_for 10 curl -sf -o /dev/null -x "http://127.0.0.1:$proxy_port" "http://127.0.0.1:$port/0"

record normal curl -sf -o /dev/null -x "http://127.0.0.1:$proxy_port" "http://127.0.0.1:$port/0"
record hang curl -sf -o /dev/null -x "http://127.0.0.1:$proxy_port" "http://127.0.0.1:$port/2"

truth proc curl
truth hang "$RECORDED_PID curl/main"
truth culprit "$server slow-http-srv/main"
truth ending timeout
truth why "the server's handler slept 2 s before it answered, while tinyproxy ($proxy) waited for the answer to relay and curl waited for the proxy"
