#!/bin/bash
# qt5-busy: a Qt 5 window (python3-pyqt5, xcb) under Xvfb whose key-press
# handler computes for 3 s on the GUI thread (key h; normal run: key n,
# 10 ms), so Qt's event loop (on GLib's main loop here) takes no events
# meanwhile. No other thread is involved: the main thread is both the one
# that hung and the cause. (gui-busy is the same in Tk.)
# Truth: fixtures/real/qt5-busy/truth.
. "$(dirname "$0")/lib.sh"
need_root
need Xvfb:xvfb xdotool:xdotool
py=/usr/bin/python3
[ -x $py ] || skip "needs $py (apt-get install python3)"
$py -c 'from PyQt5 import QtWidgets' 2>/dev/null ||
    skip "needs Qt 5 for python (apt-get install python3-pyqt5)"

# the app: key h computes 3 s, any other key 10 ms; then it writes the
# key's name to the fifo argv[1]
cat > "$WORK/app.py" <<'EOF'
import ctypes, os, sys, time
ctypes.CDLL(None).prctl(15, b"qt-busy-app", 0, 0, 0)  # PR_SET_NAME
from PyQt5 import QtWidgets
done = os.open(sys.argv[1], os.O_RDWR)
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from busy import compute  # lib.sh's $WORK/busy.py: computes for SECONDS
app = QtWidgets.QApplication(sys.argv[:1])
class Window(QtWidgets.QLabel):
    def keyPressEvent(self, event):
        name = event.text()
        compute(3.0 if name == "h" else 0.01)
        self.setText("handled " + name)
        os.write(done, (name + "\n").encode())
window = Window("press a key")
window.setWindowTitle("argus-qt5-busy")
window.resize(200, 100)
window.show()
sys.exit(app.exec_())
EOF

key_press_driver
desktop_env
start_display
start_gui_app argus-qt5-busy $py "$WORK/app.py" "$FIFO"
app=$APP_PID

record_normal_and_hang
truth hangs 1
truth hang "$app qt-busy-app/main"
truth culprit "$app qt-busy-app/main"
truth ending running
truth why "the app's key handler computed for 3 s on the GUI thread, so Qt's event loop did not run"
