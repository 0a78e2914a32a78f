/* bench/gen-ftrace: writes deterministic synthetic Linux ftrace text to
 * stdout, for measuring `argus-decode --format ftrace` (bench/run.sh,
 * docs/performance.md).
 *
 * The text is what tracefs `trace` prints on Linux 6.x with the events
 * argus-record enables (record-tgid on, the irq-info flags column, the mono
 * clock), preceded by the tracefs header and argus-record's
 * `# argus-thread:` lines; options take out the (TGID) column, the flags
 * column or the header, write 4-character flags (older kernels), 9
 * decimals, or syscalls in the `sys_enter_X:`/`sys_exit_X:` shape of
 * trace-cmd report.
 *
 * The lines come from a small simulation of a desktop machine, so that
 * what the decoder pairs is there to pair: each CPU runs one thread at a
 * time (or its idle task); threads enter syscalls (read, write, futex,
 * poll, ppoll, epoll_wait, recvmsg, sendmsg, clock_nanosleep, pread64) and
 * block in some of them (sched_switch with prev_state S or D, the next
 * thread from the CPU's run queue or the idle task), with an hrtimer armed
 * when the wait has a timeout; other threads wake them (a futex wake on
 * the same address, a write to the fd a thread reads, a sendmsg), and so
 * do interrupts and expiring hrtimers (sched_waking then sched_wakeup, the
 * woken thread's first line the exit of its syscall, an hrtimer_cancel
 * when it was woken before its timeout); preemption (prev_state R, R+),
 * the tick (hrtimer expire/start), device interrupts with their softirqs,
 * work queued from interrupts and threads and run by kworkers (prev_state
 * I), short-lived processes forked, exec'd, renamed and exited (prev_state
 * Z, X; their parent's wait4 woken), and about 5% of lines from events the
 * decoder does not map (sched_stat_runtime, sched_migrate_task,
 * softirq_raise, sched_wake_idle_without_ipi, tick_stop, cpu_idle). Lines
 * are in timestamp order (tracefs merges the per-CPU buffers), many lines
 * share a microsecond. Now and then a comm is `<...>` (not in
 * saved_cmdlines), and threads of processes without a known tgid show
 * `(-------)`, as the idle task always does.
 *
 * No libargus: this writes the input of a decoder, not a stream. Memory is
 * fixed after start-up, and nothing is allocated per line. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "Usage: gen-ftrace [OPTIONS] > FILE\n"
    "Write deterministic synthetic Linux ftrace text (tracefs `trace` layout)\n"
    "to stdout: the same options give the same bytes.\n"
    "\n"
    "A desktop-like mix over several CPUs, processes and threads: sched_switch\n"
    "(prev_state S, R, R+, D, I, Z, X), sched_waking/sched_wakeup pairs, irq and\n"
    "softirq entry/exit, hrtimer start/expire/cancel, workqueue queue/execute,\n"
    "syscalls (read, write, futex, poll, ppoll, epoll_wait, recvmsg, sendmsg,\n"
    "clock_nanosleep, pread64), fork/exec/rename/exit, comm names with spaces,\n"
    "and about 5% of lines from events the decoder does not map.\n"
    "\n"
    "  -n, --lines N        event lines, header not counted (default 1000000)\n"
    "  -c, --cpus N         CPUs, 1 to 256 (default 4)\n"
    "  -p, --processes N    long-lived user processes, 1 to 1000 (default 40),\n"
    "                       1 to 16 threads each\n"
    "  -s, --seed N         PRNG seed (default 1)\n"
    "      --no-tgid        no (TGID) column (options/record-tgid off)\n"
    "      --flags N        flags column: 5 characters (default, Linux >= 5.15),\n"
    "                       4 (older kernels) or 0 (none, options/irq-info off)\n"
    "      --decimals N     timestamp decimals: 6 (default) or 9\n"
    "      --syscalls SHAPE call: `sys_read(fd: 3, ...)` / `sys_read -> 0x40`\n"
    "                       (tracefs, default); event: `sys_enter_read: fd:\n"
    "                       0x00000003, ...` / `sys_exit_read: 0x40` (trace-cmd\n"
    "                       report)\n"
    "      --no-header      no `#` lines: neither the tracefs header nor the\n"
    "                       `# argus-thread:` lines of argus-record\n"
    "  -h, --help           show this help\n";

#include "rng.h"

/* ---- output: one large buffer, numbers formatted by hand ------------------ */

#define OUT_SIZE (8u << 20)
#define LINE_MAX_BYTES 1024     /* no line is longer */
static char *out_buf;
static size_t out_len;

static void write_all(const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(STDOUT_FILENO, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "gen-ftrace: write: %s\n", strerror(errno));
            exit(74);
        }
        p += w;
        n -= (size_t)w;
    }
}

static void flush_out(void)
{
    write_all(out_buf, out_len);
    out_len = 0;
}

static inline void put_mem(const char *s, size_t n)
{
    memcpy(out_buf + out_len, s, n);
    out_len += n;
}

/* a string literal only: its size is known */
#define PUT_LIT(s) put_mem("" s, sizeof(s) - 1)

static inline void put_str(const char *s) { put_mem(s, strlen(s)); }
static inline void put_char(char c) { out_buf[out_len++] = c; }

static inline void put_spaces(int n)
{
    for (; n > 0; n--)
        out_buf[out_len++] = ' ';
}

/* decimal digits of V into the end of TMP; returns where they start */
static inline char *dec_digits(uint64_t v, char tmp[24])
{
    char *p = tmp + 24;
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    return p;
}

static inline void put_dec(uint64_t v)
{
    char tmp[24];
    char *p = dec_digits(v, tmp);
    put_mem(p, (size_t)(tmp + 24 - p));
}

/* V right-aligned in WIDTH (printf "%*d"), or left-aligned ("%-*d") */
static inline void put_dec_width(uint64_t v, int width, bool left)
{
    char tmp[24];
    char *p = dec_digits(v, tmp);
    int n = (int)(tmp + 24 - p);
    if (!left)
        put_spaces(width - n);
    put_mem(p, (size_t)n);
    if (left)
        put_spaces(width - n);
}

/* V zero-padded to WIDTH digits ("%0*lu") */
static inline void put_dec_zero(uint64_t v, int width)
{
    char tmp[24];
    char *p = dec_digits(v, tmp);
    for (int n = (int)(tmp + 24 - p); n < width; n++)
        put_char('0');
    put_mem(p, (size_t)(tmp + 24 - p));
}

/* V in lower-case hex, at least MIN digits, zero-padded ("%0*lx") */
static inline void put_hex_min(uint64_t v, int min)
{
    static const char digits[] = "0123456789abcdef";
    char tmp[16];
    int n = 0;
    do {
        tmp[15 - n++] = digits[v & 15];
        v >>= 4;
    } while (v != 0);
    for (; n < min; n++)
        tmp[15 - n] = '0';
    put_mem(tmp + 16 - n, (size_t)n);
}

/* "0x%lx" */
static inline void put_0x(uint64_t v)
{
    PUT_LIT("0x");
    put_hex_min(v, 1);
}

/* ---- options ------------------------------------------------------------- */

static uint64_t opt_lines = 1000000;
static uint32_t opt_cpus = 4;
static uint32_t opt_procs = 40;
static uint64_t opt_seed = 1;
static bool opt_tgid = true;
static int opt_flags = 5;
static int opt_decimals = 6;
static bool opt_event_syscalls;     /* sys_enter_X:/sys_exit_X: shape */
static bool opt_header = true;
/* --flags 4: the layout of kernels before 5.15 (PID and TGID 5 wide) */
static bool old_layout;

/* ---- the simulated machine ----------------------------------------------- */

enum thread_kind {
    TK_IDLE,        /* swapper/N, pid 0: `<idle>` */
    TK_KWORKER,     /* runs queued work, then sleeps in state I */
    TK_KTHREAD,     /* ksoftirqd, rcu_preempt, ...: short runs, then S or I */
    TK_USER,
};

enum thread_state { TS_RUNNING, TS_RUNNABLE, TS_BLOCKED, TS_DEAD };

