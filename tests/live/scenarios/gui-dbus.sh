#!/bin/bash
# gui-dbus: a GTK 3 window (python3-gi) under Xvfb whose key-press handler
# makes a synchronous GDBus call (g_dbus_connection_call_sync) to a service
# on a private dbus-daemon; the service's method sleeps 2 s before it
# replies (key h; normal run: key n, it replies at once). The app's main
# thread waits for the reply, which its gdbus thread reads from the
# daemon's socket; the daemon forwards it from the service's gdbus thread,
# which sends it once the service's main thread has slept.
# Truth: fixtures/real/gui-dbus/truth.
. "$(dirname "$0")/lib.sh"
need_root
need Xvfb:xvfb xdotool:xdotool dbus-daemon:dbus-daemon dbus-send:dbus-bin
py=/usr/bin/python3
[ -x $py ] || skip "needs $py (apt-get install python3)"
$py -c 'import gi; gi.require_version("Gtk", "3.0"); from gi.repository import Gtk' 2>/dev/null ||
    skip "needs GTK 3 for python (apt-get install python3-gi gir1.2-gtk-3.0)"

# the slow service: org.argus.Slow.Delay(d seconds) sleeps, then replies
cat > "$WORK/service.py" <<'EOF'
import ctypes, time
ctypes.CDLL(None).prctl(15, b"slow-dbus-svc", 0, 0, 0)  # PR_SET_NAME
from gi.repository import Gio, GLib
XML = """<node><interface name="org.argus.Slow">
  <method name="Delay"><arg type="d" name="seconds" direction="in"/></method>
</interface></node>"""
def on_call(conn, sender, path, iface, method, params, invocation):
    time.sleep(params.unpack()[0])
    invocation.return_value(None)
bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
bus.register_object("/org/argus/Slow", Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0],
                    on_call, None, None)
Gio.bus_own_name_on_connection(bus, "org.argus.Slow", Gio.BusNameOwnerFlags.NONE, None, None)
GLib.MainLoop().run()
EOF

# the app: key h calls Delay(2), any other key Delay(0); then it writes the
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
                  GLib.Variant("(d)", (2.0 if name == "h" else 0.0,)), None,
                  Gio.DBusCallFlags.NONE, 10000, None)
    label.set_text("handled " + name)
    os.write(done, (name + "\n").encode())
    return True
window = Gtk.Window(title="argus-gui-dbus")
label = Gtk.Label(label="press a key")
window.add(label)
window.set_default_size(200, 100)
window.connect("key-press-event", on_key)
window.connect("destroy", Gtk.main_quit)
window.show_all()
Gtk.main()
EOF

key_press_driver

export XDG_RUNTIME_DIR=$WORK/run HOME=$WORK/home XDG_CACHE_HOME=$WORK/cache \
    XDG_CONFIG_HOME=$WORK/config XDG_DATA_HOME=$WORK/data
mkdir -m 700 "$XDG_RUNTIME_DIR" "$HOME"
# no accessibility bus, dconf, gvfs or input-method daemon: only the app,
# the bus and the service
export NO_AT_BRIDGE=1 GSETTINGS_BACKEND=memory GIO_USE_VFS=local GTK_IM_MODULE=gtk-im-context-simple

start_display
spawn dbus-daemon --session --address="unix:path=$WORK/bus" --nofork --print-address > "$WORK/bus.address"
wait_for 10 test -s "$WORK/bus.address"
export DBUS_SESSION_BUS_ADDRESS=unix:path=$WORK/bus
spawn $py "$WORK/service.py"
service=$SPAWNED_PID
wait_for 10 dbus-send --session --print-reply --dest=org.argus.Slow /org/argus/Slow org.argus.Slow.Delay double:0
start_gui_app argus-gui-dbus $py "$WORK/app.py" "$FIFO"
app=$APP_PID

record normal "$WORK/press" n
sleep 0.5
record hang "$WORK/press" h
truth proc gtk-dbus-app
truth hang "$app gtk-dbus-app/main"
truth culprit "$service slow-dbus-svc/main"
truth ending timeout
truth why "the service's main thread slept 2 s in its D-Bus method handler before it replied, while the app's key handler waited for that reply in g_dbus_connection_call_sync"
