/* argus-record: records a system-wide Linux kernel trace as ftrace text
 * (docs/stages/record.md), in a tracefs instance of its own, with optional
 * hardware watchpoints on shared flags (--watch). */
#include "argus/cli.h"

#include <ctype.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/bpf.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Exit statuses of its own (docs/stages/record.md, "Exit status"). */
enum {
    EX_UNAVAILABLE = 69, /* no tracefs, no sched_switch, no breakpoint slot */
    EX_CANTCREAT = 73,   /* -o FILE cannot be created */
    EX_NOPERM = 77,      /* not root */
    EX_NOEXEC = 126,     /* CMD found but not executable */
    EX_NOTFOUND = 127,   /* CMD not found */
};

static const char usage[] =
    "Usage: argus-record [OPTIONS] [--] [CMD [ARGS...]]\n"
    "Record a system-wide Linux kernel trace as ftrace text (as root).\n"
    "It records in a tracefs instance of its own, adds argus's thread lines\n"
    "(and flag lines with --watch), and restores what it changed. With CMD:\n"
    "runs it and records until it exits (the exit status is CMD's).\n"
    "Without: records until SIGINT/SIGTERM or --duration.\n"
    "\n"
    "  -o, --output FILE      write the trace to FILE (default stdout)\n"
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
    "      --instance NAME    tracefs instance name (default argus-PID)\n"
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
    "socketpair, fcntl, flock, sched_yield; with trace_clock mono and the\n"
    "(TGID) column.\n"
    "\n"
    "Exit status: 0 ok (or CMD's status), 64 usage, 69 tracefs or a needed\n"
    "kernel feature unavailable, 73 cannot create FILE, 74 I/O error,\n"
    "77 not root, 126/127 CMD not executable/not found.\n";

/* ---------------------------------------------------------------------- */
/* Events */

static const char *const base_events[] = {
    "sched/sched_switch", "sched/sched_waking", "sched/sched_wakeup",
    "sched/sched_wakeup_new", "sched/sched_process_fork",
    "sched/sched_process_exec", "sched/sched_process_exit",
    "task/task_newtask", "task/task_rename",
    "irq/irq_handler_entry", "irq/irq_handler_exit", "irq/softirq_entry",
    "irq/softirq_exit",
    "workqueue/workqueue_queue_work", "workqueue/workqueue_execute_start",
    "workqueue/workqueue_execute_end",
    "timer/hrtimer_start", "timer/hrtimer_expire_entry",
    "timer/hrtimer_expire_exit", "timer/hrtimer_cancel",
};

/* The syscalls whose blocking the decoder explains (futex addresses, fds
 * of reads and writes, sleeps, waits, pipes and sockets). */
static const char *const syscall_names[] = {
    "futex", "read", "write", "readv", "writev", "pread64", "pwrite64",
    "recvfrom", "recvmsg", "recvmmsg", "sendto", "sendmsg", "sendmmsg",
    "poll", "ppoll", "select", "pselect6", "epoll_wait", "epoll_pwait",
    "epoll_pwait2", "nanosleep", "clock_nanosleep", "wait4", "waitid",
    "accept", "accept4", "connect", "pipe", "pipe2", "socketpair",
    "fcntl", "flock", "sched_yield",
};

/* ---------------------------------------------------------------------- */
/* Options and state */

struct watch {
    const char *spec;    /* as given, for messages */
    char *symbol;        /* NULL for an address watch */
    uint64_t addr;       /* given (address watch) or resolved */
    unsigned len;        /* 1, 2, 4 or 8 */
    char *name;          /* name= on the lines */
    pid_t pid;           /* 0 until resolved when of_command */
    bool of_command;     /* no @PID: CMD's process */
    int prog[2];         /* BPF programs of the W and RW breakpoints, -1: none yet */
};

static struct {
    const char *output;
    uint64_t buffer_mb;
    double duration;     /* seconds; 0: none */
    char **events;       /* --event, as SYS/NAME or SYS */
    const char **event_specs; /* --event, as given */
    size_t n_events;
    bool all_syscalls;
    struct watch *watches;
    size_t n_watches;
    char instance_name[NAME_MAX + 1];
    bool quiet;
    char **cmd;          /* NULL: no command */
} opt = {.buffer_mb = 16};

/* What was changed, so that restore() can undo it from any exit path. */
static struct {
    pid_t owner;               /* the recorder (atexit also runs in a child) */
    char root[PATH_MAX];       /* tracefs directory */
    int root_fd;               /* held open: keeps the mount in use */
    bool mounted;              /* we mounted root */
    char instance[PATH_MAX];   /* "instances/NAME", relative to root_fd */
    bool instance_made;
    int top_tgid_old;          /* old top-level record-tgid, -1: untouched */
    pid_t child;               /* CMD, 0: none */
    bool child_released;       /* running the command (not held) */
    bool child_reaped;
    int child_status;
    FILE *trace;               /* the instance's trace, while read */
} st = {.root_fd = -1, .top_tgid_old = -1};

/* SIGINT, SIGTERM, SIGHUP and SIGCHLD stay blocked and arrive through a
 * signalfd, so that every step runs to its end and waiting is one poll. */
static int signal_fd = -1;
static volatile sig_atomic_t stop_signals; /* SIGINT/SIGTERM/SIGHUP seen */
static volatile sig_atomic_t last_signal;
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

