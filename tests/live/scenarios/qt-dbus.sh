#!/bin/bash
# qt-dbus: a Qt 5 window (python3-pyqt5, xcb) under Xvfb whose key-press
# handler makes a synchronous QtDBus call (QDBusInterface.call, libdbus
# underneath) to the slow GDBus service on a private dbus-daemon; the
# service's method sleeps 3 s before it replies (key h; normal run: key n,
# it replies at once). Qt runs its GUI thread on GLib's main loop here.
# Truth: fixtures/real/qt-dbus/truth.
. "$(dirname "$0")/lib.sh"
need_root
need Xvfb:xvfb xdotool:xdotool dbus-daemon:dbus-daemon dbus-send:dbus-bin
py=/usr/bin/python3
[ -x $py ] || skip "needs $py (apt-get install python3)"
$py -c 'from PyQt5 import QtDBus, QtWidgets' 2>/dev/null ||
    skip "needs Qt 5 for python (apt-get install python3-pyqt5)"
$py -c 'from gi.repository import Gio' 2>/dev/null ||
    skip "needs GLib for python, for the service (apt-get install python3-gi)"

# the app: key h calls Delay(3), any other key Delay(0); then it writes the
# key's name to the fifo argv[1]
cat > "$WORK/app.py" <<'EOF'
import ctypes, os, sys
ctypes.CDLL(None).prctl(15, b"qt-dbus-app", 0, 0, 0)  # PR_SET_NAME
from PyQt5 import QtDBus, QtWidgets
done = os.open(sys.argv[1], os.O_RDWR)
app = QtWidgets.QApplication(sys.argv[:1])
slow = QtDBus.QDBusInterface("org.argus.Slow", "/org/argus/Slow", "org.argus.Slow",
                             QtDBus.QDBusConnection.sessionBus())
slow.setTimeout(10000)
class Window(QtWidgets.QLabel):
    def keyPressEvent(self, event):
        name = event.text()
        slow.call("Delay", 3.0 if name == "h" else 0.0)
        self.setText("handled " + name)
        os.write(done, (name + "\n").encode())
window = Window("press a key")
window.setWindowTitle("argus-qt-dbus")
window.resize(200, 100)
window.show()
sys.exit(app.exec_())
EOF

key_press_driver
desktop_env
start_display
start_slow_dbus_service
service=$SERVICE_PID
start_gui_app argus-qt-dbus $py "$WORK/app.py" "$FIFO"
app=$APP_PID

record_normal_and_hang
truth hangs 1
truth hang "$app qt-dbus-app/main"
truth culprit "$service slow-dbus-svc/main"
truth ending timeout
truth why "the service's main thread slept 3 s in its D-Bus method handler before it replied, while the Qt app's key handler waited for that reply in QDBusInterface.call"
