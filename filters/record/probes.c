/* argus-record: uprobes on the desktop's libraries (their main loops,
 * input and D-Bus messages), defined in a uprobe group of the recorder's
 * own, enabled in its instance, removed by restore(). One row of the
 * table per probe (docs/inputs/linux.md has the decoder's side). */
#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
    /* Tcl_WaitForEvent(const Tcl_Time *timePtr): NULL waits with no
     * deadline; else Tcl_Time's sec and usec (two longs, tcl.h's public
     * layout). Read through a NULL pointer, they are not used. */
    {"tk", "libtcl8.6.so", "Tcl_WaitForEvent", false, "argus_tcl_wait",
     "time=%di:x64 sec=+0(%di):s64 usec=+8(%di):s64", NULL, NULL, NULL},
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

/* One probe defined: a row of the table on one file, in one group (the
 * same event on a second file needs a group of its own: argus_PID_G). */
struct def {
    size_t probe;
    unsigned group;       /* 0: argus_PID; G: argus_PID_G */
    char path[PATH_MAX];  /* the file as given to the kernel */
    dev_t dev;            /* the file's identity: a file probed once */
    ino_t ino;
    uint64_t offset;
};

/* A set not probed on the libraries a focused process maps, and why. */
struct focus_off {
    size_t set;
    int pid;
    char why[PATH_MAX + 256];
};

