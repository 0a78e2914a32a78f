#!/bin/bash
# qt-posted: a Qt 5 window (python3-pyqt5, xcb) under Xvfb whose key-press
# handler does not compute itself: it posts the work to its own event loop
# (QTimer.singleShot(0, ...): a queued call, Qt's posted event) and returns
# at once; the loop then runs it on the GUI thread, where it computes for
# 3 s (key h; normal run: key n, 10 ms). The hang is the posted event's
# dispatch; it was started by the key press through the posted event
# (gtk-idle is the same through a GLib idle source, qt5-busy computes in
# the handler itself).
# Truth: fixtures/real/qt-posted/truth.
. "$(dirname "$0")/lib.sh"
need_root
need Xvfb:xvfb xdotool:xdotool
py=/usr/bin/python3
[ -x $py ] || skip "needs $py (apt-get install python3)"
$py -c 'from PyQt5 import QtCore, QtWidgets' 2>/dev/null ||
    skip "needs Qt 5 for python (apt-get install python3-pyqt5)"

# the app: key h posts work of 3 s, any other key of 10 ms; the work then
# writes the key's name to the fifo argv[1]
cat > "$WORK/app.py" <<'EOF'
import ctypes, os, sys, time
ctypes.CDLL(None).prctl(15, b"qt-posted-app", 0, 0, 0)  # PR_SET_NAME
from PyQt5 import QtCore, QtWidgets
done = os.open(sys.argv[1], os.O_RDWR)
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from busy import compute  # lib.sh's $WORK/busy.py: computes for SECONDS
app = QtWidgets.QApplication(sys.argv[:1])
class Window(QtWidgets.QLabel):
    def keyPressEvent(self, event):
        name = event.text()
        QtCore.QTimer.singleShot(0, lambda: self.work(name))
    def work(self, name):
        compute(3.0 if name == "h" else 0.01)
        self.setText("handled " + name)
        os.write(done, (name + "\n").encode())
window = Window("press a key")
window.setWindowTitle("argus-qt-posted")
window.resize(200, 100)
window.show()
sys.exit(app.exec_())
EOF

key_press_driver
desktop_env
start_display
start_gui_app argus-qt-posted $py "$WORK/app.py" "$FIFO"
app=$APP_PID

record_normal_and_hang
truth hangs 1
truth hang "$app qt-posted-app/main"
truth culprit "$app qt-posted-app/main"
truth ending running
truth why "the app's key handler posted work (QTimer.singleShot(0)) that computed for 3 s on the GUI thread when Qt's event loop ran it, so the loop took no other event; the key press started it"
