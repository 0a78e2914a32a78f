/* argus-record: uprobes on the desktop's libraries (their main loops,
 * input and D-Bus messages), defined in a uprobe group of the recorder's
 * own, enabled in its instance, removed by restore(). One row of the
 * table per probe (docs/inputs/linux.md has the decoder's side). */
#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One uprobe: a function of a library (in its .dynsym: Debian's libraries
 * are stripped), at its entry or its return, and what is fetched there
 * (x86-64 registers; struct fields by offset). A probe that reads a
 * struct by offset names the library versions whose layout it assumes:
 * prefixes of the version in the real file's name after ".so."
 * (libdbus-1.so.3.32.4: "3.32."), separated by commas; NULL where the
 * layout is the library's public ABI (the same for its soname). */
struct probe {
    const char *set;     /* its --probes name */
    const char *library; /* the soname, looked up in the library directories */
    const char *symbol;
    bool at_return;
    const char *event;   /* the tracefs event: the name the decoder maps */
    const char *fetch;
    const char *versions; /* versions known, as prefixes of what follows
                             ".so." in the file's name; NULL: any */
    const char *filter;  /* the event's filter in the instance (NULL: none) */
    /* the probe goes after the function's first instruction when it is
     * these bytes (an instruction the kernel would single-step: 19 us a
     * hit instead of 5 here), the registers it reads being the same */
    const char *step_over;
};

/* libglib-2.0.so.0.MMmm.p: GLib 2.MM (2.50 to 2.76) */
#define GLIB_VERSIONS "0.50,0.52,0.54,0.56,0.58,0.60,0.62,0.64,0.66,0.68,0.70,0.72,0.74,0.76"

