/* argus-record: records a system-wide Linux kernel trace as ftrace text
 * (docs/stages/record.md), in a tracefs instance of its own, with optional
 * hardware watchpoints on shared flags (--watch). This file: the command
 * line, signals and the recording loop; record.h lists the other parts. */
#include "record.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
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

struct options opt = {.buffer_mb = 16};

/* SIGINT, SIGTERM, SIGHUP and SIGCHLD stay blocked and arrive through a
 * signalfd, so that every step runs to its end and waiting is one poll. */
static int signal_fd = -1;
volatile sig_atomic_t stop_signals, last_signal;
static bool child_changed;

/* While writing the output (see main). */
static void on_stop_signal(int sig)
{
    stop_signals++;
    last_signal = sig;
}

static void take_signals(void)
{
    struct signalfd_siginfo si;
    while (read(signal_fd, &si, sizeof si) == (ssize_t)sizeof si) {
        if (si.ssi_signo == SIGCHLD) {
            child_changed = true;
        } else {
            stop_signals++;
            last_signal = (int)si.ssi_signo;
        }
    }
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
    opt.watches =
        argus_xrealloc(opt.watches, (opt.n_watches + 1) * sizeof *opt.watches, "--watch options");
    opt.watches[opt.n_watches++] = w;
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
    opt.events =
        argus_xrealloc(opt.events, (opt.n_events + 1) * sizeof *opt.events, "--event options");
    opt.event_specs = argus_xrealloc(opt.event_specs, (opt.n_events + 1) * sizeof *opt.event_specs,
                                     "--event options");
    opt.event_specs[opt.n_events] = spec;
    opt.events[opt.n_events++] = path;
}

enum {
    OPT_BUFFER_MB = 0x2000, OPT_DURATION, OPT_EVENT, OPT_ALL_SYSCALLS,
    OPT_WATCH, OPT_INSTANCE, OPT_PROBES, OPT_NO_PROBES, OPT_PID, OPT_PROC, OPT_CLEANUP,
};

static bool cleanup_only; /* --cleanup */

static void parse_args(int argc, char **argv)
{
    static const struct option longs[] = {
        {"output", required_argument, 0, 'o'},
        {"buffer-mb", required_argument, 0, OPT_BUFFER_MB},
        {"duration", required_argument, 0, OPT_DURATION},
        {"event", required_argument, 0, OPT_EVENT},
        {"all-syscalls", no_argument, 0, OPT_ALL_SYSCALLS},
        {"watch", required_argument, 0, OPT_WATCH},
        {"instance", required_argument, 0, OPT_INSTANCE},
        {"probes", required_argument, 0, OPT_PROBES},
        {"no-probes", no_argument, 0, OPT_NO_PROBES},
        {"pid", required_argument, 0, OPT_PID},
        {"proc", required_argument, 0, OPT_PROC},
        {"cleanup", no_argument, 0, OPT_CLEANUP},
        {"quiet", no_argument, 0, 'q'},
        ARGUS_OPTION_HELP,
        ARGUS_OPTION_VERSION,
        {0, 0, 0, 0},
    };
    argus_options common = ARGUS_OPTIONS_DEFAULT;
    opterr = 0;
    snprintf(opt.instance_name, sizeof opt.instance_name, "argus-%d", (int)getpid());
    const char *probes = NULL;
    int c;
    /* '+': options end at CMD, so CMD's own options are left to it */
    while ((c = getopt_long(argc, argv, "+o:qh", longs, NULL)) != -1) {
        switch (c) {
        case 'o':
            opt.output = optarg;
            break;
        case 'q':
            opt.quiet = true;
            argus_cli_quiet(true);
            break;
        case OPT_BUFFER_MB:
            opt.buffer_mb = argus_parse_uint_option("--buffer-mb", optarg, 1, 65536, " (MB per CPU)");
            break;
        case OPT_DURATION:
            opt.duration = parse_duration(optarg);
            break;
        case OPT_EVENT:
            add_event(optarg);
            break;
        case OPT_ALL_SYSCALLS:
            opt.all_syscalls = true;
            break;
        case OPT_WATCH:
            add_watch(optarg);
            break;
        case OPT_PROBES:
            probes = optarg;
            break;
        case OPT_NO_PROBES:
            probes = "none";
            break;
        case OPT_PID:
            focus_pid((int)argus_parse_uint_option("--pid", optarg, 1, INT_MAX, ""));
            break;
        case OPT_PROC:
            focus_name(optarg, true);
            break;
        case OPT_CLEANUP:
            cleanup_only = true;
            break;
        case OPT_INSTANCE:
            set_instance_name(optarg);
            break;
        case '?':
            argus_bad_option(argv);
        default:
            argus_common_option(c, usage, &common, argv);
        }
    }
    probes_choose(probes);
    probes_focus(opt.focus, opt.n_focus);
    if (optind < argc)
        opt.cmd = argv + optind;
    for (size_t i = 0; i < opt.n_watches; i++)
        if (opt.watches[i].of_command && !opt.cmd)
            argus_usage_error("--watch %s: without @PID it watches CMD's process, and there is no CMD",
                              opt.watches[i].spec);
}

