/* bench/gen-kdebug: writes a deterministic synthetic macOS kdebug
 * RAW_VERSION1 file to stdout, for measuring `argus-decode --format kdebug`
 * (bench/run.sh, docs/performance.md).
 *
 * The layout is the one xnu's kdebug writes (facts.md, "macOS kdebug
 * binary formats"): a 24-byte header, the thread map, the CPU map hidden
 * in the padding after it, zeros up to the next 4 KiB boundary, then
 * 64-byte kd_buf records, little-endian.
 *
 * The records come from a small simulation of a machine, so that what the
 * decoder pairs is there to pair: each CPU runs one thread at a time;
 * threads make BSD syscalls and Mach traps (START, then END), block inside
 * some of them (MACH_WAIT, MACH_BLOCK, then a MACH_SCHED that switches in
 * the next runnable thread, or the CPU's idle thread), are made runnable
 * by other threads or by timer callouts in interrupts (MACH_MKRUNNABLE)
 * and switched in again later; Mach messages are sent with a kmsg_info
 * and received by a thread of the destination process with the same kmsg;
 * timers are armed and later fire in interrupts. About a tenth of the
 * records are codes the decoder's default table does not know (PERF
 * samples, VM faults, ...). Timestamps grow by 200 to 2000 ticks a record;
 * now and then a record is written up to 8 records early, as merging
 * per-CPU buffers does in real traces (never ahead of a record of its own
 * CPU, so every CPU's records stay in order).
 *
 * No libargus: this writes the input of a decoder, not a stream. Memory is
 * fixed after start-up, and nothing is allocated per record. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "Usage: gen-kdebug [--size-mb N] [--threads N] [--cpus N] [--seed N] > FILE\n"
    "Write a deterministic synthetic macOS kdebug RAW_VERSION1 file to stdout.\n"
    "\n"
    "The same options give the same bytes. The file has the 24-byte header,\n"
    "a thread map (kernel_task threads in pid 0, one idle thread per CPU, and\n"
    "user processes of 1 to 16 threads), a CPU map in the padding after it,\n"
    "and 64-byte kd_buf records from the first 4 KiB boundary on: syscalls,\n"
    "Mach traps, waits, context switches, wakeups, interrupts, timers, Mach\n"
    "messages, and about 10% codes the default table does not know. Records\n"
    "are in timestamp order but for a few up to 8 records early.\n"
    "\n"
    "  -m, --size-mb N   file size in MB (10^6 bytes), rounded down to whole\n"
    "                    records (default 100)\n"
    "  -t, --threads N   thread map entries, kernel threads included\n"
    "                    (default 1000; at least CPUS + 8)\n"
    "  -c, --cpus N      CPUs, 1 to 256 (default 8)\n"
    "  -s, --seed N      PRNG seed (default 1)\n"
    "  -h, --help        show this help\n";

#include "rng.h"

/* ---- debugids (xnu bsd/sys/kdebug.h, bsd/kern/trace_codes) ---------------- */

#define FUNC_START 1u
#define FUNC_END 2u

#define MACH_SCHED 0x1400000u
#define MACH_STKHANDOFF 0x1400008u
#define MACH_MKRUNNABLE 0x1400018u
#define MACH_BLOCK 0x140003Cu
#define MACH_WAIT 0x1400040u
#define MACH_SCHED_MAINTENANCE 0x140007Cu
#define INTERRUPT 0x1050000u
#define BSC_BASE 0x040c0000u
#define MSC_BASE 0x010c0000u
#define IPC_SET_VOUCHER 0x1200008u
#define IPC_MSG_SEND 0x120000Cu
#define IPC_MSG_RECV 0x1200010u
#define IPC_KMSG_FREE 0x1200018u
#define IPC_KMSG_INFO 0x1200028u
#define TMR_CALL_ENTER 0x109001cu
#define TMR_CALL_CANCEL 0x1090020u
#define TMR_CALL_INTR 0x1090008u
/* not in the default table: they become "kdebug" events */
#define PERF_THD_DATA 0x25010014u
#define PERF_THD_CSWITCH 0x25010018u
#define PERF_CS_UHDR 0x25020014u
#define VM_FAULT 0x1300008u
#define VM_PAGE_GRAB 0x130018Cu