/* What a user thread mostly does, which sets its syscall mix. */
enum thread_role { ROLE_MAIN, ROLE_WORKER, ROLE_IO, ROLE_TIMER };

enum syscall_id {
    SC_READ, SC_WRITE, SC_FUTEX_WAIT, SC_FUTEX_WAKE, SC_POLL, SC_PPOLL,
    SC_EPOLL_WAIT, SC_RECVMSG, SC_SENDMSG, SC_CLOCK_NANOSLEEP, SC_PREAD64,
    SC_WAIT4, SC_COUNT
};

static const char *const syscall_names[SC_COUNT] = {
    "read", "write", "futex", "futex", "poll", "ppoll", "epoll_wait",
    "recvmsg", "sendmsg", "clock_nanosleep", "pread64", "wait4",
};

/* Syscall picked by a uniform draw below 64, per role. */
static uint8_t role_pick[4][64];

static const struct role_weights {
    uint8_t sc;
    uint8_t w[4];   /* main, worker, io, timer; each column sums to 64 */
} role_weights[] = {
    {SC_READ, {10, 8, 12, 2}},
    {SC_WRITE, {9, 8, 10, 4}},
    {SC_FUTEX_WAIT, {4, 20, 4, 6}},
    {SC_FUTEX_WAKE, {8, 14, 8, 14}},
    {SC_POLL, {12, 0, 4, 0}},
    {SC_PPOLL, {6, 0, 2, 0}},
    {SC_EPOLL_WAIT, {4, 0, 10, 0}},
    {SC_RECVMSG, {8, 0, 8, 0}},
    {SC_SENDMSG, {3, 0, 6, 0}},
    {SC_CLOCK_NANOSLEEP, {0, 2, 0, 36}},
    {SC_PREAD64, {0, 12, 0, 2}},
};
#define NROLE_WEIGHTS (sizeof role_weights / sizeof *role_weights)

#define WORK_RING 8

typedef struct thread {
    uint32_t tid, tgid;
    bool tgid_known;         /* else the (TGID) column shows (-------) */
    char comm[16];           /* as the kernel keeps it: at most 15 bytes */
    uint8_t kind, state, role;
    uint8_t prio;
    uint8_t syscall;         /* SC_* in progress, SC_COUNT when none */
    bool resumed;            /* woken inside its syscall: the exit is next */
    bool entered;            /* its syscall's enter line was written */
    bool timed_out;          /* its timeout fired: the exit says so */
    uint16_t cpu;            /* where it last ran */
    uint32_t parent;         /* forked child: the thread that forked it */
    uint32_t life;           /* forked child: steps left before it exits */
    uint32_t wait_fd;        /* fd of the read/recvmsg it waits in */
    uint64_t wait_addr;      /* futex address it waits on */
    uint64_t timer;          /* its hrtimer (hashed address) */
    uint64_t deadline;       /* when armed: expiry in ns, else 0 */
    /* kworker: the work queued for it and not yet run, oldest first */
    uint64_t work[WORK_RING];
    uint8_t work_kind[WORK_RING];
    uint8_t work_head, work_count;
} thread;

static thread *threads;
static uint32_t nthreads, threads_cap;
static uint32_t first_child, nchild_slots;  /* slots for forked processes */
static uint32_t next_pid = 4000;

typedef struct cpu_state {
    uint32_t current;        /* index in threads */
    uint32_t idle, kworker, ksoftirqd;
    uint32_t *rq;            /* FIFO ring of runnable threads */
    uint32_t rq_head, rq_count;
    uint64_t tick_timer;
    uint64_t next_tick;
} cpu_state;

static cpu_state *cpus;
static uint32_t *blocked;    /* blocked threads, unordered */
static uint32_t nblocked;
static uint32_t unbound_kworkers[4];
static uint32_t rcu_preempt;

static uint64_t now = 26186336630000ull;   /* ns, mono clock */
static uint64_t lines_done;

/* per-process futex words and fds: a wake finds a waiter on the same */
static uint64_t proc_base(const thread *t) { return 0x7f0000000000ull + ((uint64_t)t->tgid << 24); }

/* A kernel pointer as %p prints it: hashed, 16 hex digits. */
static uint64_t hashed_ptr(void)
{
    return rng_next() & 0xffffffffull;
}

/* ---- lines --------------------------------------------------------------- */

enum ctx { CTX_TASK, CTX_HARDIRQ, CTX_SOFTIRQ };

static size_t line_start;

/* Starts a line of thread T on CPU: the context columns, with a flags
 * column built from IRQS_OFF, the context and the preempt DEPTH. */
static void begin_line(uint32_t cpu, const thread *t, bool irqs_off, enum ctx ctx, int depth)
{
    if (out_len > OUT_SIZE - LINE_MAX_BYTES)
        flush_out();
    line_start = out_len;
    now += 80 + rng_below(900);
    /* "%16s-%-7d ": <idle> for pid 0, <...> when saved_cmdlines missed it */
    const char *comm = t->kind == TK_IDLE ? "<idle>" : t->comm;
    if (t->kind == TK_USER && rng_below(1024) == 0)
        comm = "<...>";
    size_t n = strlen(comm);
    put_spaces(16 - (int)n);
    put_mem(comm, n);
    put_char('-');
    put_dec_width(t->tid, old_layout ? 5 : 7, true);
    put_char(' ');
    if (opt_tgid) {
        if (!t->tgid_known) {
            put_str(old_layout ? "(-----) " : "(-------) ");
        } else {
            put_char('(');
            put_dec_width(t->tgid, old_layout ? 5 : 7, false);
            PUT_LIT(") ");
        }
    }
    put_char('[');
    put_dec_zero(cpu, 3);
    PUT_LIT("] ");
    if (opt_flags > 0) {
        /* irqs-off, need-resched, hardirq/softirq, preempt depth,
         * migrate-disable (5 only) */
        put_char(irqs_off ? 'd' : '.');
        put_char(rng_below(8) == 0 ? 'N' : '.');
        put_char(ctx == CTX_HARDIRQ ? 'h' : ctx == CTX_SOFTIRQ ? 's' : '.');
        put_char(depth > 0 ? (char)('0' + depth) : '.');
        if (opt_flags == 5)
            put_char('.');
    }
    /* " %5lu.%06lu: " */
    put_char(' ');
    put_dec_width(now / 1000000000u, 5, false);
    put_char('.');
    if (opt_decimals == 9)
        put_dec_zero(now % 1000000000u, 9);
    else
        put_dec_zero(now % 1000000000u / 1000u, 6);
    PUT_LIT(": ");
}

/* Ends the line; past the requested count it is taken back. */
static void end_line(void)
{
    if (lines_done >= opt_lines) {
        out_len = line_start;
        return;
    }
    put_char('\n');
    lines_done++;
}

static thread *cur(uint32_t cpu) { return &threads[cpus[cpu].current]; }

/* ---- syscalls ------------------------------------------------------------ */

/* One argument: "name: V", V as the kernel's syscall tracer prints it on
 * 6.x (below 10 in decimal, else 0x-hex), or "name: 0x%08lx" in the
 * event shape (the format file's print fmt, as trace-cmd report uses). */
static void put_arg(const char *name, uint64_t v, bool first)
{
    if (!first)
        PUT_LIT(", ");
    put_str(name);
    PUT_LIT(": ");
    if (opt_event_syscalls) {
        PUT_LIT("0x");
        put_hex_min(v, 8);
    } else if (v < 10) {
        put_dec(v);
    } else {
        put_0x(v);
    }
}