static double now_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    argus_cli_init(argc, argv);
    parse_args(argc, argv);

    if (geteuid() != 0)
        argus_die(ARGUS_EX_NOPERM, "needs root to use tracefs and perf (run it with sudo)");

    /* SIGINT/SIGTERM/SIGHUP end the recording (through signal_fd).
     * SIGPIPE becomes EPIPE, so that a closed pipe still restores
     * everything. */
    sigset_t block_set, old_mask;
    sigemptyset(&block_set);
    sigaddset(&block_set, SIGINT);
    sigaddset(&block_set, SIGTERM);
    sigaddset(&block_set, SIGHUP);
    sigaddset(&block_set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &block_set, &old_mask);
    signal_fd = signalfd(-1, &block_set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (signal_fd < 0)
        argus_die(ARGUS_EX_UNAVAILABLE, "signalfd: %s", strerror(errno));
    signal(SIGPIPE, SIG_IGN);

    if (opt.output && strcmp(opt.output, "-") != 0) {
        /* a file is written as FILE.partial and renamed when whole: a
         * killed or failed recording never leaves a FILE that looks whole
         * (a device or a FIFO is written as it is) */
        struct stat sb;
        if (stat(opt.output, &sb) != 0 || S_ISREG(sb.st_mode)) {
            size_t n = strlen(opt.output) + sizeof ".partial";
            out_partial = argus_xmalloc(n, "output file name");
            snprintf(out_partial, n, "%s.partial", opt.output);
        }
        out_fd = open(output_name(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (out_fd < 0)     /* the name the user gave: FILE's directory refused */
            argus_die(ARGUS_EX_CANTCREAT, "%s: cannot create (%s)", opt.output, strerror(errno));
        out_compress_by_name(opt.output);
    }

    st.owner = getpid();
    atexit(restore);

    find_tracefs();
    /* a recorder killed by SIGKILL restored nothing: its leftovers go first */
    reap_dead_recorders();
    if (cleanup_only)
        exit(0);
    setup_instance();

    bool cmd_watches = opt.n_watches && watch_setup();
    if (opt.cmd)
        start_child(cmd_watches, &old_mask);

    int err = tfs_write(ipath("tracing_on"), "1");
    if (err)
        argus_die(ARGUS_EX_UNAVAILABLE, "%s/%s/tracing_on: %s", st.root, st.instance,
                  strerror(err));
    watch_enable();
    double started = now_mono();
    struct thread_list at_start = {0};
    scan_threads(&at_start);
    if (opt.cmd)
        release_child(cmd_watches);

    /* Record until the command ends, a stop signal, or --duration. */
    const char *why_stopped = "the command's end";
    struct pollfd *pfds = argus_xcalloc(watch_n_rings() + 1, sizeof *pfds, "watchpoint rings");
    bool *hung_up = argus_xcalloc(watch_n_rings() + 1, sizeof *hung_up, "watchpoint rings");
    for (;;) {
        take_signals();
        if (stop_signals) {
            why_stopped = last_signal == SIGINT ? "SIGINT" : last_signal == SIGTERM ? "SIGTERM" : "SIGHUP";
            break;
        }
        if (opt.cmd && child_changed) {
            child_changed = false;
            int status;
            if (waitpid(st.child, &status, WNOHANG) == st.child &&
                (WIFEXITED(status) || WIFSIGNALED(status))) {
                st.child_reaped = true;
                st.child_status = status;
                break;
            }
        }
        double now = now_mono();
        if (opt.duration > 0 && now - started >= opt.duration) {
            why_stopped = "--duration";
            break;
        }
        /* drain at least every 100 ms (hits also wake us) */
        double wait = watch_n_rings() ? 0.1 : -1;
        if (opt.duration > 0) {
            double left = opt.duration - (now - started);
            if (wait < 0 || left < wait)
                wait = left;
        }
        struct timespec ts, *tsp = NULL;
        if (wait >= 0) {
            ts.tv_sec = (time_t)wait;
            ts.tv_nsec = (long)((wait - (double)ts.tv_sec) * 1e9);
            tsp = &ts;
        }
        /* rings whose events have all ended say POLLHUP for good: they
         * are drained on the timeout only */
        nfds_t n = 0;
        pfds[n++] = (struct pollfd){.fd = signal_fd, .events = POLLIN};
        for (size_t i = 0; i < watch_n_rings(); i++)
            if (!hung_up[i])
                pfds[n++] = (struct pollfd){.fd = watch_ring_fd(i), .events = POLLIN};
        if (ppoll(pfds, n, tsp, NULL) < 0 && errno != EINTR)
            argus_die(ARGUS_EX_UNAVAILABLE, "ppoll: %s", strerror(errno));
        for (size_t i = 0, k = 1; i < watch_n_rings(); i++)
            if (!hung_up[i] && (pfds[k++].revents & (POLLHUP | POLLERR)))
                hung_up[i] = true;
        watch_drain();
    }
    free(pfds);
    free(hung_up);

    /* Stop, then write what the buffer holds. */
    tfs_write(ipath("tracing_on"), "0");
    watch_disable();
    watch_drain();
    if (opt.cmd && !st.child_reaped)
        kill(st.child, stop_signals ? last_signal : SIGTERM);
    struct thread_list at_end = {0};
    scan_threads(&at_end);
    sort_threads(&at_start);
    sort_threads(&at_end);
    watch_finish();
    /* While writing, a stop signal is counted by a handler and interrupts
     * a blocked write; the second one abandons the output. */
    take_signals();
    int signals_before_writing = stop_signals;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigset_t stop_set = block_set;
    sigdelset(&stop_set, SIGCHLD);
    sigprocmask(SIG_UNBLOCK, &stop_set, NULL);
    write_output(&at_start, &at_end);
    if (out_fd != STDOUT_FILENO && close(out_fd) != 0)
        argus_die(ARGUS_EX_IOERR, "%s: write error (%s)", output_name(), strerror(errno));
    if (out_partial) {
        if (rename(out_partial, opt.output) != 0)
            argus_die(ARGUS_EX_IOERR, "%s: cannot rename to %s (%s)", out_partial, opt.output,
                      strerror(errno));
        free(out_partial);
        out_partial = NULL;
    }
    sigprocmask(SIG_BLOCK, &stop_set, NULL);
    restore();
    free_threads(&at_start);
    free_threads(&at_end);

    if (!opt.quiet) {
        char hits[128] = "";
        if (opt.n_watches)
            snprintf(hits, sizeof hits, ", %llu watch hits (%llu lost)",
                     (unsigned long long)hits_out, (unsigned long long)watch_lost());
        fprintf(stderr, "%s: %llu events, %u threads%s, %llu overwritten; stopped by %s; wrote %s\n",
                argus_prog(), (unsigned long long)events_out, n_threads_out, hits,
                (unsigned long long)overwritten, why_stopped, output_name());
    }

    if (!opt.cmd)
        return ARGUS_EX_OK;
    if (!st.child_reaped) {
        /* it was asked to end: wait for it, unless interrupted again */
        int status;
        while (waitpid(st.child, &status, WNOHANG) != st.child) {
            struct pollfd p = {.fd = signal_fd, .events = POLLIN};
            poll(&p, 1, -1);
            take_signals();
            if (stop_signals > signals_before_writing)
                return 128 + last_signal;
        }
        st.child_status = status;
    }
    if (WIFSIGNALED(st.child_status))
        return 128 + WTERMSIG(st.child_status);
    return WEXITSTATUS(st.child_status);
}