/* BSD syscall numbers (bsd/kern/syscalls.master); blocking ones may wait */
#define SYS_read 3
#define SYS_write 4
#define SYS_open 5
#define SYS_close 6
#define SYS_ioctl 54
#define SYS_select 93
#define SYS_fcntl 92
#define SYS_psynch_cvwait 305
#define SYS_stat64 338
#define SYS_kevent 363
#define SYS_workq_kernreturn 368
#define SYS_kevent_qos 374
#define SYS_bsdthread_ctl 478
#define SYS_ulock_wait 515
#define SYS_ulock_wake 516
/* Mach traps (osfmk/kern/syscall_sw.c), by their positive number */
#define MT_mach_reply_port 26
#define MT_mach_msg_trap 31
#define MT_semaphore_signal 33
#define MT_semaphore_wait 36
#define MT_swtch_pri 59
#define MT_thread_switch 61
#define MT_mk_timer_arm 93

static const struct syscall_kind {
    uint16_t num;
    bool mach;
    bool blocks;     /* may wait inside */
    uint16_t weight; /* out of the sum of weights */
} syscall_kinds[] = {
    {SYS_read, false, true, 10},
    {SYS_write, false, false, 8},
    {SYS_open, false, false, 2},
    {SYS_close, false, false, 3},
    {SYS_ioctl, false, false, 4},
    {SYS_select, false, true, 3},
    {SYS_fcntl, false, false, 2},
    {SYS_psynch_cvwait, false, true, 6},
    {SYS_stat64, false, false, 4},
    {SYS_kevent, false, true, 4},
    {SYS_workq_kernreturn, false, true, 6},
    {SYS_kevent_qos, false, true, 3},
    {SYS_bsdthread_ctl, false, false, 2},
    {SYS_ulock_wait, false, true, 5},
    {SYS_ulock_wake, false, false, 4},
    {MT_mach_reply_port, true, false, 2},
    {MT_mach_msg_trap, true, true, 22},
    {MT_semaphore_signal, true, false, 3},
    {MT_semaphore_wait, true, true, 4},
    {MT_swtch_pri, true, false, 3},
    {MT_thread_switch, true, false, 2},
    {MT_mk_timer_arm, true, false, 2},
};
#define NSYSCALL_KINDS (sizeof syscall_kinds / sizeof *syscall_kinds)
/* syscall kind by a uniform draw below 256, built from the weights */
static uint8_t syscall_pick[256];

/* ---- the simulated machine ----------------------------------------------- */

enum phase {
    PH_USER,      /* running outside any syscall */
    PH_SYSCALL,   /* a syscall's START written; its body comes next */
    PH_RESUMED,   /* woken inside a syscall: its END comes next */
};

typedef struct thread {
    uint64_t tid;
    uint32_t pid, proc;     /* proc: index in procs, or UINT32_MAX */
    uint8_t phase;
    uint8_t syscall;        /* index in syscall_kinds while in one */
    bool kernel, idle;
    bool sent;              /* mach_msg: a request went out, reply due */
    uint8_t pri;
} thread;

#define MSG_RING 8      /* queued messages per process; a power of 2 */

typedef struct process {
    uint32_t pid;
    uint32_t first_thread, nthreads;
    uint64_t msg[MSG_RING];
    uint32_t msg_id[MSG_RING];
    uint32_t msg_head, msg_count;
} process;

#define TIMER_RING 64   /* armed timer calls; a power of 2 */

static thread *threads;
static uint32_t nthreads;
static process *procs;
static uint32_t nprocs;
static uint32_t ncpus;
static uint32_t *cpu_thread;        /* running thread per CPU */
static uint32_t *run_queue;         /* FIFO ring of runnable threads */
static uint32_t rq_head, rq_count, rq_size;
static uint32_t *waiting;           /* threads blocked in a wait, unordered */
static uint32_t nwaiting;
static uint64_t timers[TIMER_RING];  /* armed timer calls, oldest first */
static uint32_t timer_head, timer_count;
static uint64_t kmsg_counter, timer_counter;

