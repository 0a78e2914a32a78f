/* bench/gen: writes a deterministic synthetic argus stream to stdout, for
 * the benchmarks (bench/run.sh) and for stress-testing stages.
 *
 * The trace is a simulation, not noise: every thread runs a small state
 * machine so that what later stages link and split is there to link and
 * split (docs/rules.md). A thread that waits does nothing until it is
 * woken; begin/end brackets nest per thread; an IPC request is received
 * by a thread of the server process, answered on its reply port, and the
 * client woken; dispatch and runloop items are invoked after they were
 * enqueued, in the same process; timers fire after they were armed.
 *
 * Memory is fixed after start-up: per-thread and per-process state with
 * bounded rings for pending work. Nothing is allocated per event. */
#include "argus/stream/cli.h"
#include "argus/stream/stream.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: gen [-n EVENTS] [-s SEED] [-p PROCESSES] [-t THREADS]\n"
    "Write a deterministic synthetic argus event stream (CBOR) to stdout.\n"
    "\n"
    "The same options give the same bytes. The stream has a header, thread\n"
    "records before each thread's first event, and exactly EVENTS events\n"
    "(ids 1..EVENTS, ts in ns, non-decreasing): waits woken by wakeups or\n"
    "timeouts, IPC requests and replies, dispatch and runloop callouts,\n"
    "timers, interrupts, syscalls, backtraces, UI events, flags and\n"
    "CoreAnimation updates. Brackets cut off by the end of the stream stay\n"
    "open, as in a real trace.\n"
    "\n"
    "  -n, --events N      events to write (default 1000000)\n"
    "  -s, --seed S        PRNG seed (default 1)\n"
    "  -p, --processes P   user processes, 1 to 10000 (default 20)\n"
    "  -t, --threads T     user threads, P to 100000: one main thread per\n"
    "                      process, the rest workers (default 200); 4 kernel\n"
    "                      threads in pid 0 come on top\n"
    "  -h, --help          show this help\n"
    "      --version       show the version\n";

#include "rng.h"

/* True with probability per_mille / 1000. */
static inline bool rng_chance(uint32_t per_mille)
{
    return rng_below(1000) < per_mille;
}

/* ---- the simulated system ------------------------------------------------ */

#define KERNEL_THREADS 4
#define NCPU 8
#define MAX_DEPTH 6
#define RING 32          /* pending work per process and kind; a power of 2 */
#define TIMER_RING 16    /* armed timers per process and kind; a power of 2 */
#define NFLAGS 4
#define NOBJS 16
#define NQUEUES 3
#define PROBES 8         /* random tries to find a thread in some state */

enum role { ROLE_MAIN, ROLE_WORKER, ROLE_KERNEL };

enum thread_state {
    TS_RUNNING,
    TS_BLOCKED,          /* in a wait any thread (or a timeout) may end */
    TS_BLOCKED_IPC,      /* waiting for an IPC reply: only the server ends it */
    TS_WOKEN,            /* a wakeup came; its next event is the woken */
};

/* What a thread must do next, before anything it chooses itself. */
enum todo {
    TODO_NONE,
    TODO_WAIT_REPLY,     /* sent a request: wait on the reply port */
    TODO_WAKE_CLIENT,    /* sent a reply: wake the client */
    TODO_RECV_REPLY,     /* woken from a reply wait: receive the reply */
};

/* Open begin/end brackets of a thread. */
enum bracket {
    BR_SYSCALL, BR_DISPATCH, BR_RUNLOOP, BR_TIMER, BR_INTERRUPT, BR_MAINT,
    BR_CA_DISPLAY,
    BR_SERVE,            /* serving an IPC request: ends with the reply */
};

typedef struct request {
    uint64_t port, msg, reply_port;
    uint32_t msg_id, client_pid, client;   /* client: thread index */
    bool oneway;
    bool ready;          /* a request is served only once its client waits */
} request;

typedef struct frame {
    uint8_t kind;        /* enum bracket */
    uint8_t inner;       /* events emitted inside so far */
    uint16_t aux;        /* syscall name, runloop kind, func index, irq */
    uint64_t a, b;       /* queue/item, item, timer, obj */
} frame;

typedef struct thread {
    uint32_t tid, pid, proc;
    uint8_t role, cpu, state, todo, depth;
    bool announced;
    bool serving;                /* a BR_SERVE frame is open: one at most */
    const char *name;
    uint64_t wait_deadline;      /* 0: the wait has no timeout */
    uint64_t reply_port;
    uint32_t request_server;     /* process and ring slot of our request, */
    uint32_t request_slot;       /* made ready when we wait */
    uint64_t reply_msg;          /* the reply to receive when woken */
    uint32_t reply_msg_id, reply_peer;
    uint32_t wake_target;        /* thread index for TODO_WAKE_CLIENT */
    request served;              /* the request being served */
    uint8_t ident_len;           /* "tid":T,"pid":P,"cpu":C encoded once */
    uint8_t ident[32];
    frame stack[MAX_DEPTH];
} thread;

typedef struct armed_timer {
    uint64_t timer, deadline;
    bool cancelled;
} armed_timer;

typedef struct timer_ring {
    armed_timer t[TIMER_RING];
    uint32_t head, count;
} timer_ring;

typedef struct process {
    uint32_t pid, first_thread, nthreads;
    uint32_t ipc_blocked;        /* threads waiting for a reply */
    const char *name;
    uint64_t port;               /* its service port */
    request requests[RING];
    uint32_t req_head, req_count;
    struct { uint64_t queue, item; uint16_t func; } dispatch[RING];
    uint32_t disp_head, disp_count;
    uint64_t runloop[RING];
    uint32_t rl_head, rl_count;
    timer_ring kernel_timers;    /* fired by kernel threads */
    timer_ring main_timers;      /* fired on the main thread */
    uint32_t flag_value[NFLAGS];
    uint16_t dirty_objs;         /* bit k: obj k was ca_set, not displayed */
    uint32_t item_counter, timer_counter;
} process;

