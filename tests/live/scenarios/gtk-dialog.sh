#!/bin/bash
# gtk-dialog: a GTK 3 window (python3-gi) under Xvfb whose key-press
# handler asks a question in a modal dialog (Gtk.Dialog.run, GTK's
# gtk_dialog_run: a nested main loop on the app's own GLib context) and
# acts on the answer. The dialog is up 3 s before the user answers it
# (Return); meanwhile the app is idle in the dialog's loop, answering:
# not a hang. For the hang (key h) the answer starts work the handler
# waits for, a child process (`sleep 2.5`, subprocess.run); the normal
# run (key d) asks the same question and acts at once. With DIALOG_SPINNER=1
# (gtk-dialog-spinner.sh) the dialog shows a spinning Gtk.Spinner while it
# waits (a "working..." dialog): its loop then wakes on its frame clock
# every 16 ms and draws, where the plain dialog waits with no deadline.
# Truth: fixtures/real/gtk-dialog/truth.
. "$(dirname "$0")/lib.sh"
need_root
need Xvfb:xvfb xdotool:xdotool sleep:coreutils
need_python_gtk3

# the app: keys d and h ask in a modal dialog (title argus-dialog; with a
# spinner spinning when argv[3] is "spinner"); after
# the answer h runs `sleep 2.5` and waits for it (its pid to argv[2]);
# then the key's name (or "no-answer" when the dialog was not answered
# OK) goes to the fifo argv[1]; any other key is written at once
cat > "$WORK/app.py" <<'EOF'
import ctypes, os, sys
ctypes.CDLL(None).prctl(15, b"gtk-dialog-app", 0, 0, 0)  # PR_SET_NAME
from child import wait_for_child  # lib.sh's $WORK/child.py
import gi
gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, Gtk
done = os.open(sys.argv[1], os.O_RDWR)
def on_key(window, event):
    name = Gdk.keyval_name(event.keyval)
    if name in ("d", "h"):
        dialog = Gtk.MessageDialog(transient_for=window, modal=True,
                                   message_type=Gtk.MessageType.QUESTION,
                                   buttons=Gtk.ButtonsType.OK_CANCEL,
                                   text="Save the document?")
        dialog.set_title("argus-dialog")
        dialog.set_default_response(Gtk.ResponseType.OK)
        if sys.argv[3] == "spinner":
            spinner = Gtk.Spinner()
            dialog.get_message_area().add(spinner)
            spinner.show()
            spinner.start()
        answer = dialog.run()
        dialog.destroy()
        if answer != Gtk.ResponseType.OK:
            name = "no-answer"
        elif name == "h":
            wait_for_child(2.5, sys.argv[2])
    label.set_text("done " + name)
    os.write(done, (name + "\n").encode())
    return True
EOF
gtk_window argus-gtk-dialog >> "$WORK/app.py"

dialog_driver argus-gtk-dialog

key_press_driver
desktop_env
start_display
dialog=plain
[ -z "${DIALOG_SPINNER:-}" ] || dialog=spinner
start_gui_app argus-gtk-dialog $py "$WORK/app.py" "$FIFO" "$WORK/child.pid" $dialog

words="idle in the dialog's loop"
[ $dialog = plain ] || words="in the dialog's loop, drawing its spinner"
record_dialog_runs gtk-dialog-app "the app's key handler asked in a modal dialog (Gtk.Dialog.run, up 3 s: the app $words, not hung), then on the answer ran \`sleep 2.5\` as a child process and waited for it, so GTK's main loop did not run"