static void syscall_enter_line(uint32_t cpu, thread *t, uint8_t sc, const uint64_t *args)
{
    begin_line(cpu, t, false, CTX_TASK, 0);
    const char *name = syscall_names[sc];
    if (opt_event_syscalls) {
        PUT_LIT("sys_enter_");
        put_str(name);
        PUT_LIT(": ");
    } else {
        PUT_LIT("sys_");
        put_str(name);
        put_char('(');
    }
    static const char *const arg_names[SC_COUNT][6] = {
        [SC_READ] = {"fd", "buf", "count"},
        [SC_WRITE] = {"fd", "buf", "count"},
        [SC_FUTEX_WAIT] = {"uaddr", "op", "val", "utime", "uaddr2", "val3"},
        [SC_FUTEX_WAKE] = {"uaddr", "op", "val", "utime", "uaddr2", "val3"},
        [SC_POLL] = {"ufds", "nfds", "timeout_msecs"},
        [SC_PPOLL] = {"ufds", "nfds", "tsp", "sigmask", "sigsetsize"},
        [SC_EPOLL_WAIT] = {"epfd", "events", "maxevents", "timeout"},
        [SC_RECVMSG] = {"fd", "msg", "flags"},
        [SC_SENDMSG] = {"fd", "msg", "flags"},
        [SC_CLOCK_NANOSLEEP] = {"which_clock", "flags", "rqtp", "rmtp"},
        [SC_PREAD64] = {"fd", "buf", "count", "pos"},
        [SC_WAIT4] = {"upid", "stat_addr", "options", "ru"},
    };
    for (int i = 0; i < 6 && arg_names[sc][i] != NULL; i++)
        put_arg(arg_names[sc][i], args[i], i == 0);
    if (!opt_event_syscalls)
        put_char(')');
    end_line();
}

static void syscall_exit_line(uint32_t cpu, thread *t, uint8_t sc, int64_t ret)
{
    begin_line(cpu, t, false, CTX_TASK, 0);
    if (opt_event_syscalls) {
        PUT_LIT("sys_exit_");
        put_str(syscall_names[sc]);
        PUT_LIT(": ");
    } else {
        PUT_LIT("sys_");
        put_str(syscall_names[sc]);
        PUT_LIT(" -> ");
    }
    put_0x((uint64_t)ret);
    end_line();
}

#define E_AGAIN 11
#define E_TIMEDOUT 110
#define E_INTR 4

/* ---- scheduling ---------------------------------------------------------- */

static void rq_push(uint32_t cpu, uint32_t ti)
{
    cpu_state *c = &cpus[cpu];
    c->rq[(c->rq_head + c->rq_count) % threads_cap] = ti;
    c->rq_count++;
    threads[ti].state = TS_RUNNABLE;
    threads[ti].cpu = (uint16_t)cpu;
}

static uint32_t rq_pop(uint32_t cpu)
{
    cpu_state *c = &cpus[cpu];
    uint32_t ti = c->rq[c->rq_head];
    c->rq_head = (c->rq_head + 1) % threads_cap;
    c->rq_count--;
    return ti;
}

static void put_comm_field(const char *key, const thread *t)
{
    put_str(key);
    if (t->kind == TK_IDLE) {
        PUT_LIT("swapper/");
        put_dec(t->cpu);
    } else {
        put_str(t->comm);
    }
}

static void unknown_stat_runtime(uint32_t cpu, const thread *t)
{
    begin_line(cpu, t, true, CTX_TASK, 2);
    put_comm_field("sched_stat_runtime: comm=", t);
    PUT_LIT(" pid=");
    put_dec(t->tid);
    PUT_LIT(" runtime=");
    put_dec(2000 + rng_below(4000000));
    PUT_LIT(" [ns]");
    end_line();
}

/* The running thread of CPU leaves it in PREV_STATE ("S", "R", ...); the
 * next runnable thread, or the idle task, comes in. */
static void switch_out(uint32_t cpu, const char *prev_state)
{
    cpu_state *c = &cpus[cpu];
    thread *t = cur(cpu);
    uint32_t next = c->rq_count > 0 ? rq_pop(cpu) : c->idle;
    thread *n = &threads[next];
    if (t->kind != TK_IDLE && rng_below(8) == 0)
        unknown_stat_runtime(cpu, t);
    begin_line(cpu, t, true, CTX_TASK, 2);
    put_comm_field("sched_switch: prev_comm=", t);
    PUT_LIT(" prev_pid=");
    put_dec(t->tid);
    PUT_LIT(" prev_prio=");
    put_dec(t->prio);
    PUT_LIT(" prev_state=");
    put_str(prev_state);
    put_comm_field(" ==> next_comm=", n);
    PUT_LIT(" next_pid=");
    put_dec(n->tid);
    PUT_LIT(" next_prio=");
    put_dec(n->prio);
    end_line();
    if (t->kind == TK_IDLE) {
        /* the idle task is no thread to queue or block */
    } else if (prev_state[0] == 'R') {
        rq_push(cpu, c->current);
    } else if (prev_state[0] == 'Z' || prev_state[0] == 'X') {
        t->state = TS_DEAD;
    } else if (t->kind != TK_IDLE) {
        t->state = TS_BLOCKED;
        blocked[nblocked++] = c->current;
    }
    c->current = next;
    n->state = TS_RUNNING;
    n->cpu = (uint16_t)cpu;
}

static void remove_blocked(uint32_t i)
{
    blocked[i] = blocked[--nblocked];
}

/* The thread on CPU (in CTX) makes blocked thread TI runnable:
 * sched_waking, then sched_wakeup, on the CPU it last ran on or the other
 * one now and then. */
static void wake(uint32_t cpu, enum ctx ctx, uint32_t ti)
{
    thread *w = cur(cpu);
    thread *t = &threads[ti];
    uint32_t target = t->cpu;
    if (opt_cpus > 1 && rng_below(8) == 0) {
        uint32_t to = rng_below(opt_cpus);
        if (to != target && rng_below(2) == 0) {
            begin_line(cpu, w, true, ctx, 3);
            put_comm_field("sched_migrate_task: comm=", t);
            PUT_LIT(" pid=");
            put_dec(t->tid);
            PUT_LIT(" prio=");
            put_dec(t->prio);
            PUT_LIT(" orig_cpu=");
            put_dec(target);
            PUT_LIT(" dest_cpu=");
            put_dec(to);
            end_line();
        }
        target = to;
    }
    for (int pass = 0; pass < 2; pass++) {
        begin_line(cpu, w, true, ctx, pass == 0 ? 3 : 4);
        put_comm_field(pass == 0 ? "sched_waking: comm=" : "sched_wakeup: comm=", t);
        PUT_LIT(" pid=");
        put_dec(t->tid);
        PUT_LIT(" prio=");
        put_dec(t->prio);
        PUT_LIT(" target_cpu=");
        put_dec_zero(target, 3);
        end_line();
        if (pass == 0 && target != cpu && rng_below(6) == 0 &&
            threads[cpus[target].current].kind == TK_IDLE) {
            begin_line(cpu, w, true, ctx, 3);
            PUT_LIT("sched_wake_idle_without_ipi: cpu=");
            put_dec(target);
            end_line();
        }
    }
    t->resumed = t->kind == TK_USER && t->syscall != SC_COUNT;
    rq_push(target, ti);
}

/* Wakes thread TI when it is blocked. */
static void wake_if_blocked(uint32_t cpu, enum ctx ctx, uint32_t ti)
{
    if (threads[ti].state != TS_BLOCKED)
        return;
    for (uint32_t i = 0; i < nblocked; i++) {
        if (blocked[i] == ti) {
            remove_blocked(i);
            wake(cpu, ctx, ti);
            return;
        }
    }
}

/* Picks a blocked thread, trying up to 8 random ones for one that MATCH
 * accepts (MATCH NULL: any); returns its index in blocked, or -1. */
static int64_t find_blocked(bool (*match)(const thread *, const void *), const void *arg)
{
    if (nblocked == 0)
        return -1;
    for (int tries = 0; tries < 8; tries++) {
        uint32_t i = rng_below(nblocked);
        if (match == NULL || match(&threads[blocked[i]], arg))
            return i;
    }
    return -1;
}

static bool is_user(const thread *t, const void *arg)
{
    (void)arg;
    return t->kind == TK_USER;
}

static bool waits_on_futex(const thread *t, const void *tgid)
{
    return t->kind == TK_USER && t->syscall == SC_FUTEX_WAIT &&
           t->tgid == *(const uint32_t *)tgid;
}