static thread *threads;
static uint32_t nthreads, nuser_threads;
static process *procs;
static uint32_t nprocs;
static uint64_t now = 1000000;   /* ns */
static uint64_t next_id = 1, nevents;
static uint64_t msg_counter;
static argus_writer *out;

static const char *const proc_names[] = {
    "WindowServer", "Finder", "Dock", "Safari", "Mail", "fontd",
    "coreaudiod", "mds", "SystemUIServer", "Terminal", "Xcode", "launchd",
    "distnoted", "cfprefsd", "Preview", "Notes", "Music", "Photos",
    "Calendar", "Messages",
};
static const char *const worker_names[] = {
    "com.apple.root.default-qos", "com.apple.root.user-initiated-qos",
    "com.apple.NSEventThread", "CVDisplayLink", "com.apple.root.utility-qos",
    "", /* unnamed */
};
static const char *const kernel_names[KERNEL_THREADS] = {
    "timer", "irq", "sched", "idle",
};
static const char *const syscall_names[] = {
    "read", "write", "mach_msg_trap", "psynch_cvwait", "select", "ioctl",
    "kevent", "workq_kernreturn", "swtch_pri", "open", "close", "stat64",
};
#define NSYSCALLS (sizeof syscall_names / sizeof *syscall_names)
static const char *const wait_reasons[] = {
    "psynch_cv", "semaphore", "ulock", "select", "workq",
};
static const char *const func_names[] = {
    "__CFRunLoopDoBlocks_block_invoke", "-[NSWindow displayIfNeeded]",
    "_dispatch_call_block_and_release", "__NSThreadPerformPerform",
    "-[WebView _updateLayout]", "CA::Transaction::commit",
    "_dispatch_source_latch_and_call", "__CFMachPortPerform",
};
#define NFUNCS (sizeof func_names / sizeof *func_names)
static const char *const runloop_kinds[] = {
    "block", "source0", "source1", "timer", "observer", "dispatch",
};
static const char *const frame_names[] = {
    "mach_msg_trap", "mach_msg", "__CFRunLoopServiceMachPort",
    "__CFRunLoopRun", "CFRunLoopRunSpecific", "RunCurrentEventLoopInMode",
    "_DPSNextEvent", "-[NSApplication run]", "NSApplicationMain", "start",
    "_pthread_wqthread", "start_wqthread", "objc_msgSend",
    "CA::Layer::display", "CGSUpdateManager::flush",
};
#define NFRAMES (sizeof frame_names / sizeof *frame_names)
static const char *const flag_names[NFLAGS] = {
    "sCGEventIsMainThreadSpinning", "gDisplayNeeded", "sWorkPending",
    "kDataReady",
};
static const char *const ui_kinds[] = {"keyDown", "mouseDown"};

/* ---- writing records ------------------------------------------------------ */

/* Every key and text value the generator writes is a string constant, so
 * its CBOR encoding is kept, by address, in a small direct-mapped cache
 * and copied with argus_put_raw: encoding each text anew (strlen, head,
 * copy) took a third of the run time. A miss encodes with the library. */
#define STR_CACHE 512    /* a power of 2 */
#define STR_CACHED_MAX 62

static struct cached_str {
    const char *s;
    uint8_t len;
    uint8_t bytes[STR_CACHED_MAX + 1];
} str_cache[STR_CACHE];

static void put_str(const char *s)
{
    struct cached_str *c = &str_cache[((uintptr_t)s >> 3) & (STR_CACHE - 1)];
    if (c->s == s) {
        argus_put_raw(out, c->bytes, c->len);
        return;
    }
    size_t n = strlen(s);
    if (n > STR_CACHED_MAX - 2) {
        argus_put_cstr(out, s);
        return;
    }
    /* a text head of one byte (length < 24) or two, then the bytes */
    size_t head = n < 24 ? 1 : 2;
    if (n < 24) {
        c->bytes[0] = (uint8_t)(0x60 | n);
    } else {
        c->bytes[0] = 0x78;
        c->bytes[1] = (uint8_t)n;
    }
    memcpy(c->bytes + head, s, n);
    c->len = (uint8_t)(head + n);
    c->s = s;
    argus_put_raw(out, c->bytes, c->len);
}


static void write_thread_record(thread *t)
{
    const process *p = t->role == ROLE_KERNEL ? NULL : &procs[t->proc];
    bool named = t->name[0] != 0;
    bool flag = t->role != ROLE_WORKER;     /* main:true or kernel:true */
    argus_put_map(out, 4 + named + flag);
    put_str("type");
    put_str("thread");
    put_str("tid");
    argus_put_uint(out, t->tid);
    put_str("pid");
    argus_put_uint(out, t->pid);
    put_str("proc");
    put_str(p ? p->name : "kernel_task");
    if (named) {
        put_str("name");
        put_str(t->name);
    }
    if (t->role == ROLE_MAIN) {
        put_str("main");
        argus_put_bool(out, true);
    } else if (t->role == ROLE_KERNEL) {
        put_str("kernel");
        argus_put_bool(out, true);
    }
    argus_end_record(out);
    t->announced = true;
}

/* Starts an event of T with NFIELDS fields after the six common ones;
 * the caller writes exactly that many key/value pairs, then event_end. */
/* The fields that change only with the thread's cpu, encoded when the
 * cpu changes rather than on every event. */