static void warn_unless_quiet(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static void warn_unless_quiet(const char *fmt, ...)
{
    if (opt.quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", argus_prog());
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* ---------------------------------------------------------------------- */
/* tracefs files, relative to st.root_fd */

/* Writes TEXT to tracefs file PATH; 0 or an errno. */
static int tfs_write(const char *path, const char *text)
{
    int fd = openat(st.root_fd, path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0)
        return errno;
    size_t n = strlen(text);
    ssize_t w = write(fd, text, n);
    int err = w == (ssize_t)n ? 0 : (w < 0 ? errno : EIO);
    close(fd);
    return err;
}

/* Reads tracefs file PATH (first line, no newline) into BUF; 0 or errno. */
static int tfs_read(const char *path, char *buf, size_t size)
{
    int fd = openat(st.root_fd, path, O_RDONLY | O_CLOEXEC);
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

static bool tfs_exists(const char *path)
{
    return faccessat(st.root_fd, path, F_OK, 0) == 0;
}

/* PATH under the instance. */
static const char *ipath(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *ipath(const char *fmt, ...)
{
    static char buf[PATH_MAX + 256];
    int n = snprintf(buf, sizeof buf, "%s/", st.instance);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    va_end(ap);
    return buf;
}

/* ---------------------------------------------------------------------- */
/* Restoring what was changed */

static void restore(void)
{
    if (st.owner != getpid())
        return; /* a forked child exiting */
    st.owner = 0; /* once */

    if (st.child && !st.child_released && !st.child_reaped) {
        /* held before or right after its exec: it must not run on */
        kill(st.child, SIGKILL);
        waitpid(st.child, NULL, 0);
        st.child_reaped = true;
    }
    if (st.trace) {
        fclose(st.trace); /* an open file keeps the instance busy */
        st.trace = NULL;
    }
    if (st.instance_made) {
        tfs_write(ipath("tracing_on"), "0");
        /* rmdir fails with EBUSY while someone holds a file of the
         * instance open (a reader of its trace_pipe): retry for a while */
        int err = 0;
        for (int i = 0; i < 50; i++) {
            if (unlinkat(st.root_fd, st.instance, AT_REMOVEDIR) == 0) {
                err = 0;
                break;
            }
            err = errno;
            if (err != EBUSY)
                break;
            usleep(20000);
        }
        if (err)
            argus_warn("%s/%s: cannot remove the instance (%s); remove it with rmdir",
                       st.root, st.instance, strerror(err));
        st.instance_made = false;
    }
    if (st.top_tgid_old >= 0) {
        int err = tfs_write("options/record-tgid", st.top_tgid_old ? "1" : "0");
        if (err)
            argus_warn("%s/options/record-tgid: cannot restore it to %d (%s)",
                       st.root, st.top_tgid_old, strerror(err));
        st.top_tgid_old = -1;
    }
    if (st.root_fd >= 0) {
        close(st.root_fd);
        st.root_fd = -1;
    }
    if (st.mounted) {
        if (umount2(st.root, 0) != 0)
            argus_warn("%s: cannot unmount the tracefs it mounted (%s)", st.root,
                       strerror(errno));
        st.mounted = false;
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
    char *copy = strdup(spec);
    if (!copy)
        abort();
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
    opt.watches = realloc(opt.watches, (opt.n_watches + 1) * sizeof *opt.watches);
    if (!opt.watches)
        abort();
    opt.watches[opt.n_watches++] = w;
}

static void add_event(const char *spec)
{
    const char *colon = strchr(spec, ':');
    if (!colon || colon == spec || !colon[1] || strchr(colon + 1, ':') ||
        strchr(spec, '/') || strstr(spec, ".."))
        argus_usage_error("--event %s: expected SYS:NAME (like sched:sched_migrate_task)", spec);
    char *path;
    if (strcmp(colon + 1, "*") == 0) {
        if (asprintf(&path, "%.*s", (int)(colon - spec), spec) < 0)
            abort();
    } else if (asprintf(&path, "%.*s/%s", (int)(colon - spec), spec, colon + 1) < 0) {
        abort();
    }
    opt.events = realloc(opt.events, (opt.n_events + 1) * sizeof *opt.events);
    opt.event_specs = realloc(opt.event_specs, (opt.n_events + 1) * sizeof *opt.event_specs);
    if (!opt.events || !opt.event_specs)
        abort();
    opt.event_specs[opt.n_events] = spec;
    opt.events[opt.n_events++] = path;
}

enum {
    OPT_BUFFER_MB = 0x2000, OPT_DURATION, OPT_EVENT, OPT_ALL_SYSCALLS,
    OPT_WATCH, OPT_INSTANCE,
};

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
        {"quiet", no_argument, 0, 'q'},
        ARGUS_OPTION_HELP,
        ARGUS_OPTION_VERSION,
        {0, 0, 0, 0},
    };
    argus_options common = ARGUS_OPTIONS_DEFAULT;
    opterr = 0;
    snprintf(opt.instance_name, sizeof opt.instance_name, "argus-%d", (int)getpid());
    int c;
    /* '+': options end at CMD, so CMD's own options are left to it */
    while ((c = getopt_long(argc, argv, "+o:qh", longs, NULL)) != -1) {
        switch (c) {
        case 'o':
            opt.output = optarg;
            break;
        case 'q':
            opt.quiet = true;
            break;
        case OPT_BUFFER_MB:
            opt.buffer_mb = argus_parse_uint_option("--buffer-mb", optarg);
            if (opt.buffer_mb < 1 || opt.buffer_mb > 65536)
                argus_usage_error("--buffer-mb %s: expected 1 to 65536 (MB per CPU)", optarg);
            break;
        case OPT_DURATION: {
            char *end;
            errno = 0;
            double d = strtod(optarg, &end);
            if (!*optarg || *end || errno || !(d > 0) || d > 1e9 || isspace((unsigned char)*optarg))
                argus_usage_error("--duration %s: expected seconds > 0 (like 5 or 0.5)", optarg);
            opt.duration = d;
            break;
        }
        case OPT_EVENT:
            add_event(optarg);
            break;
        case OPT_ALL_SYSCALLS:
            opt.all_syscalls = true;
            break;
        case OPT_WATCH:
            add_watch(optarg);
            break;
        case OPT_INSTANCE:
            if (!*optarg || strchr(optarg, '/') || strcmp(optarg, ".") == 0 ||
                strcmp(optarg, "..") == 0 || strlen(optarg) > NAME_MAX)
                argus_usage_error("--instance %s: expected a directory name", optarg);
            snprintf(opt.instance_name, sizeof opt.instance_name, "%s", optarg);
            break;
        case '?':
            argus_bad_option(argv);
        default:
            argus_common_option(c, usage, &common, argv);
        }
    }
    if (optind < argc)
        opt.cmd = argv + optind;
    for (size_t i = 0; i < opt.n_watches; i++)
        if (opt.watches[i].of_command && !opt.cmd)
            argus_usage_error("--watch %s: without @PID it watches CMD's process, and there is no CMD",
                              opt.watches[i].spec);
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
    snprintf(st.root, sizeof st.root, "%s", dir);
    st.root_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (st.root_fd < 0)
        argus_die(EX_UNAVAILABLE, "%s: cannot open tracefs (%s)", dir, strerror(errno));
}

static void find_tracefs(void)
{
    const char *env = getenv("ARGUS_TRACEFS");
    if (env && *env) {
        if (!is_tracefs(env))
            argus_die(EX_UNAVAILABLE,
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
            st.mounted = true; /* before anything can exit: restore unmounts */
            snprintf(st.root, sizeof st.root, "%s", sys);
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
    argus_die(EX_UNAVAILABLE,
              "tracefs unavailable: %s is not mounted and mounting it failed (%s), and %s is missing",
              sys, strerror(mount_err), debug);
}

/* Enables event PATH ("SYS/NAME" or "SYS") in the instance; 0 or errno. */
static int enable_event(const char *path)
{
    return tfs_write(ipath("events/%s/enable", path), "1");
}

static size_t n_enabled;

static void setup_instance(void)
{
    snprintf(st.instance, sizeof st.instance, "instances/%s", opt.instance_name);
    if (mkdirat(st.root_fd, st.instance, 0755) != 0) {
        if (errno == EEXIST)
            argus_die(EX_UNAVAILABLE,
                      "%s/%s: the instance exists (another recorder? --instance names another one)",
                      st.root, st.instance);
        argus_die(EX_UNAVAILABLE, "%s/%s: cannot create the instance (%s)", st.root,
                  st.instance, strerror(errno));
    }
    st.instance_made = true;

    /* a new instance traces at once: off until everything is set */
    int err = tfs_write(ipath("tracing_on"), "0");
    if (err)
        argus_die(EX_UNAVAILABLE, "%s/%s/tracing_on: %s", st.root, st.instance, strerror(err));
    char kb[32];
    snprintf(kb, sizeof kb, "%llu", (unsigned long long)(opt.buffer_mb * 1024));
    if ((err = tfs_write(ipath("buffer_size_kb"), kb)))
        argus_die(EX_UNAVAILABLE, "%s/%s/buffer_size_kb: cannot set %s KB per CPU (%s)",
                  st.root, st.instance, kb, strerror(err));
    /* the ring buffer: the oldest events go when it is full */
    if ((err = tfs_write(ipath("options/overwrite"), "1")))
        argus_die(EX_UNAVAILABLE, "%s/%s/options/overwrite: %s", st.root, st.instance, strerror(err));
    /* CLOCK_MONOTONIC, the clock of the perf watchpoint samples */
    if ((err = tfs_write(ipath("trace_clock"), "mono")))
        argus_die(EX_UNAVAILABLE, "%s/%s/trace_clock: cannot select mono (%s)", st.root,
                  st.instance, strerror(err));

    /* The (TGID) column: an instance option on recent kernels; older
     * ones have it at the top level only (changed, then restored). */
    if (tfs_exists(ipath("options/record-tgid"))) {
        if ((err = tfs_write(ipath("options/record-tgid"), "1")))
            argus_die(EX_UNAVAILABLE, "%s/%s/options/record-tgid: %s", st.root, st.instance,
                      strerror(err));
    } else {
        char old[16];
        if ((err = tfs_read("options/record-tgid", old, sizeof old)))
            argus_die(EX_UNAVAILABLE, "%s/options/record-tgid: %s", st.root, strerror(err));
        st.top_tgid_old = atoi(old) ? 1 : 0;
        if ((err = tfs_write("options/record-tgid", "1")))
            argus_die(EX_UNAVAILABLE, "%s/options/record-tgid: %s", st.root, strerror(err));
    }

    /* the events the decoder maps: missing ones are reported together */
    char missing[4096] = "";
    size_t n_missing = 0;
    for (size_t i = 0; i < sizeof base_events / sizeof *base_events; i++) {
        err = enable_event(base_events[i]);
        if (!err) {
            n_enabled++;
            continue;
        }
        if (i == 0)
            argus_die(EX_UNAVAILABLE, "%s/%s/events/%s: cannot enable it (%s); it is the one event argus needs",
                      st.root, st.instance, base_events[i], strerror(err));
        n_missing++;
        size_t len = strlen(missing);
        snprintf(missing + len, sizeof missing - len, "%s%s", len ? ", " : "",
                 strchr(base_events[i], '/') + 1);
    }
    if (opt.all_syscalls) {
        if ((err = enable_event("syscalls")))
            argus_die(EX_UNAVAILABLE, "%s/%s/events/syscalls: cannot enable (%s)", st.root,
                      st.instance, strerror(err));
        n_enabled++;
    } else {
        for (size_t i = 0; i < sizeof syscall_names / sizeof *syscall_names; i++) {
            for (int exit_side = 0; exit_side < 2; exit_side++) {
                char ev[96];
                snprintf(ev, sizeof ev, "syscalls/sys_%s_%s", exit_side ? "exit" : "enter",
                         syscall_names[i]);
                if (!tfs_exists(ipath("events/%s", ev)))
                    continue; /* this architecture has no such syscall */
                if (enable_event(ev) == 0) {
                    n_enabled++;
                    continue;
                }
                n_missing++;
                size_t len = strlen(missing);
                snprintf(missing + len, sizeof missing - len, "%s%s", len ? ", " : "", ev + 9);
            }
        }
    }
    if (n_missing)
        warn_unless_quiet("%zu event%s missing on this kernel (not recorded): %s", n_missing,
                          n_missing == 1 ? "" : "s", missing);
    for (size_t i = 0; i < opt.n_events; i++) {
        const char *ev = opt.events[i];
        if (!tfs_exists(ipath("events/%s", ev)))
            argus_die(ARGUS_EX_USAGE, "--event %s: no such event in %s/events",
                      opt.event_specs[i], st.root);
        if ((err = enable_event(ev)))
            argus_die(EX_UNAVAILABLE, "%s/%s/events/%s: cannot enable it (%s)", st.root,
                      st.instance, ev, strerror(err));
        n_enabled++;
    }
}

/* ---------------------------------------------------------------------- */
/* Threads: /proc at the start and at the end */

struct thread_info {
    int tid, tgid;
    bool kernel;
    char comm[64];
};

struct thread_list {
    struct thread_info *v;
    size_t n, cap;
};

#define PF_KTHREAD_FLAG 0x00200000u

/* Reads /proc/TGID/task/TID/stat into T; false when the thread is gone. */
static bool read_thread(int tgid, int tid, struct thread_info *t)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", tgid, tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = 0;
    /* "TID (COMM) STATE PPID PGRP SESSION TTY TPGID FLAGS ...": COMM may
     * hold spaces and parentheses, so it ends at the last ')' */
    char *open_paren = strchr(buf, '('), *close_paren = strrchr(buf, ')');
    if (!open_paren || !close_paren || close_paren < open_paren)
        return false;
    size_t len = (size_t)(close_paren - open_paren - 1);
    if (len >= sizeof t->comm)
        len = sizeof t->comm - 1;
    memcpy(t->comm, open_paren + 1, len);
    t->comm[len] = 0;
    for (char *c = t->comm; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?'; /* one line per thread */
    unsigned long long flags;
    if (sscanf(close_paren + 1, " %*c %*d %*d %*d %*d %*d %llu", &flags) != 1)
        return false;
    t->tid = tid;
    t->tgid = tgid;
    /* every kernel thread, kthreadd's children too, has PF_KTHREAD; a
     * parent pid of 2 is no proof (in a pid namespace, 2 is a process) */
    t->kernel = (flags & PF_KTHREAD_FLAG) != 0;
    return true;
}

static void scan_threads(struct thread_list *list)
{
    DIR *proc = opendir("/proc");
    if (!proc)
        argus_die(EX_UNAVAILABLE, "/proc: %s", strerror(errno));
    struct dirent *pe;
    while ((pe = readdir(proc))) {
        if (!isdigit((unsigned char)pe->d_name[0]))
            continue;
        int tgid = atoi(pe->d_name);
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/task", tgid);
        DIR *task = opendir(path);
        if (!task)
            continue; /* gone */
        struct dirent *te;
        while ((te = readdir(task))) {
            if (!isdigit((unsigned char)te->d_name[0]))
                continue;
            struct thread_info t;
            if (!read_thread(tgid, atoi(te->d_name), &t))
                continue;
            if (list->n == list->cap) {
                list->cap = list->cap ? list->cap * 2 : 512;
                list->v = realloc(list->v, list->cap * sizeof *list->v);
                if (!list->v)
                    abort();
            }
            list->v[list->n++] = t;
        }
        closedir(task);
    }
    closedir(proc);
}

static int by_tid(const void *a, const void *b)
{
    const struct thread_info *x = a, *y = b;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

static const struct thread_info *find_thread(const struct thread_list *l, int tid)
{
    struct thread_info key = {.tid = tid};
    return l->n ? bsearch(&key, l->v, l->n, sizeof *l->v, by_tid) : NULL;
}

/* ---------------------------------------------------------------------- */
/* ELF symbols of a process (--watch SYMBOL) */

struct mapping {
    uint64_t start, end, offset;
    char *path; /* NULL: anonymous */
};

struct maps {
    struct mapping *v;
    size_t n;
};

static bool read_maps(pid_t pid, struct maps *m)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    char *line = NULL;
    size_t cap = 0, alloc = 0;
    m->v = NULL;
    m->n = 0;
    while (getline(&line, &cap, f) > 0) {
        unsigned long long start, end, offset;
        int name_at = 0;
        if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &start, &end, &offset, &name_at) != 3)
            continue;
        char *name = line + name_at;
        name[strcspn(name, "\n")] = 0;
        if (m->n == alloc) {
            alloc = alloc ? alloc * 2 : 64;
            m->v = realloc(m->v, alloc * sizeof *m->v);
            if (!m->v)
                abort();
        }
        struct mapping *mp = &m->v[m->n++];
        mp->start = start;
        mp->end = end;
        mp->offset = offset;
        mp->path = name[0] == '/' ? strdup(name) : NULL;
    }
    free(line);
    fclose(f);
    return true;
}

static void free_maps(struct maps *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->v[i].path);
    free(m->v);
    m->v = NULL;
    m->n = 0;
}

/* A symbol found: runtime address, size, name. */
struct symbol_hit {
    uint64_t addr, size;
    char name[256];
    char file[PATH_MAX];
    bool tls;
};

/* A mapped ELF64 file, read through /proc/PID/map_files (the very file
 * mapped, also when deleted or in another mount namespace). */
struct elf_file {
    const uint8_t *data;
    size_t size;
    const Elf64_Ehdr *eh;
};

static bool elf_open(const char *path, struct elf_file *ef)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || (size_t)sb.st_size < sizeof(Elf64_Ehdr)) {
        close(fd);
        return false;
    }
    void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return false;
    ef->data = p;
    ef->size = (size_t)sb.st_size;
    ef->eh = p;
    const unsigned char *id = ef->eh->e_ident;
    if (memcmp(id, ELFMAG, SELFMAG) != 0 || id[EI_CLASS] != ELFCLASS64 ||
        id[EI_DATA] != ELFDATA2LSB || ef->eh->e_shentsize != sizeof(Elf64_Shdr) ||
        ef->eh->e_phentsize != sizeof(Elf64_Phdr) ||
        ef->eh->e_shoff > ef->size ||
        (uint64_t)ef->eh->e_shnum * sizeof(Elf64_Shdr) > ef->size - ef->eh->e_shoff ||
        ef->eh->e_phoff > ef->size ||
        (uint64_t)ef->eh->e_phnum * sizeof(Elf64_Phdr) > ef->size - ef->eh->e_phoff) {
        munmap(p, ef->size);
        return false;
    }
    return true;
}

static void elf_close(struct elf_file *ef) { munmap((void *)ef->data, ef->size); }

/* The load bias of the file whose mappings are MAPS[i] with PATH: the
 * start of a mapping minus the page-aligned vaddr of the PT_LOAD segment
 * mapped there (0 for a non-PIE executable). */
static bool elf_bias(const struct elf_file *ef, const struct maps *maps, const char *path,
                     uint64_t *bias)
{
    if (ef->eh->e_type == ET_EXEC) {
        *bias = 0;
        return true;
    }
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(ef->data + ef->eh->e_phoff);
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    for (size_t m = 0; m < maps->n; m++) {
        if (!maps->v[m].path || strcmp(maps->v[m].path, path) != 0)
            continue;
        for (size_t i = 0; i < ef->eh->e_phnum; i++) {
            if (ph[i].p_type != PT_LOAD)
                continue;
            if ((ph[i].p_offset & ~(page - 1)) == maps->v[m].offset) {
                *bias = maps->v[m].start - (ph[i].p_vaddr & ~(page - 1));
                return true;
            }
        }
    }
    return false;
}

/* Looks for NAME (or, NAME NULL, a symbol starting at runtime address
 * ADDR) in table TYPE (SHT_SYMTAB or SHT_DYNSYM) of EF. */
static bool elf_search(const struct elf_file *ef, unsigned type, const char *name, uint64_t addr,
                       uint64_t bias, struct symbol_hit *hit)
{
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(ef->data + ef->eh->e_shoff);
    for (size_t i = 0; i < ef->eh->e_shnum; i++) {
        if (sh[i].sh_type != type || sh[i].sh_entsize != sizeof(Elf64_Sym) ||
            sh[i].sh_link >= ef->eh->e_shnum)
            continue;
        const Elf64_Shdr *strs = &sh[sh[i].sh_link];
        if (sh[i].sh_offset > ef->size || sh[i].sh_size > ef->size - sh[i].sh_offset ||
            strs->sh_offset > ef->size || strs->sh_size > ef->size - strs->sh_offset)
            continue;
        const Elf64_Sym *sym = (const Elf64_Sym *)(ef->data + sh[i].sh_offset);
        size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
        const char *str = (const char *)(ef->data + strs->sh_offset);
        size_t str_size = strs->sh_size;
        for (size_t k = 1; k < n; k++) {
            unsigned t = ELF64_ST_TYPE(sym[k].st_info);
            if (sym[k].st_shndx == SHN_UNDEF || sym[k].st_name >= str_size ||
                (t != STT_OBJECT && t != STT_NOTYPE && t != STT_TLS && t != STT_COMMON))
                continue;
            const char *s = str + sym[k].st_name;
            size_t max = str_size - sym[k].st_name;
            if (strnlen(s, max) == max)
                continue;
            if (name ? strcmp(s, name) != 0
                     : (t == STT_TLS || !*s || sym[k].st_value + bias != addr))
                continue;
            hit->addr = sym[k].st_value + bias;
            hit->size = sym[k].st_size;
            hit->tls = t == STT_TLS;
            snprintf(hit->name, sizeof hit->name, "%s", s);
            return true;
        }
    }
    return false;
}

/* Finds NAME (or the symbol at ADDR when NAME is NULL) in the files
 * mapped by PID: for each file in map order, .symtab then .dynsym. */
static bool find_symbol(pid_t pid, const struct maps *maps, const char *name, uint64_t addr,
                        struct symbol_hit *hit)
{
    for (size_t m = 0; m < maps->n; m++) {
        const char *path = maps->v[m].path;
        if (!path)
            continue;
        bool seen = false; /* each file once */
        for (size_t k = 0; k < m && !seen; k++)
            seen = maps->v[k].path && strcmp(maps->v[k].path, path) == 0;
        if (seen)
            continue;
        char file[96];
        snprintf(file, sizeof file, "/proc/%d/map_files/%llx-%llx", (int)pid,
                 (unsigned long long)maps->v[m].start, (unsigned long long)maps->v[m].end);
        struct elf_file ef;
        if (!elf_open(file, &ef))
            continue;
        uint64_t bias;
        bool found = false;
        if (elf_bias(&ef, maps, path, &bias))
            found = elf_search(&ef, SHT_SYMTAB, name, addr, bias, hit) ||
                    elf_search(&ef, SHT_DYNSYM, name, addr, bias, hit);
        elf_close(&ef);
        if (found) {
            snprintf(hit->file, sizeof hit->file, "%s", path);
            return true;
        }
    }
    return false;
}

/* Resolves watch W in process PID: its address, length and name. A
 * symbol not found is an error when MUST, else false. */
static bool resolve_watch(struct watch *w, pid_t pid, bool must)
{
    struct maps maps;
    if (!read_maps(pid, &maps))
        argus_die(ARGUS_EX_USAGE, "--watch %s: no process %d (%s)", w->spec, (int)pid,
                  strerror(errno));
    struct symbol_hit hit;
    if (w->symbol) {
        bool found = find_symbol(pid, &maps, w->symbol, 0, &hit);
        if (!found && !must) {
            free_maps(&maps);
            return false;
        }
        if (!found && w->of_command)
            argus_die(ARGUS_EX_USAGE,
                      "--watch %s: no symbol '%s' in the ELF symbol tables of the files %s maps (process %d, after its dynamic linker ran)",
                      w->spec, w->symbol, opt.cmd[0], (int)pid);
        if (!found)
            argus_die(ARGUS_EX_USAGE,
                      "--watch %s: no symbol '%s' in the ELF symbol tables of process %d's mapped files",
                      w->spec, w->symbol, (int)pid);
        if (hit.tls)
            argus_die(ARGUS_EX_USAGE, "--watch %s: '%s' is thread-local; watch one thread's copy by address",
                      w->spec, w->symbol);
        if (hit.size != 1 && hit.size != 2 && hit.size != 4 && hit.size != 8)
            argus_die(ARGUS_EX_USAGE,
                      "--watch %s: '%s' in %s is %llu bytes; a watchpoint covers 1, 2, 4 or 8 (watch 0xADDR@PID of one field)",
                      w->spec, w->symbol, hit.file, (unsigned long long)hit.size);
        w->addr = hit.addr;
        w->len = (unsigned)hit.size;
        w->name = strdup(w->symbol);
    } else {
        if (find_symbol(pid, &maps, NULL, w->addr, &hit) &&
            (hit.size == 1 || hit.size == 2 || hit.size == 4 || hit.size == 8)) {
            w->len = (unsigned)hit.size;
            w->name = strdup(hit.name);
        } else {
            /* no symbol starts there: the widest aligned length */
            w->len = w->addr % 8 == 0 ? 8 : w->addr % 4 == 0 ? 4 : w->addr % 2 == 0 ? 2 : 1;
            if (asprintf(&w->name, "0x%llx", (unsigned long long)w->addr) < 0)
                abort();
        }
    }
    if (!w->name)
        abort();
    if (w->addr % w->len)
        argus_die(ARGUS_EX_USAGE, "--watch %s: 0x%llx is not aligned to its %u bytes (hardware watchpoints need it)",
                  w->spec, (unsigned long long)w->addr, w->len);
    bool mapped = false;
    for (size_t m = 0; m < maps.n && !mapped; m++)
        mapped = w->addr >= maps.v[m].start && w->addr + w->len <= maps.v[m].end;
    free_maps(&maps);
    if (!mapped)
        argus_die(ARGUS_EX_USAGE, "--watch %s: 0x%llx is not mapped in process %d", w->spec,
                  (unsigned long long)w->addr, (int)pid);
    w->pid = pid;
    return true;
}

/* ---------------------------------------------------------------------- */
/* perf: hardware watchpoints, rings, BPF value capture */

static int perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
    return (int)syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static long sys_bpf(int cmd, union bpf_attr *a)
{
    return syscall(SYS_bpf, cmd, a, sizeof *a);
}

/* An mmap'ed perf ring buffer. */
struct ring {
    int fd;
    struct perf_event_mmap_page *meta;
    uint8_t *data;
    size_t size; /* data part, a power of two */
    int cpu;
};

static bool ring_map(struct ring *r, size_t pages)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *p = mmap(NULL, (pages + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
    if (p == MAP_FAILED)
        return false;
    r->meta = p;
    r->data = (uint8_t *)p + page;
    r->size = pages * page;
    return true;
}

/* One access seen by a watchpoint. */
struct hit {
    uint64_t ts, ip, value;
    uint32_t tid, tgid;
    uint16_t cpu, watch;
    uint8_t rw;        /* from the RW breakpoint (else the W one) */
    uint8_t has_value;
    uint8_t paired;    /* 1: the second of a W+RW pair (not written); 2: the first */
    char comm[16];
};

/* Which watch and kind a breakpoint event is (drain mode's samples carry
 * the event id; inherited events report their parent's). */
struct bp_event {
    int fd;
    uint64_t id;
    uint16_t watch;
    uint8_t rw;
};

static struct {
    bool bpf;                 /* values read at the access (else at drain) */
    struct ring *rings;       /* one per CPU */
    size_t n_rings;
    struct bp_event *bps;     /* every breakpoint event */
    size_t n_bp;
    int map_fd;
    struct hit *hits;
    size_t n_hits, cap_hits;
    uint64_t lost, dropped;
} wp = {.map_fd = -1};

#define MAX_HITS (2u << 20) /* 2M accesses, 112 MB */

static void add_ring(struct ring r)
{
    wp.rings = realloc(wp.rings, (wp.n_rings + 1) * sizeof *wp.rings);
    if (!wp.rings)
        abort();
    wp.rings[wp.n_rings++] = r;
}

/* Undoes a half-made BPF setup (drain mode makes rings of its own). */
static void drop_rings(void)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < wp.n_rings; i++) {
        munmap(wp.rings[i].meta, wp.rings[i].size + page);
        close(wp.rings[i].fd);
    }
    wp.n_rings = 0;
    if (wp.map_fd >= 0)
        close(wp.map_fd);
    wp.map_fd = -1;
}

