/* argus-watch: records system-wide into the kernel's ring, as argus-record
 * does, finds hangs while they happen and diagnoses each one into a folder
 * of its own (docs/stages/watch.md). This file: the command line, the live
 * loop over the detection instance's trace_pipe, and --replay over a
 * recorded trace. */
#include "watch.h"

#include "argus/stream/input.h"
#include "argus/stream/cli.h"
#include "argus/stream/procname.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char usage[] =
    "Usage: argus-watch [OPTIONS]\n"
    "Watch the whole system for hangs (as root) and diagnose each one as it\n"
    "happens: it records as argus-record does, into the kernel's ring buffer,\n"
    "finds a hang from the scheduler's and the probes' events as they come,\n"
    "and writes DIR/TIME-PROGRAM-PID/ holding the window of the trace around\n"
    "it (trace.txt.gz), argus diagnose's report (report.txt) and page\n"
    "(report.html); one line per hang on stdout. It runs until SIGINT/SIGTERM\n"
    "(or --duration), then restores tracefs.\n"
    "\n"
    "  -d, --dir DIR          where the folders go (default /var/lib/argus-watch;\n"
    "                         with --replay, the current directory)\n"
    "      --proc NAME        also watch the main thread of programs named NAME\n"
    "                         (their name, or the program or script they run;\n"
    "                         repeatable)\n"
    "      --pid PID          also watch process PID (repeatable)\n"
    "      --hang MS          the limit, for every program watched (default:\n"
    "                         a GUI program's main loop away from its wait for\n"
    "                         2000 ms; a main thread blocked or busy for 500 ms\n"
    "                         for one --proc or --pid names; docs/stages/\n"
    "                         find-spinning.md, Thresholds)\n"
    "      --max-hang MS      diagnose a hang still going this long after it\n"
    "                         began (default 30000)\n"
    "      --buffer-mb N      the ring buffer, N MB per CPU (default 64): how far\n"
    "                         back a window can go (as argus-record --buffer-mb)\n"
    "      --probes LIST      uprobes on these sets (as argus-record --probes)\n"
    "      --no-probes        no uprobes\n"
    "      --instance NAME    tracefs instance name (default argus-PID)\n"
    "      --duration SECS    stop after SECS seconds\n"
    "      --replay TRACE     find and diagnose the hangs of a trace recorded\n"
    "                         by argus-record (ftrace text, maybe compressed)\n"
    "                         as if it were happening; no root needed\n"
    "      --no-notify        no desktop notification (notify-send, as each\n"
    "                         desktop session's user; with --replay: none\n"
    "                         unless --notify)\n"
    "      --notify           notify with --replay too\n"
    "  -v, --verbose          say each hang found and what its diagnosis said\n"
    "  -q, --quiet            no summary on stderr\n"
    "  -h, --help             show this help\n"
    "      --version          show the version\n"
    "\n"
    "Rules (docs/stages/watch.md): WATCH-SCOPE (GUI programs, and those\n"
    "--proc and --pid name), WATCH-LOOP (a main loop away from its wait),\n"
    "WATCH-BUSY, WATCH-WAIT (a main thread busy or blocked), WATCH-CAP,\n"
    "WATCH-WINDOW, WATCH-REPORT (argus diagnose confirms each one).\n"
    "\n"
    "Exit status: 0 ok, 64 usage, 65 a replayed trace that is not ftrace\n"
    "text, 69 tracefs unavailable, 73 DIR cannot be made, 77 not root.\n";

/* the recorder's state (filters/record/record.h): its buffer 64 MB per CPU */
struct recorder rec = RECORDER_INIT(64);
struct watch_options wopt = {.max_hang_ms = 30000};

enum {
    OPT_PROC = OPT_RECORDING_END, OPT_PID, OPT_HANG, OPT_MAX_HANG, OPT_REPLAY, OPT_NO_NOTIFY,
    OPT_NOTIFY,
};