static void thread_set_cpu(thread *t, unsigned cpu)
{
    static argus_buf scratch;   /* kept: no allocation after the first */
    scratch.len = 0;
    argus_cbor_text(&scratch, "tid", 3);
    argus_cbor_head(&scratch, CBOR_UINT, t->tid);
    argus_cbor_text(&scratch, "pid", 3);
    argus_cbor_head(&scratch, CBOR_UINT, t->pid);
    argus_cbor_text(&scratch, "cpu", 3);
    argus_cbor_head(&scratch, CBOR_UINT, cpu);
    if (scratch.len > sizeof t->ident)
        abort();
    memcpy(t->ident, scratch.p, scratch.len);
    t->ident_len = (uint8_t)scratch.len;
    t->cpu = (uint8_t)cpu;
}

/* "type":TYPE,"id" encoded once per event type, cached by address like
 * put_str. */
#define PREFIX_CACHE 64
static struct cached_prefix {
    const char *type;
    uint8_t len;
    uint8_t bytes[40];
} prefix_cache[PREFIX_CACHE];

static void put_event_prefix(const char *type)
{
    struct cached_prefix *c = &prefix_cache[((uintptr_t)type >> 3) & (PREFIX_CACHE - 1)];
    if (c->type != type) {
        size_t n = strlen(type);
        if (n > 23) /* longer types would need a two-byte head */
            abort();
        uint8_t *b = c->bytes;
        *b++ = 0x64;
        memcpy(b, "type", 4);
        b += 4;
        *b++ = (uint8_t)(0x60 | n);
        memcpy(b, type, n);
        b += n;
        *b++ = 0x62;
        memcpy(b, "id", 2);
        b += 2;
        c->len = (uint8_t)(b - c->bytes);
        c->type = type;
    }
    argus_put_raw(out, c->bytes, c->len);
}

static void event_begin(thread *t, const char *type, unsigned nfields)
{
    if (!t->announced)
        write_thread_record(t);
    /* mostly a microsecond apart, now and then an idle gap */
    now += 100 + rng_below(1000);
    if (rng_below(64) == 0)
        now += rng_below(50000);
    argus_put_map(out, 6 + nfields);
    put_event_prefix(type);
    argus_put_uint(out, next_id++);
    put_str("ts");
    argus_put_uint(out, now);
    argus_put_raw(out, t->ident, t->ident_len);
}

static void event_end(void)
{
    argus_end_record(out);
    nevents++;
}

static void put_key_uint(const char *key, uint64_t v)
{
    put_str(key);
    argus_put_uint(out, v);
}

static void put_key_text(const char *key, const char *v)
{
    put_str(key);
    put_str(v);
}

/* ---- addresses: stable per process, so runs with one seed compare ------- */

static uint64_t service_port(uint32_t pid) { return 0x10000003u + (uint64_t)pid * 0x100; }
static uint64_t reply_port_of(uint32_t tid) { return 0x20000007u + (uint64_t)tid * 0x10; }
static uint64_t queue_addr(uint32_t pid, unsigned q) { return 0x600000000000u + ((uint64_t)pid << 16) + q * 0x80u; }
static uint64_t item_addr(process *p) { return 0x600010000000u + ((uint64_t)p->pid << 20) + (p->item_counter++ & 0xffff) * 0x10u; }
static uint64_t timer_addr(process *p) { return 0x600020000000u + ((uint64_t)p->pid << 16) + (p->timer_counter++ & 0xff) * 0x40u; }
static uint64_t obj_addr(uint32_t pid, unsigned k) { return 0x600030000000u + ((uint64_t)pid << 16) + k * 0x100u; }
static uint64_t flag_addr(uint32_t pid, unsigned k) { return 0x100000000u + (uint64_t)pid * 0x1000 + k * 8u; }
static uint64_t wait_resource(const thread *t) { return 0x600040000000u + ((uint64_t)t->pid << 16) + rng_below(8) * 0x40u; }
static uint64_t next_msg(void) { return 0x7f0000000000u + (msg_counter++ & 0xffffff) * 0x100u; }

/* ---- finding threads ------------------------------------------------------ */

static bool wakeable(const thread *t) { return t->state == TS_BLOCKED; }

/* A thread in a plain wait, preferably in process PROC (or any when
 * PROC is UINT32_MAX); NULL after PROBES misses. */
static thread *find_blocked(uint32_t proc)
{
    for (int i = 0; i < PROBES; i++) {
        thread *t;
        if (proc != UINT32_MAX && i < PROBES / 2) {
            const process *p = &procs[proc];
            t = &threads[p->first_thread + rng_below(p->nthreads)];
        } else {
            t = &threads[rng_below(nthreads)];
        }
        if (wakeable(t))
            return t;
    }
    return NULL;
}

/* A running thread other than T to wake T; kernel threads never block,
 * so one of them is there when the probes miss. */
static thread *find_waker(const thread *t)
{
    for (int i = 0; i < PROBES; i++) {
        thread *w = &threads[rng_below(nthreads)];
        if (w != t && w->state == TS_RUNNING)
            return w;
    }
    return &threads[nuser_threads + rng_below(KERNEL_THREADS)];
}

/* ---- events that do not bracket ----------------------------------------- */

static void emit_wakeup(thread *waker, thread *target)
{
    event_begin(waker, "wakeup", 2);
    put_key_uint("target", target->tid);
    put_key_text("result", "awakened");
    event_end();
    if (target->state == TS_BLOCKED_IPC)
        target->todo = TODO_RECV_REPLY;
    target->state = TS_WOKEN;
}