/* The probes defined, for restore(). */
static struct {
    char base[64];         /* argus_PID */
    char (*group_names)[80];
    unsigned n_groups;
    struct def *defs;
    size_t n_defs, cap_defs;
    bool unknown[N_SETS];  /* installed, of a version not known */
    char why[N_SETS][PATH_MAX + 256]; /* the system's set not probed: why (for the header) */
    bool chosen[N_SETS];
    bool explicit;         /* --probes: a set not probed is an error */
    int *focus;            /* probes_focus: the processes whose libraries count */
    size_t n_focus;
    struct focus_off *offs;
    size_t n_offs;
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

void probes_focus(const int *pids, size_t n)
{
    free(pr.focus);
    pr.focus = NULL;
    pr.n_focus = 0;
    if (!n)
        return;
    pr.focus = argus_xmalloc(n * sizeof *pr.focus, "processes to probe");
    memcpy(pr.focus, pids, n * sizeof *pids);
    pr.n_focus = n;
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

/* The name of group G (argus_PID, argus_PID_G), made as groups are used. */
static const char *group_name(unsigned g)
{
    while (g >= pr.n_groups) {
        pr.group_names = argus_xrealloc(pr.group_names, (pr.n_groups + 1) * sizeof *pr.group_names,
                                        "uprobe groups");
        if (pr.n_groups == 0)
            snprintf(pr.group_names[0], sizeof *pr.group_names, "%s", pr.base);
        else
            snprintf(pr.group_names[pr.n_groups], sizeof *pr.group_names, "%s_%u", pr.base,
                     pr.n_groups);
        pr.n_groups++;
    }
    return pr.group_names[g];
}

/* Removes the last definition, which the kernel has; 0 or an errno. */
static int remove_last_def(void)
{
    const struct def *d = &pr.defs[pr.n_defs - 1];
    const char *event = probes[d->probe].event, *group = group_name(d->group);
    char line[256];
    snprintf(line, sizeof line, "-:%s/%s\n", group, event);
    int err = tfs_append("uprobe_events", line);
    if (err)
        argus_warn("%s/uprobe_events: cannot remove %s/%s (%s); remove it with echo '-:%s/%s' >> uprobe_events",
                   rec.tfs.root, group, event, strerror(err), group, event);
    pr.n_defs--;
    probes_n_defined--;
    return err;
}

/* Probe I defined on the file DEV:INO already. */
static bool defined_on(size_t i, dev_t dev, ino_t ino)
{
    for (size_t k = 0; k < pr.n_defs; k++)
        if (pr.defs[k].probe == i && pr.defs[k].dev == dev && pr.defs[k].ino == ino)
            return true;
    return false;
}

/* The first group without probe I (its event's name is free there). */
static unsigned free_group(size_t i)
{
    for (unsigned g = 0;; g++) {
        bool used = false;
        for (size_t k = 0; k < pr.n_defs && !used; k++)
            used = pr.defs[k].probe == i && pr.defs[k].group == g;
        if (!used)
            return g;
    }
}

/* Where the probes of one set go: per row of the table, the file as the
 * kernel is to open it and the name whose version counts (the same but
 * for a focused process's file reached through /proc). */
struct place {
    char path[PATH_MAX];
    char name[PATH_MAX];
    dev_t dev;
    ino_t ino;
    uint64_t offset;
};

/* Defines the probes of set S, all or none, on FILES (per row: the
 * file's place, its path "" for the system's library), but those already
 * defined on the same file. 1: some defined; 0: all were already; -1:
 * none, with the reason in WHY (*UNKNOWN: a version not known). */
static int define_set(size_t s, const struct place *files, char *why, size_t why_size,
                      bool *unknown)
{
#if !defined(__x86_64__)
    (void)files;
    (void)unknown;
    snprintf(why, why_size, "its fetch arguments are x86-64's");
    return -1;
#endif
    struct place *places = argus_xcalloc(N_PROBES, sizeof *places, "uprobe places");
    bool ok = true;
    for (size_t i = 0; i < N_PROBES && ok; i++) {
        const struct probe *p = &probes[i];
        struct place *pl = &places[i];
        struct stat sb;
        if (strcmp(p->set, set_names[s]) != 0)
            continue;
        if (files && files[i].path[0]) {
            *pl = files[i];
        } else if (find_library(p->library, pl->path)) {
            memcpy(pl->name, pl->path, sizeof pl->name);
        } else {
            snprintf(why, why_size, "%s is not installed", p->library);
            ok = false;
            break;
        }
        if (!version_known(p->versions, file_version(pl->name))) {
            snprintf(why, why_size, "%s: version %s, which %s does not know (known: %s)",
                     pl->name, file_version(pl->name), p->event, p->versions);
            *unknown = true;
            ok = false;
        } else if (!function_offset(pl->path, p->symbol, &pl->offset)) {
            snprintf(why, why_size, "%s: no function %s in its symbol tables", pl->path,
                     p->symbol);
            ok = false;
        } else if (stat(pl->path, &sb) != 0) {
            snprintf(why, why_size, "%s: %s", pl->path, strerror(errno));
            ok = false;
        } else {
            pl->dev = sb.st_dev;
            pl->ino = sb.st_ino;
            if (p->step_over)
                pl->offset += step_over(pl->path, pl->offset, p->step_over);
        }
    }
    size_t first_new = pr.n_defs;
    for (size_t i = 0; i < N_PROBES && ok; i++) {
        const struct probe *p = &probes[i];
        if (strcmp(p->set, set_names[s]) != 0 || defined_on(i, places[i].dev, places[i].ino))
            continue;
        unsigned g = free_group(i);
        char line[PATH_MAX + 512];
        snprintf(line, sizeof line, "%c:%s/%s %s:0x%llx %s\n", p->at_return ? 'r' : 'p',
                 group_name(g), p->event, places[i].path, (unsigned long long)places[i].offset,
                 p->fetch);
        int err = tfs_append("uprobe_events", line);
        if (err) {
            snprintf(why, why_size, "%s/uprobe_events: cannot define %s (%s)", rec.tfs.root,
                     p->event, strerror(err));
            ok = false;
            break;
        }
        if (pr.n_defs == pr.cap_defs) {
            pr.cap_defs = pr.cap_defs ? pr.cap_defs * 2 : N_PROBES;
            pr.defs = argus_xrealloc(pr.defs, pr.cap_defs * sizeof *pr.defs, "uprobes");
        }
        struct def *d = &pr.defs[pr.n_defs++];
        d->probe = i;
        d->group = g;
        memcpy(d->path, places[i].path, sizeof d->path);
        d->dev = places[i].dev;
        d->ino = places[i].ino;
        d->offset = places[i].offset;
        probes_n_defined++;
    }
    free(places);
    if (!ok) { /* all or none: a set half defined would show half a loop */
        while (pr.n_defs > first_new)
            remove_last_def();
        return -1;
    }
    return pr.n_defs > first_new;
}

/* The file mapped as PATH by PID (mapping M): its place for the kernel
 * (PATH when the root namespace's PATH is that file, else PATH under
 * /proc/PID/root, else the mapping itself in /proc/PID/map_files: a
 * deleted file) and its identity; false when none opens. */
static bool mapped_place(int pid, const struct mapping *m, struct place *pl)
{
    char name[PATH_MAX], map_file[96];
    snprintf(name, sizeof name, "%s", m->path);
    size_t len = strlen(name);
    static const char deleted[] = " (deleted)";
    if (len > sizeof deleted - 1 && strcmp(name + len - (sizeof deleted - 1), deleted) == 0)
        name[len - (sizeof deleted - 1)] = 0;
    snprintf(pl->name, sizeof pl->name, "%s", name);
    snprintf(map_file, sizeof map_file, "/proc/%d/map_files/%llx-%llx", pid,
             (unsigned long long)m->start, (unsigned long long)m->end);
    struct stat mapped, sb;
    bool known = stat(map_file, &mapped) == 0;
    char under_root[PATH_MAX + 32];
    snprintf(under_root, sizeof under_root, "/proc/%d/root%s", pid, name);
    const char *candidates[] = {name, under_root};
    for (size_t c = 0; c < 2; c++) {
        if (strlen(candidates[c]) >= sizeof pl->path || stat(candidates[c], &sb) != 0 ||
            !S_ISREG(sb.st_mode) || access(candidates[c], R_OK) != 0)
            continue;
        if (known && (sb.st_dev != mapped.st_dev || sb.st_ino != mapped.st_ino))
            continue; /* another file of that name: not the one it runs */
        snprintf(pl->path, sizeof pl->path, "%s", candidates[c]);
        pl->dev = sb.st_dev;
        pl->ino = sb.st_ino;
        return true;
    }
    if (!known)
        return false;
    snprintf(pl->path, sizeof pl->path, "%s", map_file);
    pl->dev = mapped.st_dev;
    pl->ino = mapped.st_ino;
    return true;
}

/* Whether the file name of PATH is the library SONAME or one of its
 * versions ("libglib-2.0.so.0.7400.6" for "libglib-2.0.so.0"). */
static bool is_library(const char *path, const char *soname)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(soname);
    return strncmp(base, soname, n) == 0 && (base[n] == 0 || base[n] == '.' || base[n] == ' ');
}

/* Whether DEV:INO is the system's library of probe I (its set, when not
 * defined, was said not to be probed: not again per process). */
static bool system_file(size_t i, dev_t dev, ino_t ino)
{
    char path[PATH_MAX];
    struct stat sb;
    return find_library(probes[i].library, path) && stat(path, &sb) == 0 && sb.st_dev == dev &&
           sb.st_ino == ino;
}

/* The sets on the libraries focused process PID maps, where a file is
 * not one probed already. */
static void define_focus(int pid)
{
    struct maps maps;
    if (!read_maps(pid, &maps)) {
        argus_note("--pid %d: its libraries cannot be read (%s): not probed", pid,
                          strerror(errno));
        return;
    }
    struct place *files = argus_xcalloc(N_PROBES, sizeof *files, "uprobe places");
    for (size_t s = 0; s < N_SETS; s++) {
        if (!pr.chosen[s])
            continue;
        memset(files, 0, N_PROBES * sizeof *files);
        bool any_new = false;
        for (size_t i = 0; i < N_PROBES; i++) {
            if (strcmp(probes[i].set, set_names[s]) != 0)
                continue;
            for (size_t m = 0; m < maps.n; m++) {
                if (!maps.v[m].path || !is_library(maps.v[m].path, probes[i].library) ||
                    !mapped_place(pid, &maps.v[m], &files[i]))
                    continue;
                any_new |= !defined_on(i, files[i].dev, files[i].ino) &&
                           !system_file(i, files[i].dev, files[i].ino);
                break;
            }
        }
        if (!any_new)
            continue;
        struct focus_off off = {.set = s, .pid = pid};
        bool unknown = false;
        if (define_set(s, files, off.why, sizeof off.why, &unknown) >= 0)
            continue;
        if (pr.explicit)
            argus_die(ARGUS_EX_UNAVAILABLE, "--probes %s: process %d: %s", set_names[s], pid,
                      off.why);
        argus_note("probes %s not set on process %d's libraries: %s", set_names[s], pid,
                          off.why);
        pr.offs = argus_xrealloc(pr.offs, (pr.n_offs + 1) * sizeof *pr.offs, "uprobe places");
        pr.offs[pr.n_offs++] = off;
    }
    free(files);
    free_maps(&maps);
}

const char *probes_group(void)
{
    return pr.base;
}

size_t probes_n_groups(void)
{
    size_t n = 0;
    for (size_t k = 0; k < pr.n_defs; k++)
        if (pr.defs[k].group + 1 > n)
            n = pr.defs[k].group + 1;
    return n;
}

const char *probes_group_at(size_t g)
{
    return group_name((unsigned)g);
}

void probes_define(void)
{
    snprintf(pr.base, sizeof pr.base, "argus_%d", (int)getpid());
    bool any = false;
    for (size_t s = 0; s < N_SETS; s++)
        any |= pr.chosen[s];
    if (!any)
        return;
    if (!tfs_exists("uprobe_events")) {
        if (pr.explicit)
            argus_die(ARGUS_EX_UNAVAILABLE,
                      "--probes: %s/uprobe_events is missing (a kernel without uprobes)",
                      rec.tfs.root);
        argus_note("no uprobes on this kernel (%s/uprobe_events): the desktop's libraries are not probed",
                          rec.tfs.root);
        return;
    }
    /* the system's libraries, then the files the focused processes map
     * that are not those (a bundled or a container's library) */
    bool failed[N_SETS] = {0};
    for (size_t s = 0; s < N_SETS; s++)
        if (pr.chosen[s])
            failed[s] = define_set(s, NULL, pr.why[s], sizeof pr.why[s], &pr.unknown[s]) < 0;
    for (size_t k = 0; k < pr.n_focus; k++)
        define_focus(pr.focus[k]);
    for (size_t s = 0; s < N_SETS; s++) {
        if (!failed[s])
            continue;
        bool on_focus = false; /* probed on a focused process's files */
        for (size_t k = 0; k < pr.n_defs && !on_focus; k++)
            on_focus = strcmp(probes[pr.defs[k].probe].set, set_names[s]) == 0;
        if (pr.explicit && !on_focus)
            argus_die(ARGUS_EX_UNAVAILABLE, "--probes %s: %s", set_names[s], pr.why[s]);
        /* a library not installed is the usual case: said in the header
         * only; an unknown version is worth a warning */
        if (pr.unknown[s])
            argus_note("probes %s not set: %s", set_names[s], pr.why[s]);
    }
    if (!probes_n_defined)
        return;
    for (size_t k = 0; k < pr.n_defs; k++) {
        const struct probe *p = &probes[pr.defs[k].probe];
        if (!p->filter)
            continue;
        const char *group = group_name(pr.defs[k].group);
        int err = tfs_write(ipath("events/%s/%s/filter", group, p->event), p->filter);
        if (err)
            argus_die(ARGUS_EX_UNAVAILABLE, "%s/%s/events/%s/%s/filter: %s", rec.tfs.root,
                      rec.tfs.instance, group, p->event, strerror(err));
    }
    for (size_t g = 0; g < probes_n_groups(); g++) {
        const char *group = group_name((unsigned)g);
        int err = tfs_write(ipath("events/%s/enable", group), "1");
        if (err)
            argus_die(ARGUS_EX_UNAVAILABLE, "%s/%s/events/%s/enable: %s", rec.tfs.root,
                      rec.tfs.instance, group, strerror(err));
    }
    rec.tfs.n_enabled += probes_n_defined;
}

void probes_remove(void)
{
    while (pr.n_defs)
        remove_last_def();
}

void write_probes_header(void)
{
    for (size_t s = 0; s < N_SETS; s++) {
        if (!pr.chosen[s])
            continue;
        for (size_t k = 0; k < pr.n_defs; k++) {
            const struct def *d = &pr.defs[k];
            const struct probe *p = &probes[d->probe];
            if (strcmp(p->set, set_names[s]) == 0)
                out_printf("# probe: set=%s event=%s library=%s offset=0x%llx symbol=%s%s\n",
                           set_names[s], p->event, d->path, (unsigned long long)d->offset,
                           p->symbol, p->at_return ? "%return" : "");
        }
        if (pr.why[s][0])
            out_printf("# probes: set=%s off=%s\n", set_names[s], pr.why[s]);
        for (size_t k = 0; k < pr.n_offs; k++)
            if (pr.offs[k].set == s)
                out_printf("# probes: set=%s pid=%d off=%s\n", set_names[s], pr.offs[k].pid,
                           pr.offs[k].why);
    }
}
