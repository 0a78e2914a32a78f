/* argus-watch: a folder per hang (WATCH-WINDOW, WATCH-REPORT): the window
 * of the trace around it as trace.txt.gz (read from the instance's ring,
 * or from the replayed file), argus diagnose's report.txt and report.html,
 * one line on stdout, and a desktop notification. All but the line and the
 * notification happen in a child, so that the watch goes on meanwhile. A
 * hang the diagnosis does not confirm (no hang of that process in the
 * window) leaves no folder. */
#include "watch.h"

#include "argus/stream/input.h"
#include "argus/stream/cli.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define LOOKBACK (3000 * WATCH_MS) /* before the hang: the input that began it */
#define TAIL (500 * WATCH_MS)      /* after its end: the wakeups that ended it */
#define MAX_RUNNING 4              /* diagnoses at once */

typedef struct queued {
    struct hang_found h;
    uint64_t due;               /* its window is written then */
    char dir[PATH_MAX];         /* its folder, once written */
    pid_t child;                /* the diagnosis running, 0: not yet */
    bool written;
} queued;

static queued *queue;
static size_t n_queued, cap_queued;
static const struct thread_list *threads_at_start;
static uint64_t clock_mono, clock_real;
uint64_t reports_written, reports_unconfirmed, reports_lost;

void report_set_threads(const struct thread_list *at_start)
{
    threads_at_start = at_start;
}

void report_set_clock(uint64_t mono, uint64_t realtime)
{
    clock_mono = mono;
    clock_real = realtime;
}

size_t report_pending(void)
{
    return n_queued;
}

void report_hang(const struct hang_found *h)
{
    if (n_queued == cap_queued) {
        cap_queued = cap_queued ? 2 * cap_queued : 8;
        queue = argus_xrealloc(queue, cap_queued * sizeof *queue, "the diagnoses queued");
    }
    queue[n_queued++] = (queued){.h = *h, .due = h->open ? h->end : h->end + TAIL};
    if (wopt.verbose)
        fprintf(stderr, "%s: %s [%d]: a hang from %.6f s to %.6f s%s; diagnosing it\n",
                argus_prog(), h->name, h->pid, h->begin / 1e9, h->end / 1e9,
                h->open ? " (still going)" : "");
}

/* The wall-clock time of TS (ns on the trace's clock), local, as FMT
 * (strftime); a trace with no clock line: its own seconds. */
static void wall_time(uint64_t ts, char *buf, size_t size, const char *fmt, bool for_name)
{
    if (!clock_real) {
        snprintf(buf, size, for_name ? "t%llu" : "%llu.%06llu s",
                 (unsigned long long)(ts / 1000000000ull),
                 (unsigned long long)(ts % 1000000000ull / 1000));
        return;
    }
    time_t t = (time_t)((clock_real + ts - clock_mono) / 1000000000ull);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(buf, size, fmt, &tm);
}

/* DIR/TIME-NAME-PID (a number after it when taken) */
static bool make_folder(queued *q)
{
    char when[32], name[16];
    wall_time(q->h.begin, when, sizeof when, "%Y%m%d-%H%M%S", true);
    size_t i = 0;
    for (; q->h.name[i] && i < sizeof name - 1; i++) {
        char c = q->h.name[i];
        name[i] = c == '/' || c == ' ' || c < 0x20 || c == 0x7f ? '_' : c;
    }
    name[i] = 0;
    for (int k = 1; k < 1000; k++) {
        if (k == 1)
            snprintf(q->dir, sizeof q->dir, "%s/%s-%s-%d", wopt.dir, when, name, q->h.pid);
        else
            snprintf(q->dir, sizeof q->dir, "%s/%s-%s-%d-%d", wopt.dir, when, name, q->h.pid, k);
        if (mkdir(q->dir, 0755) == 0)
            return true;
        if (errno != EEXIST) {
            argus_warn("%s: cannot create it (%s)", q->dir, strerror(errno));
            return false;
        }
    }
    return false;
}

/* The window [FROM, TO] of the trace in SOURCE (the instance's trace file
 * when live, the replayed file) to rec.out.fd: its header lines, argus-record's
 * lines after the kernel's header when live, then the lines of the window.
 * *FIRST is the first event's time in SOURCE (what the ring still held). */