static void parse_args(int argc, char **argv)
{
    static const struct option longs[] = {
        {"dir", required_argument, 0, 'd'},
        {"proc", required_argument, 0, OPT_PROC},
        {"pid", required_argument, 0, OPT_PID},
        {"hang", required_argument, 0, OPT_HANG},
        {"max-hang", required_argument, 0, OPT_MAX_HANG},
        RECORDING_OPTIONS,
        {"replay", required_argument, 0, OPT_REPLAY},
        {"no-notify", no_argument, 0, OPT_NO_NOTIFY},
        {"notify", no_argument, 0, OPT_NOTIFY},
        ARGUS_OPTION_VERBOSE,
        ARGUS_OPTION_HELP,
        ARGUS_OPTION_VERSION,
        {0, 0, 0, 0},
    };
    argus_options common = ARGUS_OPTIONS_DEFAULT;
    opterr = 0;
    recording_options_start();
    const char *probes = NULL;
    int c, notify = -1;
    while ((c = getopt_long(argc, argv, "d:qvh", longs, NULL)) != -1) {
        if (recording_option(c, optarg, &probes))
            continue;
        switch (c) {
        case 'd':
            wopt.dir = optarg;
            break;
        case OPT_PROC:
            if (!*optarg)
                argus_usage_error("--proc: expected a program's name");
            wopt.procs =
                argus_xrealloc(wopt.procs, (wopt.n_procs + 1) * sizeof *wopt.procs, "--proc names");
            wopt.procs[wopt.n_procs++] = optarg;
            break;
        case OPT_PID:
            wopt.pids =
                argus_xrealloc(wopt.pids, (wopt.n_pids + 1) * sizeof *wopt.pids, "--pid values");
            wopt.pids[wopt.n_pids++] = (int)argus_parse_uint_option("--pid", optarg, 1, INT_MAX, "");
            break;
        case OPT_HANG:
            wopt.hang_ms = argus_parse_uint_option("--hang", optarg, 1, 3600000, " ms");
            break;
        case OPT_MAX_HANG:
            wopt.max_hang_ms = argus_parse_uint_option("--max-hang", optarg, 100, 3600000, " ms");
            break;
        case OPT_REPLAY:
            wopt.replay = optarg;
            break;
        case OPT_NO_NOTIFY:
            notify = 0;
            break;
        case OPT_NOTIFY:
            notify = 1;
            break;
        case 'v':
            wopt.verbose = true;
            break;
        case '?':
            argus_bad_option(argv);
        default:
            argus_common_option(c, usage, &common, argv);
        }
    }
    if (optind < argc)
        argus_usage_error("unexpected argument '%s' (argus-watch takes no command)", argv[optind]);
    probes_choose(probes);
    wopt.notify = notify < 0 ? !wopt.replay : notify;
    if (!wopt.dir)
        wopt.dir = wopt.replay ? "." : "/var/lib/argus-watch";
}

/* ---- the lines, from either source ------------------------------------ */

static uint64_t events_seen, last_ts, next_tick;
/* "CPU:N [LOST M EVENTS]": the detection instance's buffer overflowed
 * before it was read (the watcher was held up): said in the summary */
static uint64_t events_lost;

static void on_hang(const struct hang_found *h, void *ctx)
{
    (void)ctx;
    report_hang(h);
}

/* One event line (NUL at LINE[LEN]). */
static void take_line(char *line, size_t len)
{
    struct event_line ev;
    if (!parse_event_line(line, len, &ev)) {
        const char *lost = strstr(line, " [LOST ");
        if (strncmp(line, "CPU:", 4) == 0 && lost)
            events_lost += strtoull(lost + 7, NULL, 10);
        return;
    }
    events_seen++;
    if (ev.ts > last_ts)
        last_ts = ev.ts;
    detect_line(&ev);
}

/* "# argus-thread: tid=N tgid=M ... comm=NAME" */
static void take_thread_line(const char *line)
{
    const char *tid = strstr(line, " tid="), *tgid = strstr(line, " tgid="),
               *comm = strstr(line, " comm="), *kernel = strstr(line, " kernel=1");
    if (tid && tgid && comm)
        detect_thread(atoi(tid + 5), atoi(tgid + 6), comm + 6, kernel && kernel < comm);
}