static struct hit *new_hit(void)
{
    if (wp.n_hits == wp.cap_hits) {
        if (wp.n_hits >= MAX_HITS) {
            wp.dropped++;
            return NULL;
        }
        wp.cap_hits = wp.cap_hits ? wp.cap_hits * 2 : 1024;
        wp.hits = realloc(wp.hits, wp.cap_hits * sizeof *wp.hits);
        if (!wp.hits)
            abort();
    }
    struct hit *h = &wp.hits[wp.n_hits++];
    memset(h, 0, sizeof *h);
    return h;
}

/* Drain mode: the comm of watch-hit threads, read from /proc when first
 * seen (they may be gone by the end). */
static struct thread_list hit_threads;

static const char *hit_thread_comm(uint32_t tgid, uint32_t tid)
{
    for (size_t i = hit_threads.n; i-- > 0;)
        if (hit_threads.v[i].tid == (int)tid)
            return hit_threads.v[i].comm;
    struct thread_info t = {.tid = (int)tid, .tgid = (int)tgid};
    if (!read_thread((int)tgid, (int)tid, &t))
        t.comm[0] = 0;
    if (hit_threads.n == hit_threads.cap) {
        hit_threads.cap = hit_threads.cap ? hit_threads.cap * 2 : 16;
        hit_threads.v = realloc(hit_threads.v, hit_threads.cap * sizeof *hit_threads.v);
        if (!hit_threads.v)
            abort();
    }
    hit_threads.v[hit_threads.n] = t;
    return hit_threads.v[hit_threads.n++].comm;
}