/* A plain wait: woken later by another thread or by its timeout. */
static void emit_wait(thread *t, const char *reason)
{
    /* timeouts are short: a thread is picked every ~200 us, and some
     * waits should run out before a wakeup comes */
    bool timeout = rng_chance(400);
    uint64_t timeout_ns = 20000 + rng_below(500000);
    event_begin(t, "wait", 2 + timeout);
    put_str("resource");
    argus_put_uint(out, wait_resource(t));
    put_key_text("reason", reason);
    if (timeout)
        put_key_uint("timeout", timeout_ns);
    event_end();
    t->state = TS_BLOCKED;
    t->wait_deadline = timeout ? now + timeout_ns : 0;
}

static void emit_woken(thread *t, const char *result)
{
    event_begin(t, "woken", 1);
    put_key_text("result", result);
    event_end();
    t->state = TS_RUNNING;
    /* a woken thread often lands on another cpu */
    if (rng_chance(300))
        thread_set_cpu(t, rng_below(NCPU));
}

static void emit_backtrace(thread *t)
{
    unsigned depth = 3 + rng_below(6);
    /* the spinning-cursor indicator, rare and on main threads */
    bool spinning = t->role == ROLE_MAIN && rng_below(2000) == 0;
    event_begin(t, "backtrace", 1);
    put_str("frames");
    argus_put_array(out, depth);
    for (unsigned i = 0; i < depth; i++) {
        if (spinning && i == 1)
            put_str("CGSConnectionSetSpinning");
        else
            put_str(frame_names[rng_below(NFRAMES)]);
    }
    event_end();
}

static void emit_flag(thread *t, bool write)
{
    process *p = &procs[t->proc];
    unsigned k = rng_below(NFLAGS);
    uint32_t value = p->flag_value[k];
    if (write) {
        /* the spinning flag is 1 only rarely */
        value = k == 0 ? rng_below(500) == 0 : rng_below(4);
        p->flag_value[k] = value;
    }
    event_begin(t, write ? "flag_write" : "flag_read", 3);
    put_str("addr");
    argus_put_uint(out, flag_addr(p->pid, k));
    put_key_uint("value", value);
    put_key_text("name", flag_names[k]);
    event_end();
}

static void emit_ca_set(thread *t)
{
    process *p = &procs[t->proc];
    unsigned k = rng_below(NOBJS);
    p->dirty_objs |= (uint16_t)(1u << k);
    event_begin(t, "ca_set", 1);
    put_str("obj");
    argus_put_uint(out, obj_addr(p->pid, k));
    event_end();
}

static bool emit_dispatch_enqueue(thread *t)
{
    process *p = &procs[t->proc];
    if (p->nthreads < 2 || p->disp_count == RING)
        return false;   /* no worker to run it, or the queue is full */
    unsigned slot = (p->disp_head + p->disp_count++) & (RING - 1);
    p->dispatch[slot].queue = queue_addr(p->pid, rng_below(NQUEUES));
    p->dispatch[slot].item = item_addr(p);
    p->dispatch[slot].func = (uint16_t)rng_below(NFUNCS);
    event_begin(t, "dispatch_enqueue", 2);
    put_str("queue");
    argus_put_uint(out, p->dispatch[slot].queue);
    put_str("item");
    argus_put_uint(out, p->dispatch[slot].item);
    event_end();
    return true;
}

static bool emit_runloop_submit(thread *t)
{
    process *p = &procs[t->proc];
    if (p->rl_count == RING)
        return false;
    uint64_t item = item_addr(p);
    p->runloop[(p->rl_head + p->rl_count++) & (RING - 1)] = item;
    event_begin(t, "runloop_submit", 1);
    put_str("item");
    argus_put_uint(out, item);
    event_end();
    return true;
}

static bool emit_timer_arm(thread *t)
{
    process *p = &procs[t->proc];
    /* main threads arm runloop timers; others arm kernel-fired ones */
    timer_ring *ring = t->role == ROLE_MAIN && rng_chance(600)
                           ? &p->main_timers : &p->kernel_timers;
    if (ring->count == TIMER_RING)
        return false;
    armed_timer *at = &ring->t[(ring->head + ring->count++) & (TIMER_RING - 1)];
    at->timer = timer_addr(p);
    at->deadline = now + 100000 + rng_below(20000000);
    at->cancelled = false;
    event_begin(t, "timer_arm", 3);
    put_str("timer");
    argus_put_uint(out, at->timer);
    put_key_uint("deadline", at->deadline);
    put_key_text("func", func_names[rng_below(NFUNCS)]);
    event_end();
    return true;
}

/* Cancels the newest armed timer of T's process that is still pending. */
static bool emit_timer_cancel(thread *t)
{
    process *p = &procs[t->proc];
    timer_ring *ring = rng_below(2) ? &p->main_timers : &p->kernel_timers;
    for (uint32_t i = ring->count; i-- > 0;) {
        armed_timer *at = &ring->t[(ring->head + i) & (TIMER_RING - 1)];
        if (at->cancelled)
            continue;
        at->cancelled = true;
        event_begin(t, "timer_cancel", 1);
        put_str("timer");
        argus_put_uint(out, at->timer);
        event_end();
        return true;
    }
    return false;
}

/* The oldest timer of RING that is due, taken off the ring; 0 if none.
 * A repeating timer goes back on the ring with its next deadline. */
static uint64_t take_due_timer(timer_ring *ring)
{
    while (ring->count && ring->t[ring->head].cancelled) {
        ring->head = (ring->head + 1) & (TIMER_RING - 1);
        ring->count--;
    }
    if (!ring->count || ring->t[ring->head].deadline > now)
        return 0;
    armed_timer at = ring->t[ring->head];
    ring->head = (ring->head + 1) & (TIMER_RING - 1);
    ring->count--;
    if (rng_chance(250)) {
        at.deadline = now + 1000000 + rng_below(10000000);
        ring->t[(ring->head + ring->count++) & (TIMER_RING - 1)] = at;
    }
    return at.timer;
}

