#!/bin/bash
# gui-worker: a GTK 3 window (python3-gi) under Xvfb whose key-press
# handler hands a request to a worker thread and waits for it (join); the
# worker asks a local HTTP server (python3, 127.0.0.1), whose handler
# sleeps 3 s before it answers (key h; normal run: key n, it answers at
# once). The app's main thread waits on its worker, the worker on the
# server's socket, the server's thread sleeps.
# Truth: fixtures/real/gui-worker/truth.
. "$(dirname "$0")/lib.sh"
need_root
need Xvfb:xvfb xdotool:xdotool
need_python_gtk3

# the server: GET /N sleeps N seconds, then answers; one request at a time,
# on its main thread
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

# the app: key h asks for /3, any other key for /0, on a worker thread it
# joins; then it writes the key's name to the fifo argv[1]
cat > "$WORK/app.py" <<'EOF'
import ctypes, os, sys, threading, urllib.request
libc = ctypes.CDLL(None)
libc.prctl(15, b"gtk-worker-app", 0, 0, 0)  # PR_SET_NAME
import gi
gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, Gtk
done = os.open(sys.argv[1], os.O_RDWR)
url = "http://127.0.0.1:%s/" % sys.argv[2]
def fetch(seconds):
    libc.prctl(15, b"fetcher", 0, 0, 0)
    urllib.request.urlopen(url + seconds, timeout=10).read()
def on_key(window, event):
    name = Gdk.keyval_name(event.keyval)
    worker = threading.Thread(target=fetch, args=("3" if name == "h" else "0",))
    worker.start()
    worker.join()
    label.set_text("handled " + name)
    os.write(done, (name + "\n").encode())
    return True
EOF
gtk_window argus-gui-worker >> "$WORK/app.py"

key_press_driver
desktop_env
start_display
port=$(free_port)
spawn $py "$WORK/server.py" "$port"
server=$SPAWNED_PID
wait_for 10 $py -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/0')"
start_gui_app argus-gui-worker $py "$WORK/app.py" "$FIFO" "$port"
app=$APP_PID

record_normal_and_hang
truth hangs 1
truth hang "$app gtk-worker-app/main"
truth culprit "$server slow-http-srv/main"
truth ending timeout
truth why "the server's handler slept 3 s before it answered, while the app's worker waited for the answer and the app's key handler waited for the worker (join)"
