#!/bin/bash
# clip-paste: a GTK 3 window (python3-gi) under Xvfb whose key-press
# handler pastes the CLIPBOARD selection with
# Gtk.Clipboard.wait_for_text(), which runs a nested main loop until the
# selection's owner answers through the X server. The owner is xclip
# (`xclip -selection clipboard -i`), another X client. For the hang (key
# h) the recorded command stops xclip (SIGSTOP) before the key press and
# a subshell of its own, which waits 2.5 s in bash's `read -t` on a fifo
# that never has data, continues it (SIGCONT); the paste's request, app ->
# Xvfb -> xclip, waits that long for xclip to read it. Normal run (key n):
# xclip answers at once. Truth: fixtures/real/clip-paste/truth.
. "$(dirname "$0")/lib.sh"
need_root
need Xvfb:xvfb xdotool:xdotool xclip:xclip
need_python_gtk3

# the app: any key pastes the clipboard and checks the text; then it
# writes the key's name to the fifo argv[1] (or "wrong-paste": the press
# then fails)
cat > "$WORK/app.py" <<'EOF'
import ctypes, os, sys
ctypes.CDLL(None).prctl(15, b"gtk-clip-app", 0, 0, 0)  # PR_SET_NAME
import gi
gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, Gtk
done = os.open(sys.argv[1], os.O_RDWR)
expected = sys.argv[2]
def on_key(window, event):
    name = Gdk.keyval_name(event.keyval)
    text = Gtk.Clipboard.get(Gdk.SELECTION_CLIPBOARD).wait_for_text()
    label.set_text("pasted " + (text or "nothing"))
    os.write(done, ((name if text == expected else "wrong-paste") + "\n").encode())
    return True
EOF
gtk_window argus-clip-paste >> "$WORK/app.py"

# $WORK/stall KEY SECONDS: the hang's recorded action: stops the owner
# ($OWNER_PID), starts the subshell that continues it SECONDS later (its
# pid and comm in $WORK/stopper), then presses KEY ($WORK/press) and waits for
# the subshell
cat > "$WORK/stall" <<'STALL'
#!/bin/bash
kill -STOP "$OWNER_PID"
(
    read -r comm < "/proc/$BASHPID/comm"
    echo "$BASHPID $comm" > "$WORK/stopper"
    exec 4<>"$WORK/never"
    read -r -t "$2" -u 4 || true
    kill -CONT "$OWNER_PID"
) &
"$WORK/press" "$1"
status=$?
wait
exit $status
STALL
chmod +x "$WORK/stall"
mkfifo "$WORK/never"
export WORK

key_press_driver
desktop_env
start_display
text="argus clipboard text"
printf '%s' "$text" > "$WORK/clip.txt"
spawn xclip -selection clipboard -quiet -i "$WORK/clip.txt" > "$WORK/xclip.log" 2>&1
owner=$SPAWNED_PID
export OWNER_PID=$owner
wait_for 10 sh -c "[ \"\$(xclip -selection clipboard -o)\" = '$text' ]"
start_gui_app argus-clip-paste $py "$WORK/app.py" "$FIFO" "$text"
app=$APP_PID

record normal "$WORK/press" n
sleep 0.5
record hang "$WORK/stall" h 2.5
read -r stopper stopper_comm < "$WORK/stopper"
truth hang "$app gtk-clip-app/main"
truth culprit "$owner xclip/main"
truth culprit "$stopper $stopper_comm/main"
truth ending timeout
truth why "the app's key handler pasted with Gtk.Clipboard.wait_for_text, whose request went through Xvfb to the clipboard's owner, xclip ($owner), which was stopped (SIGSTOP) and answered only once the driver's subshell ($stopper) continued it after its 2.5 s read -t timeout"