static bool waits_on_fd(const thread *t, const void *arg)
{
    (void)arg;
    return t->kind == TK_USER && (t->syscall == SC_READ || t->syscall == SC_RECVMSG ||
                                  t->syscall == SC_POLL || t->syscall == SC_PPOLL ||
                                  t->syscall == SC_EPOLL_WAIT);
}

static bool timer_due(const thread *t, const void *arg)
{
    (void)arg;
    return t->deadline != 0 && t->deadline <= now;
}

/* ---- timers -------------------------------------------------------------- */

static void hrtimer_start_line(uint32_t cpu, enum ctx ctx, uint64_t timer, const char *func,
                               uint64_t expires, const char *mode)
{
    begin_line(cpu, cur(cpu), true, ctx, 1);
    PUT_LIT("hrtimer_start: hrtimer=");
    put_hex_min(timer, 16);
    PUT_LIT(" function=");
    put_str(func);
    PUT_LIT(" expires=");
    put_dec(expires);
    PUT_LIT(" softexpires=");
    put_dec(expires);
    PUT_LIT(" mode=");
    put_str(mode);
    PUT_LIT(" was_armed=0");
    end_line();
}

static void hrtimer_simple_line(uint32_t cpu, enum ctx ctx, const char *event, uint64_t timer)
{
    begin_line(cpu, cur(cpu), true, ctx, ctx == CTX_TASK ? 1 : 0);
    put_str(event);
    PUT_LIT(": hrtimer=");
    put_hex_min(timer, 16);
    end_line();
}

static void hrtimer_expire_entry_line(uint32_t cpu, uint64_t timer, const char *func)
{
    begin_line(cpu, cur(cpu), true, CTX_HARDIRQ, 0);
    PUT_LIT("hrtimer_expire_entry: hrtimer=");
    put_hex_min(timer, 16);
    PUT_LIT(" function=");
    put_str(func);
    PUT_LIT(" now=");
    put_dec(now);
    end_line();
}

static const char *const softirq_names[] = {
    "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED",
    "HRTIMER", "RCU",
};

static void softirq_lines(uint32_t cpu, uint32_t vec, bool raise)
{
    thread *t = cur(cpu);
    if (raise) {
        begin_line(cpu, t, true, CTX_HARDIRQ, 1);
        PUT_LIT("softirq_raise: vec=");
        put_dec(vec);
        PUT_LIT(" [action=");
        put_str(softirq_names[vec]);
        put_char(']');
        end_line();
    }
    for (int pass = 0; pass < 2; pass++) {
        begin_line(cpu, t, false, CTX_SOFTIRQ, t->kind == TK_IDLE ? 1 : 0);
        put_str(pass == 0 ? "softirq_entry: vec=" : "softirq_exit: vec=");
        put_dec(vec);
        PUT_LIT(" [action=");
        put_str(softirq_names[vec]);
        put_char(']');
        end_line();
        if (pass == 0 && vec == 3 && nblocked > 0 && rng_below(2) == 0) {
            int64_t i = find_blocked(waits_on_fd, NULL);   /* a packet for a reader */
            if (i >= 0) {
                uint32_t ti = blocked[i];
                remove_blocked((uint32_t)i);
                wake(cpu, CTX_SOFTIRQ, ti);
            }
        }
    }
}

/* The CPU's tick: tick_nohz_handler expires and is started again; now and
 * then a thread's timeout that is due fires and wakes it. */
static void tick(uint32_t cpu)
{
    cpu_state *c = &cpus[cpu];
    hrtimer_expire_entry_line(cpu, c->tick_timer, "tick_nohz_handler");
    hrtimer_simple_line(cpu, CTX_HARDIRQ, "hrtimer_expire_exit", c->tick_timer);
    c->next_tick = now + 4000000;
    hrtimer_start_line(cpu, CTX_HARDIRQ, c->tick_timer, "tick_nohz_handler",
                       c->next_tick - c->next_tick % 4000000, "ABS");
    for (int k = 0; k < 3; k++) {
        int64_t i = find_blocked(timer_due, NULL);
        if (i < 0)
            break;
        uint32_t ti = blocked[i];
        thread *t = &threads[ti];
        remove_blocked((uint32_t)i);
        hrtimer_expire_entry_line(cpu, t->timer, "hrtimer_wakeup");
        wake(cpu, CTX_HARDIRQ, ti);
        hrtimer_simple_line(cpu, CTX_HARDIRQ, "hrtimer_expire_exit", t->timer);
        t->deadline = 0;
        t->timed_out = true;
    }
    if (rng_below(16) == 0)
        wake_if_blocked(cpu, CTX_HARDIRQ, rng_below(2) ? rcu_preempt : c->ksoftirqd);
    uint32_t r = rng_below(8);
    if (r < 3)
        softirq_lines(cpu, 1, r == 0);   /* TIMER */
    else if (r < 5)
        softirq_lines(cpu, 9, r == 3);   /* RCU */
    else if (r == 5)
        softirq_lines(cpu, 7, true);     /* SCHED */
}

/* ---- interrupts and work -------------------------------------------------- */

static const struct irq_source {
    uint16_t irq;
    const char *name;
    uint8_t softirq;     /* raised after it: NET_RX 3, BLOCK 4, 0 none */
} irq_sources[] = {
    {36, "virtio1-req.0", 4}, {24, "virtio0-input.0", 3}, {25, "virtio0-output.0", 0},
    {130, "nvme0q1", 4}, {131, "nvme0q2", 4}, {138, "i915", 0}, {139, "xhci_hcd", 0},
    {142, "snd_hda_intel:card0", 0}, {28, "radeon", 0}, {140, "iwlwifi", 3},
};
#define NIRQ_SOURCES (sizeof irq_sources / sizeof *irq_sources)

static const struct work_kind {
    const char *function, *workqueue;
} work_kinds[] = {
    {"blk_mq_requeue_work", "kblockd"}, {"ext4_end_io_rsv_work", "ext4-rsv-conversion"},
    {"vmstat_update", "mm_percpu_wq"}, {"flush_to_ldisc", "events_unbound"},
    {"drm_sched_run_job_work", "gfx_0.0.0"}, {"psi_avgs_work", "events"},
    {"wb_workfn", "writeback"}, {"gc_worker", "events_power_efficient"},
};
#define NWORK_KINDS (sizeof work_kinds / sizeof *work_kinds)

/* Work queued on CPU from CTX for the CPU's kworker (or an unbound one,
 * cpu=-1), which is woken when it sleeps. */
static void queue_work(uint32_t cpu, enum ctx ctx)
{
    uint8_t kind = (uint8_t)rng_below(NWORK_KINDS);
    const struct work_kind *wk = &work_kinds[kind];
    bool unbound = rng_below(4) == 0;
    uint32_t ki = unbound ? unbound_kworkers[rng_below(4)] : cpus[cpu].kworker;
    thread *k = &threads[ki];
    if (k->work_count == WORK_RING)
        return;     /* the kworker is behind: nothing queued */
    uint64_t ws = hashed_ptr();
    k->work[(k->work_head + k->work_count) % WORK_RING] = ws;
    k->work_kind[(k->work_head + k->work_count) % WORK_RING] = kind;
    k->work_count++;
    begin_line(cpu, cur(cpu), true, ctx, 2);
    PUT_LIT("workqueue_queue_work: work struct=");
    put_hex_min(ws, 16);
    PUT_LIT(" function=");
    put_str(wk->function);
    PUT_LIT(" workqueue=");
    put_str(wk->workqueue);
    put_str(unbound ? " req_cpu=256 cpu=-1" : " req_cpu=256 cpu=");
    if (!unbound)
        put_dec(cpu);
    end_line();
    wake_if_blocked(cpu, ctx, ki);
}

