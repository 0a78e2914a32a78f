/* argus-watch: the hangs in flight, found from the events as they come
 * (docs/stages/watch.md, rules WATCH-*). This is a trigger, cheap per
 * event: what it finds is confirmed by argus diagnose on the window
 * (report.c), whose rules (find-spinning's SPIN-*) decide. Memory: one
 * entry per thread alive, removed at its exit. */
#include "watch.h"

#include "argus/analysis/find-spinning.h"
#include "argus/decode/ftrace.h"
#include "argus/decode/syscalls.h"
#include "argus/stream/table.h"
#include "argus/stream/cli.h"
#include "argus/stream/procname.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* WATCH-RETRY: a wait taken up again after a run this short is one wait
 * with the one before (find-spinning's argus_wait_retried: 50 ms) */
#define RETRY (50 * WATCH_MS)

/* One thread. The process's facts live in its main thread's entry. */
typedef struct thread_state {
    int tgid;                   /* 0: not known yet */
    char comm[16];
    /* the process (main thread's entry) */
    bool gui;                   /* WATCH-SCOPE: a display server woke it or
                                   it woke one, or an input probe fired */
    bool display;               /* a display server */
    bool named;                 /* --proc or --pid names it */
    bool cmd_named;             /* a --proc names its program or script */
    bool kernel;                /* a kernel thread */
    bool never;                 /* a kernel thread, argus's own (by its name
                                   now: a command argus-record ran was named
                                   argus-record until its exec) */
    bool display_woke;          /* a display server woke this thread before
                                   its process was known */
    /* the main thread's run and waits */
    bool blocked;
    bool uninterruptible;       /* blocked in state D */
    bool asked;                 /* since it last ran from a wait, it woke a
                                   thread of another program (not a display
                                   server): someone owes it an answer */
    uint64_t since;             /* blocked since, or running since; 0:
                                   not known yet (the trace began) */
    uint64_t wait_begin;        /* blocked: the first of the waits taken up
                                   again (WATCH-RETRY) */
    uint64_t last_wake;         /* its last wakeup, and the wait it ended */
    uint64_t last_wait_begin;
    bool last_wake_idle;        /* that wakeup brought input, or a loop's
                                   timer ended a wait that asked nothing */
    uint64_t pending_end;       /* a wait in flight was woken here: it ends
                                   unless taken up again within RETRY */
    char syscall[16];           /* the system call it is in, "" none */
    /* its main loop (the probes) */
    bool has_loop;
    uint32_t level;             /* dispatches open */
    uint64_t root_ctx;          /* the context of the outermost dispatch */
    bool nested_root;           /* the last dispatch begun inside a callout
                                   ran root_ctx: a nested loop of the
                                   loop's own context (a modal dialog) */
    uint64_t away;              /* away from its wait since; 0: in it */
    /* a hang in flight */
    bool in_flight;
    bool reported;              /* this stretch was given (the cap) */
    enum hang_kind kind;
    uint64_t begin;
} thread_state;

static argus_table threads;
static hang_sink *sink;
static void *sink_ctx;
/* per CPU: inside an hrtimer_wakeup timer (the wakeups there are a
 * sleep's or a poll's timeout) */
static bool *in_timer;
static size_t n_cpus;
/* sched_waking is in the trace: sched_wakeup may be written on the
 * target's CPU by whoever runs there, so only sched_waking names wakers */
static bool seen_waking;
/* live: no system call events; a blocked main thread's call is read from
 * /proc/PID/syscall while it waits */
static bool from_proc;
static int self;                /* argus-watch's pid */

void detect_init(hang_sink *s, void *ctx, bool syscalls_from_proc)
{
    from_proc = syscalls_from_proc;
    self = (int)getpid();
    argus_table_init(&threads, sizeof(thread_state));
    sink = s;
    sink_ctx = ctx;
}

void detect_free(void)
{
    argus_table_free(&threads);
    free(in_timer);
    in_timer = NULL;
    n_cpus = 0;
}

static bool is_display_server(const char *comm)
{
    for (size_t i = 0; i < argus_n_input_servers; i++)
        if (strcmp(comm, argus_input_servers[i]) == 0)
            return true;
    return false;
}

/* Whether --pid or --proc names process TGID, known by COMM and
 * CMDLINE (its arguments separated by '\n', NULL: not known). */
static bool names_it(const char *comm, int tgid, const char *cmdline)
{
    for (size_t i = 0; i < wopt.n_pids; i++)
        if (wopt.pids[i] == tgid)
            return true;
    for (size_t i = 0; i < wopt.n_procs; i++)
        if (argus_proc_named(wopt.procs[i], comm, cmdline))
            return true;
    return false;
}

/* Live, whether a --proc names TGID by its command line in /proc: its
 * program or the script it runs (a replay has "# argus-cmdline:" lines
 * instead: detect_cmdline). */
static bool cmdline_names_it(int tgid)
{
    char words[4096];
    return wopt.n_procs && cmdline_words(tgid, words, sizeof words) &&
           names_it("", tgid, words);
}

/* The process entry of TGID, or NULL. */
static thread_state *process_of(int tgid)
{
    return tgid > 0 ? argus_table_get(&threads, (uint64_t)tgid) : NULL;
}

/* Learns TID's process and name (a line of it, a header line, /proc). */
static thread_state *learn(int tid, int tgid, const char *comm, size_t comm_len)
{
    bool created;
    thread_state *t = argus_table_put(&threads, (uint64_t)tid, &created);
    if (tgid > 0)
        t->tgid = tgid;
    if (comm_len >= sizeof t->comm)
        comm_len = sizeof t->comm - 1;
    if (comm_len && (created || memcmp(t->comm, comm, comm_len) != 0 || t->comm[comm_len])) {
        memcpy(t->comm, comm, comm_len);
        t->comm[comm_len] = 0;
        if (tid == t->tgid) {
            /* a process's name is its main thread's (exec changes it) */
            t->display = is_display_server(t->comm);
            if (!wopt.replay) /* exec changes it too */
                t->cmd_named = cmdline_names_it(tid);
            t->named = t->cmd_named || names_it(t->comm, tid, NULL);
            t->never = t->kernel || tid == self || strncmp(t->comm, "argus-", 6) == 0;
        }
    }
    if (created && tid == tgid) {
        t->named = t->cmd_named || names_it(t->comm, tid, NULL);
        t->since = 0;
    }
    if (t->display_woke && t->tgid > 0 && t->tgid != tid) {
        thread_state *p = process_of(t->tgid);
        if (p)
            p->gui = true;
        t = argus_table_get(&threads, (uint64_t)tid);
        t->display_woke = false;
    } else if (t->display_woke && t->tgid == tid) {
        t->gui = true;
        t->display_woke = false;
    }
    return t;
}

void detect_cmdline(int pid, const char *cmdline)
{
    bool created;
    thread_state *t = argus_table_put(&threads, (uint64_t)pid, &created);
    t->tgid = pid;
    t->cmd_named = names_it("", pid, cmdline);
    t->named = t->cmd_named || names_it(t->comm, pid, NULL);
}

void detect_thread(int tid, int tgid, const char *comm, bool kernel)
{
    thread_state *t = learn(tid, tgid, comm, strlen(comm));
    if (kernel)
        t->kernel = t->never = true;
}

/* ---- what each main thread is doing ----------------------------------- */

static uint64_t limit_of(const thread_state *p)
{
    if (wopt.hang_ms)
        return wopt.hang_ms * WATCH_MS;
    /* a GUI program, SPIN-LOOP's 2 s; a program named, SPIN-HANG's 500 ms */
    return (p->gui ? ARGUS_LOOP_HANG_MS : ARGUS_LINUX_HANG_MS) * WATCH_MS;
}

/* WATCH-SCOPE: whose main thread is watched at all. */
static bool in_scope(const thread_state *p)
{
    return (p->gui || p->named) && !p->display && !p->never;
}

static void give(thread_state *t, int tid, uint64_t end, bool open)
{
    struct hang_found h = {.pid = tid, .kind = t->kind, .begin = t->begin, .end = end,
                           .open = open};
    memcpy(h.name, t->comm, sizeof h.name);
    t->in_flight = false;
    t->reported = open;
    sink(&h, sink_ctx);
}

static void start_hang(thread_state *t, enum hang_kind kind, uint64_t begin)
{
    if (t->in_flight || t->reported)
        return;
    t->in_flight = true;
    t->kind = kind;
    t->begin = begin;
}

/* The stretch of T (tid TID) ended at TS: a hang in flight is given. */
static void end_stretch(thread_state *t, int tid, uint64_t ts)
{
    if (t->in_flight)
        give(t, tid, ts, false);
    t->reported = false;
}

/* Event-loop calls, and calls that wait for a client or a child: a wait in
 * one that asked nothing is judged when it ends (WATCH-WAIT). */
static bool idle_call(const char *sc)
{
    static const char *const calls[] = {
        "poll", "ppoll", "select", "pselect6", "epoll_wait", "epoll_pwait", "epoll_pwait2",
        "accept", "accept4", "wait4", "waitid", "",
    };
    for (size_t i = 0; i < sizeof calls / sizeof *calls; i++)
        if (strcmp(sc, calls[i]) == 0)
            return true;
    return false;
}

/* The system call thread TID is blocked in, from /proc (its number, named
 * by lib/decode/syscalls.c's table); "-" outside any (a page fault). */
static void read_syscall(thread_state *t, int tid)
{
    char path[64], buf[64];
    snprintf(path, sizeof path, "/proc/%d/syscall", tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return;
    buf[n] = 0;
    if (strncmp(buf, "running", 7) == 0)
        return;
    long nr = strtol(buf, NULL, 10);
#if defined(__aarch64__)
    const argus_syscall *table = argus_syscalls_arm64;
#else
    const argus_syscall *table = argus_syscalls_x86_64;
#endif
    snprintf(t->syscall, sizeof t->syscall, "-");
    for (size_t i = 0; nr >= 0 && table[i].name; i++)
        if (table[i].nr == nr) {
            snprintf(t->syscall, sizeof t->syscall, "%s", table[i].name);
            break;
        }
}

/* A wait for a child (WATCH-WAIT): a shell or launcher waiting for its
 * command is no hang of its own, unless --proc or --pid names it
 * (find-spinning's SPIN-IDLE). */
static bool child_wait(const thread_state *t)
{
    return !t->named && (strcmp(t->syscall, "wait4") == 0 || strcmp(t->syscall, "waitid") == 0);
}

/* The main thread T (tid TID) was woken at TS, by a display server when
 * BY_DISPLAY, by a timer when BY_TIMER. */
static void main_woken(thread_state *t, int tid, uint64_t ts, bool by_display, bool by_timer)
{
    if (!t->blocked && t->since)
        return;
    if (!t->since) {                /* the first we know of it */
        t->since = ts;
        return;
    }
    bool loop_watched = t->has_loop && !wopt.hang_ms;
    bool idle_wait = !t->uninterruptible && !t->asked && idle_call(t->syscall);
    bool long_wait = in_scope(t) && !loop_watched && !t->reported && !child_wait(t) &&
                     ts >= t->wait_begin &&
                     ts - t->wait_begin >= limit_of(t);
    if (!t->in_flight && long_wait && !idle_wait)
        start_hang(t, HANG_WAIT, t->wait_begin); /* past the limit between two ticks */
    if (t->in_flight && t->kind == HANG_WAIT) {
        t->pending_end = ts;        /* WATCH-RETRY decides */
    } else if (!t->in_flight && long_wait && !by_display && !by_timer) {
        /* WATCH-WAIT: a wait that asked nothing, judged at its end */
        t->kind = HANG_WAIT;
        t->begin = t->wait_begin;
        give(t, tid, ts, false);
        t->reported = true;         /* until a wait of its own begins */
    }
    t->last_wake = ts;
    t->last_wait_begin = t->wait_begin;
    t->last_wake_idle = by_display || (by_timer && idle_wait);
    t->blocked = false;
    t->uninterruptible = false;
    t->asked = false;
    t->since = ts;
    if (from_proc)
        t->syscall[0] = 0;
}

static void main_blocked(thread_state *t, int tid, uint64_t ts, bool uninterruptible)
{
    if (t->blocked)
        return;
    if (!t->in_flight && !t->reported && t->since && in_scope(t) && ts >= t->since &&
        ts - t->since >= limit_of(t) && !(t->has_loop && !wopt.hang_ms))
        start_hang(t, HANG_BUSY, t->since); /* past the limit between two ticks */
    if (t->in_flight && t->kind == HANG_BUSY)
        end_stretch(t, tid, ts);
    bool retried = t->since && t->last_wake && !t->last_wake_idle && ts >= t->last_wake &&
                   ts - t->last_wake <= RETRY && t->last_wait_begin;
    if (retried) {
        t->wait_begin = t->last_wait_begin;
        t->pending_end = 0;         /* the wait in flight goes on */
    } else {
        if (t->pending_end) {
            give(t, tid, t->pending_end, false);
            t->pending_end = 0;
        }
        t->reported = false;
        t->wait_begin = ts;
    }
    t->blocked = true;
    t->uninterruptible = uninterruptible;
    t->since = ts;
}

/* The value after KEY ("pid=") in ARGS, or -1. */
static long field(const char *args, const char *key)
{
    const char *p = strstr(args, key);
    if (!p)
        return -1;
    return strtol(p + strlen(key), NULL, 10);
}

static uint64_t hex_field(const char *args, const char *key)
{
    const char *p = strstr(args, key);
    return p ? strtoull(p + strlen(key), NULL, 16) : 0;
}

static bool event_is(const struct event_line *ev, const char *name)
{
    size_t n = strlen(name);
    return ev->event_len == n && memcmp(ev->event, name, n) == 0;
}

static bool *cpu_timer(int cpu)
{
    if (cpu < 0 || cpu > 65535)
        return NULL;
    if ((size_t)cpu >= n_cpus) {
        size_t n = (size_t)cpu + 1;
        bool *v = argus_xrealloc(in_timer, n * sizeof *v, "threads in a timer");
        memset(v + n_cpus, 0, (n - n_cpus) * sizeof *v);
        in_timer = v;
        n_cpus = n;
    }
    return &in_timer[cpu];
}

/* A nested loop of the loop's own context that draws (wakes a display
 * server inside one of its dispatches) is answering: a new stretch. */
static void loop_drew(thread_state *t, int tid, uint64_t ts)
{
    if (t->level < 2 || !t->nested_root || !t->away)
        return;
    if (t->in_flight && t->kind == HANG_LOOP)
        end_stretch(t, tid, ts);
    t->away = ts;
}

/* sched_waking or sched_wakeup: EV's thread woke TARGET. */
static void on_wakeup(const struct event_line *ev, int target)
{
    if (target <= 0 || target == ev->tid)
        return;
    bool *timer = cpu_timer(ev->cpu);
    bool by_timer = timer && *timer;
    /* in an interrupt, the thread on the CPU woke no one */
    thread_state *waker_proc = ev->irq ? NULL : process_of(ev->tgid);
    bool by_display = waker_proc && waker_proc->display && !by_timer;
    bool created;
    thread_state *t = argus_table_put(&threads, (uint64_t)target, &created);
    if (created)
        t->since = 0;
    int target_tgid = t->tgid;
    if (by_display) {
        thread_state *p = process_of(target_tgid);
        if (p)
            p->gui = true;
        else
            t->display_woke = true;
    }
    t = argus_table_get(&threads, (uint64_t)target);
    if (target_tgid == target)
        main_woken(t, target, ev->ts, by_display, by_timer);
    /* the waker: a GUI program when it woke a display server; it asked
     * when it woke another program */
    thread_state *target_proc = process_of(target_tgid);
    bool to_display = target_proc && target_proc->display;
    bool other_program = target_tgid != ev->tgid || target_tgid == 0;
    if (ev->irq) {
        return;
    } else if (ev->tgid > 0 && ev->tid == ev->tgid && !by_timer) {
        thread_state *w = argus_table_get(&threads, (uint64_t)ev->tid);
        if (w) {
            if (to_display && !w->display)
                w->gui = true;
            else if (other_program)
                w->asked = true;
            if (to_display && !w->display)
                loop_drew(w, ev->tid, ev->ts);
        }
    } else if (to_display && waker_proc && !waker_proc->display) {
        waker_proc->gui = true;
    }
}

static void on_switch(const struct event_line *ev)
{
    long prev = field(ev->args, " prev_pid=");
    long next = field(ev->args, " next_pid=");
    const char *state = strstr(ev->args, " prev_state=");
    if (prev > 0 && state) {
        state += 12;
        bool runnable = *state == 'R'; /* "R" or "R+": preempted */
        thread_state *t = argus_table_get(&threads, (uint64_t)prev);
        if (t && t->tgid == prev && !runnable)
            main_blocked(t, (int)prev, ev->ts, *state == 'D');
    }
    if (next > 0) {
        thread_state *t = argus_table_get(&threads, (uint64_t)next);
        /* running again with no wakeup seen (it began before the trace) */
        if (t && t->tgid == next && (t->blocked || !t->since))
            main_woken(t, (int)next, ev->ts, false, false);
    }
}

/* A main thread's loop probe (the decoder's runloop mapping, SPIN-LOOP). */
static void on_loop(thread_state *t, int tid, const struct event_line *ev)
{
    const char *e = ev->event;
    size_t n = ev->event_len;
    bool ret = n > 4 && memcmp(e + n - 4, "_ret", 4) == 0;
    if (ret)
        n -= 4;
    bool wait = (n == 15 && memcmp(e, "argus_glib_poll", 15) == 0) ||
                (n == 14 && memcmp(e, "argus_tcl_wait", 14) == 0);
    bool dispatch = (n == 19 && memcmp(e, "argus_glib_dispatch", 19) == 0) ||
                    (n == 17 && memcmp(e, "argus_tcl_service", 17) == 0);
    if (!wait && !dispatch)
        return;
    t->has_loop = true;
    if (wait && !ret) {            /* before_waiting */
        /* the loop's wait, or a nested loop of its own context idle:
         * nothing of its own due within the limit (SPIN-LOOP) */
        uint64_t ns;
        bool idle = !argus_ft_loop_wait_deadline(ev->args, strlen(ev->args), &ns) ||
                    ns >= limit_of(t);
        bool waiting = t->level == 0 || (t->nested_root && idle);
        if (waiting && t->away && in_scope(t) && ev->ts - t->away >= limit_of(t))
            start_hang(t, HANG_LOOP, t->away); /* past the limit between two ticks */
        if (waiting && t->away) {
            t->away = 0;
            if (t->kind == HANG_LOOP)
                end_stretch(t, tid, ev->ts);
        }
    } else if (wait) {             /* after_waiting */
        if (!t->away)
            t->away = ev->ts;
    } else if (!ret) {             /* a dispatch begins */
        uint64_t ctx = hex_field(ev->args, "ctx=0x");
        if (t->level == 0) {
            if (!t->away)
                t->away = ev->ts;
            t->root_ctx = ctx;
            t->nested_root = false;
        } else {
            t->nested_root = ctx == t->root_ctx; /* 0, 0: Tcl's one loop */
        }
        t->level++;
    } else if (t->level) {
        t->level--;
    }
}

static bool is_input_probe(const struct event_line *ev)
{
    return event_is(ev, "argus_gtk_event") || event_is(ev, "argus_qt_key") ||
           event_is(ev, "argus_qt_mouse") || event_is(ev, "argus_tk_event");
}

void detect_line(const struct event_line *ev)
{
    thread_state *t = learn(ev->tid, ev->tgid, ev->comm, ev->comm_len);
    const char *e = ev->event;
    size_t n = ev->event_len;
    if (n > 6 && memcmp(e, "sched_", 6) == 0) {
        if (event_is(ev, "sched_switch")) {
            on_switch(ev);
        } else if (event_is(ev, "sched_waking")) {
            /* on the waker's CPU, in its context */
            seen_waking = true;
            on_wakeup(ev, (int)field(ev->args, " pid="));
        } else if (event_is(ev, "sched_wakeup") && !seen_waking) {
            on_wakeup(ev, (int)field(ev->args, " pid="));
        } else if (event_is(ev, "sched_process_exit")) {
            long pid = field(ev->args, " pid=");
            thread_state *x = pid > 0 ? argus_table_get(&threads, (uint64_t)pid) : NULL;
            if (x && x->in_flight)
                give(x, (int)pid, ev->ts, false);
            if (pid > 0)
                argus_table_remove(&threads, (uint64_t)pid);
        }
        return;
    }
    if (n > 14 && memcmp(e, "hrtimer_expire", 14) == 0) {
        bool *timer = cpu_timer(ev->cpu);
        if (timer)
            *timer = event_is(ev, "hrtimer_expire_entry") && strstr(ev->args, "hrtimer_wakeup");
        return;
    }
    if (ev->tid != ev->tgid || ev->tid <= 0)
        return;
    /* the main thread's own events */
    if (n > 4 && memcmp(e, "sys_", 4) == 0) {
        bool exit = strncmp(ev->args, " -> ", 4) == 0;
        if (exit) {
            t->syscall[0] = 0;
        } else {
            size_t k = n - 4 < sizeof t->syscall - 1 ? n - 4 : sizeof t->syscall - 1;
            memcpy(t->syscall, e + 4, k);
            t->syscall[k] = 0;
        }
        return;
    }
    if (n > 6 && memcmp(e, "argus_", 6) == 0) {
        if (is_input_probe(ev) && !t->display)
            t->gui = true;
        else
            on_loop(t, ev->tid, ev);
    }
}

/* WATCH-LOOP, WATCH-BUSY, WATCH-WAIT: main thread T (tid TID) past its
 * limit at NOW becomes a hang in flight. */
static void check_limits(thread_state *t, int tid, uint64_t now)
{
    if (from_proc && t->blocked && !t->syscall[0] && now >= t->since &&
        now - t->since >= 100 * WATCH_MS)
        read_syscall(t, tid);
    uint64_t limit = limit_of(t);
    if (t->has_loop && t->away && now - t->away >= limit && now >= t->away)
        start_hang(t, HANG_LOOP, t->away);
    else if (t->has_loop && !wopt.hang_ms)
        return; /* a watched loop is WATCH-LOOP's alone */
    else if (!t->blocked && t->since && now >= t->since && now - t->since >= limit)
        start_hang(t, HANG_BUSY, t->since);
    else if (t->blocked && now >= t->wait_begin && now - t->wait_begin >= limit &&
             !child_wait(t) && (t->uninterruptible || t->asked || !idle_call(t->syscall)))
        start_hang(t, HANG_WAIT, t->wait_begin);
}

void detect_tick(uint64_t now)
{
    uint64_t key;
    void *value;
    for (size_t pos = 0; argus_table_next(&threads, &pos, &key, &value);) {
        thread_state *t = value;
        if (t->pending_end && !t->blocked && now >= t->pending_end &&
            now - t->pending_end > RETRY) {
            give(t, (int)key, t->pending_end, false);   /* not taken up again */
            t->pending_end = 0;
            t->reported = false;
        }
        if ((uint64_t)t->tgid == key && in_scope(t) && !t->in_flight && !t->reported)
            check_limits(t, (int)key, now);
        /* WATCH-CAP: a hang still going after --max-hang */
        if (t->in_flight && now >= t->begin && now - t->begin >= wopt.max_hang_ms * WATCH_MS)
            give(t, (int)key, t->begin + wopt.max_hang_ms * WATCH_MS, true);
    }
}

bool detect_quiet(uint64_t now)
{
    uint64_t key, recent = 100 * WATCH_MS;
    void *value;
    for (size_t pos = 0; argus_table_next(&threads, &pos, &key, &value);) {
        const thread_state *t = value;
        if ((uint64_t)t->tgid != key || !in_scope(t))
            continue;
        if (t->in_flight || t->pending_end)
            return false;
        if (t->has_loop && !wopt.hang_ms) {
            if (t->away && now >= t->away && now - t->away > recent)
                return false;
        } else if (!t->blocked && t->since && now >= t->since && now - t->since > recent) {
            return false;
        } else if (t->blocked && now >= t->wait_begin && now - t->wait_begin > recent &&
                   !child_wait(t) && (t->uninterruptible || t->asked || !idle_call(t->syscall))) {
            return false;
        }
    }
    return true;
}

void detect_finish(uint64_t now)
{
    detect_tick(now);
    uint64_t key;
    void *value;
    for (size_t pos = 0; argus_table_next(&threads, &pos, &key, &value);) {
        thread_state *t = value;
        if (t->in_flight)
            give(t, (int)key, now, true);
    }
}

/* ---- the lines -------------------------------------------------------- */

static bool digit(char c)
{
    return c >= '0' && c <= '9';
}

/* "COMM-TID (TGID) [CPU] FLAGS S.F: EVENT: ARGS", the (TGID) and FLAGS
 * columns optional; COMM may hold spaces, '-' and " [". */
bool parse_event_line(const char *line, size_t len, struct event_line *ev)
{
    const char *end = line + len;
    for (const char *p = line; p + 2 < end; p++) {
        if (p[0] != ' ' || p[1] != '[' || !digit(p[2]))
            continue;
        const char *q = p + 2;
        int cpu = 0;
        while (q < end && digit(*q) && cpu < 100000)
            cpu = cpu * 10 + (*q++ - '0');
        if (q >= end || *q++ != ']')
            continue;
        while (q < end && *q == ' ')
            q++;
        bool irq = false;
        if (q < end && !digit(*q)) { /* the flags: "d.h2." */
            const char *flags = q;
            while (q < end && *q != ' ')
                q++;
            irq = q - flags >= 3 && (flags[2] == 'h' || flags[2] == 's' || flags[2] == 'H');
            while (q < end && *q == ' ')
                q++;
        }
        uint64_t sec = 0, frac = 0;
        int digits = 0;
        if (q >= end || !digit(*q))
            continue;
        while (q < end && digit(*q) && sec < 100000000000ull)
            sec = sec * 10 + (uint64_t)(*q++ - '0');
        if (q >= end || *q++ != '.')
            continue;
        while (q < end && digit(*q) && digits < 9) {
            frac = frac * 10 + (uint64_t)(*q++ - '0');
            digits++;
        }
        while (q < end && digit(*q))
            q++;
        if (q + 1 >= end || *q != ':' || q[1] != ' ' || digits < 1)
            continue;
        for (; digits < 9; digits++)
            frac *= 10;
        /* before " [": "COMM-TID" and maybe "(TGID)" */
        const char *b = p;
        while (b > line && b[-1] == ' ')
            b--;
        int tgid = 0;
        if (b > line && b[-1] == ')') {
            const char *open = b - 1;
            while (open > line && *open != '(')
                open--;
            if (*open != '(')
                continue;
            for (const char *c = open + 1; c < b - 1; c++)
                if (digit(*c))
                    tgid = tgid * 10 + (*c - '0');
            b = open;
            while (b > line && b[-1] == ' ')
                b--;
        }
        const char *d = b;
        while (d > line && digit(d[-1]))
            d--;
        if (d == b || d == line || d[-1] != '-' || b - d > 9)
            continue;
        int tid = 0;
        for (const char *c = d; c < b; c++)
            tid = tid * 10 + (*c - '0');
        const char *c0 = line;
        while (c0 < d - 1 && *c0 == ' ')
            c0++;
        ev->ts = sec * 1000000000ull + frac;
        ev->tid = tid;
        ev->tgid = tgid;
        ev->cpu = cpu;
        ev->irq = irq;
        ev->comm = c0;
        ev->comm_len = (size_t)(d - 1 - c0);
        ev->event = q + 2;
        const char *x = ev->event;
        while (x < end && *x != ':' && *x != '(' && *x != ' ')
            x++;
        ev->event_len = (size_t)(x - ev->event);
        ev->args = x < end && *x == ':' ? x + 1 : x;
        return true;
    }
    return false;
}