static uint64_t copy_window(const char *source, uint64_t from, uint64_t to, uint64_t *first)
{
    uint64_t events = 0;
    argus_input in;
    argus_input_open(&in, source, 64u << 20);
    bool header = true, in_window = false;
    *first = 0;
    for (;;) {
        char *p = (char *)in.buf + in.lo;
        char *nl = memchr(p, '\n', in.hi - in.lo);
        if (!nl) {
            if (in.eof)
                break; /* a cut last line is left out */
            if (!argus_input_fill(&in))
                break;
            continue;
        }
        size_t len = (size_t)(nl - p);
        in.lo = (size_t)(nl + 1 - (char *)in.buf);
        struct event_line ev;
        bool event = parse_event_line(p, len, &ev);
        if (header && !event) {
            /* the ring's own counts: a window is a cut of it by design
             * (what it lost of the window, write_notes says) */
            static const char entries[] = "# entries-in-buffer/entries-written:";
            if (len < sizeof entries - 1 || memcmp(p, entries, sizeof entries - 1) != 0)
                out_write(p, len + 1);
            continue;
        }
        if (header) {
            header = false;
            *first = ev.ts;
            if (!wopt.replay) {
                struct thread_list now = {0};
                scan_threads(&now);
                sort_threads(&now);
                write_argus_header(threads_at_start, &now);
                free_threads(&now);
            }
        }
        if (event) {
            if (ev.ts > to)
                break;
            in_window = ev.ts >= from;
            events += in_window;
        }
        if (in_window)
            out_write(p, len + 1);
    }
    argus_input_close(&in);
    return events;
}

/* What the report says first about what the window misses. */
static void write_notes(queued *q, uint64_t from, uint64_t held, int fd)
{
    FILE *f = fdopen(dup(fd), "w");
    if (!f)
        return;
    if (held > q->h.begin)
        fprintf(f, "argus watch: the ring had lost the hang's start: it held events from %.6f s "
                   "on only, %.3f s after the hang began (a larger --buffer-mb keeps more).\n",
                held / 1e9, (held - q->h.begin) / 1e9);
    else if (held > from)
        fprintf(f, "argus watch: the trace held events from %.6f s on only: the %.3f s of the "
                   "window before it are missing (the ring's size is --buffer-mb).\n",
                held / 1e9, (held - from) / 1e9);
    if (q->h.open)
        fprintf(f, "argus watch: the hang was still going at %.6f s, %.3f s after it began; "
                   "this report covers it up to there.\n",
                q->h.end / 1e9, (q->h.end - q->h.begin) / 1e9);
    fclose(f);
}

static const char *argus_command(void)
{
    static char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 16);
    if (n > 0) {
        path[n] = 0;
        char *slash = strrchr(path, '/');
        if (slash) {
            strcpy(slash + 1, "argus");
            if (access(path, X_OK) == 0)
                return path;
        }
    }
    return "argus"; /* on PATH */
}

static bool write_window(queued *q, const char *trace, const char *report);

/* The child's status when the ring no longer held the window (no
 * diagnosis); diagnose's own are 0, 1 and 64 to 74 */
#define LOST_WINDOW 3

/* gzip FILE to FILE.gz, removing FILE; false on an error. */
static bool compress_file(const char *file)
{
    char gz_name[PATH_MAX + 32];
    snprintf(gz_name, sizeof gz_name, "%s.gz", file);
    int in = open(file, O_RDONLY | O_CLOEXEC);
    gzFile out = in >= 0 ? gzopen(gz_name, "wb6") : NULL;
    if (!out) {
        if (in >= 0)
            close(in);
        return false;
    }
    char buf[1 << 16];
    ssize_t r;
    bool ok = true;
    while ((r = read(in, buf, sizeof buf)) > 0)
        if (gzwrite(out, buf, (unsigned)r) != (int)r) {
            ok = false;
            break;
        }
    close(in);
    if (gzclose(out) != Z_OK || r < 0 || !ok) {
        unlink(gz_name);
        return false;
    }
    unlink(file);
    return true;
}

/* The diagnosis, in a child: argus diagnose on the window, then the
 * window compressed; the child's status is diagnose's. */