static void device_irq(uint32_t cpu)
{
    const struct irq_source *src = &irq_sources[rng_below(NIRQ_SOURCES)];
    thread *t = cur(cpu);
    begin_line(cpu, t, true, CTX_HARDIRQ, 0);
    PUT_LIT("irq_handler_entry: irq=");
    put_dec(src->irq);
    PUT_LIT(" name=");
    put_str(src->name);
    end_line();
    /* a disk or device completion wakes a thread in D or a reader */
    if (rng_below(3) == 0) {
        int64_t i = find_blocked(is_user, NULL);
        if (i >= 0) {
            uint32_t ti = blocked[i];
            remove_blocked((uint32_t)i);
            wake(cpu, CTX_HARDIRQ, ti);
        }
    }
    if (rng_below(8) == 0)
        queue_work(cpu, CTX_HARDIRQ);
    begin_line(cpu, t, true, CTX_HARDIRQ, 0);
    PUT_LIT("irq_handler_exit: irq=");
    put_dec(src->irq);
    put_str(rng_below(16) == 0 ? " ret=unhandled" : " ret=handled");
    end_line();
    if (src->softirq != 0)
        softirq_lines(cpu, src->softirq, rng_below(3) == 0);
}

/* ---- processes ------------------------------------------------------------ */

static const char *const child_commands[] = {
    "sh", "cat", "grep", "sed", "git", "ls", "cc1", "as", "ld", "python3",
    "node", "awk", "sort", "xdg-open", "pkexec", "gio",
};
#define NCHILD_COMMANDS (sizeof child_commands / sizeof *child_commands)

static void set_comm(thread *t, const char *comm)
{
    size_t n = strlen(comm);
    if (n > 15)
        n = 15;
    memcpy(t->comm, comm, n);
    t->comm[n] = '\0';
}

/* The user thread on CPU forks a short-lived process (when a slot is
 * free): task_newtask, sched_process_fork, sched_wakeup_new; the child
 * execs a command on its first run. The parent then waits for it. */
static bool fork_child(uint32_t cpu)
{
    thread *p = cur(cpu);
    uint32_t slot = UINT32_MAX;
    for (uint32_t i = 0; i < nchild_slots; i++) {
        if (threads[first_child + i].state == TS_DEAD) {
            slot = first_child + i;
            break;
        }
    }
    if (slot == UINT32_MAX)
        return false;
    uint32_t ci = slot;
    thread *c = &threads[ci];
    uint32_t pid = next_pid++;
    *c = (thread){.tid = pid, .tgid = pid, .tgid_known = true, .kind = TK_USER, .state = TS_RUNNABLE,
                  .role = ROLE_WORKER, .prio = 120, .syscall = SC_COUNT,
                  .parent = (uint32_t)(p - threads), .life = 4 + rng_below(60),
                  .timer = hashed_ptr()};
    memcpy(c->comm, p->comm, sizeof c->comm);
    begin_line(cpu, p, false, CTX_TASK, 0);
    PUT_LIT("task_newtask: pid=");
    put_dec(pid);
    PUT_LIT(" comm=");
    put_str(p->comm);
    PUT_LIT(" clone_flags=1200000 oom_score_adj=0");
    end_line();
    begin_line(cpu, p, false, CTX_TASK, 0);
    PUT_LIT("sched_process_fork: comm=");
    put_str(p->comm);
    PUT_LIT(" pid=");
    put_dec(p->tid);
    PUT_LIT(" child_comm=");
    put_str(p->comm);
    PUT_LIT(" child_pid=");
    put_dec(pid);
    end_line();
    uint32_t target = opt_cpus > 1 ? rng_below(opt_cpus) : 0;
    begin_line(cpu, p, true, CTX_TASK, 2);
    PUT_LIT("sched_wakeup_new: comm=");
    put_str(c->comm);
    PUT_LIT(" pid=");
    put_dec(pid);
    PUT_LIT(" prio=120 target_cpu=");
    put_dec_zero(target, 3);
    end_line();
    rq_push(target, ci);
    c->life |= 0x80000000u;   /* not exec'd yet */
    return true;
}

static void exec_child(uint32_t cpu, thread *c)
{
    const char *cmd = child_commands[rng_below(NCHILD_COMMANDS)];
    begin_line(cpu, c, false, CTX_TASK, 0);
    PUT_LIT("task_rename: pid=");
    put_dec(c->tid);
    PUT_LIT(" oldcomm=");
    put_str(c->comm);
    PUT_LIT(" newcomm=");
    put_str(cmd);
    PUT_LIT(" oom_score_adj=0");
    end_line();
    set_comm(c, cmd);
    begin_line(cpu, c, false, CTX_TASK, 0);
    PUT_LIT("sched_process_exec: filename=/usr/bin/");
    put_str(cmd);
    PUT_LIT(" pid=");
    put_dec(c->tid);
    PUT_LIT(" old_pid=");
    put_dec(c->tid);
    end_line();
    c->life &= ~0x80000000u;
}

/* The child on CPU exits: sched_process_exit, its parent woken when it
 * waits in wait4, then the last switch (Z, or X when reaped at once). */
static void exit_child(uint32_t cpu)
{
    thread *c = cur(cpu);
    begin_line(cpu, c, false, CTX_TASK, 0);
    PUT_LIT("sched_process_exit: comm=");
    put_str(c->comm);
    PUT_LIT(" pid=");
    put_dec(c->tid);
    PUT_LIT(" prio=120 group_dead=true");
    end_line();
    if (threads[c->parent].syscall == SC_WAIT4)
        wake_if_blocked(cpu, CTX_TASK, c->parent);
    switch_out(cpu, rng_below(4) == 0 ? "X" : "Z");
}

/* ---- one step of a user thread -------------------------------------------- */

static uint64_t user_ptr(const thread *t) { return 0x7ffc00000000ull + ((uint64_t)t->tid << 16) + rng_below(1u << 12) * 16u; }

/* Enters a syscall: the enter line, then what it does at once (a wake),
 * and whether it blocks or returns is decided on its next step. */
static void syscall_enter(uint32_t cpu, thread *t)
{
    uint8_t sc = role_pick[t->role][rng_below(64)];
    uint64_t a[6] = {0};
    uint64_t base = proc_base(t);
    int64_t waiter = -1;    /* in blocked: the thread this syscall wakes */
    switch (sc) {
    case SC_READ:
    case SC_WRITE:
    case SC_PREAD64:
        a[0] = 3 + rng_below(40);
        a[1] = user_ptr(t);
        a[2] = rng_below(4) == 0 ? 8 : 1u << (rng_below(13));
        a[3] = sc == SC_PREAD64 ? (uint64_t)rng_below(1u << 20) * 4096u : 0;
        t->wait_fd = (uint32_t)a[0];
        break;
    case SC_FUTEX_WAIT: {
        bool timed = rng_below(3) == 0;
        a[0] = base + rng_below(32) * 8u;
        a[1] = timed ? 0x189 : 0x80;          /* WAIT_BITSET|PRIVATE|REALTIME, WAIT|PRIVATE */
        a[2] = rng_below(4);
        a[3] = timed ? user_ptr(t) : 0;
        a[5] = timed ? 0xffffffff : 0;
        t->wait_addr = a[0];
        break;
    }
    case SC_FUTEX_WAKE:
        waiter = find_blocked(waits_on_futex, &t->tgid);
        a[0] = waiter >= 0 ? threads[blocked[waiter]].wait_addr : base + rng_below(32) * 8u;
        a[1] = 0x81;                            /* WAKE|PRIVATE */
        a[2] = rng_below(4) == 0 ? 0x7fffffff : 1;
        break;
    case SC_POLL:
        a[0] = user_ptr(t);
        a[1] = 1 + rng_below(12);
        a[2] = rng_below(3) == 0 ? 0 : rng_below(2) ? 0xffffffffffffffffull : 16 + rng_below(1000);
        break;
    case SC_PPOLL:
        a[0] = user_ptr(t);
        a[1] = 1 + rng_below(12);
        a[2] = rng_below(2) ? user_ptr(t) : 0;
        a[3] = 0;
        a[4] = 8;
        break;
    case SC_EPOLL_WAIT:
        a[0] = 3 + rng_below(8);
        a[1] = user_ptr(t);
        a[2] = 32 + rng_below(4) * 32;
        a[3] = rng_below(2) ? 0xffffffffffffffffull : rng_below(5000);
        break;
    case SC_RECVMSG:
    case SC_SENDMSG:
        a[0] = 3 + rng_below(40);
        a[1] = user_ptr(t);
        a[2] = sc == SC_RECVMSG && rng_below(2) ? 0x40 : 0;   /* MSG_DONTWAIT */
        t->wait_fd = (uint32_t)a[0];
        break;
    case SC_CLOCK_NANOSLEEP:
        a[0] = 1;
        a[1] = 0;
        a[2] = user_ptr(t);
        a[3] = 0;
        break;
    }
    syscall_enter_line(cpu, t, sc, a);
    t->syscall = sc;
    t->entered = true;
    t->resumed = false;
    t->timed_out = false;
    /* the waking ones wake a waiter at once */
    if (sc == SC_FUTEX_WAKE) {
        int64_t woken = 0;
        if (waiter >= 0) {
            uint32_t ti = blocked[waiter];
            remove_blocked((uint32_t)waiter);
            wake(cpu, CTX_TASK, ti);
            woken = 1;
        }
        syscall_exit_line(cpu, t, sc, woken);
        t->syscall = SC_COUNT;
    } else if ((sc == SC_WRITE || sc == SC_SENDMSG) && rng_below(2) == 0) {
        int64_t i = find_blocked(waits_on_fd, NULL);
        if (i >= 0) {
            uint32_t ti = blocked[i];
            remove_blocked((uint32_t)i);
            wake(cpu, CTX_TASK, ti);
        }
        syscall_exit_line(cpu, t, sc, sc == SC_WRITE ? (int64_t)a[2] : 64 + rng_below(512));
        t->syscall = SC_COUNT;
    }
}

