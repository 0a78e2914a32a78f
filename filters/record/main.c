/* argus-record: records a system-wide Linux kernel trace as ftrace text
 * (docs/stages/record.md), in a tracefs instance of its own, with optional
 * hardware watchpoints on shared flags (--watch). This file: the command
 * line, signals and the recording's steps, which main calls in turn;
 * record.h lists the other parts. */
#include "record.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char usage[] =
    "Usage: argus-record [OPTIONS] [--] [CMD [ARGS...]]\n"
    "Record a system-wide Linux kernel trace as ftrace text (as root).\n"
    "It records in a tracefs instance of its own, adds argus's thread lines\n"
    "(and flag lines with --watch), and restores what it changed. With CMD:\n"
    "runs it and records until it exits (the exit status is CMD's).\n"
    "Without: records until SIGINT/SIGTERM or --duration.\n"
    "\n"
    "  -o, --output FILE      write the trace to FILE (default stdout); FILE.gz or\n"
    "                         FILE.zst: compressed so (argus reads it as it is)\n"
    "      --buffer-mb N      ring buffer of N MB per CPU (default 16); it\n"
    "                         overwrites the oldest events when full\n"
    "      --duration SECS    stop after SECS seconds (decimals allowed)\n"
    "      --event SYS:NAME   also record this tracefs event (repeatable;\n"
    "                         SYS:* for a whole subsystem)\n"
    "      --all-syscalls     every syscall event, not only the list below\n"
    "      --watch SYMBOL[@PID]\n"
    "      --watch 0xADDR[@PID]\n"
    "                         trace writes and reads of a shared flag with\n"
    "                         hardware watchpoints (repeatable); without\n"
    "                         @PID, in CMD's process\n"
    "      --probes LIST      uprobes on these sets of the desktop's libraries,\n"
    "                         comma-separated: glib (main loop), gtk3, qt5\n"
    "                         (input), tk (Tcl's loop, Tk's input), gdbus,\n"
    "                         libdbus (D-Bus messages)\n"
    "                         (default: every set whose library is installed)\n"
    "      --no-probes        no uprobes\n"
    "      --pid PID          focus on this running process (repeatable): the\n"
    "                         probes also go on the libraries it has loaded\n"
    "                         (a bundled or a container's library), and\n"
    "                         argus diagnose ranks its hangs first, as a\n"
    "                         launched CMD's\n"
    "      --proc NAME        the same for each running process of that name\n"
    "                         (its comm, or the program or script it runs;\n"
    "                         repeatable)\n"
    "      --instance NAME    tracefs instance name (default argus-PID)\n"
    "      --cleanup          only remove what killed recorders left (their\n"
    "                         instances and argus_PID uprobes; every run\n"
    "                         does it first) and exit\n"
    "  -q, --quiet            no summary and no warnings on stderr\n"
    "  -h, --help             show this help\n"
    "      --version          show the version\n"
    "\n"
    "It enables (when the kernel has them): sched_switch, sched_waking,\n"
    "sched_wakeup, sched_wakeup_new, sched_process_fork/exec/exit,\n"
    "task_newtask, task_rename, irq_handler_entry/exit, softirq_entry/exit,\n"
    "workqueue_queue_work, workqueue_execute_start/end, hrtimer_start,\n"
    "hrtimer_expire_entry/exit, hrtimer_cancel, and sys_enter/sys_exit of\n"
    "futex, read, write, readv, writev, pread64, pwrite64, recvfrom,\n"
    "recvmsg, recvmmsg, sendto, sendmsg, sendmmsg, poll, ppoll, select,\n"
    "pselect6, epoll_wait, epoll_pwait, epoll_pwait2, nanosleep,\n"
    "clock_nanosleep, wait4, waitid, accept, accept4, connect, pipe, pipe2,\n"
    "socketpair, fcntl, flock, sched_yield, close, close_range, dup2, dup3;\n"
    "with trace_clock mono and the (TGID) column. And uprobes (argus_* events)\n"
    "on the libraries of --probes that are installed.\n"
    "\n"
    "Exit status: 0 ok (or CMD's status), 64 usage, 69 tracefs or a needed\n"
    "kernel feature unavailable, 73 cannot create FILE, 74 I/O error,\n"
    "77 not root, 126/127 CMD not executable/not found.\n";

/* argus-record's state (record.h): its ring buffer 16 MB per CPU unless
 * --buffer-mb says */
struct recorder rec = RECORDER_INIT(16);