static void emit_ui_event(thread *t)
{
    event_begin(t, "ui_event", 1);
    put_key_text("kind", ui_kinds[rng_below(2)]);
    event_end();
}

static void emit_runloop_phase(thread *t)
{
    static const char *const stages[] = {
        "entry", "before_timers", "before_sources", "before_waiting",
        "after_waiting", "exit",
    };
    event_begin(t, "runloop_phase", 1);
    put_key_text("stage", stages[rng_below(6)]);
    event_end();
}

/* ---- IPC ------------------------------------------------------------------ */

/* A process other than T's to send to. */
static process *pick_server(const thread *t)
{
    if (nprocs < 2)
        return NULL;
    uint32_t k = rng_below(nprocs - 1);
    return &procs[k >= t->proc ? k + 1 : k];
}

/* A request (the client then waits for the reply) or a one-way message.
 * A blocking request keeps one thread of the client process free, and a
 * server never makes one while serving, so the simulation cannot
 * deadlock: every process always has a thread that can serve. */
static bool emit_ipc_send(thread *t, bool want_reply)
{
    process *client = &procs[t->proc];
    process *server = pick_server(t);
    if (!server || server->req_count == RING)
        return false;
    if (want_reply && client->ipc_blocked + 1 >= client->nthreads)
        want_reply = false;
    bool serving = t->serving;
    const request *serving_req = &t->served;
    if (serving)
        want_reply = false;

    request rq = {
        .port = server->port, .msg = next_msg(),
        .reply_port = want_reply ? t->reply_port : 0,
        .msg_id = 1000 + rng_below(64), .client_pid = t->pid,
        .client = (uint32_t)(t - threads), .oneway = !want_reply,
        .ready = !want_reply,
    };
    /* a message sent on behalf of a client carries its voucher */
    bool voucher = serving && serving_req->client_pid != server->pid;
    event_begin(t, "ipc", 5 + want_reply + 2 * voucher);
    put_key_text("dir", "send");
    put_str("port");
    argus_put_uint(out, rq.port);
    put_str("msg");
    argus_put_uint(out, rq.msg);
    put_key_uint("msg_id", rq.msg_id);
    if (want_reply) {
        put_str("reply_port");
        argus_put_uint(out, rq.reply_port);
    }
    put_key_uint("peer", server->pid);
    if (voucher) {
        put_str("voucher");
        argus_put_uint(out, 0x500000000000u + serving_req->msg);
        put_str("voucher_pids");
        argus_put_array(out, 1);
        argus_put_uint(out, serving_req->client_pid);
    }
    event_end();

    uint32_t slot = (server->req_head + server->req_count++) & (RING - 1);
    server->requests[slot] = rq;
    if (want_reply) {
        /* served only once we wait, so that the reply and its wakeup
         * always come after our wait */
        t->request_server = (uint32_t)(server - procs);
        t->request_slot = slot;
        t->todo = TODO_WAIT_REPLY;
        client->ipc_blocked++;
    }
    return true;
}

static void emit_wait_reply(thread *t)
{
    event_begin(t, "wait", 2);
    put_str("resource");
    argus_put_uint(out, t->reply_port);
    put_key_text("reason", "mach_msg");
    event_end();
    t->state = TS_BLOCKED_IPC;
    t->wait_deadline = 0;
    t->todo = TODO_NONE;
    /* the slot is still ours: the ring is taken from its head, and a
     * request that is not ready stops the head */
    procs[t->request_server].requests[t->request_slot].ready = true;
}

static void emit_recv_reply(thread *t)
{
    event_begin(t, "ipc", 5);
    put_key_text("dir", "recv");
    put_str("port");
    argus_put_uint(out, t->reply_port);
    put_str("msg");
    argus_put_uint(out, t->reply_msg);
    put_key_uint("msg_id", t->reply_msg_id);
    put_key_uint("peer", t->reply_peer);
    event_end();
    t->todo = TODO_NONE;
    procs[t->proc].ipc_blocked--;
}

/* ---- brackets ------------------------------------------------------------- */