static bool may_block(uint8_t sc)
{
    return sc == SC_READ || sc == SC_FUTEX_WAIT || sc == SC_POLL || sc == SC_PPOLL ||
           sc == SC_EPOLL_WAIT || sc == SC_RECVMSG || sc == SC_CLOCK_NANOSLEEP ||
           sc == SC_PREAD64 || sc == SC_WAIT4;
}

/* The return value of SC when it returns without blocking (WOKEN: after a
 * wait; TIMED_OUT: its timeout fired). */
static int64_t syscall_result(const thread *t, uint8_t sc, bool woken)
{
    switch (sc) {
    case SC_READ:
    case SC_PREAD64:
        return rng_below(8) == 0 ? -E_AGAIN : (int64_t)(1 + rng_below(4096));
    case SC_WRITE:
    case SC_SENDMSG:
        return 1 + rng_below(4096);
    case SC_FUTEX_WAIT:
        if (t->timed_out)
            return -E_TIMEDOUT;
        return woken ? 0 : -E_AGAIN;
    case SC_POLL:
    case SC_PPOLL:
    case SC_EPOLL_WAIT:
        return t->timed_out ? 0 : 1 + rng_below(3);
    case SC_RECVMSG:
        return !woken && rng_below(2) == 0 ? -E_AGAIN : 32 + (int64_t)rng_below(4000);
    case SC_CLOCK_NANOSLEEP:
        return rng_below(64) == 0 ? -E_INTR : 0;
    case SC_WAIT4:
        return next_pid - 1 - rng_below(8);
    default:
        return 0;
    }
}

static void user_step(uint32_t cpu)
{
    cpu_state *c = &cpus[cpu];
    thread *t = cur(cpu);
    /* a child runs: exec first, exit outside a syscall when its life
     * is over */
    if (t->life & 0x80000000u) {
        exec_child(cpu, t);
        return;
    }
    if (t->life != 0 && t->syscall == SC_COUNT && --t->life == 0) {
        exit_child(cpu);
        return;
    }
    if (t->syscall != SC_COUNT) {
        uint8_t sc = t->syscall;
        if (t->resumed) {
            /* woken inside it: cancel the timeout that did not fire */
            if (t->deadline != 0) {
                hrtimer_simple_line(cpu, CTX_TASK, "hrtimer_cancel", t->timer);
                t->deadline = 0;
            }
            syscall_exit_line(cpu, t, sc, syscall_result(t, sc, true));
            t->syscall = SC_COUNT;
            t->resumed = false;
            return;
        }
        if (may_block(sc) && rng_below(2) == 0) {
            /* timeouts arm the thread's hrtimer */
            bool timeout = sc == SC_CLOCK_NANOSLEEP || (sc != SC_READ && sc != SC_PREAD64 &&
                                                        sc != SC_WAIT4 && rng_below(2) == 0);
            if (timeout) {
                t->deadline = now + 50000 + rng_below(sc == SC_CLOCK_NANOSLEEP ? 20000000 : 100000000);
                hrtimer_start_line(cpu, CTX_TASK, t->timer, "hrtimer_wakeup", t->deadline,
                                   sc == SC_CLOCK_NANOSLEEP ? "REL" : "ABS");
            }
            const char *state = sc == SC_PREAD64 || (sc == SC_READ && rng_below(8) == 0) ? "D" : "S";
            switch_out(cpu, state);
            return;
        }
        syscall_exit_line(cpu, t, sc, syscall_result(t, sc, false));
        t->syscall = SC_COUNT;
        return;
    }
    if (now >= c->next_tick) {
        tick(cpu);
        return;
    }
    uint32_t r = rng_below(100);
    if (r < 62) {
        syscall_enter(cpu, t);
    } else if (r < 72) {
        if (c->rq_count > 0)
            switch_out(cpu, rng_below(4) == 0 ? "R+" : "R");   /* preempted */
        else
            syscall_enter(cpu, t);
    } else if (r < 74) {
        device_irq(cpu);
    } else if (r < 76) {
        queue_work(cpu, CTX_TASK);
    } else if (r < 77 && t->role == ROLE_MAIN && t->life == 0) {
        if (fork_child(cpu)) {
            /* the parent waits for it, as a shell does */
            uint64_t a[6] = {0xffffffff, user_ptr(t), 0, 0, 0, 0};
            syscall_enter_line(cpu, t, SC_WAIT4, a);
            t->syscall = SC_WAIT4;
            t->resumed = false;
            t->timed_out = false;
        }
    } else if (r < 79) {
        unknown_stat_runtime(cpu, t);
    } else {
        /* back to user space for a while: nothing to see but the next
         * event; let another thread have a go when it can */
        if (c->rq_count > 0 && rng_below(2) == 0)
            switch_out(cpu, "R");
        else
            syscall_enter(cpu, t);
    }
}

/* ---- one step of a CPU ---------------------------------------------------- */

static void kernel_step(uint32_t cpu)
{
    thread *t = cur(cpu);
    if (t->kind == TK_KWORKER && t->work_count > 0) {
        uint64_t ws = t->work[t->work_head];
        const struct work_kind *wk = &work_kinds[t->work_kind[t->work_head]];
        t->work_head = (uint8_t)((t->work_head + 1) % WORK_RING);
        t->work_count--;
        for (int pass = 0; pass < 2; pass++) {
            begin_line(cpu, t, false, CTX_TASK, 0);
            put_str(pass == 0 ? "workqueue_execute_start: work struct " : "workqueue_execute_end: work struct ");
            put_hex_min(ws, 16);
            PUT_LIT(": function ");
            put_str(wk->function);
            end_line();
            if (pass == 0 && rng_below(4) == 0) {
                int64_t i = find_blocked(is_user, NULL);
                if (i >= 0) {
                    uint32_t ti = blocked[i];
                    remove_blocked((uint32_t)i);
                    wake(cpu, CTX_TASK, ti);
                }
            }
        }
        return;
    }
    /* ksoftirqd runs the softirqs left over */
    if (t->kind == TK_KTHREAD && cpus[cpu].ksoftirqd == cpus[cpu].current && rng_below(2) == 0) {
        softirq_lines(cpu, rng_below(2) ? 1 : 9, false);
        return;
    }
    switch_out(cpu, t->kind == TK_KWORKER || rng_below(2) == 0 ? "I" : "S");
}

/* An idle CPU: it runs what was woken for it, takes its tick when due,
 * and otherwise mostly waits; interrupts come now and then and wake
 * blocked threads, which keeps the machine going. */