static const struct probe probes[] = {
    /* GLib's main loop (GTK, and Qt on Debian, run on it): a dispatch of
     * the ready sources of context ctx, and the poll between iterations
     * (g_poll is "mov %esi,%esi; jmp poll": probed at the jmp). GLib 2.78
     * dispatches through a static function and 2.82 calls ppoll itself:
     * there these would never fire, so only 2.50 to 2.76 are probed. */
    {"glib", "libglib-2.0.so.0", "g_main_context_dispatch", false, "argus_glib_dispatch",
     "ctx=%di", GLIB_VERSIONS, NULL, NULL},
    {"glib", "libglib-2.0.so.0", "g_main_context_dispatch", true, "argus_glib_dispatch_ret",
     "", GLIB_VERSIONS, NULL, NULL},
    {"glib", "libglib-2.0.so.0", "g_poll", false, "argus_glib_poll", "timeout=%dx:s32",
     GLIB_VERSIONS, NULL, "\x89\xf6"},
    {"glib", "libglib-2.0.so.0", "g_poll", true, "argus_glib_poll_ret", "n=$retval:s32",
     GLIB_VERSIONS, NULL, "\x89\xf6"},
    /* GTK 3's event handler: GdkEvent's type, GdkEventKey's keyval
     * (gdkevents.h, public and fixed for libgtk-3.so.0); input only:
     * button and key press and release, scroll */
    {"gtk3", "libgtk-3.so.0", "gtk_main_do_event", false, "argus_gtk_event",
     "type=+0(%di):s32 keyval=+28(%di):u32", NULL,
     "(type >= 4 && type <= 9) || type == 31", NULL},
    /* Qt 5's input on its GUI thread, once per event (notifyInternal2
     * runs six times a key): QWindowSystemInterfacePrivate's KeyEvent
     * (keyType +68, nativeVirtualKey +76: the X keysym) and MouseEvent
     * (button +100, buttonType +104), private layouts of Qt 5.15.8 */
    {"qt5", "libQt5Gui.so.5",
     "_ZN22QGuiApplicationPrivate15processKeyEventEPN29QWindowSystemInterfacePrivate8KeyEventE",
     false, "argus_qt_key", "type=+68(%di):u32 keysym=+76(%di):u32", "5.15.8",
     "type == 6 || type == 7", NULL},
    {"qt5", "libQt5Gui.so.5",
     "_ZN22QGuiApplicationPrivate17processMouseEventEPN29QWindowSystemInterfacePrivate10MouseEventE",
     false, "argus_qt_mouse", "type=+104(%di):u32 button=+100(%di):u32", "5.15.8",
     "type == 2 || type == 3 || type == 4", NULL},
    /* Tcl's event loop (Tk's): a queued event serviced (the handlers of
     * Tk's X events run inside it), and the wait for events between */
    {"tk", "libtcl8.6.so", "Tcl_ServiceEvent", false, "argus_tcl_service", "flags=%di:s32", NULL,
     NULL, NULL},
    {"tk", "libtcl8.6.so", "Tcl_ServiceEvent", true, "argus_tcl_service_ret", "", NULL, NULL,
     NULL},
    {"tk", "libtcl8.6.so", "Tcl_WaitForEvent", false, "argus_tcl_wait", "", NULL, NULL, NULL},
    {"tk", "libtcl8.6.so", "Tcl_WaitForEvent", true, "argus_tcl_wait_ret", "n=$retval:s32", NULL,
     NULL, NULL},
    /* Tk's X events: XEvent's type (Xlib's public layout); key and button
     * press and release only */
    {"tk", "libtk8.6.so", "Tk_HandleEvent", false, "argus_tk_event", "type=+0(%di):s32", NULL,
     "type >= 2 && type <= 5", NULL},
    /* GDBus's messages (GLib 2.74's private GDBusMessage: type +24,
     * serial +44): the serial given as it is sent (on the calling
     * thread), the request a reply answers, and each message received (on
     * the gdbus worker; NULL when the blob is bad: fields 0) */
    {"gdbus", "libgio-2.0.so.0", "g_dbus_message_set_serial", false, "argus_gd_set_serial",
     "msg=%di serial=%si:u32 type=+24(%di):u32", "0.7400.", NULL, NULL},
    {"gdbus", "libgio-2.0.so.0", "g_dbus_message_set_reply_serial", false,
     "argus_gd_set_reply_serial", "msg=%di reply_serial=%si:u32 type=+24(%di):u32", "0.7400.",
     NULL, NULL},
    {"gdbus", "libgio-2.0.so.0", "g_dbus_message_new_from_blob", true, "argus_gd_from_blob",
     "msg=$retval type=+24($retval):u32 serial=+44($retval):u32", "0.7400.", NULL, NULL},
    /* libdbus's messages (dbus-daemon, python-dbus, QtDBus, dbus-send):
     * DBusMessage's header bytes are at *(msg+8), the wire header: [1] the
     * type, [8..11] the serial (a little-endian sender's). A client's send
     * and the reply a message answers; a receipt is the first
     * get_reply_serial of a message (it runs several times a message,
     * 5-6 in the daemon, whose receipts its set_sender tells: filtered
     * out by its name, more than half the lines of a call); the daemon
     * stamps the sender's unique name on what it receives and sends
     * through send_preallocated to each recipient's connection. set_serial
     * and send_preallocated start with "test %rdi,%rdi; je": probed at the
     * je (5.5-7 us a hit instead of 20-24 here, the same values read) */
    {"libdbus", "libdbus-1.so.3", "dbus_message_set_serial", false, "argus_db_set_serial",
     "msg=%di serial=%si:u32 type=+1(+8(%di)):u8", "3.32.", NULL, "\x48\x85\xff"},
    {"libdbus", "libdbus-1.so.3", "dbus_message_set_reply_serial", false,
     "argus_db_set_reply_serial", "msg=%di reply_serial=%si:u32 type=+1(+8(%di)):u8", "3.32.",
     NULL, NULL},
    {"libdbus", "libdbus-1.so.3", "dbus_message_get_reply_serial", false,
     "argus_db_get_reply_serial", "msg=%di serial=+8(+8(%di)):u32 type=+1(+8(%di)):u8", "3.32.",
     "comm != \"dbus-daemon\"", NULL},
    {"libdbus", "libdbus-1.so.3", "dbus_message_set_sender", false, "argus_db_set_sender",
     "msg=%di sender=+0(%si):string serial=+8(+8(%di)):u32 type=+1(+8(%di)):u8", "3.32.", NULL,
     NULL},
    {"libdbus", "libdbus-1.so.3", "dbus_connection_send_preallocated", false,
     "argus_db_send_prealloc", "conn=%di msg=%dx serial=+8(+8(%dx)):u32 type=+1(+8(%dx)):u8",
     "3.32.", NULL, "\x48\x85\xff"},
};

#define N_PROBES (sizeof probes / sizeof *probes)

/* The sets --probes knows, in the table's order. */
static const char *const set_names[] = {"glib", "gtk3", "qt5", "tk", "gdbus", "libdbus"};
#define N_SETS (sizeof set_names / sizeof *set_names)

/* Where a library is looked for (ARGUS_RECORD_LIBDIRS, colon-separated,
 * replaces the list: the tests' libraries). */
static const char *const lib_dirs[] = {
#if defined(__x86_64__)
    "/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu",
#endif
    "/usr/lib64", "/lib64", "/usr/lib", "/lib",
};