static frame *push(thread *t, uint8_t kind)
{
    frame *f = &t->stack[t->depth++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    return f;
}

/* Takes the oldest request for T's process and receives it; a request
 * opens a serve bracket that ends with the reply. */
static bool begin_serve(thread *t)
{
    process *p = &procs[t->proc];
    if (!p->req_count || !p->requests[p->req_head].ready ||
        t->depth >= MAX_DEPTH || t->serving)
        return false;
    request rq = p->requests[p->req_head];
    p->req_head = (p->req_head + 1) & (RING - 1);
    p->req_count--;
    event_begin(t, "ipc", 5);
    put_key_text("dir", "recv");
    put_str("port");
    argus_put_uint(out, rq.port);
    put_str("msg");
    argus_put_uint(out, rq.msg);
    put_key_uint("msg_id", rq.msg_id);
    put_key_uint("peer", rq.client_pid);
    event_end();
    if (!rq.oneway) {
        push(t, BR_SERVE);
        t->served = rq;
        t->serving = true;
    }
    return true;
}

static void end_serve(thread *t)
{
    const request *rq = &t->served;
    thread *client = &threads[rq->client];
    uint64_t msg = next_msg();
    event_begin(t, "ipc", 5);
    put_key_text("dir", "send");
    put_str("port");
    argus_put_uint(out, rq->reply_port);
    put_str("msg");
    argus_put_uint(out, msg);
    put_key_uint("msg_id", rq->msg_id + 100);
    put_key_uint("peer", rq->client_pid);
    event_end();
    client->reply_msg = msg;
    client->reply_msg_id = rq->msg_id + 100;
    client->reply_peer = t->pid;
    t->todo = TODO_WAKE_CLIENT;
    t->wake_target = rq->client;
    t->serving = false;
}

static bool begin_dispatch(thread *t)
{
    process *p = &procs[t->proc];
    if (!p->disp_count || t->depth >= MAX_DEPTH)
        return false;
    frame *f = push(t, BR_DISPATCH);
    f->a = p->dispatch[p->disp_head].queue;
    f->b = p->dispatch[p->disp_head].item;
    f->aux = p->dispatch[p->disp_head].func;
    p->disp_head = (p->disp_head + 1) & (RING - 1);
    p->disp_count--;
    event_begin(t, "dispatch_invoke", 4);
    put_key_text("phase", "begin");
    put_str("queue");
    argus_put_uint(out, f->a);
    put_str("item");
    argus_put_uint(out, f->b);
    put_key_text("func", func_names[f->aux]);
    event_end();
    return true;
}

/* A runloop callout: a submitted block when there is one, else a source,
 * timer or observer callout of the main runloop. */
static bool begin_runloop(thread *t)
{
    process *p = &procs[t->proc];
    if (t->depth >= MAX_DEPTH)
        return false;
    frame *f = push(t, BR_RUNLOOP);
    if (p->rl_count) {
        f->b = p->runloop[p->rl_head];
        p->rl_head = (p->rl_head + 1) & (RING - 1);
        p->rl_count--;
        f->aux = 0; /* block */
    } else {
        f->aux = (uint16_t)(1 + rng_below(5));
        f->b = 0x600050000000u + ((uint64_t)p->pid << 16) + f->aux * 0x40u;
    }
    f->a = rng_below(NFUNCS);
    event_begin(t, "runloop_invoke", 4);
    put_key_text("phase", "begin");
    put_key_text("kind", runloop_kinds[f->aux]);
    put_str("item");
    argus_put_uint(out, f->b);
    put_key_text("func", func_names[f->a]);
    event_end();
    return true;
}

/* Fires a due timer of process PROC from RING. */
static bool begin_timer_fire(thread *t, timer_ring *ring, uint32_t proc)
{
    if (t->depth >= MAX_DEPTH)
        return false;
    uint64_t timer = take_due_timer(ring);
    if (!timer)
        return false;
    frame *f = push(t, BR_TIMER);
    f->a = timer;
    f->b = proc;
    event_begin(t, "timer_fire", 2);
    put_key_text("phase", "begin");
    put_str("timer");
    argus_put_uint(out, timer);
    event_end();
    return true;
}

static bool begin_ca_display(thread *t)
{
    process *p = &procs[t->proc];
    if (!p->dirty_objs || t->depth >= MAX_DEPTH)
        return false;
    unsigned k = (unsigned)__builtin_ctz(p->dirty_objs);
    p->dirty_objs &= (uint16_t)~(1u << k);
    frame *f = push(t, BR_CA_DISPLAY);
    f->a = obj_addr(p->pid, k);
    event_begin(t, "ca_display", 2);
    put_str("obj");
    argus_put_uint(out, f->a);
    put_key_text("phase", "begin");
    event_end();
    return true;
}

static bool begin_syscall(thread *t)
{
    if (t->depth >= MAX_DEPTH)
        return false;
    frame *f = push(t, BR_SYSCALL);
    f->aux = (uint16_t)rng_below(NSYSCALLS);
    unsigned nargs = 1 + rng_below(4);
    event_begin(t, "syscall", 3);
    put_key_text("name", syscall_names[f->aux]);
    put_key_text("phase", "begin");
    put_str("args");
    argus_put_array(out, nargs);
    for (unsigned i = 0; i < nargs; i++)
        argus_put_uint(out, rng_below(2) ? rng_below(64) : rng_next() >> 20);
    event_end();
    return true;
}

static bool begin_interrupt(thread *t)
{
    if (t->depth >= MAX_DEPTH)
        return false;
    frame *f = push(t, BR_INTERRUPT);
    f->aux = (uint16_t)(rng_below(4) ? 0x20 + rng_below(16) : 0xef);
    event_begin(t, "interrupt", 2);
    put_key_text("phase", "begin");
    put_key_uint("irq", f->aux);
    event_end();
    return true;
}

static bool begin_maintenance(thread *t)
{
    if (t->depth >= MAX_DEPTH)
        return false;
    push(t, BR_MAINT);
    event_begin(t, "sched_maintenance", 1);
    put_key_text("phase", "begin");
    event_end();
    return true;
}

/* Ends T's innermost bracket with the matching end event. */
static void end_bracket(thread *t)
{
    frame *f = &t->stack[t->depth - 1];
    switch (f->kind) {
    case BR_SYSCALL: {
        /* failures are negative errno values */
        int64_t ret = rng_chance(80) ? -(int64_t)(1 + rng_below(60))
                                     : (int64_t)rng_below(4096);
        event_begin(t, "syscall", 3);
        put_key_text("name", syscall_names[f->aux]);
        put_key_text("phase", "end");
        put_str("ret");
        argus_put_int(out, ret);
        event_end();
        break;
    }
    case BR_DISPATCH:
        event_begin(t, "dispatch_invoke", 4);
        put_key_text("phase", "end");
        put_str("queue");
        argus_put_uint(out, f->a);
        put_str("item");
        argus_put_uint(out, f->b);
        put_key_text("func", func_names[f->aux]);
        event_end();
        break;
    case BR_RUNLOOP:
        event_begin(t, "runloop_invoke", 4);
        put_key_text("phase", "end");
        put_key_text("kind", runloop_kinds[f->aux]);
        put_str("item");
        argus_put_uint(out, f->b);
        put_key_text("func", func_names[f->a]);
        event_end();
        break;
    case BR_TIMER:
        event_begin(t, "timer_fire", 2);
        put_key_text("phase", "end");
        put_str("timer");
        argus_put_uint(out, f->a);
        event_end();
        break;
    case BR_INTERRUPT:
        event_begin(t, "interrupt", 2);
        put_key_text("phase", "end");
        put_key_uint("irq", f->aux);
        event_end();
        break;
    case BR_MAINT:
        event_begin(t, "sched_maintenance", 1);
        put_key_text("phase", "end");
        event_end();
        break;
    case BR_CA_DISPLAY:
        event_begin(t, "ca_display", 2);
        put_str("obj");
        argus_put_uint(out, f->a);
        put_key_text("phase", "end");
        event_end();
        break;
    case BR_SERVE:
        end_serve(t);
        break;
    }
    t->depth--;
}

/* ---- what a thread does --------------------------------------------------- */

/* Work any user thread may do in its own process, at any depth. */
static bool do_common_work(thread *t)
{
    /* per mille, cumulative: syscalls and IPC dominate as in real traces */
    uint32_t r = rng_below(1000);
    if (r < 250)
        return begin_syscall(t);
    if (r < 350) {
        emit_backtrace(t);
        return true;
    }
    if (r < 420) {
        emit_flag(t, true);
        return true;
    }
    if (r < 510) {
        emit_flag(t, false);
        return true;
    }
    if (r < 630)
        return emit_dispatch_enqueue(t);
    if (r < 660)
        return emit_runloop_submit(t);
    if (r < 730) {
        emit_ca_set(t);
        return true;
    }
    if (r < 790)
        return emit_timer_arm(t);
    if (r < 810)
        return emit_timer_cancel(t);
    if (r < 880)
        return emit_ipc_send(t, true);
    if (r < 915)
        return emit_ipc_send(t, false);
    if (r < 930)
        return begin_maintenance(t);
    if (r < 950)
        return begin_interrupt(t);
    emit_wait(t, wait_reasons[rng_below(5)]);
    return true;
}

static bool act_main(thread *t)
{
    process *p = &procs[t->proc];
    uint32_t r = rng_below(1000);
    if (r < 250 && p->rl_count)
        return begin_runloop(t);
    if (r < 300 && begin_timer_fire(t, &p->main_timers, t->proc))
        return true;
    if (r < 360 && begin_ca_display(t))
        return true;
    if (r < 420 && begin_serve(t))
        return true;
    if (r < 430) {
        emit_ui_event(t);
        return true;
    }
    if (r < 445) {
        emit_runloop_phase(t);
        return true;
    }
    if (r < 470)
        return begin_runloop(t);
    if (r < 520) {
        emit_wait(t, "mach_msg");
        return true;
    }
    return do_common_work(t);
}

static bool act_worker(thread *t)
{
    uint32_t r = rng_below(1000);
    if (r < 250 && begin_dispatch(t))
        return true;
    if (r < 400 && begin_serve(t))
        return true;
    if (r < 440) {
        emit_wait(t, "workq");
        return true;
    }
    return do_common_work(t);
}

static bool act_kernel(thread *t)
{
    uint32_t r = rng_below(1000);
    if (r < 400) {
        uint32_t proc = rng_below(nprocs);
        return begin_timer_fire(t, &procs[proc].kernel_timers, proc);
    }
    if (r < 600)
        return begin_interrupt(t);
    if (r < 700)
        return begin_maintenance(t);
    thread *target = find_blocked(UINT32_MAX);
    if (!target)
        return false;
    emit_wakeup(t, target);
    return true;
}

/* Inside a bracket: go on with its work, or end it. */
static bool act_inside(thread *t)
{
    frame *f = &t->stack[t->depth - 1];
    bool done;
    switch (f->kind) {
    case BR_INTERRUPT:
    case BR_MAINT:
    case BR_TIMER:
        if (f->kind == BR_TIMER && t->role != ROLE_KERNEL)
            goto callout;
        /* short windows: maybe a wakeup, then the end */
        if (f->inner == 0 && f->kind != BR_MAINT && rng_chance(400)) {
            /* a kernel timer wakes a thread of the timer's process */
            thread *target = find_blocked(f->kind == BR_TIMER ? (uint32_t)f->b
                                                              : UINT32_MAX);
            if (target) {
                emit_wakeup(t, target);
                f->inner++;
                return true;
            }
        }
        end_bracket(t);
        return true;
    case BR_SYSCALL:
        /* a blocking syscall waits inside its bracket */
        if (f->inner == 0 && t->role != ROLE_KERNEL && rng_chance(250)) {
            f->inner++;
            emit_wait(t, wait_reasons[f->aux % 5]);
            return true;
        }
        end_bracket(t);
        return true;
    default:
        break;
    }
callout:
    /* the deeper, the likelier the end */
    if (t->depth >= MAX_DEPTH || rng_below(1000) < 200u + 120u * t->depth) {
        end_bracket(t);
        return true;
    }
    if (f->inner < 255)
        f->inner++;
    done = do_common_work(t);
    return done;
}

/* One step of thread T: at most one event. False when T had nothing to
 * do this time. */
static bool step(thread *t)
{
    switch (t->state) {
    case TS_BLOCKED_IPC:
        return false;
    case TS_BLOCKED:
        if (t->wait_deadline && now >= t->wait_deadline && rng_chance(500)) {
            emit_woken(t, "timed_out");
            return true;
        }
        if (rng_chance(600)) {
            emit_wakeup(find_waker(t), t);
            return true;
        }
        return false;
    case TS_WOKEN:
        emit_woken(t, "awakened");
        return true;
    default:
        break;
    }
    switch (t->todo) {
    case TODO_WAIT_REPLY:
        emit_wait_reply(t);
        return true;
    case TODO_WAKE_CLIENT:
        t->todo = TODO_NONE;
        emit_wakeup(t, &threads[t->wake_target]);
        return true;
    case TODO_RECV_REPLY:
        emit_recv_reply(t);
        return true;
    default:
        break;
    }
    if (t->depth)
        return act_inside(t);
    if (t->role == ROLE_KERNEL)
        return act_kernel(t);
    return t->role == ROLE_MAIN ? act_main(t) : act_worker(t);
}

/* ---- setup ---------------------------------------------------------------- */

static char *process_name(uint32_t i)
{
    size_t n = sizeof proc_names / sizeof *proc_names;
    char buf[64];
    if (i < n)
        snprintf(buf, sizeof buf, "%s", proc_names[i]);
    else
        snprintf(buf, sizeof buf, "%s-%u", proc_names[i % n], i / (unsigned)n);
    char *s = strdup(buf);
    if (!s)
        abort();
    return s;
}

static void setup(uint32_t nproc, uint32_t nuser)
{
    nprocs = nproc;
    nuser_threads = nuser;
    nthreads = nuser + KERNEL_THREADS;
    procs = calloc(nprocs, sizeof *procs);
    threads = calloc(nthreads, sizeof *threads);
    if (!procs || !threads)
        abort();
    uint32_t next = 0;
    for (uint32_t i = 0; i < nprocs; i++) {
        process *p = &procs[i];
        p->pid = 100 + i * 7;
        p->name = process_name(i);
        p->port = service_port(p->pid);
        p->first_thread = next;
        p->nthreads = nuser / nprocs + (i < nuser % nprocs);
        for (uint32_t k = 0; k < p->nthreads; k++, next++) {
            thread *t = &threads[next];
            t->tid = 1000 + next * 3;
            t->pid = p->pid;
            t->proc = i;
            t->role = k == 0 ? ROLE_MAIN : ROLE_WORKER;
            t->name = k == 0 ? "com.apple.main-thread"
                             : worker_names[(k - 1) % (sizeof worker_names / sizeof *worker_names)];
            thread_set_cpu(t, next % NCPU);
            t->reply_port = reply_port_of(t->tid);
        }
    }
    for (uint32_t k = 0; k < KERNEL_THREADS; k++, next++) {
        thread *t = &threads[next];
        t->tid = 100 + k;
        t->pid = 0;
        t->proc = UINT32_MAX;
        t->role = ROLE_KERNEL;
        t->name = kernel_names[k];
        thread_set_cpu(t, k);
    }
}

static void write_header(const char *command)
{
    argus_put_map(out, 5);
    put_key_text("type", "stream");
    put_key_text("format", "argus");
    put_key_uint("version", 1);
    put_key_text("source", "gen");
    put_str("stages");
    argus_put_array(out, 1);
    put_str(command);
    argus_end_record(out);
}

int main(int argc, char **argv)
{
    argus_cli_init(argc, argv);
    static const struct option opts[] = {
        {"events", required_argument, 0, 'n'},
        {"seed", required_argument, 0, 's'},
        {"processes", required_argument, 0, 'p'},
        {"threads", required_argument, 0, 't'},
        {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0},
    };
    uint64_t events = 1000000, seed = 1, nproc = 20, nuser = 200;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "n:s:p:t:h", opts, NULL)) != -1) {
        switch (c) {
        case 'n': events = argus_parse_uint_option("-n", optarg, 0, UINT64_MAX, NULL); break;
        case 's': seed = argus_parse_uint_option("-s", optarg, 0, UINT64_MAX, NULL); break;
        case 'p': nproc = argus_parse_uint_option("-p", optarg, 0, UINT64_MAX, NULL); break;
        case 't': nuser = argus_parse_uint_option("-t", optarg, 0, UINT64_MAX, NULL); break;
        case 'h': fputs(usage, stdout); return 0;
        case 'V': argus_print_version();
        default: argus_bad_option(argv);
        }
    }
    if (optind < argc)
        argus_usage_error("unexpected argument '%s'", argv[optind]);
    if (nproc < 1 || nproc > 10000)
        argus_usage_error("-p: %llu processes: give 1 to 10000",
                          (unsigned long long)nproc);
    if (nuser < nproc || nuser > 100000)
        argus_usage_error("-t: %llu threads: give at least one per process (%llu) and at most 100000",
                          (unsigned long long)nuser, (unsigned long long)nproc);

    /* the header names every setting, so the stream says how to remake it */
    char command[160];
    snprintf(command, sizeof command, "gen -n %llu -s %llu -p %llu -t %llu",
             (unsigned long long)events, (unsigned long long)seed,
             (unsigned long long)nproc, (unsigned long long)nuser);
    rng_state = seed;
    setup((uint32_t)nproc, (uint32_t)nuser);
    out = argus_writer_stdout();
    write_header(command);
    while (nevents < events) {
        /* main threads are picked more often than their share: they do
         * the most varied work */
        thread *t;
        if (rng_below(8) == 0) {
            const process *p = &procs[rng_below(nprocs)];
            t = &threads[p->first_thread];
        } else {
            t = &threads[rng_below(nthreads)];
        }
        step(t);
    }
    argus_writer_close(out);
    return 0;
}