static void idle_step(uint32_t cpu)
{
    cpu_state *c = &cpus[cpu];
    if (c->rq_count > 0) {
        switch_out(cpu, "R");
        return;
    }
    if (now >= c->next_tick) {
        tick(cpu);
        return;
    }
    uint32_t r = rng_below(256);
    if (r < 4) {
        device_irq(cpu);
    } else if (r < 6) {
        begin_line(cpu, cur(cpu), true, CTX_TASK, 1);
        PUT_LIT("tick_stop: success=1 dependency=NONE");
        end_line();
    } else if (r < 8) {
        begin_line(cpu, cur(cpu), true, CTX_TASK, 1);
        PUT_LIT("cpu_idle: state=");
        put_dec(rng_below(2) ? 1 : 4294967295u);
        PUT_LIT(" cpu_id=");
        put_dec(cpu);
        end_line();
    } else if (r < 28) {
        /* an interrupt that wakes a thread blocked without a timeout */
        int64_t i = find_blocked(is_user, NULL);
        if (i >= 0 && threads[blocked[i]].deadline == 0) {
            const struct irq_source *src = &irq_sources[rng_below(NIRQ_SOURCES)];
            uint32_t ti = blocked[i];
            remove_blocked((uint32_t)i);
            begin_line(cpu, cur(cpu), true, CTX_HARDIRQ, 0);
            PUT_LIT("irq_handler_entry: irq=");
            put_dec(src->irq);
            PUT_LIT(" name=");
            put_str(src->name);
            end_line();
            wake(cpu, CTX_HARDIRQ, ti);
            begin_line(cpu, cur(cpu), true, CTX_HARDIRQ, 0);
            PUT_LIT("irq_handler_exit: irq=");
            put_dec(src->irq);
            PUT_LIT(" ret=handled");
            end_line();
        }
    }
}

static void step(uint32_t cpu)
{
    now += 200 + rng_below(4000);
    thread *t = cur(cpu);
    if (t->kind == TK_IDLE)
        idle_step(cpu);
    else if (t->kind == TK_USER)
        user_step(cpu);
    else
        kernel_step(cpu);
}

/* ---- set-up --------------------------------------------------------------- */

static const char *const proc_names[] = {
    "systemd", "gnome-shell", "Xwayland", "firefox", "Web Content", "Isolated Web Co",
    "WebExtensions", "RDD Process", "Socket Process", "pipewire", "wireplumber",
    "pipewire-pulse", "dbus-daemon", "NetworkManager", "gnome-terminal-", "bash",
    "code", "chrome", "Xorg", "gsd-color", "gvfsd", "tracker-miner-f", "evolution-alarm",
    "ibus-daemon", "spotify", "slack", "thunderbird", "nautilus", "systemd-journal",
    "systemd-oomd", "containerd", "dockerd", "sshd", "cupsd", "polkitd", "make",
    "gjs", "gnome-software", "packagekitd", "upowerd",
};
#define NPROC_NAMES (sizeof proc_names / sizeof *proc_names)

static const char *const thread_names[] = {
    "gmain", "gdbus", "pool-0", "Timer", "DOM Worker", "Socket Thread", "IPC I/O Parent",
    "IPC I/O Child", "JS Watchdog", "Compositor", "CanvasRenderer", "ImageBridgeChld",
    "StyleThread", "dconf worker", "threaded-ml", "Chrome_IOThread", "ThreadPoolForeg",
    "MediaPD~oder #1", "Backgro~Pool #1", "JS Helper", "GC Worker", "data-loop.0",
};
#define NTHREAD_NAMES (sizeof thread_names / sizeof *thread_names)

static thread *add_thread(uint32_t tid, uint32_t tgid, const char *comm, uint8_t kind, uint8_t prio)
{
    thread *t = &threads[nthreads++];
    *t = (thread){.tid = tid, .tgid = tgid, .tgid_known = tgid != 0, .kind = kind,
                  .state = TS_BLOCKED, .prio = prio, .syscall = SC_COUNT, .timer = hashed_ptr()};
    set_comm(t, comm);
    return t;
}

static void setup(void)
{
    for (int r = 0; r < 4; r++) {
        uint32_t at = 0, sum = 0;
        for (size_t i = 0; i < NROLE_WEIGHTS; i++) {
            for (uint32_t k = 0; k < role_weights[i].w[r]; k++)
                role_pick[r][at++] = role_weights[i].sc;
            sum += role_weights[i].w[r];
        }
        if (sum != 64) {
            fprintf(stderr, "gen-ftrace: role %d weights sum to %u, not 64\n", r, sum);
            exit(70);
        }
    }
    /* 16 threads at most a process, 6 kernel threads a CPU, 8 more, 16
     * child slots */
    nchild_slots = 16;
    threads_cap = opt_procs * 16 + opt_cpus * 6 + 8 + nchild_slots;
    threads = calloc(threads_cap, sizeof *threads);
    cpus = calloc(opt_cpus, sizeof *cpus);
    blocked = calloc(threads_cap, sizeof *blocked);
    out_buf = malloc(OUT_SIZE);
    if (threads == NULL || cpus == NULL || blocked == NULL || out_buf == NULL) {
        fprintf(stderr, "gen-ftrace: out of memory\n");
        exit(70);
    }
    char name[32];
    /* kernel threads: idle tasks (pid 0), per-CPU threads, a few more */
    for (uint32_t c = 0; c < opt_cpus; c++) {
        cpu_state *cs = &cpus[c];
        cs->rq = calloc(threads_cap, sizeof *cs->rq);
        if (cs->rq == NULL) {
            fprintf(stderr, "gen-ftrace: out of memory\n");
            exit(70);
        }
        thread *idle = add_thread(0, 0, "swapper", TK_IDLE, 120);
        idle->cpu = (uint16_t)c;
        idle->state = TS_RUNNING;
        cs->idle = cs->current = nthreads - 1;
        cs->tick_timer = hashed_ptr();
    }
    uint32_t pid = 14;
    add_thread(15, 15, "rcu_preempt", TK_KTHREAD, 120)->cpu = 0;
    rcu_preempt = nthreads - 1;
    for (uint32_t c = 0; c < opt_cpus; c++) {
        snprintf(name, sizeof name, "migration/%u", c);
        add_thread(pid + 2 + c * 6, pid + 2 + c * 6, name, TK_KTHREAD, 0)->cpu = (uint16_t)c;
        snprintf(name, sizeof name, "ksoftirqd/%u", c);
        add_thread(pid + 3 + c * 6, pid + 3 + c * 6, name, TK_KTHREAD, 120)->cpu = (uint16_t)c;
        cpus[c].ksoftirqd = nthreads - 1;
        snprintf(name, sizeof name, "kworker/%u:1", c);
        add_thread(pid + 4 + c * 6, pid + 4 + c * 6, name, TK_KWORKER, 120)->cpu = (uint16_t)c;
        cpus[c].kworker = nthreads - 1;
        snprintf(name, sizeof name, "kworker/%u:1H", c);
        add_thread(pid + 5 + c * 6, pid + 5 + c * 6, name, TK_KWORKER, 100)->cpu = (uint16_t)c;
    }
    for (uint32_t k = 0; k < 4; k++) {
        snprintf(name, sizeof name, "kworker/u%u:%u", opt_cpus * 2, k);
        uint32_t tid = 9000 + k * 37;
        add_thread(tid, tid, name, TK_KWORKER, 120)->cpu = (uint16_t)(k % opt_cpus);
        unbound_kworkers[k] = nthreads - 1;
    }
    add_thread(300, 300, "jbd2/nvme0n1p2-", TK_KTHREAD, 120);
    add_thread(120, 120, "kcompactd0", TK_KTHREAD, 120);
    /* user processes: a main thread and 0 to 15 more */
    pid = 1000;
    for (uint32_t p = 0; p < opt_procs; p++) {
        uint32_t nt = 1 + (rng_below(3) == 0 ? rng_below(16) : rng_below(4));
        const char *pname = proc_names[p % NPROC_NAMES];
        /* a tenth of the processes have no tgid in saved_tgids */
        bool known = rng_below(10) != 0;
        for (uint32_t k = 0; k < nt; k++) {
            const char *tname = k == 0 ? pname : thread_names[rng_below(NTHREAD_NAMES)];
            uint8_t prio = (uint8_t)(rng_below(8) == 0 ? 100 + rng_below(20) : 120);
            thread *t = add_thread(pid + k, pid, tname, TK_USER, prio);
            t->tgid_known = known;
            t->role = k == 0 ? ROLE_MAIN : (uint8_t)(1 + rng_below(3));
            t->cpu = (uint16_t)rng_below(opt_cpus);
        }
        pid += nt + rng_below(200);
    }
    next_pid = pid + 1000;
    first_child = nthreads;
    for (uint32_t i = 0; i < nchild_slots; i++) {
        thread *t = add_thread(0, 0, "", TK_USER, 120);
        t->state = TS_DEAD;
    }
    /* every thread but the idle tasks starts blocked: user threads inside
     * a syscall whose enter came before the trace */
    for (uint32_t i = 0; i < first_child; i++) {
        thread *t = &threads[i];
        if (t->kind == TK_IDLE)
            continue;
        if (t->kind == TK_USER) {
            t->syscall = role_pick[t->role][rng_below(64)];
            if (!may_block(t->syscall) || t->syscall == SC_WAIT4)
                t->syscall = SC_FUTEX_WAIT;
            t->wait_addr = proc_base(t) + rng_below(32) * 8u;
            if (rng_below(3) == 0)
                t->deadline = now + rng_below(200000000);
        }
        blocked[nblocked++] = i;
    }
}

