#!/bin/bash
# qt-dialog: a Qt 5 window (python3-pyqt5, xcb) under Xvfb whose key-press
# handler asks a question in a modal dialog (QMessageBox.exec_: a nested
# QEventLoop, on the app's own event dispatcher, GLib's main context here)
# and acts on the answer. The dialog is up 3 s before the user answers it
# (Return); meanwhile the app is idle in the dialog's loop, answering:
# not a hang. For the hang (key h) the answer starts work the handler
# waits for, a child process (`sleep 2.5`, subprocess); the normal run
# (key d) asks the same question and acts at once. The Qt counterpart of
# gtk-dialog and tk-dialog.
# Truth: fixtures/real/qt-dialog/truth.
. "$(dirname "$0")/lib.sh"
need_root
need Xvfb:xvfb xdotool:xdotool sleep:coreutils
py=/usr/bin/python3
[ -x $py ] || skip "needs $py (apt-get install python3)"
$py -c 'from PyQt5 import QtWidgets' 2>/dev/null ||
    skip "needs Qt 5 for python (apt-get install python3-pyqt5)"

# the app: keys d and h ask in a modal dialog (title argus-dialog); after
# the answer h runs `sleep 2.5` and waits for it (its pid to argv[2]);
# then the key's name (or "no-answer" when the dialog was not answered
# OK) goes to the fifo argv[1]; any other key is written at once
cat > "$WORK/app.py" <<'EOF'
import ctypes, os, sys
ctypes.CDLL(None).prctl(15, b"qt-dialog-app", 0, 0, 0)  # PR_SET_NAME
from child import wait_for_child  # lib.sh's $WORK/child.py
from PyQt5 import QtWidgets
done = os.open(sys.argv[1], os.O_RDWR)
app = QtWidgets.QApplication(sys.argv[:1])
class Window(QtWidgets.QLabel):
    def keyPressEvent(self, event):
        name = event.text()
        if name in ("d", "h"):
            box = QtWidgets.QMessageBox(QtWidgets.QMessageBox.Question, "argus-dialog",
                                        "Save the document?",
                                        QtWidgets.QMessageBox.Ok | QtWidgets.QMessageBox.Cancel,
                                        self)
            box.setDefaultButton(QtWidgets.QMessageBox.Ok)
            answer = box.exec_()
            box.deleteLater()
            if answer != QtWidgets.QMessageBox.Ok:
                name = "no-answer"
            elif name == "h":
                wait_for_child(2.5, sys.argv[2])
        self.setText("done " + name)
        os.write(done, (name + "\n").encode())
window = Window("press a key")
window.setWindowTitle("argus-qt-dialog")
window.resize(200, 100)
window.show()
sys.exit(app.exec_())
EOF

dialog_driver argus-qt-dialog

key_press_driver
desktop_env
start_display
start_gui_app argus-qt-dialog $py "$WORK/app.py" "$FIFO" "$WORK/child.pid"

record_dialog_runs qt-dialog-app "the app's key handler asked in a modal dialog (QMessageBox.exec_, up 3 s: the app idle in the dialog's nested QEventLoop, not hung), then on the answer ran \`sleep 2.5\` as a child process and waited for it, so Qt's event loop did not run"
