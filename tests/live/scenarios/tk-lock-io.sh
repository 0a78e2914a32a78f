#!/bin/bash
# tk-lock-io: a Tk 8.6 window (python3-tk) under Xvfb whose key handler
# starts a worker thread that takes a threading.Lock and, holding it, asks
# a local HTTP server (python3, 127.0.0.1) for /3, which sleeps 3 s before
# it answers; the handler waits until the worker holds the lock, then takes
# the lock itself (key h; normal run: key n, /0, answered at once). A lock
# held by a *blocked* thread (gtk4-lock: by a busy one): the main thread
# waits on the lock, the worker on its socket, the server's thread sleeps.
# Truth: fixtures/real/tk-lock-io/truth.
. "$(dirname "$0")/lib.sh"
need_root
need Xvfb:xvfb xdotool:xdotool
need_python_tk

# the server: GET /N sleeps N seconds, then answers; on its main thread
cat > "$WORK/server.py" <<'EOF'
import ctypes, sys, time
ctypes.CDLL(None).prctl(15, b"slow-http-srv", 0, 0, 0)  # PR_SET_NAME
from http.server import BaseHTTPRequestHandler, HTTPServer
class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        time.sleep(float(self.path[1:]))
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")
    def log_message(self, *args):
        pass
HTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
EOF

# the app: key h makes the worker hold the lock while it fetches /2, any
# other key /0; then it writes the key's name to the fifo argv[1]
cat > "$WORK/app.py" <<'EOF'
import ctypes, os, sys, threading, urllib.request
libc = ctypes.CDLL(None)
libc.prctl(15, b"tk-lock-app", 0, 0, 0)  # PR_SET_NAME
import tkinter
done = os.open(sys.argv[1], os.O_RDWR)
url = "http://127.0.0.1:%s/" % sys.argv[2]
lock = threading.Lock()
def fetch(seconds, holding):
    libc.prctl(15, b"fetcher", 0, 0, 0)
    with lock:
        holding.set()
        urllib.request.urlopen(url + seconds, timeout=10).read()
def on_key(event):
    holding = threading.Event()
    threading.Thread(target=fetch, args=("3" if event.keysym == "h" else "0", holding)).start()
    holding.wait(10)
    with lock:
        label.configure(text="handled " + event.keysym)
    os.write(done, (event.keysym + "\n").encode())
EOF
tk_window argus-tk-lock-io >> "$WORK/app.py"

key_press_driver
desktop_env
start_display
port=$(free_port)
spawn $py "$WORK/server.py" "$port"
server=$SPAWNED_PID
wait_for 10 $py -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/0')"
start_gui_app argus-tk-lock-io $py "$WORK/app.py" "$FIFO" "$port"
app=$APP_PID

record_normal_and_hang
truth hangs 1
truth hang "$app tk-lock-app/main"
truth culprit "$server slow-http-srv/main"
truth ending timeout
truth why "the key handler waited for a lock that the app's worker thread held while it waited for a local HTTP server, whose handler slept 3 s before it answered"
