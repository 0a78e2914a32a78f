#!/bin/bash
# tk-dialog: a Tk 8.6 window (python3-tk) under Xvfb whose key handler
# asks a question in a modal dialog (messagebox.askokcancel: Tk's
# tk_messageBox, a nested event loop, vwait, on the app's own Tcl
# notifier) and acts on the answer. The dialog is up 3 s before the user
# answers it (Return); meanwhile the app is idle in the dialog's loop,
# answering: not a hang. For the hang (key h) the answer starts work the
# handler waits for, a child process (`sleep 2.5`, subprocess); the
# normal run (key d) asks the same question and acts at once. The Tk
# counterpart of gtk-dialog.
# Truth: fixtures/real/tk-dialog/truth.
. "$(dirname "$0")/lib.sh"
need_root
need Xvfb:xvfb xdotool:xdotool sleep:coreutils
need_python_tk

# the app: keys d and h ask in a modal dialog (title argus-dialog); after
# the answer h runs `sleep 2.5` and waits for it (its pid to argv[2]);
# then the key's name (or "no-answer" when the dialog was not answered
# OK) goes to the fifo argv[1]; any other key is written at once
cat > "$WORK/app.py" <<'EOF'
import ctypes, os, sys
ctypes.CDLL(None).prctl(15, b"tk-dialog-app", 0, 0, 0)  # PR_SET_NAME
from child import wait_for_child  # lib.sh's $WORK/child.py
import tkinter
from tkinter import messagebox
done = os.open(sys.argv[1], os.O_RDWR)
def on_key(event):
    name = event.keysym
    if name in ("d", "h"):
        # tk_messageBox -type okcancel -default ok -title argus-dialog
        answer = messagebox.askokcancel(title="argus-dialog", message="Save the document?",
                                        default=messagebox.OK, parent=root)
        if not answer:
            name = "no-answer"
        elif name == "h":
            wait_for_child(2.5, sys.argv[2])
    label.configure(text="done " + name)
    os.write(done, (name + "\n").encode())
EOF
tk_window argus-tk-dialog >> "$WORK/app.py"

dialog_driver argus-tk-dialog

key_press_driver
desktop_env
start_display
start_gui_app argus-tk-dialog $py "$WORK/app.py" "$FIFO" "$WORK/child.pid"

record_dialog_runs tk-dialog-app "the app's key handler asked in a modal dialog (tk_messageBox, up 3 s: the app idle in the dialog's nested event loop, not hung), then on the answer ran \`sleep 2.5\` as a child process and waited for it, so Tk's event loop did not run"
