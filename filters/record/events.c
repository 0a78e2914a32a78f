/* argus-record: the tracefs events it enables in its instance. */
#include "record.h"

#include <string.h>

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
 * of reads and writes, sleeps, waits, pipes and sockets), and those that
 * close an fd, so that the decoder forgets what an fd was (DEC-FD). */
static const char *const syscall_names[] = {
    "futex", "read", "write", "readv", "writev", "pread64", "pwrite64",
    "recvfrom", "recvmsg", "recvmmsg", "sendto", "sendmsg", "sendmmsg",
    "poll", "ppoll", "select", "pselect6", "epoll_wait", "epoll_pwait",
    "epoll_pwait2", "nanosleep", "clock_nanosleep", "wait4", "waitid",
    "accept", "accept4", "connect", "pipe", "pipe2", "socketpair",
    "fcntl", "flock", "sched_yield", "close", "close_range", "dup2", "dup3",
};

/* Enables event PATH ("SYS/NAME" or "SYS") in the instance; 0 or errno. */
static int enable_event(const char *path)
{
    return tfs_write(ipath("events/%s/enable", path), "1");
}

void enable_events(void)
{
    int err;
    /* the events the decoder maps: missing ones are reported together */
    char missing[4096] = "";
    size_t n_missing = 0;
    for (size_t i = 0; i < sizeof base_events / sizeof *base_events; i++) {
        err = enable_event(base_events[i]);
        if (!err) {
            rec.tfs.n_enabled++;
            continue;
        }
        if (i == 0)
            argus_die(ARGUS_EX_UNAVAILABLE,
                      "%s/%s/events/%s: cannot enable it (%s); it is the one event argus needs",
                      rec.tfs.root, rec.tfs.instance, base_events[i], strerror(err));
        n_missing++;
        size_t len = strlen(missing);
        snprintf(missing + len, sizeof missing - len, "%s%s", len ? ", " : "",
                 strchr(base_events[i], '/') + 1);
    }
    if (rec.opt.all_syscalls) {
        if ((err = enable_event("syscalls")))
            argus_die(ARGUS_EX_UNAVAILABLE, "%s/%s/events/syscalls: cannot enable (%s)",
                      rec.tfs.root, rec.tfs.instance, strerror(err));
        rec.tfs.n_enabled++;
    } else {
        for (size_t i = 0; i < sizeof syscall_names / sizeof *syscall_names; i++) {
            for (int exit_side = 0; exit_side < 2; exit_side++) {
                char ev[96];
                snprintf(ev, sizeof ev, "syscalls/sys_%s_%s", exit_side ? "exit" : "enter",
                         syscall_names[i]);
                if (!tfs_exists(ipath("events/%s", ev)))
                    continue; /* this architecture has no such syscall */
                if (enable_event(ev) == 0) {
                    rec.tfs.n_enabled++;
                    continue;
                }
                n_missing++;
                size_t len = strlen(missing);
                snprintf(missing + len, sizeof missing - len, "%s%s", len ? ", " : "", ev + 9);
            }
        }
    }
    if (n_missing)
        argus_note("%zu event%s missing on this kernel (not recorded): %s", n_missing,
                          n_missing == 1 ? "" : "s", missing);
    for (size_t i = 0; i < rec.opt.n_events; i++) {
        const char *ev = rec.opt.events[i];
        if (!tfs_exists(ipath("events/%s", ev)))
            argus_die(ARGUS_EX_USAGE, "--event %s: no such event in %s/events",
                      rec.opt.event_specs[i], rec.tfs.root);
        if ((err = enable_event(ev)))
            argus_die(ARGUS_EX_UNAVAILABLE, "%s/%s/events/%s: cannot enable it (%s)", rec.tfs.root,
                      rec.tfs.instance, ev, strerror(err));
        rec.tfs.n_enabled++;
    }
}