static pid_t start_diagnosis(queued *q)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    /* the child: a process group of its own (report_stop ends it whole),
     * default signals (argus-watch blocks them for its signalfd) */
    setpgid(0, 0);
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_UNBLOCK, &all, NULL);
    signal(SIGPIPE, SIG_DFL);
    char trace[PATH_MAX + 16], report[PATH_MAX + 16], html[PATH_MAX + 16], log[PATH_MAX + 16];
    snprintf(trace, sizeof trace, "%s/trace.txt", q->dir);
    snprintf(report, sizeof report, "%s/report.txt", q->dir);
    snprintf(html, sizeof html, "%s/report.html", q->dir);
    snprintf(log, sizeof log, "%s/diagnose.log", q->dir);
    if (!write_window(q, trace, report)) {
        unlink(trace);
        _exit(LOST_WINDOW);
    }
    pid_t diag = fork();
    if (diag == 0) {
        int out = open(report, O_WRONLY | O_APPEND | O_CLOEXEC);
        int err = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (out < 0 || err < 0 || null < 0)
            _exit(ARGUS_EX_IOERR);
        dup2(null, 0);
        dup2(out, 1);
        dup2(err, 2);
        char hang[32];
        const char *argv[16];
        int n = 0;
        argv[n++] = "argus";
        argv[n++] = "diagnose";
        argv[n++] = "--proc";
        argv[n++] = q->h.name;
        if (wopt.hang_ms) {
            snprintf(hang, sizeof hang, "%llu", (unsigned long long)wopt.hang_ms);
            argv[n++] = "--hang";
            argv[n++] = hang;
        }
        argv[n++] = "--html";
        argv[n++] = html;
        argv[n++] = trace;
        argv[n] = NULL;
        const char *cmd = argus_command();
        if (strchr(cmd, '/'))
            execv(cmd, (char **)argv);
        else
            execvp(cmd, (char **)argv);
        dprintf(2, "argus-watch: %s: %s\n", cmd, strerror(errno));
        _exit(127);
    }
    int status = 0;
    if (diag < 0 || waitpid(diag, &status, 0) != diag)
        _exit(ARGUS_EX_SOFTWARE);
    compress_file(trace);
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

/* The window of Q to TRACE, and what it misses to REPORT (in the child);
 * false when the ring held no event of it any more. */