/* "# argus-cmdline: pid=N ARG..." */
static void take_cmdline_line(const char *line)
{
    const char *pid = strstr(line, " pid=");
    if (!pid)
        return;
    char *words;
    long n = strtol(pid + 5, &words, 10);
    char args[4096];
    if (n > 0 && n <= INT_MAX && *words == ' ' &&
        argus_cmdline_unescape(args, sizeof args, words + 1, strlen(words + 1)) > 0)
        detect_cmdline((int)n, args);
}

/* "# argus-clock: mono=S.N realtime=S.N" */
static void take_clock_line(const char *line)
{
    unsigned long long ms, mn, rs, rn;
    const char *m = strstr(line, "mono="), *r = strstr(line, "realtime=");
    if (m && r && sscanf(m + 5, "%llu.%llu", &ms, &mn) == 2 &&
        sscanf(r + 9, "%llu.%llu", &rs, &rn) == 2)
        report_set_clock(ms * 1000000000ull + mn, rs * 1000000000ull + rn);
}

/* ---- --replay --------------------------------------------------------- */

static void replay(void)
{
    argus_input in;
    argus_input_open(&in, wopt.replay, 64u << 20);
    size_t line_no = 0;
    bool in_header = true;
    for (;;) {
        char *p = (char *)in.buf + in.lo;
        char *nl = memchr(p, '\n', in.hi - in.lo);
        if (!nl) {
            if (in.eof) {
                if (in.hi == in.lo)
                    break;
                nl = (char *)in.buf + in.hi; /* a last line with no newline */
            } else {
                if (!argus_input_fill(&in))
                    argus_die(ARGUS_EX_DATAERR, "%s:%zu: a line longer than 64 MB", wopt.replay,
                              line_no + 1);
                continue;
            }
        }
        line_no++;
        size_t len = (size_t)(nl - p);
        if (len && p[len - 1] == '\r')
            len--;
        char saved = p[len];
        p[len] = 0;
        if (in_header && (p[0] == '#' || len == 0)) {
            if (strncmp(p, "# argus-thread:", 15) == 0)
                take_thread_line(p);
            else if (strncmp(p, "# argus-cmdline:", 16) == 0)
                take_cmdline_line(p);
            else if (strncmp(p, "# argus-clock:", 14) == 0)
                take_clock_line(p);
        } else {
            in_header = false;
            take_line(p, len);
            if (last_ts >= next_tick) {
                detect_tick(last_ts);
                report_tick(last_ts);
                next_tick = last_ts + 100 * WATCH_MS;
            }
        }
        p[len] = saved;
        in.lo = nl < (char *)in.buf + in.hi ? (size_t)(nl + 1 - (char *)in.buf) : in.hi;
    }
    argus_input_close(&in);
    if (!events_seen)
        argus_die(ARGUS_EX_DATAERR, "%s: no event line (argus-watch --replay reads ftrace text, "
                                    "as argus-record writes it)", wopt.replay);
    detect_finish(last_ts);
    while (report_pending()) {
        report_tick(UINT64_MAX);
        report_poll(true);
    }
}

/* ---- live ------------------------------------------------------------- */