/* The record BPF writes (the program below lays it out on its stack). */
struct bpf_record {
    uint64_t ts, pid_tgid, ip, value, kind; /* kind: watch << 1 | rw */
    uint32_t cpu;
    int32_t read_err;
    char comm[16];
};

static const struct bp_event *bp_by_id(uint64_t id)
{
    for (size_t i = 0; i < wp.n_bp; i++)
        if (wp.bps[i].id == id)
            return &wp.bps[i];
    return NULL;
}

static void on_sample(const uint8_t *rec, size_t len)
{
    if (wp.bpf) {
        /* PERF_SAMPLE_RAW: u32 size, then the record */
        uint32_t raw;
        struct bpf_record b;
        if (len < 4 + sizeof b)
            return;
        memcpy(&raw, rec, 4);
        if (raw < sizeof b)
            return;
        memcpy(&b, rec + 4, sizeof b);
        if ((b.kind >> 1) >= opt.n_watches)
            return;
        struct hit *h = new_hit();
        if (!h)
            return;
        h->ts = b.ts;
        h->tgid = (uint32_t)(b.pid_tgid >> 32);
        h->tid = (uint32_t)b.pid_tgid;
        h->ip = b.ip;
        h->cpu = (uint16_t)b.cpu;
        h->watch = (uint16_t)(b.kind >> 1);
        h->rw = b.kind & 1;
        h->has_value = b.read_err == 0;
        h->value = b.value;
        memcpy(h->comm, b.comm, sizeof h->comm);
        h->comm[sizeof h->comm - 1] = 0;
        return;
    }
    /* IDENTIFIER, IP, TID (pid, tid), TIME, CPU (cpu, res): the order of
     * the sample_type bits */
    struct {
        uint64_t id, ip;
        uint32_t pid, tid;
        uint64_t time;
        uint32_t cpu, res;
    } s;
    if (len < sizeof s)
        return;
    memcpy(&s, rec, sizeof s);
    const struct bp_event *bp = bp_by_id(s.id);
    if (!bp)
        return;
    struct hit *h = new_hit();
    if (!h)
        return;
    const struct watch *w = &opt.watches[bp->watch];
    h->ts = s.time;
    h->tgid = s.pid;
    h->tid = s.tid;
    h->ip = s.ip;
    h->cpu = (uint16_t)s.cpu;
    h->watch = bp->watch;
    h->rw = bp->rw;
    /* the value now, at drain time: maybe later than the access */
    uint64_t v = 0;
    struct iovec local = {&v, w->len}, remote = {(void *)(uintptr_t)w->addr, w->len};
    h->has_value = process_vm_readv((pid_t)s.pid, &local, 1, &remote, 1, 0) == (ssize_t)w->len;
    h->value = v;
    /* comm: at most 15 characters, like the kernel's */
    const char *comm = hit_thread_comm(h->tgid, h->tid);
    memcpy(h->comm, comm, strnlen(comm, sizeof h->comm - 1));
}