static const char *const proc_names[] = {
    "launchd", "WindowServer", "Finder", "Dock", "Safari", "com.apple.WebKit",
    "mds_stores", "mdworker_shared", "coreaudiod", "distnoted", "cfprefsd",
    "Mail", "Terminal", "Xcode", "fseventsd", "logd", "powerd", "bluetoothd",
    "hidd", "syslogd", "notifyd", "opendirectoryd", "trustd", "sharingd",
    "UserEventAgent", "loginwindow", "SystemUIServer", "Spotlight", "Music",
    "photoanalysisd", "runningboardd", "configd",
};
#define NPROC_NAMES (sizeof proc_names / sizeof *proc_names)

/* ---- writing: a reorder window, then one large buffer -------------------- */

typedef struct kd_buf {
    uint64_t timestamp;
    uint64_t arg[4];
    uint64_t arg5;          /* the thread id */
    uint32_t debugid;
    uint32_t cpuid;
    uint64_t unused;
} kd_buf;
_Static_assert(sizeof(kd_buf) == 64, "kd_buf is 64 bytes");

#define OUT_SIZE (8u << 20)
static unsigned char *out_buf;
static size_t out_len;

static void write_all(const void *p, size_t n)
{
    const unsigned char *b = p;
    while (n > 0) {
        ssize_t w = write(STDOUT_FILENO, b, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "gen-kdebug: write: %s\n", strerror(errno));
            exit(74);
        }
        b += w;
        n -= (size_t)w;
    }
}

static void flush_out(void)
{
    write_all(out_buf, out_len);
    out_len = 0;
}

/* Records wait here before the buffer, so that one can be written ahead
 * of up to MAX_EARLY records that came before it. */
#define MAX_EARLY 8
#define WINDOW 16           /* a power of 2, > MAX_EARLY */
static kd_buf window[WINDOW];
static uint32_t win_head, win_count;

static uint64_t now = 1000000;
static uint64_t records_left;

static inline void out_record(const kd_buf *r)
{
    if (out_len == OUT_SIZE)
        flush_out();
    memcpy(out_buf + out_len, r, sizeof *r);
    out_len += sizeof *r;
}

/* kd_buf fields are little-endian: this writes the host's layout, so it
 * refuses to build for a big-endian host. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "gen-kdebug writes host-order records: build it on a little-endian host"
#endif

static void emit(uint32_t cpu, const thread *t, uint32_t debugid, uint64_t a1,
                 uint64_t a2, uint64_t a3, uint64_t a4)
{
    if (records_left == 0)
        return;
    records_left--;
    now += 200 + rng_below(1801);
    if (win_count > MAX_EARLY) {
        out_record(&window[win_head]);
        win_head = (win_head + 1) & (WINDOW - 1);
        win_count--;
    }
    /* where the record goes: at the end, or, one time in 512, ahead of
     * the last K records when none of them is of its CPU */
    uint32_t at = win_count;
    if (win_count > 0 && rng_below(512) == 0) {
        uint32_t others = 0;   /* the last records, none of them of CPU */
        while (others < win_count &&
               window[(win_head + win_count - 1 - others) & (WINDOW - 1)].cpuid != cpu)
            others++;
        if (others > 0)
            at = win_count - 1 - rng_below(others);
    }
    for (uint32_t i = win_count; i > at; i--)
        window[(win_head + i) & (WINDOW - 1)] = window[(win_head + i - 1) & (WINDOW - 1)];
    kd_buf *r = &window[(win_head + at) & (WINDOW - 1)];
    r->timestamp = now;
    r->arg[0] = a1;
    r->arg[1] = a2;
    r->arg[2] = a3;
    r->arg[3] = a4;
    r->arg5 = t->tid;
    r->debugid = debugid;
    r->cpuid = cpu;
    r->unused = 0;
    win_count++;
}

static void drain_window(void)
{
    while (win_count > 0) {
        out_record(&window[win_head]);
        win_head = (win_head + 1) & (WINDOW - 1);
        win_count--;
    }
    flush_out();
}

/* ---- addresses ------------------------------------------------------------ */

