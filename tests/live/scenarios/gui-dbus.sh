#!/bin/bash
# gui-dbus: a GTK 3 window (python3-gi) under Xvfb whose key-press handler
# makes a synchronous GDBus call (g_dbus_connection_call_sync) to a service
# on a private dbus-daemon; the service's method sleeps 3 s before it
# replies (key h; normal run: key n, it replies at once). The app's main
# thread waits for the reply, which its gdbus thread reads from the
# daemon's socket; the daemon forwards it from the service's gdbus thread,
# which sends it once the service's main thread has slept.
# Truth: fixtures/real/gui-dbus/truth.
. "$(dirname "$0")/lib.sh"
need_root
need Xvfb:xvfb xdotool:xdotool dbus-daemon:dbus-daemon dbus-send:dbus-bin
need_python_gtk3

# the app: key h calls Delay(3), any other key Delay(0); then it writes the
# key's name to the fifo argv[1]
cat > "$WORK/app.py" <<'EOF'
import ctypes, os, sys
ctypes.CDLL(None).prctl(15, b"gtk-dbus-app", 0, 0, 0)  # PR_SET_NAME
import gi
gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, Gio, GLib, Gtk
done = os.open(sys.argv[1], os.O_RDWR)
bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
def on_key(window, event):
    name = Gdk.keyval_name(event.keyval)
    bus.call_sync("org.argus.Slow", "/org/argus/Slow", "org.argus.Slow", "Delay",
                  GLib.Variant("(d)", (3.0 if name == "h" else 0.0,)), None,
                  Gio.DBusCallFlags.NONE, 10000, None)
    label.set_text("handled " + name)
    os.write(done, (name + "\n").encode())
    return True
EOF
gtk_window argus-gui-dbus >> "$WORK/app.py"

key_press_driver

desktop_env
start_display
start_slow_dbus_service
service=$SERVICE_PID
start_gui_app argus-gui-dbus $py "$WORK/app.py" "$FIFO"
app=$APP_PID

record_normal_and_hang
# with argus-record's uprobes (GLib's loop, GTK's input) no flag is needed:
# one hang, the app's main thread
truth hangs 1
truth hang "$app gtk-dbus-app/main"
truth culprit "$service slow-dbus-svc/main"
truth ending timeout
truth why "the service's main thread slept 3 s in its D-Bus method handler before it replied, while the app's key handler waited for that reply in g_dbus_connection_call_sync"
