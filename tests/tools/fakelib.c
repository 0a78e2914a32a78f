/* A stand-in for the desktop libraries argus-record probes (tests/record.bats):
 * built as libglib-2.0.so.0.7400.6 it has GLib's loop functions, as
 * libQt5Gui.so.5.15.2 Qt's input functions (of a version argus-record does
 * not know). The bodies only keep the calls from being folded away. */
volatile int fakelib_calls;

int g_main_context_dispatch(void *context)
{
    fakelib_calls++;
    return context != 0;
}

int g_poll(void *fds, unsigned int nfds, int timeout)
{
    fakelib_calls++;
    return fds ? (int)nfds : timeout;
}

void _ZN22QGuiApplicationPrivate15processKeyEventEPN29QWindowSystemInterfacePrivate8KeyEventE(void *e)
{
    fakelib_calls += e != 0;
}

void _ZN22QGuiApplicationPrivate17processMouseEventEPN29QWindowSystemInterfacePrivate10MouseEventE(void *e)
{
    fakelib_calls += e != 0;
}