static uint64_t kernel_addr(uint64_t base, uint64_t n) { return 0xffffff8000000000u + base + n; }
static uint64_t user_addr(const thread *t) { return 0x7ff800000000u + ((uint64_t)t->pid << 20) + rng_below(1u << 16) * 16u; }
static uint64_t wait_event(const thread *t) { return kernel_addr(0x20000000u, ((uint64_t)t->pid << 12) + rng_below(64) * 0x40u); }
static uint64_t next_kmsg(void) { return kernel_addr(0x40000000u, (kmsg_counter++ & 0xffff) * 0x200u); }
static uint64_t kernel_pc(void) { return kernel_addr(0x00200000u, rng_below(1u << 20) * 4u); }

/* ---- scheduling ---------------------------------------------------------- */

static void rq_push(uint32_t ti)
{
    run_queue[(rq_head + rq_count) % rq_size] = ti;
    rq_count++;
}

static uint32_t rq_pop(void)
{
    uint32_t ti = run_queue[rq_head];
    rq_head = (rq_head + 1) % rq_size;
    rq_count--;
    return ti;
}

/* T on CPU switches to the next runnable thread, or to the CPU's idle
 * thread; T goes back on the run queue when it was preempted. */
static void switch_out(uint32_t cpu, bool preempted)
{
    uint32_t ti = cpu_thread[cpu];
    thread *t = &threads[ti];
    uint32_t next = rq_count > 0 ? rq_pop() : cpu; /* idle threads are 0..ncpus-1 */
    const thread *n = &threads[next];
    uint32_t code = !preempted && !t->idle && rng_below(32) == 0 ? MACH_STKHANDOFF : MACH_SCHED;
    /* arg1 = reason (AST_PREEMPT 0x1, or a block 0), arg3/arg4 = priorities */
    emit(cpu, t, code, preempted ? 1 : 0, n->tid, t->pri, n->pri);
    if (preempted)
        rq_push(ti);
    cpu_thread[cpu] = next;
}

/* The running thread of CPU waits: MACH_WAIT, MACH_BLOCK, the switch. */
static void block(uint32_t cpu)
{
    uint32_t ti = cpu_thread[cpu];
    thread *t = &threads[ti];
    /* one PRNG draw a statement: argument order is unspecified in C, and
     * the bytes must not depend on the compiler */
    uint64_t event = wait_event(t);
    uint64_t interruptible = rng_below(4) != 0;
    emit(cpu, t, MACH_WAIT, event, interruptible, 0, 0);
    emit(cpu, t, MACH_BLOCK, 0, kernel_pc(), 0, 0);
    waiting[nwaiting++] = ti;
    switch_out(cpu, false);
}

/* The thread running on CPU makes a waiting thread runnable. */
static bool wake_one(uint32_t cpu, uint32_t result)
{
    if (nwaiting == 0)
        return false;
    uint32_t i = rng_below(nwaiting);
    uint32_t wi = waiting[i];
    waiting[i] = waiting[--nwaiting];
    emit(cpu, &threads[cpu_thread[cpu]], MACH_MKRUNNABLE, threads[wi].tid,
         threads[wi].pri, result, 0);
    rq_push(wi);
    return true;
}

/* An interrupt on CPU; inside it, sometimes a timer callout that wakes a
 * thread (the wakeup that ends an idle CPU's idleness). */
static void interrupt(uint32_t cpu, bool must_wake)
{
    const thread *t = &threads[cpu_thread[cpu]];
    uint32_t irq = rng_below(4) == 0 ? 0x3c + rng_below(8) : 0x0d; /* 0x0d: timer */
    emit(cpu, t, INTERRUPT | FUNC_START, irq, t->idle || t->kernel ? kernel_pc() : user_addr(t),
         !(t->idle || t->kernel), 0);
    if (must_wake || (timer_count > 0 && rng_below(2) == 0)) {
        uint64_t call = kernel_addr(0x30000000u, rng_below(256) * 0x40u);
        if (timer_count > 0) {
            call = timers[timer_head];
            timer_head = (timer_head + 1) & (TIMER_RING - 1);
            timer_count--;
        }
        uint64_t func = kernel_addr(0x00300000u, rng_below(32) * 0x100u);
        emit(cpu, t, TMR_CALL_INTR | FUNC_START, call, func, 0, 0);
        if (must_wake || rng_below(2) == 0)
            wake_one(cpu, rng_below(3) == 0 ? 1 : 0);
        emit(cpu, t, TMR_CALL_INTR | FUNC_END, call, func, 0, 0);
    } else if (rng_below(4) == 0) {
        wake_one(cpu, 0);
    }
    emit(cpu, t, INTERRUPT | FUNC_END, 0, 0, 0, 0);
}