static void drain_ring(struct ring *r)
{
    uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = r->meta->data_tail;
    uint8_t buf[512];
    while (tail < head) {
        struct perf_event_header eh;
        size_t off = (size_t)(tail & (r->size - 1));
        for (size_t i = 0; i < sizeof eh; i++)
            ((uint8_t *)&eh)[i] = r->data[(off + i) & (r->size - 1)];
        if (eh.size < sizeof eh || eh.size > head - tail)
            break;
        size_t len = eh.size - sizeof eh;
        if (len <= sizeof buf) {
            for (size_t i = 0; i < len; i++)
                buf[i] = r->data[(off + sizeof eh + i) & (r->size - 1)];
            if (eh.type == PERF_RECORD_SAMPLE)
                on_sample(buf, len);
            else if (eh.type == PERF_RECORD_LOST && len >= 16) {
                uint64_t lost;
                memcpy(&lost, buf + 8, 8);
                wp.lost += lost;
            }
        }
        tail += eh.size;
    }
    __atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
}

static void drain_all(void)
{
    for (size_t i = 0; i < wp.n_rings; i++)
        drain_ring(&wp.rings[i]);
}

/* Where struct bpf_perf_event_data's regs hold the ip. */
#if defined(__x86_64__)
#define PT_REGS_IP_OFFSET (16 * 8) /* pt_regs: 16 registers, then ip */
#elif defined(__aarch64__)
#define PT_REGS_IP_OFFSET (32 * 8) /* user_pt_regs: regs[31], sp, then pc */
#else
#error "argus-record: the ip offset in pt_regs of this architecture"
#endif

#define INSN(op, dst, src, off_, imm_) \
    ((struct bpf_insn){.code = (op), .dst_reg = (dst), .src_reg = (src), .off = (off_), .imm = (imm_)})

/* Loads the program that runs at each hit of watch W's breakpoint (RW or
 * W): it reads the flag right after the access (x86 data breakpoints trap
 * after the instruction) and sends a struct bpf_record to the perf ring
 * of its CPU. Returns the fd, or -1 with errno. */
static int load_program(const struct watch *w, unsigned index, bool rw, char *log, size_t log_size)
{
    uint64_t kind = (uint64_t)index << 1 | rw;
    /* struct bpf_record at r10 - 64: ts -64, pid_tgid -56, ip -48,
     * value -40, kind -32, cpu -24, read_err -20, comm -16 */
    struct bpf_insn prog[] = {
        INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_6, BPF_REG_1, 0, 0),   /* r6 = ctx */
        INSN(BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_7, BPF_REG_6, PT_REGS_IP_OFFSET, 0),
        INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_current_pid_tgid),
        INSN(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_10, BPF_REG_0, -56, 0),
        INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ktime_get_ns),       /* = mono */
        INSN(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_10, BPF_REG_0, -64, 0),
        INSN(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_10, BPF_REG_7, -48, 0),
        INSN(BPF_ST | BPF_MEM | BPF_DW, BPF_REG_10, 0, -40, 0),
        INSN(BPF_ST | BPF_MEM | BPF_DW, BPF_REG_10, 0, -32, (int32_t)kind),
        INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_smp_processor_id),
        INSN(BPF_STX | BPF_MEM | BPF_W, BPF_REG_10, BPF_REG_0, -24, 0),
        INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_10, 0, 0),
        INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_1, 0, 0, -16),
        INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, 16),
        INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_current_comm),
        INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_10, 0, 0),
        INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_1, 0, 0, -40),
        INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, (int32_t)w->len),
        INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_3, 0, 0, (int32_t)(uint32_t)w->addr),
        INSN(0, 0, 0, 0, (int32_t)(uint32_t)(w->addr >> 32)),
        INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_probe_read_user),
        INSN(BPF_STX | BPF_MEM | BPF_W, BPF_REG_10, BPF_REG_0, -20, 0),
        INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_6, 0, 0),
        INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_2, BPF_PSEUDO_MAP_FD, 0, wp.map_fd),
        INSN(0, 0, 0, 0, 0),
        INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_3, 0, 0, (int32_t)(uint32_t)BPF_F_CURRENT_CPU),
        INSN(0, 0, 0, 0, 0),
        INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_4, BPF_REG_10, 0, 0),
        INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_4, 0, 0, -64),
        INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_5, 0, 0, (int32_t)sizeof(struct bpf_record)),
        INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_perf_event_output),
        /* 0: the breakpoint's own sample is not written anywhere */
        INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
        INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
    };
    union bpf_attr a;
    memset(&a, 0, sizeof a);
    a.prog_type = BPF_PROG_TYPE_PERF_EVENT;
    a.insns = (uint64_t)(uintptr_t)prog;
    a.insn_cnt = sizeof prog / sizeof *prog;
    /* the helpers probe_read_user and perf_event_output are for
     * GPL-compatible programs only; this one is ours, dual-licensed */
    a.license = (uint64_t)(uintptr_t)"Dual MIT/GPL";
    a.log_buf = (uint64_t)(uintptr_t)log;
    a.log_size = (uint32_t)log_size;
    a.log_level = log ? 1 : 0;
    if (log)
        log[0] = 0;
    return (int)sys_bpf(BPF_PROG_LOAD, &a);
}

static int cpu_count(const char *file)
{
    char buf[256];
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    /* "0-3,5": the highest CPU + 1 */
    int max = -1;
    for (char *p = buf; *p;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p)
            break;
        if (v > max)
            max = (int)v;
        p = end;
        while (*p == '-' || *p == ',' || *p == '\n')
            p++;
    }
    return max + 1;
}

static bool cpu_online(int cpu)
{
    char buf[256];
    int fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return true;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return true;
    buf[n] = 0;
    for (char *p = buf; *p;) {
        char *end;
        long lo = strtol(p, &end, 10), hi = lo;
        if (end == p)
            break;
        p = end;
        if (*p == '-') {
            hi = strtol(p + 1, &end, 10);
            p = end;
        }
        if (cpu >= lo && cpu <= hi)
            return true;
        while (*p == ',' || *p == '\n')
            p++;
    }
    return false;
}

/* Sets up exact values: a BPF perf-event-array map with a bpf-output
 * event and its ring on each CPU. False (with a reason) when the kernel
 * refuses; then values are read at drain time. */
