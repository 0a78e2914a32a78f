"""The DevTools protocol of headless Chromium on a pipe, for the browser
tools of tests/ (page-drive, devtools-trace): Chromium started with
--remote-debugging-pipe (no port, no network), its protocol messages JSON
separated by NUL bytes on its fds 3 (to the browser) and 4 (from it)."""
import json
import os
import subprocess
import sys


class Browser:
    def __init__(self, profile, size=(1280, 860)):
        to_r, self.to_w = os.pipe()
        self.from_r, from_w = os.pipe()

        # the browser's fds 3 and 4, set by a shell (subprocess would close
        # them after a preexec_fn set them)
        self.proc = subprocess.Popen(
            ["sh", "-c", 'exec 3<&"$0" 4>&"$1"; shift; exec "$@"', str(to_r), str(from_w),
             "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--no-first-run", "--user-data-dir=" + profile, "--window-size=%d,%d" % size,
             "--remote-debugging-pipe", "about:blank"],
            pass_fds=(to_r, from_w), stdout=subprocess.DEVNULL, stderr=open(profile + ".log", "w"))
        os.close(to_r)
        os.close(from_w)
        self.buf = b""
        self.next_id = 0
        self.session = None
        self.events = []

    def send(self, method, params=None, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_w, json.dumps(msg).encode() + b"\0")
        while True:
            m = self.receive()
            if m.get("id") == self.next_id:
                if "error" in m:
                    sys.exit(f"page-drive: {method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def receive(self):
        while b"\0" not in self.buf:
            chunk = os.read(self.from_r, 65536)
            if not chunk:
                sys.exit("page-drive: the browser closed its pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def open(self, url):
        """a new tab at URL, this Browser's session attached to it"""
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.target = target
        self.session = None
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 session=False)["sessionId"]
        self.send("Runtime.enable")
        self.send("Page.enable")
        self.send("Page.navigate", {"url": url})

    def eval(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True})
        return r.get("result", {}).get("value")

    def mouse(self, kind, x, y, **extra):
        self.send("Input.dispatchMouseEvent", dict(type=kind, x=x, y=y, **extra))

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except SystemExit:
            pass
        self.proc.wait(timeout=30)
