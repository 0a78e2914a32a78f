/* argus-record: the tracefs mount, the instance it records in, and
 * restore(), which undoes what was changed from any exit path. */
#include "record.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---------------------------------------------------------------------- */
/* tracefs files, relative to rec.tfs.root_fd */

/* Writes TEXT to tracefs file PATH opened with FLAGS; 0 or an errno. */
static int tfs_put(const char *path, const char *text, int flags)
{
    int fd = openat(rec.tfs.root_fd, path, O_WRONLY | flags | O_CLOEXEC);
    if (fd < 0)
        return errno;
    size_t n = strlen(text);
    ssize_t w = write(fd, text, n);
    int err = w == (ssize_t)n ? 0 : (w < 0 ? errno : EIO);
    close(fd);
    return err;
}

/* Writes TEXT to tracefs file PATH; 0 or an errno. */
int tfs_write(const char *path, const char *text)
{
    return tfs_put(path, text, O_TRUNC);
}

/* Appends TEXT to tracefs file PATH (a command file such as uprobe_events,
 * where O_TRUNC would clear every user's entries); 0 or an errno. */
int tfs_append(const char *path, const char *text)
{
    return tfs_put(path, text, O_APPEND);
}

/* Reads tracefs file PATH (first line, no newline) into BUF; 0 or errno. */
int tfs_read(const char *path, char *buf, size_t size)
{
    int fd = openat(rec.tfs.root_fd, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    ssize_t r = read(fd, buf, size - 1);
    int err = r < 0 ? errno : 0;
    close(fd);
    if (r < 0)
        r = 0;
    buf[r] = 0;
    buf[strcspn(buf, "\n")] = 0;
    return err;
}

bool tfs_exists(const char *path)
{
    return faccessat(rec.tfs.root_fd, path, F_OK, 0) == 0;
}

/* PATH under instance DIR, in BUF. */
static const char *vpath(char *buf, size_t size, const char *dir, const char *fmt, va_list ap)
{
    int n = snprintf(buf, size, "%s/", dir);
    vsnprintf(buf + n, size - (size_t)n, fmt, ap);
    return buf;
}

/* PATH under the instance. */
const char *ipath(const char *fmt, ...)
{
    static char buf[PATH_MAX + 256];
    va_list ap;
    va_start(ap, fmt);
    vpath(buf, sizeof buf, rec.tfs.instance, fmt, ap);
    va_end(ap);
    return buf;
}

/* PATH under argus-watch's detection instance. */
const char *dpath(const char *fmt, ...)
{
    static char buf[PATH_MAX + 256];
    va_list ap;
    va_start(ap, fmt);
    vpath(buf, sizeof buf, rec.tfs.detect_instance, fmt, ap);
    va_end(ap);
    return buf;
}

/* ---------------------------------------------------------------------- */
/* Restoring what was changed */

/* Stops and removes instance DIR when *MADE. */
static void remove_instance(const char *dir, bool *made)
{
    if (!*made)
        return;
    char on[PATH_MAX + 16];
    snprintf(on, sizeof on, "%s/tracing_on", dir);
    tfs_write(on, "0");
    /* rmdir fails with EBUSY while someone holds a file of the
     * instance open (a reader of its trace_pipe): retry for a while */
    int err = 0;
    for (int i = 0; i < 50; i++) {
        if (unlinkat(rec.tfs.root_fd, dir, AT_REMOVEDIR) == 0) {
            err = 0;
            break;
        }
        err = errno;
        if (err != EBUSY)
            break;
        usleep(20000);
    }
    if (err)
        argus_warn("%s/%s: cannot remove the instance (%s); remove it with rmdir", rec.tfs.root,
                   dir, strerror(err));
    *made = false;
}

void restore(void)
{
    if (rec.tfs.owner != getpid())
        return; /* a forked child exiting */
    rec.tfs.owner = 0; /* once */

    if (rec.child.pid && !rec.child.released && !rec.child.reaped) {
        /* held before or right after its exec: it must not run on */
        kill(rec.child.pid, SIGKILL);
        waitpid(rec.child.pid, NULL, 0);
        rec.child.reaped = true;
    }
    if (rec.tfs.trace) {
        fclose(rec.tfs.trace); /* an open file keeps the instance busy */
        rec.tfs.trace = NULL;
    }
    remove_instance(rec.tfs.detect_instance, &rec.tfs.detect_made);
    remove_instance(rec.tfs.instance, &rec.tfs.instance_made);
    probes_remove(); /* after the instance, which had them enabled */
    if (rec.tfs.top_tgid_old >= 0) {
        int err = tfs_write("options/record-tgid", rec.tfs.top_tgid_old ? "1" : "0");
        if (err)
            argus_warn("%s/options/record-tgid: cannot restore it to %d (%s)",
                       rec.tfs.root, rec.tfs.top_tgid_old, strerror(err));
        rec.tfs.top_tgid_old = -1;
    }
    if (rec.tfs.root_fd >= 0) {
        close(rec.tfs.root_fd);
        rec.tfs.root_fd = -1;
    }
    if (rec.tfs.mounted) {
        if (umount2(rec.tfs.root, 0) != 0)
            argus_warn("%s: cannot unmount the tracefs it mounted (%s)", rec.tfs.root,
                       strerror(errno));
        rec.tfs.mounted = false;
    }
}

/* ---------------------------------------------------------------------- */
/* tracefs and the instance */

static bool is_tracefs(const char *dir)
{
    char p[PATH_MAX + 16];
    snprintf(p, sizeof p, "%s/instances", dir);
    struct stat sb;
    if (stat(p, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return false;
    snprintf(p, sizeof p, "%s/trace", dir);
    return access(p, F_OK) == 0;
}

static void use_tracefs(const char *dir)
{
    snprintf(rec.tfs.root, sizeof rec.tfs.root, "%s", dir);
    rec.tfs.root_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rec.tfs.root_fd < 0)
        argus_die(ARGUS_EX_UNAVAILABLE, "%s: cannot open tracefs (%s)", dir, strerror(errno));
}

void find_tracefs(void)
{
    const char *env = getenv("ARGUS_TRACEFS");
    if (env && *env) {
        if (!is_tracefs(env))
            argus_die(ARGUS_EX_UNAVAILABLE,
                      "tracefs unavailable: %s (ARGUS_TRACEFS) is not a tracefs directory with instances/",
                      env);
        use_tracefs(env);
        return;
    }
    static const char sys[] = "/sys/kernel/tracing", debug[] = "/sys/kernel/debug/tracing";
    if (is_tracefs(sys)) {
        use_tracefs(sys);
        return;
    }
    int mount_err = 0;
    if (mount("nodev", sys, "tracefs", 0, NULL) == 0) {
        if (is_tracefs(sys)) {
            rec.tfs.mounted = true; /* before anything can exit: restore unmounts */
            snprintf(rec.tfs.root, sizeof rec.tfs.root, "%s", sys);
            use_tracefs(sys);
            return;
        }
        umount2(sys, 0);
        mount_err = ENOENT;
    } else {
        mount_err = errno;
    }
    if (is_tracefs(debug)) {
        use_tracefs(debug);
        return;
    }
    argus_die(ARGUS_EX_UNAVAILABLE,
              "tracefs unavailable: %s is not mounted and mounting it failed (%s), and %s is missing",
              sys, strerror(mount_err), debug);
}

void make_instance(const char *dir, uint64_t buffer_mb, bool *made)
{
    char path[PATH_MAX + 64];
    if (mkdirat(rec.tfs.root_fd, dir, 0755) != 0) {
        if (errno == EEXIST)
            argus_die(ARGUS_EX_UNAVAILABLE,
                      "%s/%s: the instance exists (another recorder? --instance names another one)",
                      rec.tfs.root, dir);
        argus_die(ARGUS_EX_UNAVAILABLE, "%s/%s: cannot create the instance (%s)", rec.tfs.root, dir,
                  strerror(errno));
    }
    *made = true;
    /* a new instance traces at once: off until everything is set */
    snprintf(path, sizeof path, "%s/tracing_on", dir);
    int err = tfs_write(path, "0");
    if (err)
        argus_die(ARGUS_EX_UNAVAILABLE, "%s/%s: %s", rec.tfs.root, path, strerror(err));
    char kb[32];
    snprintf(kb, sizeof kb, "%llu", (unsigned long long)(buffer_mb * 1024));
    snprintf(path, sizeof path, "%s/buffer_size_kb", dir);
    if ((err = tfs_write(path, kb)))
        argus_die(ARGUS_EX_UNAVAILABLE, "%s/%s: cannot set %s KB per CPU (%s)", rec.tfs.root, path,
                  kb, strerror(err));
    /* the ring buffer: the oldest events go when it is full */
    snprintf(path, sizeof path, "%s/options/overwrite", dir);
    if ((err = tfs_write(path, "1")))
        argus_die(ARGUS_EX_UNAVAILABLE, "%s/%s: %s", rec.tfs.root, path, strerror(err));
    /* CLOCK_MONOTONIC, the clock of the perf watchpoint samples */
    snprintf(path, sizeof path, "%s/trace_clock", dir);
    if ((err = tfs_write(path, "mono")))
        argus_die(ARGUS_EX_UNAVAILABLE, "%s/%s: cannot select mono (%s)", rec.tfs.root, path,
                  strerror(err));
    /* The (TGID) column: an instance option on recent kernels; older
     * ones have it at the top level only (changed, then restored). */
    snprintf(path, sizeof path, "%s/options/record-tgid", dir);
    if (tfs_exists(path)) {
        if ((err = tfs_write(path, "1")))
            argus_die(ARGUS_EX_UNAVAILABLE, "%s/%s: %s", rec.tfs.root, path, strerror(err));
    } else if (rec.tfs.top_tgid_old < 0) {
        char old[16];
        if ((err = tfs_read("options/record-tgid", old, sizeof old)))
            argus_die(ARGUS_EX_UNAVAILABLE, "%s/options/record-tgid: %s", rec.tfs.root,
                      strerror(err));
        rec.tfs.top_tgid_old = atoi(old) ? 1 : 0;
        if ((err = tfs_write("options/record-tgid", "1")))
            argus_die(ARGUS_EX_UNAVAILABLE, "%s/options/record-tgid: %s", rec.tfs.root,
                      strerror(err));
    }
}

void setup_instance(void)
{
    snprintf(rec.tfs.instance, sizeof rec.tfs.instance, "instances/%s", rec.opt.instance_name);
    make_instance(rec.tfs.instance, rec.opt.buffer_mb, &rec.tfs.instance_made);
    enable_events();
    probes_define();
}

/* ---------------------------------------------------------------------- */
/* What a recorder killed (SIGKILL, a crash) left behind */

/* Whether PID is no running argus-record or argus-watch: no such process,
 * or another program that has its pid now. */
static bool recorder_dead(long pid)
{
    if (pid == (long)getpid())
        return false;
    char path[64], comm[32] = "";
    snprintf(path, sizeof path, "/proc/%ld/comm", pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return errno == ENOENT;     /* unreadable: not known dead, kept */
    bool read_it = fgets(comm, sizeof comm, f) != NULL;
    fclose(f);
    if (!read_it)
        return true;                /* exited while read */
    comm[strcspn(comm, "\n")] = 0;
    return strcmp(comm, "argus-record") != 0 && strcmp(comm, "argus-watch") != 0;
}

/* The PID of NAME when it is PREFIX, digits, then nothing or SUFFIX
 * (when not NULL; "_N": an underscore and digits); 0: another name. */
static long pid_in_name(const char *name, const char *prefix, const char *suffix)
{
    size_t n = strlen(prefix);
    if (strncmp(name, prefix, n) != 0 || !isdigit((unsigned char)name[n]))
        return 0;
    char *end;
    errno = 0;
    long pid = strtol(name + n, &end, 10);
    if (errno || pid <= 0 || end - (name + n) > 10)
        return 0;
    if (strcmp(end, "") == 0 || (suffix && strcmp(end, suffix) == 0))
        return pid;
    /* SUFFIX "_N": a number after an underscore (argus_PID_G, the same
     * probe on a second library) */
    if (suffix && strcmp(suffix, "_N") == 0 && end[0] == '_' && isdigit((unsigned char)end[1])) {
        const char *d = end + 1;
        while (isdigit((unsigned char)*d))
            d++;
        return *d ? 0 : pid;
    }
    return 0;
}

/* Appends ", WHAT" (or WHAT first) to the summary in SAID. */
static void say_removed(char *said, size_t size, const char *what)
{
    size_t len = strlen(said);
    if (len + 2 < size)
        snprintf(said + len, size - len, "%s%s", len ? ", " : "", what);
}

/* Appends PREFIX NAME to *V, a list of *N names (nothing when out of
 * memory: a leftover kept for the next run). */
static void add_name(char ***v, size_t *n, const char *prefix, const char *name)
{
    char *entry = NULL;
    if (asprintf(&entry, "%s%s", prefix, name) < 0)
        return;
    char **grown = realloc(*v, (*n + 1) * sizeof **v);
    if (!grown) {
        free(entry);
        return;
    }
    *v = grown;
    (*v)[(*n)++] = entry;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether instance NAME (named with --instance) has a dead recorder's
 * uprobe group (argus_PID) enabled in it: that recorder's instance (its
 * probes cannot be removed while it uses them). */
static bool dead_probes_enabled_in(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "instances/%.255s/events", name);
    int fd = openat(rec.tfs.root_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
    if (!dir && fd >= 0)
        close(fd);
    bool found = false;
    for (struct dirent *e; !found && dir && (e = readdir(dir)) != NULL;) {
        long pid = pid_in_name(e->d_name, "argus_", "_N");
        char on[8] = "";
        snprintf(path, sizeof path, "instances/%.255s/events/%.255s/enable", name, e->d_name);
        found = pid && recorder_dead(pid) && tfs_read(path, on, sizeof on) == 0 && on[0] != '0';
    }
    if (dir)
        closedir(dir);
    return found;
}

/* Removes the tracefs instances (argus-PID, argus-PID-detect, and one of
 * another name where a dead recorder's probes are enabled) and the uprobe
 * groups (argus_PID) whose recorder is dead; their names on stderr, one
 * line. Returns how many things it removed. */
size_t reap_dead_recorders(void)
{
    char said[1024] = "";
    size_t removed = 0;
    char **gone = NULL;
    size_t ngone = 0;
    int dir_fd = openat(rec.tfs.root_fd, "instances", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *dir = dir_fd >= 0 ? fdopendir(dir_fd) : NULL;
    if (!dir && dir_fd >= 0)
        close(dir_fd);
    for (struct dirent *e; dir && (e = readdir(dir)) != NULL;) {
        long pid = pid_in_name(e->d_name, "argus-", "-detect");
        if (pid ? recorder_dead(pid) : e->d_name[0] != '.' && dead_probes_enabled_in(e->d_name))
            add_name(&gone, &ngone, "instances/", e->d_name);
    }
    if (dir)
        closedir(dir);
    /* in name order: the message says the same for the same leftovers */
    argus_sort(gone, ngone, sizeof *gone, cmp_names);
    for (size_t i = 0; i < ngone; i++) {
        bool made = true;
        remove_instance(gone[i], &made);
        if (!tfs_exists(gone[i])) {
            removed++;
            say_removed(said, sizeof said, gone[i]);
        }
        free(gone[i]);
    }
    free(gone);
    gone = NULL;
    ngone = 0;

    /* uprobe_events: "p:GROUP/EVENT PATH:OFFSET ..." (r: at a return) */
    int fd = openat(rec.tfs.root_fd, "uprobe_events", O_RDONLY | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "re") : NULL;
    if (!f && fd >= 0)
        close(fd);
    char line[4096];
    while (f && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':'), *slash = colon ? strchr(colon, '/') : NULL;
        if (!slash)
            continue;
        char group[64];
        size_t glen = (size_t)(slash - colon - 1);
        if (glen + 2 > sizeof group)
            continue;
        memcpy(group, colon + 1, glen);
        group[glen] = 0;
        long pid = pid_in_name(group, "argus_", "_N");
        if (!pid || !recorder_dead(pid))
            continue;
        char *event = slash + 1;
        event[strcspn(event, " \t\n")] = 0;
        group[glen] = '/';
        group[glen + 1] = 0;
        add_name(&gone, &ngone, group, event);
    }
    if (f)
        fclose(f);
    for (size_t i = 0; i < ngone; i++) {
        char path[4200], cmd[4200];
        /* enabled where its instance is gone or at the top: off first,
         * a probe in use cannot be removed */
        snprintf(path, sizeof path, "events/%s/enable", gone[i]);
        if (tfs_exists(path))
            tfs_write(path, "0");
        snprintf(cmd, sizeof cmd, "-:%s\n", gone[i]);
        int err = tfs_append("uprobe_events", cmd);
        if (err)
            argus_warn("%s/uprobe_events: cannot remove %s, left by a dead recorder (%s)",
                       rec.tfs.root, gone[i], strerror(err));
        else {
            removed++;
            say_removed(said, sizeof said, gone[i]);
        }
        free(gone[i]);
    }
    free(gone);
    if (removed && !rec.opt.quiet)
        fprintf(stderr, "%s: removed what dead recorders left in %s: %s\n", argus_prog(),
                rec.tfs.root, said);
    return removed;
}