static bool setup_bpf(char *why, size_t why_size)
{
    const char *mode = getenv("ARGUS_RECORD_WATCH_VALUES");
    if (mode && strcmp(mode, "drain") == 0) {
        snprintf(why, why_size, "ARGUS_RECORD_WATCH_VALUES=drain");
        return false;
    }
    int ncpu = cpu_count("/sys/devices/system/cpu/possible");
    if (ncpu <= 0) {
        snprintf(why, why_size, "no CPU count in /sys/devices/system/cpu/possible");
        return false;
    }
    union bpf_attr a;
    memset(&a, 0, sizeof a);
    a.map_type = BPF_MAP_TYPE_PERF_EVENT_ARRAY;
    a.key_size = 4;
    a.value_size = 4;
    a.max_entries = (uint32_t)ncpu;
    a.map_flags = 0;
    wp.map_fd = (int)sys_bpf(BPF_MAP_CREATE, &a);
    if (wp.map_fd < 0) {
        snprintf(why, why_size, "BPF map: %s", strerror(errno));
        return false;
    }
    /* the program must load before rings are worth making */
    struct watch probe = {.addr = 0x1000, .len = 8};
    int fd = load_program(&probe, 0, false, NULL, 0);
    if (fd < 0) {
        snprintf(why, why_size, "BPF program: %s", strerror(errno));
        close(wp.map_fd);
        wp.map_fd = -1;
        return false;
    }
    close(fd);
    for (int cpu = 0; cpu < ncpu; cpu++) {
        if (!cpu_online(cpu))
            continue;
        struct perf_event_attr pa;
        memset(&pa, 0, sizeof pa);
        pa.size = sizeof pa;
        pa.type = PERF_TYPE_SOFTWARE;
        pa.config = PERF_COUNT_SW_BPF_OUTPUT;
        pa.sample_type = PERF_SAMPLE_RAW;
        pa.sample_period = 1;
        pa.watermark = 1;
        pa.wakeup_watermark = 64 * 1024; /* a quarter of the ring */
        struct ring r = {.fd = perf_open(&pa, -1, cpu), .cpu = cpu};
        if (r.fd < 0 || !ring_map(&r, 64)) {
            snprintf(why, why_size, "bpf-output event on CPU %d: %s", cpu, strerror(errno));
            if (r.fd >= 0)
                close(r.fd);
            drop_rings();
            return false;
        }
        uint32_t key = (uint32_t)cpu, value = (uint32_t)r.fd;
        union bpf_attr u;
        memset(&u, 0, sizeof u);
        u.map_fd = (uint32_t)wp.map_fd;
        u.key = (uint64_t)(uintptr_t)&key;
        u.value = (uint64_t)(uintptr_t)&value;
        u.flags = BPF_ANY;
        add_ring(r);
        if (sys_bpf(BPF_MAP_UPDATE_ELEM, &u) != 0) {
            snprintf(why, why_size, "BPF map update: %s", strerror(errno));
            drop_rings();
            return false;
        }
    }
    return true;
}

/* Drain mode's ring of CPU, made by the first event opened there; the
 * events that come after write into it (PERF_EVENT_IOC_SET_OUTPUT). */
static const struct ring *cpu_ring(int cpu)
{
    for (size_t i = 0; i < wp.n_rings; i++)
        if (wp.rings[i].cpu == cpu)
            return &wp.rings[i];
    return NULL;
}

static void add_bp(struct bp_event bp)
{
    wp.bps = realloc(wp.bps, (wp.n_bp + 1) * sizeof *wp.bps);
    if (!wp.bps)
        abort();
    wp.bps[wp.n_bp++] = bp;
}

/* Opens the W and RW breakpoints of watch INDEX on thread TID (inherited
 * by the threads and children it creates later). With BPF: one event per
 * kind for all CPUs, each with its program. Without: the kernel maps no
 * ring of an inherited event for all CPUs, so one event per kind and CPU,
 * all writing into one ring per CPU. */
static void open_breakpoints(unsigned index, pid_t tid, bool enabled)
{
    const struct watch *w = &opt.watches[index];
    int ncpu = wp.bpf ? 1 : cpu_count("/sys/devices/system/cpu/possible");
    for (int rw = 0; rw < 2; rw++) {
        for (int c = 0; c < ncpu; c++) {
            int cpu = wp.bpf ? -1 : c;
            if (cpu >= 0 && !cpu_online(cpu))
                continue;
            struct perf_event_attr a;
            memset(&a, 0, sizeof a);
            a.size = sizeof a;
            a.type = PERF_TYPE_BREAKPOINT;
            a.bp_type = rw ? HW_BREAKPOINT_RW : HW_BREAKPOINT_W;
            a.bp_addr = w->addr;
            a.bp_len = w->len;
            a.sample_period = 1;
            a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                            PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
            a.use_clockid = 1;
            a.clockid = CLOCK_MONOTONIC;
            a.inherit = 1;
            a.exclude_kernel = 1; /* the program's own accesses, not copy_from_user */
            a.exclude_hv = 1;
            a.disabled = !enabled;
            a.wakeup_events = 1; /* drain mode: drain soon, the value is read then */
            int fd = perf_open(&a, tid, cpu);
            if (fd < 0) {
                if (errno == ESRCH)
                    return; /* the thread ended meanwhile */
                if (errno == ENOSPC)
                    argus_die(EX_UNAVAILABLE,
                              "--watch %s: no free hardware breakpoint in thread %d (x86 has 4 debug registers; each watch takes 2)",
                              w->spec, (int)tid);
                argus_die(EX_UNAVAILABLE, "--watch %s: perf_event_open of a breakpoint on thread %d: %s",
                          w->spec, (int)tid, strerror(errno));
            }
            struct bp_event bp = {.fd = fd, .watch = (uint16_t)index, .rw = (uint8_t)rw};
            if (ioctl(fd, PERF_EVENT_IOC_ID, &bp.id) != 0)
                argus_die(EX_UNAVAILABLE, "--watch %s: PERF_EVENT_IOC_ID: %s", w->spec, strerror(errno));
            add_bp(bp);
            if (wp.bpf) {
                /* one program per watch and kind, for all its threads */
                int *prog = &opt.watches[index].prog[rw];
                char log[4096];
                if (*prog < 0 && (*prog = load_program(w, index, rw, log, sizeof log)) < 0)
                    argus_die(EX_UNAVAILABLE, "--watch %s: BPF program rejected (%s): %s", w->spec,
                              strerror(errno), log);
                if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, *prog) != 0)
                    argus_die(EX_UNAVAILABLE, "--watch %s: cannot attach BPF to the breakpoint (%s)",
                              w->spec, strerror(errno));
                continue;
            }
            const struct ring *ring = cpu_ring(cpu);
            if (ring) {
                if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring->fd) != 0)
                    argus_die(EX_UNAVAILABLE, "--watch %s: PERF_EVENT_IOC_SET_OUTPUT: %s", w->spec,
                              strerror(errno));
                continue;
            }
            struct ring r = {.fd = fd, .cpu = cpu};
            if (!ring_map(&r, 16))
                argus_die(EX_UNAVAILABLE, "--watch %s: cannot map the perf ring (%s)", w->spec,
                          strerror(errno));
            add_ring(r);
        }
    }
}

/* A watch on a running process: every thread it has now (each with its
 * own events; the ones created later inherit them). */
static void open_process_watch(unsigned index)
{
    pid_t pid = opt.watches[index].pid;
    int *done = NULL;
    size_t n_done = 0;
    for (bool more = true; more;) {
        more = false; /* new threads appear while we open: scan again */
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
        DIR *d = opendir(path);
        if (!d)
            argus_die(ARGUS_EX_USAGE, "--watch %s: no process %d", opt.watches[index].spec, (int)pid);
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!isdigit((unsigned char)e->d_name[0]))
                continue;
            int tid = atoi(e->d_name);
            bool seen = false;
            for (size_t i = 0; i < n_done && !seen; i++)
                seen = done[i] == tid;
            if (seen)
                continue;
            open_breakpoints(index, tid, false);
            done = realloc(done, (n_done + 1) * sizeof *done);
            if (!done)
                abort();
            done[n_done++] = tid;
            more = true;
        }
        closedir(d);
    }
    free(done);
}

static void enable_breakpoints(void)
{
    for (size_t i = 0; i < wp.n_bp; i++)
        ioctl(wp.bps[i].fd, PERF_EVENT_IOC_ENABLE, 0);
}

static void disable_breakpoints(void)
{
    for (size_t i = 0; i < wp.n_bp; i++)
        ioctl(wp.bps[i].fd, PERF_EVENT_IOC_DISABLE, 0);
}

static int by_time(const void *a, const void *b)
{
    const struct hit *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    /* the same instant: the W hit first, so that it is the one kept */
    return (int)x->rw - (int)y->rw;
}

/* Sorts the hits and pairs them: a write trips both the W and the RW
 * breakpoint of its watch, one right after the other in the same thread
 * at the same ip; the pair is one write. Any other RW hit is a read. */
static void pair_hits(void)
{
    if (wp.n_hits)
        qsort(wp.hits, wp.n_hits, sizeof *wp.hits, by_time);
    for (size_t i = 0; i < wp.n_hits; i++) {
        struct hit *h = &wp.hits[i];
        /* the previous hit of the same watch and thread */
        for (size_t j = i; j-- > 0 && i - j <= 256;) {
            struct hit *p = &wp.hits[j];
            if (p->watch != h->watch || p->tid != h->tid)
                continue;
            if (!p->paired && p->rw != h->rw && p->ip == h->ip) {
                /* keep the W hit (it says write), at the earlier time */
                struct hit *keep = p->rw ? h : p, *drop = p->rw ? p : h;
                uint64_t ts = p->ts;
                if (keep == h) {
                    *p = *h; /* the pair takes the earlier slot */
                    keep = p;
                    drop = h;
                }
                keep->ts = ts;
                drop->paired = 1;
                keep->paired = 2; /* matched: cannot pair again */
            }
            break;
        }
    }
}