/* One recording's course, passed from step to step of main. */
struct recording {
    /* SIGINT, SIGTERM, SIGHUP and SIGCHLD stay blocked and arrive through
     * a signalfd, so that every step runs to its end and waiting is one
     * poll */
    int signal_fd;
    sigset_t blocked;          /* those four */
    sigset_t old_mask;         /* the caller's mask: CMD gets it back */
    bool child_changed;        /* a SIGCHLD came: CMD may have ended */
    bool cmd_watches;          /* some --watch is of CMD's process */
    double started;            /* CLOCK_MONOTONIC s, when tracing went on */
    const char *why_stopped;   /* the summary's "stopped by" */
    struct thread_list at_start, at_end; /* the threads in /proc */
    int stops_before_writing;  /* rec.stop.count then: one more while
                                  waiting for CMD gives up the wait */
};

/* While writing the output (see write_trace): a stop signal is counted
 * here, and interrupts a blocked write. */
static void on_stop_signal(int sig)
{
    rec.stop.count++;
    rec.stop.last = sig;
}

static void take_signals(struct recording *r)
{
    if (stop_signals_take(r->signal_fd))
        r->child_changed = true;
}

/* ---------------------------------------------------------------------- */
/* Command line */

static uint64_t parse_pid(const char *spec, const char *text)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (!*text || *end || errno || v == 0 || v > INT_MAX || !isdigit((unsigned char)*text))
        argus_usage_error("--watch %s: bad PID '%s'", spec, text);
    return v;
}

static void add_watch(const char *spec)
{
    struct watch w = {.spec = spec, .prog = {-1, -1}};
    char *copy = argus_xstrdup(spec, "--watch options");
    char *at = strrchr(copy, '@');
    if (at) {
        *at = 0;
        w.pid = (pid_t)parse_pid(spec, at + 1);
    } else {
        w.of_command = true;
    }
    if (!*copy)
        argus_usage_error("--watch %s: no symbol or address", spec);
    if (copy[0] == '0' && (copy[1] == 'x' || copy[1] == 'X')) {
        char *end;
        errno = 0;
        w.addr = strtoull(copy + 2, &end, 16);
        if (!copy[2] || *end || errno || !w.addr)
            argus_usage_error("--watch %s: bad address '%s'", spec, copy);
        free(copy);
    } else {
        w.symbol = copy;
    }
    struct options *o = &rec.opt;
    o->watches = argus_xrealloc(o->watches, (o->n_watches + 1) * sizeof *o->watches,
                                "--watch options");
    o->watches[o->n_watches++] = w;
}

static void add_event(const char *spec)
{
    const char *colon = strchr(spec, ':');
    if (!colon || colon == spec || !colon[1] || strchr(colon + 1, ':') ||
        strchr(spec, '/') || strstr(spec, ".."))
        argus_usage_error("--event %s: expected SYS:NAME (like sched:sched_migrate_task)", spec);
    /* SYS:NAME -> SYS/NAME, SYS:* -> SYS: never longer than SPEC */
    size_t size = strlen(spec) + 1;
    char *path = argus_xmalloc(size, "--event options");
    if (strcmp(colon + 1, "*") == 0)
        snprintf(path, size, "%.*s", (int)(colon - spec), spec);
    else
        snprintf(path, size, "%.*s/%s", (int)(colon - spec), spec, colon + 1);
    struct options *o = &rec.opt;
    o->events = argus_xrealloc(o->events, (o->n_events + 1) * sizeof *o->events, "--event options");
    o->event_specs = argus_xrealloc(o->event_specs, (o->n_events + 1) * sizeof *o->event_specs,
                                    "--event options");
    o->event_specs[o->n_events] = spec;
    o->events[o->n_events++] = path;
}

enum {
    OPT_EVENT = OPT_RECORDING_END, OPT_ALL_SYSCALLS, OPT_WATCH, OPT_PID, OPT_PROC, OPT_CLEANUP,
};