static void arm_timer(uint32_t cpu)
{
    const thread *t = &threads[cpu_thread[cpu]];
    uint64_t call = kernel_addr(0x30000000u, (timer_counter++ & 0xfff) * 0x40u);
    uint64_t deadline = now + 100000 + rng_below(10000000);
    uint64_t param = user_addr(t);
    uint64_t flags = rng_below(4);
    emit(cpu, t, TMR_CALL_ENTER | FUNC_START, call, param, deadline, flags);
    if (timer_count == TIMER_RING) {   /* the oldest is dropped, unfired */
        timer_head = (timer_head + 1) & (TIMER_RING - 1);
        timer_count--;
    }
    timers[(timer_head + timer_count) & (TIMER_RING - 1)] = call;
    timer_count++;
}

static void cancel_timer(uint32_t cpu)
{
    if (timer_count == 0)
        return;
    uint32_t last = (timer_head + timer_count - 1) & (TIMER_RING - 1);
    emit(cpu, &threads[cpu_thread[cpu]], TMR_CALL_CANCEL | FUNC_START,
         timers[last], 0, 0, 0);
    timer_count--;
}

/* A code the default table does not know. */
static void unknown(uint32_t cpu)
{
    const thread *t = &threads[cpu_thread[cpu]];
    switch (rng_below(8)) {
    case 0:
    case 1:
    case 2: {
        uint64_t addr = user_addr(t);
        emit(cpu, t, VM_FAULT | FUNC_START, addr, 0, t->pid, 0);
        emit(cpu, t, VM_FAULT | FUNC_END, addr, 1 + rng_below(6), 0, 0);
        break;
    }
    case 3:
        emit(cpu, t, VM_PAGE_GRAB, rng_below(1u << 20), 0, 0, 0);
        break;
    case 4:
    case 5:
        emit(cpu, t, PERF_THD_DATA, t->pid, t->tid, t->pri, 0);
        break;
    case 6:
        emit(cpu, t, PERF_CS_UHDR, 1 + rng_below(64), 0, 0, 0);
        break;
    default:
        emit(cpu, t, PERF_THD_CSWITCH, t->tid, 0, 0, 0);
        break;
    }
}

/* ---- syscalls ------------------------------------------------------------ */

static uint32_t syscall_debugid(const struct syscall_kind *k)
{
    return (k->mach ? MSC_BASE : BSC_BASE) | (uint32_t)k->num << 2;
}

static void syscall_start(uint32_t cpu, thread *t)
{
    uint8_t ki = syscall_pick[rng_below(256)];
    const struct syscall_kind *k = &syscall_kinds[ki];
    t->syscall = ki;
    t->phase = PH_SYSCALL;
    t->sent = false;
    uint64_t fd = rng_below(64);
    uint64_t buf = user_addr(t);
    uint64_t len = rng_below(4096);
    emit(cpu, t, syscall_debugid(k) | FUNC_START, fd, buf, len, 0);
}

static void syscall_end(uint32_t cpu, thread *t)
{
    const struct syscall_kind *k = &syscall_kinds[t->syscall];
    uint32_t id = syscall_debugid(k) | FUNC_END;
    if (k->mach) {
        /* kern_return_t: mostly KERN_SUCCESS, now and then a timeout */
        emit(cpu, t, id, rng_below(16) == 0 ? 0x10004003u : 0, 0, 0, 0);
    } else {
        uint32_t err = rng_below(16) == 0 ? (rng_below(2) ? 35 : 4) : 0; /* EAGAIN, EINTR */
        emit(cpu, t, id, err, err ? 0 : rng_below(4096), 0, 0);
    }
    t->phase = PH_USER;
}

/* A thread of process P receives its oldest queued message, if any. */
static bool ipc_receive(uint32_t cpu, thread *t)
{
    process *p = &procs[t->proc];
    if (p->msg_count == 0)
        return false;
    uint64_t kmsg = p->msg[p->msg_head];
    uint32_t msg_id = p->msg_id[p->msg_head];
    p->msg_head = (p->msg_head + 1) & (MSG_RING - 1);
    p->msg_count--;
    emit(cpu, t, IPC_MSG_RECV, kmsg, 0x1513, msg_id, 0);
    emit(cpu, t, IPC_KMSG_FREE, kmsg, 0, 0, 0);
    return true;
}