static bool write_window(queued *q, const char *trace, const char *report)
{
    uint64_t from = q->h.begin > LOOKBACK ? q->h.begin - LOOKBACK : 0;
    uint64_t to = q->h.open ? q->h.end : q->h.end + TAIL;
    int fd = open(trace, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        argus_die(ARGUS_EX_CANTCREAT, "%s: cannot create it (%s)", trace, strerror(errno));
    char source[PATH_MAX * 2 + 16];
    if (wopt.replay)
        snprintf(source, sizeof source, "%s", wopt.replay);
    else
        snprintf(source, sizeof source, "%s/%s", rec.tfs.root, ipath("trace"));
    uint64_t first;
    rec.out.fd = fd;
    uint64_t events = copy_window(source, from, to, &first);
    out_flush();
    if (close(fd) != 0)
        argus_die(ARGUS_EX_IOERR, "%s: write error (%s)", trace, strerror(errno));
    fd = open(report, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) {
        if (events)
            write_notes(q, from, first, fd);
        else if (first && first < from)
            dprintf(fd, "argus watch: %s [%d] hung from %.6f s to %.6f s, but the ring held none "
                        "of it: its recording was paused then, while an earlier hang's window "
                        "was read.\n",
                    q->h.name, q->h.pid, q->h.begin / 1e9, q->h.end / 1e9);
        else
            dprintf(fd, "argus watch: %s [%d] hung from %.6f s to %.6f s, but the ring no longer "
                        "held any of it (its oldest event: %.6f s): the machine wrote more "
                        "than --buffer-mb %llu MB per CPU while it was read; a larger one keeps "
                        "more.\n",
                    q->h.name, q->h.pid, q->h.begin / 1e9, q->h.end / 1e9, first / 1e9,
                    (unsigned long long)rec.opt.buffer_mb);
        close(fd);
    }
    return events > 0;
}

/* Q's folder made, and its diagnosis started. */
static void start_report(queued *q)
{
    q->written = true;
    if (!make_folder(q))
        return;
    q->child = start_diagnosis(q);
    if (q->child > 0)
        setpgid(q->child, q->child); /* as the child does: whichever runs first */
    if (q->child < 0) {
        argus_warn("fork: %s", strerror(errno));
        q->child = 0;
    }
}

static void remove_folder(const char *dir)
{
    static const char *const files[] = {"trace.txt", "trace.txt.gz", "report.txt",
                                        "report.html", "diagnose.log"};
    char path[PATH_MAX + 16];
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* The first sentence of the verdict on PID's hang, on one line:
 * "Verdict: " (one hang) or "Verdict (hang K): " whose text names PID. */
static void verdict_sentence(const char *report, int pid, char *out, size_t size)
{
    out[0] = 0;
    FILE *f = fopen(report, "r");
    if (!f)
        return;
    char line[4096], tag[32];
    snprintf(tag, sizeof tag, " [%d]", pid);
    size_t n = 0;
    bool in = false;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        const char *p = line;
        if (!in) {
            const char *colon = strstr(line, "): ");
            if (strncmp(line, "Verdict: ", 9) == 0)
                p += 9;
            else if (strncmp(line, "Verdict (hang ", 14) == 0 && colon && strstr(line, tag))
                p = colon + 3;
            else
                continue;
            in = true;
        } else if (!*line || strncmp(line, "Verdict", 7) == 0) {
            break;
        }
        for (; *p && n + 1 < size; p++) {
            out[n++] = *p;
            if (*p == '.' && (p[1] == ' ' || !p[1])) {
                out[n] = 0;
                fclose(f);
                return;
            }
        }
        if (n + 1 < size)
            out[n++] = ' ';
    }
    out[n] = 0;
    fclose(f);
}

#define LOST_START "argus watch: the ring had lost the hang's start"

/* Does FILE begin with PREFIX? */
static bool starts_with_file(const char *file, const char *prefix)
{
    char line[256];
    FILE *f = fopen(file, "r");
    bool yes = f && fgets(line, sizeof line, f) && strncmp(line, prefix, strlen(prefix)) == 0;
    if (f)
        fclose(f);
    return yes;
}

/* Does the report name a hang of PID? */
static bool report_names(const char *report, int pid)
{
    FILE *f = fopen(report, "r");
    if (!f)
        return false;
    char line[4096], want[32];
    snprintf(want, sizeof want, "(pid %d)", pid);
    bool found = false;
    while (!found && fgets(line, sizeof line, f))
        found = strncmp(line, "Hang ", 5) == 0 && strstr(line, want);
    fclose(f);
    return found;
}

/* notify-send (ARGUS_NOTIFY_SEND: another command) on each desktop
 * session's bus, RUNTIME/UID/bus (RUNTIME: /run/user, or
 * ARGUS_RUNTIME_DIR), as that session's user; nothing when notify-send or
 * a session is missing. */
static void notify(const queued *q, const char *sentence)
{
    if (!wopt.notify)
        return;
    const char *cmd = getenv("ARGUS_NOTIFY_SEND");
    static const char *const places[] = {"/usr/bin/notify-send", "/usr/local/bin/notify-send"};
    for (size_t i = 0; i < 2 && !cmd; i++)
        if (access(places[i], X_OK) == 0)
            cmd = places[i];
    if (!cmd)
        return;
    const char *runtime = getenv("ARGUS_RUNTIME_DIR");
    if (!runtime || !*runtime)
        runtime = "/run/user";
    DIR *users = opendir(runtime);
    if (!users)
        return;
    char title[96], body[1024 + PATH_MAX];
    snprintf(title, sizeof title, "%s [%d] hung", q->h.name, q->h.pid);
    snprintf(body, sizeof body, "%s\n%s", sentence, q->dir);
    struct dirent *e;
    while ((e = readdir(users))) {
        char *end;
        unsigned long uid = strtoul(e->d_name, &end, 10);
        if (*end || !isdigit((unsigned char)e->d_name[0]) || uid == 0 || uid > 0x7fffffff)
            continue;
        char dir[PATH_MAX], bus[PATH_MAX + 8];
        snprintf(dir, sizeof dir, "%s/%s", runtime, e->d_name);
        snprintf(bus, sizeof bus, "%s/bus", dir);
        struct stat sb;
        struct passwd *pw = getpwuid((uid_t)uid);
        if (stat(bus, &sb) != 0 || !S_ISSOCK(sb.st_mode) || !pw)
            continue;
        gid_t gid = pw->pw_gid;
        pid_t pid = fork();
        if (pid > 0 && wopt.replay)
            waitpid(pid, NULL, 0); /* done before the replay ends */
        if (pid != 0)
            continue; /* live: reaped with the others (report_poll) */
        sigset_t all;
        sigfillset(&all);
        sigprocmask(SIG_UNBLOCK, &all, NULL);
        char address[PATH_MAX + 64], xdg[PATH_MAX + 32];
        snprintf(address, sizeof address, "DBUS_SESSION_BUS_ADDRESS=unix:path=%s", bus);
        snprintf(xdg, sizeof xdg, "XDG_RUNTIME_DIR=%s", dir);
        char *env[] = {address, xdg, "PATH=/usr/bin:/bin", NULL};
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
            dup2(null, 2);
        }
        if (setgroups(0, NULL) != 0 || setgid(gid) != 0 || setuid((uid_t)uid) != 0)
            _exit(1);
        execle(cmd, "notify-send", "-a", "argus", title, body, (char *)NULL, env);
        _exit(127);
    }
    closedir(users);
}