static uint64_t mono_ns(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int signal_fd = -1;

/* How much the ring keeps when no hang needs it (WATCH-WINDOW). */
#define RING_SPAN (30000 * WATCH_MS)

/* The processes --pid and --proc name that run now: the probes go on the
 * libraries they map too, and the windows say them (# argus-focus:), as
 * for argus-record --pid and --proc. A program --proc names that starts
 * later is watched all the same (WATCH-SCOPE). */
static void focus_running(void)
{
    for (size_t i = 0; i < wopt.n_pids; i++)
        wopt.pids[i] = focus_pid(wopt.pids[i]); /* a thread's id names its process */
    for (size_t i = 0; i < wopt.n_procs; i++)
        focus_name(wopt.procs[i], false);
    probes_focus(rec.opt.focus, rec.opt.n_focus);
}


/* The detection instance (WATCH-EVENTS): the events the hangs are found
 * from, read as they come from its trace_pipe; the ring keeps the rest.
 * Returns its trace_pipe, opened. */
static int setup_detection(void)
{
    snprintf(rec.tfs.detect_instance, sizeof rec.tfs.detect_instance, "instances/%s-detect",
             rec.opt.instance_name);
    make_instance(rec.tfs.detect_instance, 1, &rec.tfs.detect_made);
    static const char *const events[] = {
        "sched/sched_switch", "sched/sched_waking", "sched/sched_process_exit",
        "timer/hrtimer_expire_entry", "timer/hrtimer_expire_exit",
    };
    for (size_t i = 0; i < sizeof events / sizeof *events; i++) {
        int err = tfs_write(dpath("events/%s/enable", events[i]), "1");
        if (err && i == 0)
            argus_die(ARGUS_EX_UNAVAILABLE, "%s/%s: %s", rec.tfs.root,
                      dpath("events/%s/enable", events[i]), strerror(err));
        if (err && i == 1) /* older kernels: sched_wakeup names the wakee */
            tfs_write(dpath("events/sched/sched_wakeup/enable"), "1");
    }
    /* the loops' and the input's probes, where defined */
    static const char *const probes[] = {
        "argus_glib_dispatch", "argus_glib_dispatch_ret", "argus_glib_poll", "argus_glib_poll_ret",
        "argus_tcl_service", "argus_tcl_service_ret", "argus_tcl_wait", "argus_tcl_wait_ret",
        "argus_gtk_event", "argus_qt_key", "argus_qt_mouse", "argus_tk_event",
    };
    /* every group: a focused process's own copy of a library has its
     * probes in a group of its own */
    if (probes_n_defined)
        for (size_t g = 0; g < probes_n_groups(); g++)
            for (size_t i = 0; i < sizeof probes / sizeof *probes; i++)
                tfs_write(dpath("events/%s/%s/enable", probes_group_at(g), probes[i]), "1");
    int fd = openat(rec.tfs.root_fd, dpath("trace_pipe"), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        argus_die(ARGUS_EX_UNAVAILABLE, "%s/%s: %s", rec.tfs.root, dpath("trace_pipe"),
                  strerror(errno));
    return fd;
}

/* Reads what trace_pipe has (up to a few MB at a time, so that signals
 * and ticks are not starved); false when it had nothing. */
static bool drain(int pipe_fd, char *buf, size_t size, size_t *kept)
{
    bool any = false;
    for (int rounds = 0; rounds < 64; rounds++) {
        ssize_t r = read(pipe_fd, buf + *kept, size - 1 - *kept);
        if (r <= 0) {
            if (r < 0 && errno != EAGAIN && errno != EINTR)
                argus_die(ARGUS_EX_IOERR, "%s/%s/trace_pipe: %s", rec.tfs.root, rec.tfs.instance,
                          strerror(errno));
            break;
        }
        any = true;
        size_t n = *kept + (size_t)r, at = 0;
        for (;;) {
            char *nl = memchr(buf + at, '\n', n - at);
            if (!nl)
                break;
            *nl = 0;
            take_line(buf + at, (size_t)(nl - (buf + at)));
            at = (size_t)(nl + 1 - buf);
        }
        if (at == 0 && n == size - 1) {
            take_line(buf, n); /* a line as long as the buffer: cut */
            at = n;
        }
        memmove(buf, buf + at, n - at);
        *kept = n - at;
    }
    return any;
}

/* ", N lost by the ring" when some were */
static const char *lost_note(void)
{
    static char note[64];
    note[0] = 0;
    if (reports_lost)
        snprintf(note, sizeof note, ", %llu lost by the ring", (unsigned long long)reports_lost);
    return note;
}

static void live(void)
{
    sigset_t blocked;
    signal_fd = stop_signals_open(&blocked, NULL);

    rec.tfs.owner = getpid();
    atexit(restore);
    focus_running();
    find_tracefs();
    reap_dead_recorders(); /* what a killed recorder or watcher left */
    setup_instance();
    /* the ring's trace file is read with its recording paused (the
     * kernel's pause-on-trace, on by default): read while written, on a
     * busy machine the writer laps the reader and the read ends early
     * ("CPU:0 [LOST EVENTS]", a window of 40 events of 3 s under a dd of
     * 1-byte reads). The detection instance goes on meanwhile. */
    if (tfs_exists(ipath("options/pause-on-trace")))
        tfs_write(ipath("options/pause-on-trace"), "1");
    int pipe_fd = setup_detection();
    int err = tfs_write(ipath("tracing_on"), "1");
    if (!err)
        err = tfs_write(dpath("tracing_on"), "1");
    if (err)
        argus_die(ARGUS_EX_UNAVAILABLE, "%s/%s/tracing_on: %s", rec.tfs.root, rec.tfs.instance,
                  strerror(err));
    uint64_t started = mono_ns(CLOCK_MONOTONIC), ring_cleared = started;
    report_set_clock(started, mono_ns(CLOCK_REALTIME));
    static struct thread_list at_start;
    scan_threads(&at_start);
    sort_threads(&at_start);
    for (size_t i = 0; i < at_start.n; i++)
        detect_thread(at_start.v[i].tid, at_start.v[i].tgid, at_start.v[i].comm,
                      at_start.v[i].kernel);
    report_set_threads(&at_start);
    if (!rec.opt.quiet)
        fprintf(stderr, "%s: watching (instance %s, %zu events enabled, %zu probes); folders in %s\n",
                argus_prog(), rec.opt.instance_name, rec.tfs.n_enabled, probes_n_defined, wopt.dir);

    size_t size = 4u << 20, kept = 0;
    char *buf = argus_xmalloc(size, "a trace window");
    const char *why = "SIGINT";
    for (;;) {
        bool child_ended = stop_signals_take(signal_fd);
        if (rec.stop.count) {
            why = rec.stop.last == SIGINT    ? "SIGINT"
                  : rec.stop.last == SIGTERM ? "SIGTERM"
                                             : "SIGHUP";
            break;
        }
        uint64_t now = mono_ns(CLOCK_MONOTONIC);
        if (rec.opt.duration > 0 && now - started >= (uint64_t)(rec.opt.duration * 1e9)) {
            why = "--duration";
            break;
        }
        bool busy = drain(pipe_fd, buf, size, &kept);
        now = mono_ns(CLOCK_MONOTONIC);
        detect_tick(now);
        report_tick(now);
        /* WATCH-WINDOW: the ring is emptied every RING_SPAN when no hang
         * needs it, so that reading a window (the recording paused) formats
         * a span, not all the ring holds */
        if (now - ring_cleared >= RING_SPAN && !report_pending() && detect_quiet(now)) {
            tfs_write(ipath("trace"), "");
            ring_cleared = now;
        }
        if (child_ended)
            report_poll(false);
        if (busy)
            continue;
        /* nothing to read: sleep a tick, waking for signals */
        struct pollfd p = {.fd = signal_fd, .events = POLLIN};
        poll(&p, 1, 100);
    }
    free(buf);
    close(pipe_fd);
    report_stop();
    restore();
    free_threads(&at_start);
    if (!rec.opt.quiet)
        fprintf(stderr, "%s: %llu hangs reported, %llu not confirmed%s; %llu events (%llu lost); stopped by %s\n",
                argus_prog(), (unsigned long long)reports_written,
                (unsigned long long)reports_unconfirmed, lost_note(), (unsigned long long)events_seen,
                (unsigned long long)events_lost, why);
}

int main(int argc, char **argv)
{
    argus_cli_init(argc, argv);
    parse_args(argc, argv);
    if (!wopt.replay && geteuid() != 0)
        argus_die(ARGUS_EX_NOPERM, "needs root to use tracefs (run it with sudo)");
    if (mkdir(wopt.dir, 0755) != 0 && errno != EEXIST)
        argus_die(ARGUS_EX_CANTCREAT, "%s: cannot create it (%s)", wopt.dir, strerror(errno));
    struct stat sb;
    if (stat(wopt.dir, &sb) != 0 || !S_ISDIR(sb.st_mode) || access(wopt.dir, W_OK) != 0)
        argus_die(ARGUS_EX_CANTCREAT, "%s: not a directory it can write in", wopt.dir);
    detect_init(on_hang, NULL, !wopt.replay);
    if (wopt.replay) {
        replay();
        if (!rec.opt.quiet)
            fprintf(stderr, "%s: %llu hangs reported, %llu not confirmed; %llu events\n",
                    argus_prog(), (unsigned long long)reports_written,
                    (unsigned long long)reports_unconfirmed, (unsigned long long)events_seen);
    } else {
        live();
    }
    detect_free();
    return ARGUS_EX_OK;
}