/* A message from T to a random other process: kmsg_info names the pids,
 * then the send; the message waits in the destination's queue. */
static void ipc_send(uint32_t cpu, thread *t)
{
    process *dest = &procs[rng_below(nprocs)];
    uint64_t kmsg = next_kmsg();
    uint32_t msg_id = 0x1000 + rng_below(4096);
    uint64_t voucher = rng_below(4) == 0 ? kernel_addr(0x50000000u, rng_below(1024) * 0x80u) : 0;
    if (voucher != 0)
        emit(cpu, t, IPC_SET_VOUCHER, t->tid, 0, voucher, 0);
    emit(cpu, t, IPC_KMSG_INFO | FUNC_END, t->pid, dest->pid,
         (uint64_t)msg_id << 32 | (64 + rng_below(1024)), 0);
    emit(cpu, t, IPC_MSG_SEND, kmsg, 0x80001513, msg_id, voucher);
    if (dest->msg_count == MSG_RING) {   /* never received: freed unread */
        dest->msg_head = (dest->msg_head + 1) & (MSG_RING - 1);
        dest->msg_count--;
    }
    dest->msg[(dest->msg_head + dest->msg_count) & (MSG_RING - 1)] = kmsg;
    dest->msg_id[(dest->msg_head + dest->msg_count) & (MSG_RING - 1)] = msg_id;
    dest->msg_count++;
    t->sent = true;
}

/* The body of T's open syscall: a Mach message sent or received, maybe a
 * wait, else the END. */
static void syscall_body(uint32_t cpu, thread *t)
{
    const struct syscall_kind *k = &syscall_kinds[t->syscall];
    if (k->num == MT_mach_msg_trap && k->mach) {
        if (rng_below(2) == 0 && ipc_receive(cpu, t)) {
            syscall_end(cpu, t);
            return;
        }
        ipc_send(cpu, t);
        if (rng_below(8) < 5) {          /* wait for the reply */
            t->phase = PH_RESUMED;
            block(cpu);
            return;
        }
        syscall_end(cpu, t);
        return;
    }
    if (k->blocks && rng_below(2) == 0) {
        t->phase = PH_RESUMED;
        block(cpu);
        return;
    }
    syscall_end(cpu, t);
}

/* ---- one step of one CPU ------------------------------------------------- */

static void step(uint32_t cpu)
{
    thread *t = &threads[cpu_thread[cpu]];
    if (t->idle) {
        /* an idle CPU: an interrupt wakes a thread, which is switched in */
        if (rq_count == 0)
            interrupt(cpu, true);
        if (rq_count > 0)
            switch_out(cpu, false);
        return;
    }
    uint32_t r = rng_below(1000);
    /* interrupts and unknown codes come in whatever the thread does */
    if (r < 60) {
        interrupt(cpu, false);
        return;
    }
    if (r < 190) {
        unknown(cpu);
        return;
    }
    if (t->phase == PH_SYSCALL) {
        syscall_body(cpu, t);
        return;
    }
    if (t->phase == PH_RESUMED) {
        if (t->sent)                      /* the reply, when one came */
            ipc_receive(cpu, t);
        syscall_end(cpu, t);
        return;
    }
    /* more runnable threads than CPUs: preempt more often */
    uint32_t preempt = rq_count > ncpus ? 120 : rq_count > 0 ? 30 : 0;
    if (r < 190 + preempt) {
        switch_out(cpu, true);
        return;
    }
    r = rng_below(1000);
    if (r < 150 && wake_one(cpu, 0))
        return;
    if (r < 200) {
        arm_timer(cpu);
        return;
    }
    if (r < 210) {
        cancel_timer(cpu);
        return;
    }
    if (r < 220) {
        emit(cpu, t, MACH_SCHED_MAINTENANCE | FUNC_START, 0, 0, 0, 0);
        emit(cpu, t, MACH_SCHED_MAINTENANCE | FUNC_END, 0, 0, 0, 0);
        return;
    }
    if (t->kernel) {                      /* kernel threads wait without syscalls */
        if (r < 600)
            block(cpu);
        else
            unknown(cpu);
        return;
    }
    syscall_start(cpu, t);
}