/* ---------------------------------------------------------------------- */
/* Writing the trace */

/* The output: a file descriptor and a buffer of our own, so that a write
 * blocked on a full pipe can be interrupted (a second stop signal while
 * writing abandons the output). */
static int out_fd = STDOUT_FILENO;
static char out_buf[1 << 16];
static size_t out_len;
static uint64_t events_out, hits_out;

static const char *output_name(void)
{
    return opt.output && strcmp(opt.output, "-") != 0 ? opt.output : "stdout";
}

/* Checks for SIGINT/SIGTERM/SIGHUP arriving while writing: the second
 * stop request abandons the output. */
static void check_abort(void)
{
    if (stop_signals >= 2) {
        restore();
        argus_die(128 + last_signal, "interrupted while writing: %s is incomplete", output_name());
    }
}

static void out_flush(void)
{
    for (size_t done = 0; done < out_len;) {
        ssize_t w = write(out_fd, out_buf + done, out_len - done);
        if (w > 0) {
            done += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR) {
            check_abort();
            continue;
        }
        if (w < 0 && errno == EPIPE) {
            /* the reader is gone: end quietly, as on SIGPIPE, restored */
            restore();
            signal(SIGPIPE, SIG_DFL);
            raise(SIGPIPE);
        }
        argus_die(ARGUS_EX_IOERR, "%s: write error (%s)", output_name(),
                  strerror(w < 0 ? errno : EIO));
    }
    out_len = 0;
}

static void out_put(const char *s, size_t n)
{
    while (n) {
        if (out_len == sizeof out_buf)
            out_flush();
        size_t k = sizeof out_buf - out_len < n ? sizeof out_buf - out_len : n;
        memcpy(out_buf + out_len, s, k);
        out_len += k;
        s += k;
        n -= k;
    }
}

static void out_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out_printf(const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        abort();
    if ((size_t)n < sizeof small) {
        out_put(small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big)
        abort();
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    out_put(big, (size_t)n);
    free(big);
}

/* The comm of a hit's thread: at the access (BPF), when drained, or from
 * /proc at the start or the end. */
static const char *thread_comm(const struct hit *h, const struct thread_list *a,
                               const struct thread_list *b)
{
    if (h->comm[0])
        return h->comm;
    int tid = (int)h->tid;
    const struct thread_info *t = find_thread(a, tid);
    if (!t)
        t = find_thread(b, tid);
    return t ? t->comm : "<...>";
}

static size_t next_hit;

/* Writes the watch lines before time LIMIT (ns; UINT64_MAX: all). */
static void write_hits(uint64_t limit, const struct thread_list *start, const struct thread_list *end)
{
    for (; next_hit < wp.n_hits && wp.hits[next_hit].ts < limit; next_hit++) {
        const struct hit *h = &wp.hits[next_hit];
        if (h->paired == 1)
            continue;
        const struct watch *w = &opt.watches[h->watch];
        bool write = !h->rw || h->paired == 2;
        /* the kernel's own layout: "%16s-%-7d (%7d) [%03d] " */
        out_printf("%16s-%-7u (%7u) [%03u] .... %5llu.%09llu: argus_flag_%s: addr=0x%llx",
                   thread_comm(h, start, end), h->tid, h->tgid, h->cpu,
                   (unsigned long long)(h->ts / 1000000000u),
                   (unsigned long long)(h->ts % 1000000000u), write ? "write" : "read",
                   (unsigned long long)w->addr);
        if (h->has_value) {
            uint64_t v = h->value;
            if (w->len < 8)
                v &= (UINT64_C(1) << (8 * w->len)) - 1;
            out_printf(" value=0x%llx", (unsigned long long)v);
        }
        out_printf(" name=%s\n", w->name);
        hits_out++;
    }
}

/* The timestamp of an event line "COMM-TID [(TGID)] [CPU] [FLAGS] S.F: ..."
 * in ns; false for other lines. COMM may hold " [", so each " [" is tried. */
static bool line_time(const char *line, uint64_t *ns)
{
    for (const char *p = strstr(line, " ["); p; p = strstr(p + 1, " [")) {
        const char *q = p + 2;
        if (!isdigit((unsigned char)*q))
            continue;
        while (isdigit((unsigned char)*q))
            q++;
        if (*q++ != ']')
            continue;
        while (*q == ' ')
            q++;
        /* FLAGS, when the column is there: a word not starting with a digit */
        if (*q && !isdigit((unsigned char)*q)) {
            while (*q && *q != ' ')
                q++;
            while (*q == ' ')
                q++;
        }
        uint64_t sec = 0, frac = 0;
        int digits = 0;
        if (!isdigit((unsigned char)*q))
            continue;
        while (isdigit((unsigned char)*q))
            sec = sec * 10 + (uint64_t)(*q++ - '0');
        if (*q++ != '.')
            continue;
        while (isdigit((unsigned char)*q) && digits < 9) {
            frac = frac * 10 + (uint64_t)(*q++ - '0');
            digits++;
        }
        if (*q != ':' || digits < 1)
            continue;
        for (; digits < 9; digits++)
            frac *= 10;
        *ns = sec * 1000000000u + frac;
        return true;
    }
    return false;
}


static uint64_t overwritten; /* events the ring buffer dropped */
static unsigned n_threads_out;

static void write_threads(const struct thread_list *start, const struct thread_list *end)
{
    /* one line per tid: the start's, then the threads only the end has */
    size_t i = 0, j = 0;
    while (i < start->n || j < end->n) {
        const struct thread_info *t;
        if (j >= end->n || (i < start->n && start->v[i].tid <= end->v[j].tid)) {
            t = &start->v[i];
            if (j < end->n && end->v[j].tid == t->tid)
                j++;
            i++;
        } else {
            t = &end->v[j++];
        }
        out_printf("# argus-thread: tid=%d tgid=%d kernel=%d comm=%s\n", t->tid, t->tgid,
                   t->kernel ? 1 : 0, t->comm);
        n_threads_out++;
    }
}

static void write_argus_header(const struct thread_list *start, const struct thread_list *end)
{
    out_printf("# recorded by argus-record %s: instance %s, trace_clock mono, %llu MB per CPU, overwrite, %zu events enabled\n",
               ARGUS_VERSION, opt.instance_name, (unsigned long long)opt.buffer_mb, n_enabled);
    for (size_t i = 0; i < opt.n_watches; i++) {
        const struct watch *w = &opt.watches[i];
        out_printf("# watch: name=%s addr=0x%llx len=%u pid=%d values=%s\n", w->name,
                   (unsigned long long)w->addr, w->len, (int)w->pid,
                   wp.bpf ? "at-access" : "at-drain");
    }
    write_threads(start, end);
}

static void write_output(const struct thread_list *start, const struct thread_list *end)
{
    int fd = openat(st.root_fd, ipath("trace"), O_RDONLY | O_CLOEXEC);
    FILE *trace = st.trace = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!trace)
        argus_die(ARGUS_EX_IOERR, "%s/%s/trace: %s", st.root, st.instance, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    bool header_done = false;
    while ((len = getline(&line, &cap, trace)) > 0) {
        check_abort();
        if (!header_done && line[0] != '#') {
            /* argus's lines after the kernel's header, before any event */
            write_argus_header(start, end);
            header_done = true;
        }
        uint64_t ns;
        if (header_done && line_time(line, &ns)) {
            write_hits(ns, start, end);
            events_out++;
        } else if (!header_done) {
            unsigned long long in_buffer, written;
            const char *e = strstr(line, "entries-in-buffer/entries-written:");
            if (e && sscanf(e + 34, " %llu/%llu", &in_buffer, &written) == 2 && written > in_buffer)
                overwritten = written - in_buffer;
        }
        out_put(line, (size_t)len);
    }
    bool read_error = ferror(trace);
    int read_errno = errno;
    free(line);
    fclose(trace);
    st.trace = NULL;
    if (read_error)
        argus_die(ARGUS_EX_IOERR, "%s/%s/trace: read error (%s)", st.root, st.instance,
                  strerror(read_errno));
    if (!header_done)
        write_argus_header(start, end); /* no event at all */
    write_hits(UINT64_MAX, start, end);
    out_flush();
}

/* ---------------------------------------------------------------------- */
/* The command */

static int go_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};