/* Q's diagnosis ended with STATUS. */
static void finish(queued *q, int status)
{
    char report[PATH_MAX + 16], sentence[1024];
    snprintf(report, sizeof report, "%s/report.txt", q->dir);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (code != 0 && code != 1 && code != LOST_WINDOW) {
        argus_warn("%s [%d]: argus diagnose exited %d (%s kept)", q->h.name, q->h.pid, code,
                   q->dir);
        return;
    }
    if (code == LOST_WINDOW || (!report_names(report, q->h.pid) && starts_with_file(report, LOST_START))) {
        /* found, but not diagnosed: said, with the folder's note */
        reports_lost++;
        char when[32];
        wall_time(q->h.begin, when, sizeof when, "%Y-%m-%d %H:%M:%S", false);
        printf("%s  %s [%d]  hung %.3f s; not diagnosed: the ring had lost %s (--buffer-mb)  (%s)\n",
               when, q->h.name, q->h.pid, (q->h.end - q->h.begin) / 1e9,
               code == LOST_WINDOW ? "it" : "its start", q->dir);
        fflush(stdout);
        return;
    }
    if (code != 0 || !report_names(report, q->h.pid)) {
        reports_unconfirmed++;
        if (wopt.verbose) {
            /* -v keeps the folder, to see why */
            fprintf(stderr, "%s: %s [%d]: argus diagnose %s; no report (%s kept)\n",
                    argus_prog(), q->h.name, q->h.pid,
                    code == 1 ? "found no hang of it in the window" : "found other hangs, not its",
                    q->dir);
            return;
        }
        remove_folder(q->dir);
        return;
    }
    reports_written++;
    verdict_sentence(report, q->h.pid, sentence, sizeof sentence);
    char when[32];
    wall_time(q->h.begin, when, sizeof when, "%Y-%m-%d %H:%M:%S", false);
    printf("%s  %s [%d]  %s  (%s)\n", when, q->h.name, q->h.pid, sentence, q->dir);
    fflush(stdout);
    notify(q, sentence);
}

void report_tick(uint64_t now)
{
    for (size_t i = 0; i < n_queued; i++) {
        queued *q = &queue[i];
        if (q->written || now < q->due)
            continue;
        /* a window is taken when due, whatever else runs: a ring that
         * goes round while an earlier diagnosis runs loses it (an hour's
         * soak under a syscall-heavy load lost the second hang of each
         * pair that way); at most MAX_RUNNING at once */
        size_t running = 0;
        for (size_t k = 0; k < n_queued; k++)
            running += queue[k].child > 0;
        if (running >= MAX_RUNNING)
            return;
        start_report(q);
        if (!q->child)
            continue;
        if (wopt.replay)
            report_poll(true); /* one after the other, in order */
        return;
    }
}

void report_poll(bool wait_all)
{
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, wait_all ? 0 : WNOHANG);
        if (pid <= 0)
            break;
        for (size_t i = 0; i < n_queued; i++) {
            if (queue[i].child != pid)
                continue;
            finish(&queue[i], status);
            queue[i] = queue[--n_queued];
            break;
        }
        if (wait_all) {
            bool running = false;
            for (size_t k = 0; k < n_queued; k++)
                running |= queue[k].child > 0;
            if (!running)
                break;
        }
    }
    /* the queue stays in time order for the ones not written yet */
    for (size_t i = 0; i + 1 < n_queued; i++)
        for (size_t j = i + 1; j < n_queued; j++)
            if (queue[j].due < queue[i].due) {
                queued t = queue[i];
                queue[i] = queue[j];
                queue[j] = t;
            }
}

void report_stop(void)
{
    for (size_t i = 0; i < n_queued; i++)
        if (queue[i].child > 0)
            kill(-queue[i].child, SIGTERM);
    free(queue);
    queue = NULL;
    n_queued = 0;
}