/* ---- set-up: the thread map and the CPU map ------------------------------ */

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

#define KERNEL_WORKERS 8
#define HEADER_SIZE 24
#define MAP_ENTRY 32
#define RAW_VERSION1 0x55aa0101u

/* Threads: idle threads 0..ncpus-1 and KERNEL_WORKERS workers in
 * kernel_task, then user processes of 1 to 16 threads, the first thread
 * of each (its lowest tid) the main thread. */
static void setup(uint32_t nthreads_total)
{
    nthreads = nthreads_total;
    threads = calloc(nthreads, sizeof *threads);
    procs = calloc(nthreads, sizeof *procs);
    cpu_thread = calloc(ncpus, sizeof *cpu_thread);
    rq_size = nthreads;
    run_queue = calloc(rq_size, sizeof *run_queue);
    waiting = calloc(nthreads, sizeof *waiting);
    out_buf = malloc(OUT_SIZE);
    if (!threads || !procs || !cpu_thread || !run_queue || !waiting || !out_buf) {
        fprintf(stderr, "gen-kdebug: out of memory\n");
        exit(71);
    }
    uint64_t tid = 0x65;
    uint32_t i = 0;
    for (; i < ncpus + KERNEL_WORKERS; i++) {
        thread *t = &threads[i];
        t->tid = tid;
        tid += 1 + rng_below(4);
        t->pid = 0;
        t->proc = UINT32_MAX;
        t->kernel = true;
        t->idle = i < ncpus;
        t->pri = t->idle ? 0 : 81;
    }
    uint32_t pid = 1;
    tid = 0x1f4;
    while (i < nthreads) {
        process *p = &procs[nprocs];
        p->pid = pid;
        pid += 1 + rng_below(40);
        p->first_thread = i;
        p->nthreads = 1 + rng_below(16);
        if (p->nthreads > nthreads - i)
            p->nthreads = nthreads - i;
        for (uint32_t j = 0; j < p->nthreads; j++, i++) {
            thread *t = &threads[i];
            t->tid = tid;
            tid += 1 + rng_below(200);
            t->pid = p->pid;
            t->proc = nprocs;
            t->pri = (uint8_t)(j == 0 ? 47 : 4 + rng_below(60));
        }
        nprocs++;
    }
    /* each CPU starts in its idle thread; every other thread runnable
     * or waiting */
    for (uint32_t c = 0; c < ncpus; c++)
        cpu_thread[c] = c;
    for (i = ncpus; i < nthreads; i++) {
        if (rng_below(8) == 0)
            rq_push(i);
        else
            waiting[nwaiting++] = i;
    }
    uint32_t cum = 0, w = 0;
    for (size_t k = 0; k < NSYSCALL_KINDS; k++)
        cum += syscall_kinds[k].weight;
    for (size_t k = 0; k < NSYSCALL_KINDS; k++) {
        uint32_t to = (w + syscall_kinds[k].weight) * 256 / cum;
        for (uint32_t s = w * 256 / cum; s < to; s++)
            syscall_pick[s] = (uint8_t)k;
        w += syscall_kinds[k].weight;
    }
}

static const char *command_of(const thread *t)
{
    if (t->kernel)
        return "kernel_task";
    return proc_names[t->proc < NPROC_NAMES ? t->proc : t->proc % (NPROC_NAMES - 1) + 1];
}