static void start_child(bool traced, const sigset_t *old_mask)
{
    if (pipe2(go_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0)
        argus_die(EX_UNAVAILABLE, "pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        argus_die(EX_UNAVAILABLE, "fork: %s", strerror(errno));
    if (pid == 0) {
        /* the command gets the dispositions the recorder's caller gave */
        signal(SIGPIPE, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        signal(SIGCHLD, SIG_DFL);
        sigprocmask(SIG_SETMASK, old_mask, NULL);
        close(go_pipe[1]);
        close(err_pipe[0]);
        if (traced && ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0) {
            int e = errno;
            (void)!write(err_pipe[1], &e, sizeof e);
            _exit(EX_NOTFOUND);
        }
        /* wait until tracing is on: EOF or a byte */
        char c;
        while (read(go_pipe[0], &c, 1) < 0 && errno == EINTR)
            ;
        execvp(opt.cmd[0], opt.cmd);
        int e = errno;
        (void)!write(err_pipe[1], &e, sizeof e);
        _exit(e == ENOENT ? EX_NOTFOUND : EX_NOEXEC);
    }
    st.child = pid;
    close(go_pipe[0]);
    close(err_pipe[1]);
}

/* Waits for the traced child to stop with SIGTRAP, passing other signals
 * on; false when it ended. */
static bool wait_trap(pid_t pid)
{
    for (;;) {
        int status;
        if (waitpid(pid, &status, 0) < 0) {
            if (errno == EINTR)
                continue;
            argus_die(EX_UNAVAILABLE, "waitpid: %s", strerror(errno));
        }
        if (WIFEXITED(status) || WIFSIGNALED(status)) {
            st.child_reaped = true;
            st.child_status = status;
            return false;
        }
        if (WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP)
            return true;
        ptrace(PTRACE_CONT, pid, NULL, (void *)(uintptr_t)WSTOPSIG(status));
    }
}

/* Runs the stopped child to its program's entry point (AT_ENTRY), where
 * the dynamic linker has mapped its libraries: an int3 there, then the
 * original instruction back. */
static void run_to_entry(pid_t pid)
{
#if defined(__x86_64__)
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/auxv", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    uint64_t auxv[2 * 64], entry = 0;
    ssize_t n = fd >= 0 ? read(fd, auxv, sizeof auxv) : -1;
    if (fd >= 0)
        close(fd);
    for (ssize_t i = 0; i + 1 < n / 8; i += 2)
        if (auxv[i] == AT_ENTRY)
            entry = auxv[i + 1];
    if (!entry)
        argus_die(EX_UNAVAILABLE, "%s: no entry point in %s", opt.cmd[0], path);
    errno = 0;
    long word = ptrace(PTRACE_PEEKTEXT, pid, (void *)(uintptr_t)entry, NULL);
    if (errno)
        argus_die(EX_UNAVAILABLE, "ptrace peek at %s's entry: %s", opt.cmd[0], strerror(errno));
    long trap = (long)(((unsigned long)word & ~0xfful) | 0xcc);
    if (ptrace(PTRACE_POKETEXT, pid, (void *)(uintptr_t)entry, (void *)trap) != 0 ||
        ptrace(PTRACE_CONT, pid, NULL, NULL) != 0)
        argus_die(EX_UNAVAILABLE, "ptrace to %s's entry: %s", opt.cmd[0], strerror(errno));
    if (!wait_trap(pid))
        argus_die(EX_UNAVAILABLE, "%s ended before its entry point", opt.cmd[0]);
    struct user_regs_struct regs;
    if (ptrace(PTRACE_POKETEXT, pid, (void *)(uintptr_t)entry, (void *)word) != 0 ||
        ptrace(PTRACE_GETREGS, pid, NULL, &regs) != 0)
        argus_die(EX_UNAVAILABLE, "ptrace at %s's entry: %s", opt.cmd[0], strerror(errno));
    regs.rip = entry; /* the int3 ran: run the original instruction */
    if (ptrace(PTRACE_SETREGS, pid, NULL, &regs) != 0)
        argus_die(EX_UNAVAILABLE, "ptrace at %s's entry: %s", opt.cmd[0], strerror(errno));
#else
    (void)pid;
    argus_die(ARGUS_EX_USAGE, "--watch: a symbol of a shared library of CMD needs x86-64 here; use SYMBOL@PID");
#endif
}

/* Lets the command run; with TRACED, stops it right after its exec to put
 * the watchpoints in, then lets it go. */
static void release_child(bool traced)
{
    close(go_pipe[1]);
    int e = 0;
    ssize_t n;
    while ((n = read(err_pipe[0], &e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(err_pipe[0]);
    if (n == (ssize_t)sizeof e) {
        /* exec failed: the child exits by itself */
        waitpid(st.child, &st.child_status, 0);
        st.child_reaped = true;
        argus_die(e == ENOENT ? EX_NOTFOUND : EX_NOEXEC, "%s: %s", opt.cmd[0], strerror(e));
    }
    if (!traced) {
        st.child_released = true;
        return;
    }
    /* stopped right after the exec */
    if (!wait_trap(st.child))
        argus_die(EX_UNAVAILABLE, "%s ended before its watchpoints were set", opt.cmd[0]);
    /* right after the exec only the program and the dynamic linker are
     * mapped: a symbol of a shared library needs the run to its entry */
    bool all_found = true;
    for (size_t i = 0; i < opt.n_watches; i++)
        if (opt.watches[i].of_command)
            all_found &= resolve_watch(&opt.watches[i], st.child, false);
    if (!all_found) {
        run_to_entry(st.child);
        for (size_t i = 0; i < opt.n_watches; i++)
            if (opt.watches[i].of_command)
                resolve_watch(&opt.watches[i], st.child, true);
    }
    for (size_t i = 0; i < opt.n_watches; i++)
        if (opt.watches[i].of_command)
            open_breakpoints((unsigned)i, st.child, true);
    if (ptrace(PTRACE_DETACH, st.child, NULL, NULL) != 0)
        argus_die(EX_UNAVAILABLE, "ptrace detach of %d: %s", (int)st.child, strerror(errno));
    st.child_released = true;
}

/* ---------------------------------------------------------------------- */

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
        argus_die(EX_NOPERM, "needs root to use tracefs and perf (run it with sudo)");

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
        argus_die(EX_UNAVAILABLE, "signalfd: %s", strerror(errno));
    signal(SIGPIPE, SIG_IGN);

    if (opt.output && strcmp(opt.output, "-") != 0) {
        out_fd = open(opt.output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (out_fd < 0)
            argus_die(EX_CANTCREAT, "%s: cannot create (%s)", opt.output, strerror(errno));
    }

    st.owner = getpid();
    atexit(restore);

    find_tracefs();
    setup_instance();

    bool cmd_watches = false;
    if (opt.n_watches) {
        char why[256];
        wp.bpf = setup_bpf(why, sizeof why);
        if (!wp.bpf && !getenv("ARGUS_RECORD_WATCH_VALUES"))
            warn_unless_quiet("watch values are read when drained, not at the access (%s)", why);
        for (size_t i = 0; i < opt.n_watches; i++) {
            if (opt.watches[i].of_command) {
                cmd_watches = true;
                continue;
            }
            resolve_watch(&opt.watches[i], opt.watches[i].pid, true);
            open_process_watch((unsigned)i);
        }
    }
    if (opt.cmd)
        start_child(cmd_watches, &old_mask);

    int err = tfs_write(ipath("tracing_on"), "1");
    if (err)
        argus_die(EX_UNAVAILABLE, "%s/%s/tracing_on: %s", st.root, st.instance, strerror(err));
    enable_breakpoints();
    double started = now_mono();
    struct thread_list at_start = {0};
    scan_threads(&at_start);
    if (opt.cmd)
        release_child(cmd_watches);

    /* Record until the command ends, a stop signal, or --duration. */
    const char *why_stopped = "the command's end";
    struct pollfd *pfds = calloc(wp.n_rings + 1, sizeof *pfds);
    bool *hung_up = calloc(wp.n_rings + 1, sizeof *hung_up);
    if (!pfds || !hung_up)
        abort();
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
        double wait = wp.n_rings ? 0.1 : -1;
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
        for (size_t i = 0; i < wp.n_rings; i++)
            if (!hung_up[i])
                pfds[n++] = (struct pollfd){.fd = wp.rings[i].fd, .events = POLLIN};
        if (ppoll(pfds, n, tsp, NULL) < 0 && errno != EINTR)
            argus_die(EX_UNAVAILABLE, "ppoll: %s", strerror(errno));
        for (size_t i = 0, k = 1; i < wp.n_rings; i++)
            if (!hung_up[i] && (pfds[k++].revents & (POLLHUP | POLLERR)))
                hung_up[i] = true;
        drain_all();
    }
    free(pfds);
    free(hung_up);

    /* Stop, then write what the buffer holds. */
    tfs_write(ipath("tracing_on"), "0");
    disable_breakpoints();
    drain_all();
    if (opt.cmd && !st.child_reaped)
        kill(st.child, stop_signals ? last_signal : SIGTERM);
    struct thread_list at_end = {0};
    scan_threads(&at_end);
    if (at_start.n)
        qsort(at_start.v, at_start.n, sizeof *at_start.v, by_tid);
    if (at_end.n)
        qsort(at_end.v, at_end.n, sizeof *at_end.v, by_tid);
    pair_hits();
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
    sigprocmask(SIG_BLOCK, &stop_set, NULL);
    restore();
    free(at_start.v);
    free(at_end.v);

    if (!opt.quiet) {
        char hits[128] = "";
        if (opt.n_watches)
            snprintf(hits, sizeof hits, ", %llu watch hits (%llu lost)",
                     (unsigned long long)hits_out, (unsigned long long)(wp.lost + wp.dropped));
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