static void write_header(void)
{
    if (!opt_header)
        return;
    /* argus-record's thread lines: the threads alive at the start */
    for (uint32_t i = 0; i < first_child; i++) {
        const thread *t = &threads[i];
        if (t->kind == TK_IDLE)
            continue;
        if (out_len > OUT_SIZE - LINE_MAX_BYTES)
            flush_out();
        PUT_LIT("# argus-thread: tid=");
        put_dec(t->tid);
        PUT_LIT(" tgid=");
        put_dec(t->tgid);
        put_str(t->kind == TK_USER ? " kernel=0 comm=" : " kernel=1 comm=");
        put_str(t->comm);
        put_char('\n');
    }
    PUT_LIT("# tracer: nop\n#\n# entries-in-buffer/entries-written: ");
    put_dec(opt_lines);
    put_char('/');
    put_dec(opt_lines);
    PUT_LIT("   #P:");
    put_dec(opt_cpus);
    PUT_LIT("\n#\n");
    /* the column legend, as tracefs prints it for each layout */
    static const char *const legend5[] = {
        "_-----=> irqs-off/BH-disabled", "/ _----=> need-resched",
        "| / _---=> hardirq/softirq", "|| / _--=> preempt-depth",
        "||| / _-=> migrate-disable", "|||| /     delay", NULL,
    };
    static const char *const legend4[] = {
        "_-----=> irqs-off", "/ _----=> need-resched", "| / _---=> hardirq/softirq",
        "|| / _--=> preempt-depth", "||| /     delay", NULL,
    };
    if (opt_flags > 0) {
        const char *const *legend = opt_flags == 5 ? legend5 : legend4;
        /* the legend's indent: the width of the columns before the flags */
        int indent = opt_flags == 5 ? (opt_tgid ? 42 : 32) : (opt_tgid ? 38 : 30);
        for (int i = 0; legend[i] != NULL; i++) {
            put_char('#');
            put_spaces(indent - (i < 2 ? i : 2));
            put_str(legend[i]);
            put_char('\n');
        }
    }
    if (opt_flags == 5 && opt_tgid)
        PUT_LIT("#           TASK-PID       TGID    CPU#  |||||  TIMESTAMP  FUNCTION\n"
                "#              | |           |       |   |||||     |         |\n");
    else if (opt_flags == 5)
        PUT_LIT("#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
                "#              | |         |   |||||     |         |\n");
    else if (opt_flags == 4 && opt_tgid)
        PUT_LIT("#           TASK-PID   TGID   CPU#  ||||    TIMESTAMP  FUNCTION\n"
                "#              | |       |      |   ||||       |         |\n");
    else if (opt_flags == 4)
        PUT_LIT("#           TASK-PID   CPU#  ||||    TIMESTAMP  FUNCTION\n"
                "#              | |       |   ||||       |         |\n");
    else if (opt_tgid)
        PUT_LIT("#           TASK-PID       TGID    CPU#     TIMESTAMP  FUNCTION\n"
                "#              | |           |       |         |         |\n");
    else
        PUT_LIT("#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n"
                "#              | |         |         |         |\n");
}

/* ---- main ----------------------------------------------------------------- */

static uint64_t parse_uint(const char *s, const char *opt, uint64_t lo, uint64_t hi)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || *s == '-' || v < lo || v > hi) {
        fprintf(stderr, "gen-ftrace: %s: not a number from %llu to %llu: %s\n", opt,
                (unsigned long long)lo, (unsigned long long)hi, s);
        exit(64);
    }
    return v;
}

int main(int argc, char **argv)
{
    enum { OPT_NO_TGID = 256, OPT_FLAGS, OPT_DECIMALS, OPT_SYSCALLS, OPT_NO_HEADER };
    static const struct option longopts[] = {
        {"lines", required_argument, NULL, 'n'},
        {"cpus", required_argument, NULL, 'c'},
        {"processes", required_argument, NULL, 'p'},
        {"seed", required_argument, NULL, 's'},
        {"no-tgid", no_argument, NULL, OPT_NO_TGID},
        {"flags", required_argument, NULL, OPT_FLAGS},
        {"decimals", required_argument, NULL, OPT_DECIMALS},
        {"syscalls", required_argument, NULL, OPT_SYSCALLS},
        {"no-header", no_argument, NULL, OPT_NO_HEADER},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    while ((opt = getopt_long(argc, argv, "n:c:p:s:h", longopts, NULL)) != -1) {
        switch (opt) {
        case 'n':
            opt_lines = parse_uint(optarg, "--lines", 0, UINT64_MAX);
            break;
        case 'c':
            opt_cpus = (uint32_t)parse_uint(optarg, "--cpus", 1, 256);
            break;
        case 'p':
            opt_procs = (uint32_t)parse_uint(optarg, "--processes", 1, 1000);
            break;
        case 's':
            opt_seed = parse_uint(optarg, "--seed", 0, UINT64_MAX);
            break;
        case OPT_NO_TGID:
            opt_tgid = false;
            break;
        case OPT_NO_HEADER:
            opt_header = false;
            break;
        case OPT_FLAGS:
            opt_flags = (int)parse_uint(optarg, "--flags", 0, 5);
            if (opt_flags != 0 && opt_flags != 4 && opt_flags != 5) {
                fprintf(stderr, "gen-ftrace: --flags: 0, 4 or 5, not %s\n", optarg);
                return 64;
            }
            break;
        case OPT_DECIMALS:
            opt_decimals = (int)parse_uint(optarg, "--decimals", 6, 9);
            if (opt_decimals != 6 && opt_decimals != 9) {
                fprintf(stderr, "gen-ftrace: --decimals: 6 or 9, not %s\n", optarg);
                return 64;
            }
            break;
        case OPT_SYSCALLS:
            if (strcmp(optarg, "call") == 0) {
                opt_event_syscalls = false;
            } else if (strcmp(optarg, "event") == 0) {
                opt_event_syscalls = true;
            } else {
                fprintf(stderr, "gen-ftrace: --syscalls: call or event, not %s\n", optarg);
                return 64;
            }
            break;
        case 'h':
            fputs(usage, stdout);
            return 0;
        default:
            fputs(usage, stderr);
            return 64;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "gen-ftrace: unexpected argument: %s (see --help)\n", argv[optind]);
        return 64;
    }
    old_layout = opt_flags == 4;
    rng_state = opt_seed;
    setup();
    write_header();
    while (lines_done < opt_lines)
        step(rng_below(opt_cpus));
    flush_out();
    return 0;
}