/* The probes defined, for restore(). */
static struct {
    char group[64];
    bool defined[N_PROBES];
    char path[N_PROBES][PATH_MAX];
    uint64_t offset[N_PROBES];
    bool unknown[N_SETS];  /* installed, of a version not known */
    char why[N_SETS][PATH_MAX + 256]; /* a set not probed: why (for the header) */
    bool chosen[N_SETS];
    bool explicit;         /* --probes: a set not probed is an error */
} pr;

size_t probes_n_defined;

static int set_index(const char *name, size_t len)
{
    for (size_t i = 0; i < N_SETS; i++)
        if (strlen(set_names[i]) == len && memcmp(set_names[i], name, len) == 0)
            return (int)i;
    return -1;
}

void probes_choose(const char *list)
{
    if (!list) {
        for (size_t i = 0; i < N_SETS; i++)
            pr.chosen[i] = true;
        return;
    }
    memset(pr.chosen, 0, sizeof pr.chosen);
    pr.explicit = true;
    if (strcmp(list, "none") == 0)
        return;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        int i = set_index(p, len);
        if (i < 0)
            argus_usage_error("--probes %s: unknown set '%.*s' (known: glib, gtk3, qt5, tk, gdbus, libdbus, none)", list,
                              (int)len, p);
        pr.chosen[i] = true;
        p += len;
        if (*p)
            p++;
    }
}

/* The library's file: the first directory holding SONAME, resolved to the
 * real file (whose name holds the version). */
static bool find_library(const char *soname, char path[PATH_MAX])
{
    const char *env = getenv("ARGUS_RECORD_LIBDIRS");
    char candidate[PATH_MAX];
    if (env) {
        for (const char *p = env; *p;) {
            size_t len = strcspn(p, ":");
            snprintf(candidate, sizeof candidate, "%.*s/%s", (int)len, p, soname);
            if (len && realpath(candidate, path) && access(path, R_OK) == 0)
                return true;
            p += len;
            if (*p)
                p++;
        }
        return false;
    }
    for (size_t i = 0; i < sizeof lib_dirs / sizeof *lib_dirs; i++) {
        snprintf(candidate, sizeof candidate, "%s/%s", lib_dirs[i], soname);
        if (realpath(candidate, path) && access(path, R_OK) == 0)
            return true;
    }
    return false;
}

/* "3.32.4" of ".../libdbus-1.so.3.32.4"; "" when the name has none. */
static const char *file_version(const char *path)
{
    const char *so = strstr(strrchr(path, '/') ? strrchr(path, '/') : path, ".so.");
    return so ? so + 4 : "";
}

static bool version_known(const char *versions, const char *version)
{
    if (!versions)
        return true;
    for (const char *p = versions; *p;) {
        size_t len = strcspn(p, ",");
        if (len && strncmp(version, p, len) == 0)
            return true;
        p += len;
        if (*p)
            p++;
    }
    return false;
}

/* How many bytes to skip at OFFSET of PATH: the length of BYTES when the
 * function starts with them, else 0. */
static uint64_t step_over(const char *path, uint64_t offset, const char *bytes)
{
    size_t n = strlen(bytes);
    char buf[16];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    bool same = n <= sizeof buf && pread(fd, buf, n, (off_t)offset) == (ssize_t)n &&
                memcmp(buf, bytes, n) == 0;
    close(fd);
    return same ? n : 0;
}

/* Removes probe I if it was defined; 0 or an errno. */
static int remove_probe(size_t i)
{
    if (!pr.defined[i])
        return 0;
    char line[256];
    snprintf(line, sizeof line, "-:%s/%s\n", pr.group, probes[i].event);
    int err = tfs_append("uprobe_events", line);
    if (err)
        argus_warn("%s/uprobe_events: cannot remove %s/%s (%s); remove it with echo '-:%s/%s' >> uprobe_events",
                   st.root, pr.group, probes[i].event, strerror(err), pr.group, probes[i].event);
    pr.defined[i] = false;
    probes_n_defined--;
    return err;
}

/* Defines the probes of set S, all or none; false with the reason in
 * pr.why[S]. */