static void parse_args(int argc, char **argv)
{
    static const struct option longs[] = {
        {"output", required_argument, 0, 'o'},
        RECORDING_OPTIONS,
        {"event", required_argument, 0, OPT_EVENT},
        {"all-syscalls", no_argument, 0, OPT_ALL_SYSCALLS},
        {"watch", required_argument, 0, OPT_WATCH},
        {"pid", required_argument, 0, OPT_PID},
        {"proc", required_argument, 0, OPT_PROC},
        {"cleanup", no_argument, 0, OPT_CLEANUP},
        ARGUS_OPTION_HELP,
        ARGUS_OPTION_VERSION,
        {0, 0, 0, 0},
    };
    argus_options common = ARGUS_OPTIONS_DEFAULT;
    opterr = 0;
    recording_options_start();
    const char *probes = NULL;
    int c;
    /* '+': options end at CMD, so CMD's own options are left to it */
    while ((c = getopt_long(argc, argv, "+o:qh", longs, NULL)) != -1) {
        if (recording_option(c, optarg, &probes))
            continue;
        switch (c) {
        case 'o':
            rec.opt.output = optarg;
            break;
        case OPT_EVENT:
            add_event(optarg);
            break;
        case OPT_ALL_SYSCALLS:
            rec.opt.all_syscalls = true;
            break;
        case OPT_WATCH:
            add_watch(optarg);
            break;
        case OPT_PID:
            focus_pid((int)argus_parse_uint_option("--pid", optarg, 1, INT_MAX, ""));
            break;
        case OPT_PROC:
            focus_name(optarg, true);
            break;
        case OPT_CLEANUP:
            rec.opt.cleanup = true;
            break;
        case '?':
            argus_bad_option(argv);
        default:
            argus_common_option(c, usage, &common, argv);
        }
    }
    probes_choose(probes);
    probes_focus(rec.opt.focus, rec.opt.n_focus);
    if (optind < argc)
        rec.opt.cmd = argv + optind;
    for (size_t i = 0; i < rec.opt.n_watches; i++)
        if (rec.opt.watches[i].of_command && !rec.opt.cmd)
            argus_usage_error("--watch %s: without @PID it watches CMD's process, and there is no CMD",
                              rec.opt.watches[i].spec);
}

static double now_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---------------------------------------------------------------------- */
/* The recording, step by step */

/* tracefs, what dead recorders left removed, the instance, the watches
 * and CMD, then tracing on and CMD let go. --cleanup ends here. */
static void start_recording(struct recording *r)
{
    rec.tfs.owner = getpid();
    atexit(restore);
    find_tracefs();
    /* a recorder killed by SIGKILL restored nothing: its leftovers go first */
    reap_dead_recorders();
    if (rec.opt.cleanup)
        exit(ARGUS_EX_OK);
    setup_instance();

    r->cmd_watches = rec.opt.n_watches && watch_setup();
    if (rec.opt.cmd)
        start_child(r->cmd_watches, &r->old_mask);
    int err = tfs_write(ipath("tracing_on"), "1");
    if (err)
        argus_die(ARGUS_EX_UNAVAILABLE, "%s/%s/tracing_on: %s", rec.tfs.root, rec.tfs.instance,
                  strerror(err));
    watch_enable();
    r->started = now_mono();
    scan_threads(&r->at_start);
    if (rec.opt.cmd)
        release_child(r->cmd_watches);
}

/* Whether CMD has ended (reaped, its status kept). */
static bool child_ended(struct recording *r)
{
    if (!rec.opt.cmd || !r->child_changed)
        return false;
    r->child_changed = false;
    int status;
    if (waitpid(rec.child.pid, &status, WNOHANG) != rec.child.pid ||
        !(WIFEXITED(status) || WIFSIGNALED(status)))
        return false;
    rec.child.reaped = true;
    rec.child.status = status;
    return true;
}

/* How long to wait for a signal or a watch hit at NOW: NULL, until one
 * comes; else in *TS. */
static struct timespec *wait_time(const struct recording *r, double now, struct timespec *ts)
{
    /* drain at least every 100 ms (hits also wake us) */
    double wait = watch_n_rings() ? 0.1 : -1;
    if (rec.opt.duration > 0) {
        double left = rec.opt.duration - (now - r->started);
        if (wait < 0 || left < wait)
            wait = left;
    }
    if (wait < 0)
        return NULL;
    ts->tv_sec = (time_t)wait;
    ts->tv_nsec = (long)((wait - (double)ts->tv_sec) * 1e9);
    return ts;
}

/* Records until the command ends, a stop signal, or --duration, draining
 * the watchpoint rings meanwhile. */