/* Header, thread map and CPU map, zero-padded to the first record. */
static size_t write_header(uint64_t seed)
{
    size_t map_end = HEADER_SIZE + (size_t)nthreads * MAP_ENTRY;
    size_t events_at = (map_end + 4095) & ~(size_t)4095;
    unsigned char *h = calloc(1, events_at);
    if (!h) {
        fprintf(stderr, "gen-kdebug: out of memory\n");
        exit(71);
    }
    put_u32(h, RAW_VERSION1);
    put_u32(h + 4, nthreads);
    put_u64(h + 8, 1700000000u + seed % 100000000u);  /* TOD_secs */
    put_u32(h + 16, (uint32_t)(seed * 7919u % 1000000u)); /* TOD_usecs */
    for (uint32_t i = 0; i < nthreads; i++) {
        unsigned char *e = h + HEADER_SIZE + (size_t)i * MAP_ENTRY;
        put_u64(e, threads[i].tid);
        put_u32(e + 8, threads[i].pid);
        /* p_comm holds at most MAXCOMLEN (16) characters */
        strncpy((char *)e + 12, command_of(&threads[i]), 16);
    }
    /* kd_cpumap_header {version_no, cpu_count}, then {cpu_id, flags,
     * name[8]} per CPU; xnu puts it in the padding when it fits */
    size_t cpumap = 8 + (size_t)ncpus * 16;
    if (map_end + cpumap <= events_at) {
        unsigned char *m = h + map_end;
        put_u32(m, RAW_VERSION1);
        put_u32(m + 4, ncpus);
        for (uint32_t c = 0; c < ncpus; c++) {
            unsigned char *e = m + 8 + (size_t)c * 16;
            put_u32(e, c);
            put_u32(e + 4, 0);
            snprintf((char *)e + 8, 8, "cpu%u", (unsigned)(uint8_t)c); /* c < 256 */
        }
    } else {
        fprintf(stderr, "gen-kdebug: no room for the CPU map in the padding after %u threads; written without it\n",
                nthreads);
    }
    write_all(h, events_at);
    free(h);
    return events_at;
}

static uint64_t parse_uint(const char *opt, const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || end == s || *end != 0 || s[0] == '-') {
        fprintf(stderr, "gen-kdebug: %s: '%s' is not a whole number\n", opt, s);
        exit(64);
    }
    return v;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"size-mb", required_argument, 0, 'm'},
        {"threads", required_argument, 0, 't'},
        {"cpus", required_argument, 0, 'c'},
        {"seed", required_argument, 0, 's'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    uint64_t size_mb = 100, nthr = 1000, cpus = 8, seed = 1;
    int c;
    while ((c = getopt_long(argc, argv, "m:t:c:s:h", opts, NULL)) != -1) {
        switch (c) {
        case 'm': size_mb = parse_uint("--size-mb", optarg); break;
        case 't': nthr = parse_uint("--threads", optarg); break;
        case 'c': cpus = parse_uint("--cpus", optarg); break;
        case 's': seed = parse_uint("--seed", optarg); break;
        case 'h': fputs(usage, stdout); return 0;
        default:
            fputs("Try 'gen-kdebug --help' for more information.\n", stderr);
            return 64;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "gen-kdebug: unexpected argument '%s'\n", argv[optind]);
        return 64;
    }
    if (cpus < 1 || cpus > 256) {
        fprintf(stderr, "gen-kdebug: --cpus %llu: give 1 to 256\n", (unsigned long long)cpus);
        return 64;
    }
    if (nthr < cpus + KERNEL_WORKERS + 1 || nthr > 1000000) {
        fprintf(stderr, "gen-kdebug: --threads %llu: give %llu to 1000000\n",
                (unsigned long long)nthr, (unsigned long long)(cpus + KERNEL_WORKERS + 1));
        return 64;
    }
    if (size_mb > 1000000) {
        fprintf(stderr, "gen-kdebug: --size-mb %llu: give at most 1000000\n",
                (unsigned long long)size_mb);
        return 64;
    }
    if (isatty(STDOUT_FILENO)) {
        fputs("gen-kdebug: stdout is a terminal: redirect it to a file\n", stderr);
        return 64;
    }
    ncpus = (uint32_t)cpus;
    rng_state = seed;
    setup((uint32_t)nthr);
    size_t events_at = write_header(seed);
    uint64_t bytes = size_mb * 1000000u;
    records_left = bytes > events_at ? (bytes - events_at) / sizeof(kd_buf) : 0;
    uint32_t cpu = 0;
    while (records_left > 0) {
        /* CPUs in turn, now and then one out of turn, like per-CPU
         * activity that is not in lock step */
        cpu = rng_below(4) == 0 ? rng_below(ncpus) : (cpu + 1 == ncpus ? 0 : cpu + 1);
        step(cpu);
    }
    drain_window();
    return 0;
}