static bool define_set(size_t s)
{
    char *why = pr.why[s];
    size_t why_size = sizeof pr.why[s];
#if !defined(__x86_64__)
    snprintf(why, why_size, "its fetch arguments are x86-64's");
    return false;
#endif
    struct place {
        char path[PATH_MAX];
        uint64_t offset;
    } *places = calloc(N_PROBES, sizeof *places);
    if (!places)
        abort();
    bool ok = true;
    for (size_t i = 0; i < N_PROBES && ok; i++) {
        const struct probe *p = &probes[i];
        if (strcmp(p->set, set_names[s]) != 0)
            continue;
        if (!find_library(p->library, places[i].path)) {
            snprintf(why, why_size, "%s is not installed", p->library);
            ok = false;
        } else if (!version_known(p->versions, file_version(places[i].path))) {
            snprintf(why, why_size,
                     "%s: version %s, which %s does not know (known: %s)",
                     places[i].path, file_version(places[i].path), p->event, p->versions);
            pr.unknown[s] = true;
            ok = false;
        } else if (!function_offset(places[i].path, p->symbol, &places[i].offset)) {
            snprintf(why, why_size, "%s: no function %s in its symbol tables",
                     places[i].path, p->symbol);
            ok = false;
        } else if (p->step_over) {
            places[i].offset += step_over(places[i].path, places[i].offset, p->step_over);
        }
    }
    for (size_t i = 0; i < N_PROBES && ok; i++) {
        const struct probe *p = &probes[i];
        if (strcmp(p->set, set_names[s]) != 0)
            continue;
        char line[PATH_MAX + 512];
        snprintf(line, sizeof line, "%c:%s/%s %s:0x%llx %s\n", p->at_return ? 'r' : 'p',
                 pr.group, p->event, places[i].path, (unsigned long long)places[i].offset,
                 p->fetch);
        int err = tfs_append("uprobe_events", line);
        if (err) {
            snprintf(why, why_size, "%s/uprobe_events: cannot define %s (%s)", st.root,
                     p->event, strerror(err));
            ok = false;
            break;
        }
        pr.defined[i] = true;
        memcpy(pr.path[i], places[i].path, sizeof pr.path[i]);
        pr.offset[i] = places[i].offset;
        probes_n_defined++;
    }
    free(places);
    if (!ok) /* all or none: a set half defined would show half a loop */
        for (size_t i = 0; i < N_PROBES; i++)
            if (strcmp(probes[i].set, set_names[s]) == 0)
                remove_probe(i);
    return ok;
}

const char *probes_group(void)
{
    return pr.group;
}

void probes_define(void)
{
    snprintf(pr.group, sizeof pr.group, "argus_%d", (int)getpid());
    bool any = false;
    for (size_t s = 0; s < N_SETS; s++)
        any |= pr.chosen[s];
    if (!any)
        return;
    if (!tfs_exists("uprobe_events")) {
        if (pr.explicit)
            argus_die(EX_UNAVAILABLE, "--probes: %s/uprobe_events is missing (a kernel without uprobes)",
                      st.root);
        warn_unless_quiet("no uprobes on this kernel (%s/uprobe_events): the desktop's libraries are not probed",
                          st.root);
        return;
    }
    for (size_t s = 0; s < N_SETS; s++) {
        if (!pr.chosen[s] || define_set(s))
            continue;
        if (pr.explicit)
            argus_die(EX_UNAVAILABLE, "--probes %s: %s", set_names[s], pr.why[s]);
        /* a library not installed is the usual case: said in the header
         * only; an unknown version is worth a warning */
        if (pr.unknown[s])
            warn_unless_quiet("probes %s not set: %s", set_names[s], pr.why[s]);
    }
    if (!probes_n_defined)
        return;
    for (size_t i = 0; i < N_PROBES; i++) {
        if (!pr.defined[i] || !probes[i].filter)
            continue;
        int err = tfs_write(ipath("events/%s/%s/filter", pr.group, probes[i].event),
                            probes[i].filter);
        if (err)
            argus_die(EX_UNAVAILABLE, "%s/%s/events/%s/%s/filter: %s", st.root, st.instance,
                      pr.group, probes[i].event, strerror(err));
    }
    int err = tfs_write(ipath("events/%s/enable", pr.group), "1");
    if (err)
        argus_die(EX_UNAVAILABLE, "%s/%s/events/%s/enable: %s", st.root, st.instance, pr.group,
                  strerror(err));
    n_enabled += probes_n_defined;
}

void probes_remove(void)
{
    for (size_t i = 0; i < N_PROBES; i++)
        remove_probe(i);
}

void write_probes_header(void)
{
    for (size_t s = 0; s < N_SETS; s++) {
        if (!pr.chosen[s])
            continue;
        if (pr.why[s][0]) {
            out_printf("# probes: set=%s off=%s\n", set_names[s], pr.why[s]);
            continue;
        }
        for (size_t i = 0; i < N_PROBES; i++)
            if (pr.defined[i] && strcmp(probes[i].set, set_names[s]) == 0)
                out_printf("# probe: set=%s event=%s library=%s offset=0x%llx symbol=%s%s\n",
                           set_names[s], probes[i].event, pr.path[i],
                           (unsigned long long)pr.offset[i], probes[i].symbol,
                           probes[i].at_return ? "%return" : "");
    }
}