static void record_until_stopped(struct recording *r)
{
    r->why_stopped = "the command's end";
    struct pollfd *pfds = argus_xcalloc(watch_n_rings() + 1, sizeof *pfds, "watchpoint rings");
    bool *hung_up = argus_xcalloc(watch_n_rings() + 1, sizeof *hung_up, "watchpoint rings");
    for (;;) {
        take_signals(r);
        if (rec.stop.count) {
            r->why_stopped = rec.stop.last == SIGINT    ? "SIGINT"
                             : rec.stop.last == SIGTERM ? "SIGTERM"
                                                        : "SIGHUP";
            break;
        }
        if (child_ended(r))
            break;
        double now = now_mono();
        if (rec.opt.duration > 0 && now - r->started >= rec.opt.duration) {
            r->why_stopped = "--duration";
            break;
        }
        struct timespec ts;
        /* rings whose events have all ended say POLLHUP for good: they
         * are drained on the timeout only */
        nfds_t n = 0;
        pfds[n++] = (struct pollfd){.fd = r->signal_fd, .events = POLLIN};
        for (size_t i = 0; i < watch_n_rings(); i++)
            if (!hung_up[i])
                pfds[n++] = (struct pollfd){.fd = watch_ring_fd(i), .events = POLLIN};
        if (ppoll(pfds, n, wait_time(r, now, &ts), NULL) < 0 && errno != EINTR)
            argus_die(ARGUS_EX_UNAVAILABLE, "ppoll: %s", strerror(errno));
        for (size_t i = 0, k = 1; i < watch_n_rings(); i++)
            if (!hung_up[i] && (pfds[k++].revents & (POLLHUP | POLLERR)))
                hung_up[i] = true;
        watch_drain();
    }
    free(pfds);
    free(hung_up);
}

/* Tracing off, the last hits drained, CMD asked to end, the threads at the
 * end. */
static void stop_recording(struct recording *r)
{
    tfs_write(ipath("tracing_on"), "0");
    watch_disable();
    watch_drain();
    if (rec.opt.cmd && !rec.child.reaped)
        kill(rec.child.pid, rec.stop.count ? rec.stop.last : SIGTERM);
    scan_threads(&r->at_end);
    sort_threads(&r->at_start);
    sort_threads(&r->at_end);
    watch_finish();
}

/* Writes what the buffer holds, then restores tracefs. While writing, a
 * stop signal is counted by a handler and interrupts a blocked write; the
 * second one abandons the output. */
static void write_trace(struct recording *r)
{
    take_signals(r);
    r->stops_before_writing = rec.stop.count;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigset_t stop_set = r->blocked;
    sigdelset(&stop_set, SIGCHLD);
    sigprocmask(SIG_UNBLOCK, &stop_set, NULL);
    write_output(&r->at_start, &r->at_end);
    out_close();
    sigprocmask(SIG_BLOCK, &stop_set, NULL);
    restore();
    free_threads(&r->at_start);
    free_threads(&r->at_end);
}

/* The line on stderr: what was written, and why the recording stopped. */
static void print_summary(const struct recording *r)
{
    if (rec.opt.quiet)
        return;
    char hits[128] = "";
    if (rec.opt.n_watches)
        snprintf(hits, sizeof hits, ", %llu watch hits (%llu lost)",
                 (unsigned long long)rec.out.hits, (unsigned long long)watch_lost());
    fprintf(stderr, "%s: %llu events, %u threads%s, %llu overwritten; stopped by %s; wrote %s\n",
            argus_prog(), (unsigned long long)rec.out.events, rec.out.threads, hits,
            (unsigned long long)rec.out.overwritten, r->why_stopped, output_name());
}

/* 0, or with CMD its exit status (128 + the signal that killed it),
 * waiting for it to end unless interrupted again. */
static int exit_status(struct recording *r)
{
    if (!rec.opt.cmd)
        return ARGUS_EX_OK;
    if (!rec.child.reaped) {
        int status;
        while (waitpid(rec.child.pid, &status, WNOHANG) != rec.child.pid) {
            struct pollfd p = {.fd = r->signal_fd, .events = POLLIN};
            poll(&p, 1, -1);
            take_signals(r);
            if (rec.stop.count > r->stops_before_writing)
                return ARGUS_EX_SIGNALED + rec.stop.last;
        }
        rec.child.status = status;
    }
    if (WIFSIGNALED(rec.child.status))
        return ARGUS_EX_SIGNALED + WTERMSIG(rec.child.status);
    return WEXITSTATUS(rec.child.status);
}

int main(int argc, char **argv)
{
    argus_cli_init(argc, argv);
    parse_args(argc, argv);
    if (geteuid() != 0)
        argus_die(ARGUS_EX_NOPERM, "needs root to use tracefs and perf (run it with sudo)");

    struct recording r = {.signal_fd = -1};
    r.signal_fd = stop_signals_open(&r.blocked, &r.old_mask);
    out_open();
    start_recording(&r);
    record_until_stopped(&r);
    stop_recording(&r);
    write_trace(&r);
    print_summary(&r);
    return exit_status(&r);
}
