/* The kdebug decoder (include/argus/decode/kdebug.h, docs/inputs/macos.md): a
 * reorder window that merges records into ts order, the mapping of each
 * record through the code table to stream records, and the readers of the
 * binary containers (RAW_VERSION0..3). lib/decode/kdtext.c reads trace(1) text
 * into the same decoder. One concern, kdebug's records, at 1.2k lines: the
 * code table's mapping needs the window and the containers beside it. */
#include "argus/decode/kdebug.h"
#include "argus/decode/decoder.h"
#include "argus/decode/reorder.h"
#include "argus/stream/cli.h"
#include "argus/stream/table.h"
#include "argus/stream/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- Decoder state ---------------------------------------------------- */

#define NAME_MAX_LEN 64     /* process and thread names kept */
#define SYSCALL_DEPTH 4     /* nested syscalls kept per thread */
#define STRING_MAX 256      /* a reassembled string event */

typedef struct thread {
    uint64_t tid;
    uint32_t pid;
    bool announced;         /* its thread record was written */
    bool main, kernel, from_map;
    bool waiting;           /* a wait was written, its woken not yet */
    int wake_result;        /* result of the wakeup that ended the wait, or -1 */
    uint8_t nsyscalls;
    uint32_t syscalls[SYSCALL_DEPTH]; /* open syscalls, innermost last */
    bool have_kmsg;         /* a kmsg_info waits for the next ipc */
    uint32_t kmsg_src, kmsg_dst;
    uint64_t new_tid;       /* the thread this one created last */
    uint32_t string_id;     /* debugid of the string being assembled, or 0 */
    uint16_t string_len;
    char proc[NAME_MAX_LEN];
    char name[NAME_MAX_LEN];
    char string[STRING_MAX];
} thread;

struct argus_kd {
    argus_writer *w;
    argus_kd_options o;
    const char *source;
    char err[512];

    uint64_t numer, denom;  /* ns = ticks * numer / denom */
    bool have_wall, wall_at_first;
    uint64_t wall_ns, wall_tick;
    unsigned arg_bytes;     /* 8, or 4 in 32-bit files (strings) */

    argus_threads threads;  /* of thread */
    uint64_t *map_order;    /* tids of the thread map, in order */
    size_t nmap, capmap;

    argus_reorder window;   /* of argus_kd_rec, sorted by ts */

    bool header_written, have_zero;
    uint64_t zero;          /* ticks of the first record written */
    uint64_t last_ts;       /* ticks of the last record taken off the window */
    uint64_t next_id;

    /* -v counters */
    uint64_t n_records, n_events, n_raw, n_ignored, n_unmapped_threads,
        n_lost, n_synth_woken, n_woken, n_unmatched_end,
        n_strings;
};

const char *argus_kd_error(const argus_kd *d) { return d->err; }
const argus_kd_codes *argus_kd_codes_of(const argus_kd *d) { return d->o.codes; }

int argus_kd_fail(argus_kd *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->err, sizeof d->err, fmt, ap);
    va_end(ap);
    return -1;
}

argus_kd *argus_kd_new(argus_writer *w, const argus_kd_options *o)
{
    argus_kd *d = argus_xcalloc(1, sizeof *d, "kdebug reader");
    d->w = w;
    d->o = *o;
    d->source = "kdebug";
    d->numer = d->denom = 1;
    d->arg_bytes = 8;
    d->next_id = 1;
    argus_threads_init(&d->threads, sizeof(thread));
    d->o.window = o->window ? o->window : ARGUS_KD_DEFAULT_WINDOW;
    argus_reorder_init(&d->window, sizeof(argus_kd_rec), d->o.window);
    return d;
}

void argus_kd_free(argus_kd *d)
{
    if (!d)
        return;
    argus_threads_free(&d->threads);
    free(d->map_order);
    argus_reorder_free(&d->window);
    free(d);
}

void argus_kd_set_source(argus_kd *d, const char *source) { d->source = source; }

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

void argus_kd_set_timebase(argus_kd *d, uint64_t numer, uint64_t denom)
{
    if (d->o.tb_numer && d->o.tb_denom) {
        numer = d->o.tb_numer;
        denom = d->o.tb_denom;
    }
    if (!numer || !denom)
        numer = denom = 1;
    uint64_t g = gcd(numer, denom);
    d->numer = numer / g;
    d->denom = denom / g;
}

void argus_kd_set_walltime(argus_kd *d, uint64_t epoch_ns, uint64_t at_tick)
{
    d->have_wall = true;
    d->wall_ns = epoch_ns;
    d->wall_tick = at_tick;
    d->wall_at_first = at_tick == UINT64_MAX;
}

/* Ticks since the first record, in ns. */
static uint64_t ns_of(const argus_kd *d, uint64_t ticks)
{
    uint64_t t = ticks - d->zero;
    if (d->numer == d->denom)
        return t;
    unsigned __int128 ns = (unsigned __int128)t * d->numer / d->denom;
    return ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}

/* ---- Threads ----------------------------------------------------------- */

static thread *find_thread(argus_kd *d, uint64_t tid)
{
    return argus_threads_find(&d->threads, tid);
}

static thread *add_thread(argus_kd *d, uint64_t tid)
{
    bool created;
    thread *t = argus_threads_add(&d->threads, tid, &created);
    if (created)
        t->wake_result = -1;
    return t;
}

static void set_text(char *dst, const char *src, size_t len)
{
    argus_utf8_copy(dst, NAME_MAX_LEN, src, len);
}

static bool is_kernel_task(const char *command, size_t len)
{
    return len == 11 && memcmp(command, "kernel_task", 11) == 0;
}

void argus_kd_map_thread(argus_kd *d, uint64_t tid, uint32_t pid,
                         const char *command, size_t len)
{
    len = strnlen(command, len);
    thread *t = find_thread(d, tid);
    bool again = t != NULL;
    if (!t) {
        t = add_thread(d, tid);
        if (d->nmap == d->capmap) {
            d->capmap = d->capmap ? d->capmap * 2 : 256;
            d->map_order = argus_xrealloc(d->map_order, d->capmap * sizeof *d->map_order,
                                          "thread table");
        }
        d->map_order[d->nmap++] = tid;
    }
    /* xnu writes 1 in the pid field of pid 0's threads (kernel_task) */
    if (pid == 0 || is_kernel_task(command, len)) {
        pid = 0;
        t->kernel = true;
    } else {
        t->kernel = false;
    }
    bool changed = again && (t->pid != pid || strlen(t->proc) != len ||
                             memcmp(t->proc, command, len) != 0);
    t->pid = pid;
    t->from_map = true;
    set_text(t->proc, command, len);
    if (changed && t->announced)
        t->announced = false; /* a new record before its next event */
}

/* ---- Output ------------------------------------------------------------- */

/* A text literal, its length known at compile time. */
#define PUT_LIT(w, lit) argus_put_text((w), lit, sizeof lit - 1)

static void write_thread(argus_kd *d, thread *t)
{
    argus_put_thread_record(d->w, t->tid, t->pid, t->proc, t->name, t->main, t->kernel, 0, NULL);
    t->announced = true;
}

/* The main thread of a process: its lowest tid in the thread map (the
 * first thread a task makes, and thread ids only grow). */
static void mark_main_threads(argus_kd *d)
{
    argus_table lowest; /* pid -> tid */
    argus_table_init(&lowest, sizeof(uint64_t));
    for (size_t i = 0; i < d->nmap; i++) {
        const thread *t = find_thread(d, d->map_order[i]);
        if (t->kernel)
            continue;
        bool created;
        uint64_t *min = argus_table_put(&lowest, t->pid, &created);
        if (created || t->tid < *min)
            *min = t->tid;
    }
    for (size_t i = 0; i < d->nmap; i++) {
        thread *t = find_thread(d, d->map_order[i]);
        const uint64_t *min = argus_table_get(&lowest, t->pid);
        t->main = !t->kernel && min && *min == t->tid;
    }
    argus_table_free(&lowest);
}

static void write_header(argus_kd *d)
{
    argus_writer *w = d->w;
    bool t0 = d->have_wall;
    uint64_t t0_ns = 0;
    if (t0) {
        t0_ns = d->wall_ns;
        if (!d->wall_at_first && d->have_zero) {
            /* the wall time names tick wall_tick; ts 0 is tick zero */
            if (d->zero >= d->wall_tick)
                t0_ns += (uint64_t)((unsigned __int128)(d->zero - d->wall_tick) *
                                    d->numer / d->denom);
            else
                t0_ns -= (uint64_t)((unsigned __int128)(d->wall_tick - d->zero) *
                                    d->numer / d->denom);
        }
    }
    argus_put_stream_header(w, d->source, t0, t0_ns, d->o.command);
    d->header_written = true;
    if (strcmp(d->source, "trace-text") != 0) /* text has no whole map */
        mark_main_threads(d);
    for (size_t i = 0; i < d->nmap; i++) {
        thread *t = find_thread(d, d->map_order[i]);
        if (!t->announced)
            write_thread(d, t);
    }
}

/* Starts an event of TYPE by thread T with EXTRA more pairs to come. */
static void begin_event(argus_kd *d, const argus_kd_rec *r, thread *t,
                        const char *type, unsigned extra)
{
    if (!t->announced)
        write_thread(d, t);
    argus_put_event_head(d->w, type, strlen(type), d->next_id++, ns_of(d, r->ts), t->tid,
                         t->pid, r->cpu, extra);
    d->n_events++;
}

static void put_uint_field(argus_kd *d, const char *key, uint64_t v)
{
    argus_put_key(d->w, key);
    argus_put_uint(d->w, v);
}

static void put_text_field(argus_kd *d, const char *key, const char *v)
{
    argus_put_key(d->w, key);
    argus_put_cstr(d->w, v);
}

static void put_args(argus_kd *d, const argus_kd_rec *r)
{
    PUT_LIT(d->w, "args");
    argus_put_array(d->w, 4);
    for (int i = 0; i < 4; i++)
        argus_put_uint(d->w, r->arg[i]);
}

static const char *const wait_results[] = {"awakened", "timed_out",
                                           "interrupted", "restart"};

/* The woken that ends T's wait, at R's time on R's cpu. */
static void write_woken(argus_kd *d, const argus_kd_rec *r, thread *t, bool synth)
{
    bool result = t->wake_result >= 0 && t->wake_result < 4;
    begin_event(d, r, t, "woken", result + synth);
    if (result)
        put_text_field(d, "result", wait_results[t->wake_result]);
    if (synth) {
        PUT_LIT(d->w, "synth");
        argus_put_bool(d->w, true);
    }
    argus_end_record(d->w);
    t->waiting = false;
    t->wake_result = -1;
    if (synth)
        d->n_synth_woken++;
    else
        d->n_woken++;
}

/* "begin", "end" or NULL for R under entry C. */
static const char *phase_of(const argus_kd_code *c, uint32_t debugid)
{
    switch (c->phase) {
    case ARGUS_KD_PHASE_BEGIN: return "begin";
    case ARGUS_KD_PHASE_END: return "end";
    case ARGUS_KD_PHASE_NONE: return NULL;
    case ARGUS_KD_PHASE_FUNC: break;
    }
    switch (debugid & ARGUS_KD_FUNC_MASK) {
    case ARGUS_KD_FUNC_START: return "begin";
    case ARGUS_KD_FUNC_END: return "end";
    default: return NULL;
    }
}

/* The syscall T is in, for a wait's reason; NULL when none. */
static const char *open_syscall(const argus_kd *d, const thread *t, char *buf,
                                size_t len)
{
    if (!t->nsyscalls)
        return NULL;
    return argus_kd_code_name(d->o.codes, t->syscalls[t->nsyscalls - 1], buf, len);
}

static void track_syscall(argus_kd *d, thread *t, uint32_t debugid)
{
    uint32_t base = debugid & ~ARGUS_KD_FUNC_MASK;
    if ((debugid & ARGUS_KD_FUNC_MASK) == ARGUS_KD_FUNC_START) {
        if (t->nsyscalls == SYSCALL_DEPTH) {
            memmove(t->syscalls, t->syscalls + 1,
                    (SYSCALL_DEPTH - 1) * sizeof *t->syscalls);
            t->nsyscalls--;
        }
        t->syscalls[t->nsyscalls++] = base;
    } else if ((debugid & ARGUS_KD_FUNC_MASK) == ARGUS_KD_FUNC_END) {
        /* unwind to the START it ends; an END without one began before
         * the trace */
        for (int i = t->nsyscalls; i-- > 0;)
            if (t->syscalls[i] == base) {
                t->nsyscalls = (uint8_t)i;
                return;
            }
        d->n_unmatched_end++;
    }
}

static void write_syscall(argus_kd *d, const argus_kd_rec *r, thread *t,
                          const argus_kd_code *c)
{
    char buf[32];
    const char *name = argus_kd_entry_name(c, r->debugid, buf, sizeof buf);
    const char *phase = phase_of(c, r->debugid);
    bool begin = phase && strcmp(phase, "begin") == 0;
    bool end = phase && !begin;
    begin_event(d, r, t, "syscall", 1 + (phase != NULL) + begin + end);
    put_text_field(d, "name", name ? name : "?");
    if (phase)
        put_text_field(d, "phase", phase);
    if (begin)
        put_args(d, r);
    if (end) {
        PUT_LIT(d->w, "ret");
        if (ARGUS_KD_CLASS(r->debugid) == 1) /* Mach: a kern_return_t */
            argus_put_int(d->w, (int32_t)(uint32_t)r->arg[0]);
        else if ((int32_t)(uint32_t)r->arg[0] > 0) /* BSD: errno */
            argus_put_int(d->w, -(int64_t)(int32_t)(uint32_t)r->arg[0]);
        else /* the value (also after xnu's own EJUSTRETURN, ERESTART < 0) */
            argus_put_int(d->w, (int64_t)r->arg[1]);
    }
    argus_end_record(d->w);
    track_syscall(d, t, r->debugid);
}

/* A string record: appends its argument bytes to T's string. Returns true
 * when the string is complete. */
static bool add_string(argus_kd *d, const argus_kd_rec *r, thread *t)
{
    uint32_t base = r->debugid & ~ARGUS_KD_FUNC_MASK;
    unsigned func = r->debugid & ARGUS_KD_FUNC_MASK;
    bool continuing = t->string_id == base && !(func & ARGUS_KD_FUNC_START);
    if (!continuing) {
        t->string_len = 0;
        t->string_id = base;
    }
    bool ended = false;
    for (int i = 0; i < 4 && !ended; i++)
        for (unsigned b = 0; b < d->arg_bytes; b++) {
            char ch = (char)(r->arg[i] >> (8 * b));
            if (!ch) {
                ended = true;
                break;
            }
            if (t->string_len < STRING_MAX - 1)
                t->string[t->string_len++] = ch;
        }
    t->string[t->string_len] = '\0';
    /* a lone record (no function bits, none in progress), an END, or a
     * NUL inside the arguments ends the string */
    bool complete = (func & ARGUS_KD_FUNC_END) || ended ||
                    (func == 0 && !continuing);
    if (complete) {
        t->string_id = 0;
        d->n_strings++;
    }
    return complete;
}

static const char *const ns_event_kinds[] = {
    [1] = "leftMouseDown", [2] = "leftMouseUp", [3] = "rightMouseDown",
    [4] = "rightMouseUp", [5] = "mouseMoved", [6] = "leftMouseDragged",
    [7] = "rightMouseDragged", [8] = "mouseEntered", [9] = "mouseExited",
    [10] = "keyDown", [11] = "keyUp", [12] = "flagsChanged",
    [13] = "appKitDefined", [14] = "systemDefined", [15] = "applicationDefined",
    [16] = "periodic", [17] = "cursorUpdate", [22] = "scrollWheel",
    [25] = "otherMouseDown", [26] = "otherMouseUp", [27] = "otherMouseDragged",
};

static const char *const runloop_kinds[] = {"block", "source0", "source1",
                                            "timer", "observer", "dispatch"};

/* CFRunLoopActivity bits */
static const char *runloop_stage(uint64_t v)
{
    switch (v) {
    case 1: return "entry";
    case 2: return "before_timers";
    case 4: return "before_sources";
    case 32: return "before_waiting";
    case 64: return "after_waiting";
    case 128: return "exit";
    default: return NULL;
    }
}

/* Writes EXTRA optional address fields: key/value pairs with nonzero values. */
static void write_simple(argus_kd *d, const argus_kd_rec *r, thread *t,
                         const char *type, const char *phase,
                         const char *k1, uint64_t v1, const char *k2, uint64_t v2,
                         const char *k3, uint64_t v3)
{
    unsigned n = (phase != NULL) + (k1 != NULL) + (k2 && v2) + (k3 && v3);
    begin_event(d, r, t, type, n);
    if (phase)
        put_text_field(d, "phase", phase);
    if (k1)
        put_uint_field(d, k1, v1);
    if (k2 && v2)
        put_uint_field(d, k2, v2);
    if (k3 && v3)
        put_uint_field(d, k3, v3);
    argus_end_record(d->w);
}

static void write_raw(argus_kd *d, const argus_kd_rec *r, thread *t,
                      const argus_kd_code *c)
{
    char buf[32];
    const char *name = argus_kd_entry_name(c, r->debugid, buf, sizeof buf);
    begin_event(d, r, t, "kdebug", 2 + (name != NULL));
    put_uint_field(d, "debugid", r->debugid);
    if (name)
        put_text_field(d, "name", name);
    put_args(d, r);
    argus_end_record(d->w);
    d->n_raw++;
}

static void lost_events(argus_kd *d, const argus_kd_rec *r, thread *t)
{
    d->n_lost++;
    argus_note("%s: %s %llu: events were lost here (TRACE_LOST_EVENTS); "
               "the graph has a gap", d->o.name,
               strcmp(d->source, "trace-text") == 0 ? "line" : "byte",
               (unsigned long long)r->where);
    begin_event(d, r, t, "lost_events", 1);
    put_args(d, r);
    argus_end_record(d->w);
}

/* Whether a thread other than TID is known in process PID (new threads
 * are rare: a scan is enough). */
static bool pid_has_threads(const argus_kd *d, uint32_t pid, uint64_t tid)
{
    for (size_t i = 0; i < d->threads.count; i++) {
        const thread *t = argus_threads_at(&d->threads, i);
        if (t->pid == pid && t->tid != tid)
            return true;
    }
    return false;
}

/* Whether a record of this action shows its thread running its own code
 * again. Interrupts, timers and wakeups run on whatever thread the CPU had
 * (and a thread on its way to block arms its wait's timer), and unknown
 * codes may be sampling interrupts: none of them ends a wait. */
static bool runs_thread(argus_kd_action a)
{
    switch (a) {
    case ARGUS_KD_INTERRUPT: case ARGUS_KD_MAINTENANCE: case ARGUS_KD_TIMER_ARM:
    case ARGUS_KD_TIMER_CANCEL: case ARGUS_KD_TIMER_FIRE: case ARGUS_KD_WAKEUP:
    case ARGUS_KD_KMSG_INFO: case ARGUS_KD_RAW: case ARGUS_KD_LOST:
    case ARGUS_KD_IGNORE: case ARGUS_KD_SWITCH:
        return false;
    default:
        return true;
    }
}

/* Maps one record, taken off the window in ts order. */
static void map_record(argus_kd *d, const argus_kd_rec *r)
{
    d->n_records++;
    const argus_kd_code *c = argus_kd_code_find(d->o.codes, r->debugid);
    argus_kd_action action = c ? c->action : ARGUS_KD_RAW;
    thread *t = find_thread(d, r->tid);
    if (!t) {
        t = add_thread(d, r->tid);
        d->n_unmapped_threads++;
    }
    /* a context switch is the switched-in thread's woken */
    if (action == ARGUS_KD_SWITCH) {
        thread *in = find_thread(d, r->arg[1]);
        if (in && in->waiting)
            write_woken(d, r, in, false);
        return;
    }
    if (action == ARGUS_KD_IGNORE) {
        d->n_ignored++;
        return;
    }
    /* DEC-WOKEN: a waiting thread runs again without a switch seen */
    if (t->waiting && runs_thread(action))
        write_woken(d, r, t, true);

    const char *phase = c ? phase_of(c, r->debugid) : NULL;
    unsigned func = r->debugid & ARGUS_KD_FUNC_MASK;
    char buf[32];
    switch (action) {
    case ARGUS_KD_WAKEUP: {
        thread *target = find_thread(d, r->arg[0]);
        if (target && target->waiting)
            target->wake_result = r->arg[2] < 4 ? (int)r->arg[2] : -1;
        bool result = r->arg[2] < 4;
        begin_event(d, r, t, "wakeup", 1 + result);
        put_uint_field(d, "target", r->arg[0]);
        if (result)
            put_text_field(d, "result", wait_results[r->arg[2]]);
        argus_end_record(d->w);
        break;
    }
    case ARGUS_KD_WAIT: {
        const char *reason = open_syscall(d, t, buf, sizeof buf);
        begin_event(d, r, t, "wait", 1 + (reason != NULL));
        put_uint_field(d, "resource", r->arg[0]);
        if (reason)
            put_text_field(d, "reason", reason);
        argus_end_record(d->w);
        t->waiting = true;
        t->wake_result = -1;
        break;
    }
    case ARGUS_KD_INTERRUPT:
        write_simple(d, r, t, "interrupt", phase,
                     phase && strcmp(phase, "end") == 0 ? NULL : "irq", r->arg[0],
                     NULL, 0, NULL, 0);
        break;
    case ARGUS_KD_MAINTENANCE:
        write_simple(d, r, t, "sched_maintenance", phase, NULL, 0, NULL, 0, NULL, 0);
        break;
    case ARGUS_KD_SYSCALL:
        write_syscall(d, r, t, c);
        break;
    case ARGUS_KD_IPC_SEND:
    case ARGUS_KD_IPC_RECV: {
        bool send = action == ARGUS_KD_IPC_SEND;
        uint32_t peer = 0;
        if (t->have_kmsg) {
            peer = send ? t->kmsg_dst : t->kmsg_src;
            t->have_kmsg = false;
        }
        begin_event(d, r, t, "ipc", 4 + (r->arg[3] != 0) + (peer != 0));
        put_text_field(d, "dir", send ? "send" : "recv");
        put_uint_field(d, "msg", r->arg[0]);
        put_uint_field(d, "msg_id", r->arg[2]);
        if (r->arg[3])
            put_uint_field(d, "voucher", r->arg[3]);
        if (peer)
            put_uint_field(d, "peer", peer);
        put_text_field(d, "via", "mach");
        argus_end_record(d->w);
        break;
    }
    case ARGUS_KD_IPC_FREE:
        write_simple(d, r, t, "ipc_free", NULL, "msg", r->arg[0], NULL, 0, NULL, 0);
        break;
    case ARGUS_KD_KMSG_INFO:
        if (func & ARGUS_KD_FUNC_END) {
            t->have_kmsg = true;
            t->kmsg_src = (uint32_t)r->arg[0];
            t->kmsg_dst = (uint32_t)r->arg[1];
        }
        break;
    case ARGUS_KD_VOUCHER:
        write_simple(d, r, t, "voucher_set", NULL, "voucher", r->arg[2], NULL, 0,
                     NULL, 0);
        break;
    case ARGUS_KD_TIMER_ARM:
        if (func == ARGUS_KD_FUNC_END)
            break; /* the END of the enter adds nothing */
        write_simple(d, r, t, "timer_arm", NULL, "timer", r->arg[0], "deadline",
                     r->arg[2] > d->zero ? ns_of(d, r->arg[2]) : 0, NULL, 0);
        break;
    case ARGUS_KD_TIMER_CANCEL:
        if (func == ARGUS_KD_FUNC_END)
            break;
        write_simple(d, r, t, "timer_cancel", NULL, "timer", r->arg[0], NULL, 0,
                     NULL, 0);
        break;
    case ARGUS_KD_TIMER_FIRE: {
        bool begin = !phase || strcmp(phase, "begin") == 0;
        /* trace(1) prints an END without the timer: no field then */
        write_simple(d, r, t, "timer_fire", phase, r->arg[0] ? "timer" : NULL,
                     r->arg[0], "func", begin ? r->arg[1] : 0, NULL, 0);
        break;
    }
    /* libdispatch's layout (src/trace.h): a push has the item, its block
     * or function, and the queue's serial number in the high word of arg3;
     * a pop has the queue's serial in arg3; an item done only the item */
    case ARGUS_KD_DISPATCH_ENQUEUE:
        write_simple(d, r, t, "dispatch_enqueue", NULL, "item", r->arg[0], "queue",
                     r->arg[2] >> 32, "func", r->arg[1]);
        break;
    case ARGUS_KD_DISPATCH_INVOKE:
        write_simple(d, r, t, "dispatch_invoke", phase, "item", r->arg[0], "queue",
                     phase && strcmp(phase, "end") == 0 ? 0 : r->arg[2], NULL, 0);
        break;
    case ARGUS_KD_RUNLOOP_SUBMIT:
        write_simple(d, r, t, "runloop_submit", NULL, "item", r->arg[0], NULL, 0,
                     NULL, 0);
        break;
    case ARGUS_KD_RUNLOOP_INVOKE: {
        const char *kind = r->arg[0] < 6 ? runloop_kinds[r->arg[0]] : NULL;
        begin_event(d, r, t, "runloop_invoke",
                    (phase != NULL) + (kind != NULL) + (r->arg[1] != 0) + (r->arg[2] != 0));
        if (phase)
            put_text_field(d, "phase", phase);
        if (kind)
            put_text_field(d, "kind", kind);
        if (r->arg[1])
            put_uint_field(d, "item", r->arg[1]);
        if (r->arg[2])
            put_uint_field(d, "func", r->arg[2]);
        argus_end_record(d->w);
        break;
    }
    case ARGUS_KD_RUNLOOP_PHASE: {
        const char *stage = runloop_stage(r->arg[0]);
        begin_event(d, r, t, "runloop_phase", 1);
        if (!stage) {
            snprintf(buf, sizeof buf, "stage_%llu", (unsigned long long)r->arg[0]);
            stage = buf;
        }
        put_text_field(d, "stage", stage);
        argus_end_record(d->w);
        break;
    }
    case ARGUS_KD_UI_EVENT: {
        uint64_t k = r->arg[0];
        const char *kind = k < sizeof ns_event_kinds / sizeof *ns_event_kinds
                               ? ns_event_kinds[k] : NULL;
        if (!kind) {
            snprintf(buf, sizeof buf, "event_%llu", (unsigned long long)k);
            kind = buf;
        }
        begin_event(d, r, t, "ui_event", 1);
        put_text_field(d, "kind", kind);
        argus_end_record(d->w);
        break;
    }
    case ARGUS_KD_FLAG_WRITE:
    case ARGUS_KD_FLAG_READ:
        begin_event(d, r, t, action == ARGUS_KD_FLAG_WRITE ? "flag_write" : "flag_read", 2);
        put_uint_field(d, "addr", r->arg[0]);
        put_uint_field(d, "value", r->arg[1]);
        argus_end_record(d->w);
        break;
    case ARGUS_KD_CA_SET:
        write_simple(d, r, t, "ca_set", NULL, "obj", r->arg[0], NULL, 0, NULL, 0);
        break;
    case ARGUS_KD_CA_DISPLAY:
        write_simple(d, r, t, "ca_display", phase, "obj", r->arg[0], NULL, 0, NULL, 0);
        break;
    case ARGUS_KD_NEW_THREAD: {
        uint64_t tid = r->arg[0];
        uint32_t pid = (uint32_t)r->arg[1];
        /* the creator's process name, until a NEWTHREAD string names it */
        char proc[NAME_MAX_LEN];
        memcpy(proc, t->proc, sizeof proc);
        bool same = pid == t->pid;
            thread *n = find_thread(d, tid);
        bool fresh = !n;
        if (fresh)
            n = add_thread(d, tid);
        t->new_tid = tid;
        if (fresh || n->pid != pid) {
            n->pid = pid;
            n->kernel = pid == 0;
            memcpy(n->proc, same ? proc : "", same ? sizeof proc : 1);
            /* the first thread of a process not seen before (a fork) */
            n->main = pid != 0 && !pid_has_threads(d, pid, tid);
            n->announced = false;
        }
        break;
    }
    case ARGUS_KD_EXEC: {
        uint32_t pid = (uint32_t)r->arg[0];
        if (pid && pid != t->pid) {
            t->pid = pid;
            t->kernel = false;
            t->announced = false; /* its record again, before its next event */
        }
        break;
    }
    case ARGUS_KD_NEW_THREAD_NAME:
    case ARGUS_KD_EXEC_NAME:
    case ARGUS_KD_THREAD_NAME: {
        if (!add_string(d, r, t))
            break;
        thread *target = t;
        if (action == ARGUS_KD_NEW_THREAD_NAME) {
            target = t->new_tid ? find_thread(d, t->new_tid) : NULL;
            if (!target)
                break;
            set_text(target->proc, t->string, t->string_len);
        } else if (action == ARGUS_KD_EXEC_NAME) {
            set_text(t->proc, t->string, t->string_len);
            t->main = true; /* the thread that execs is the new main thread */
            t->kernel = false;
        } else {
            set_text(t->name, t->string, t->string_len);
        }
        /* an announced thread gets its record again; others at first use */
        if (target->announced)
            write_thread(d, target);
        break;
    }
    case ARGUS_KD_LOST:
        lost_events(d, r, t);
        break;
    case ARGUS_KD_EVENT:
        begin_event(d, r, t, c->type ? c->type : "kdebug", 1 + (phase != NULL));
        if (phase)
            put_text_field(d, "phase", phase);
        put_args(d, r);
        argus_end_record(d->w);
        break;
    case ARGUS_KD_RAW:
    default:
        write_raw(d, r, t, c);
        break;
    }
}

/* ---- The reorder window -------------------------------------------------- */

static void take_oldest(argus_kd *d)
{
    argus_kd_rec *r = argus_reorder_oldest(&d->window);
    if (!d->have_zero) {
        d->have_zero = true;
        d->zero = r->ts;
    }
    if (!d->header_written)
        write_header(d);
    d->last_ts = r->ts;
    map_record(d, r);
    argus_reorder_pop(&d->window);
}

int argus_kd_push(argus_kd *d, const argus_kd_rec *r)
{
    if (d->have_zero && r->ts < d->last_ts) {
        bool text = strcmp(d->source, "trace-text") == 0;
        return argus_kd_fail(
            d, "%s%s%llu: ts %llu is before ts %llu already written (beyond the "
               "reorder window of %zu records; try a larger --window)",
            d->o.name, text ? ":" : ": byte ", (unsigned long long)r->where,
            (unsigned long long)r->ts, (unsigned long long)d->last_ts, d->o.window);
    }
    *(argus_kd_rec *)argus_reorder_tail(&d->window) = *r;
    if (argus_reorder_commit(&d->window))
        take_oldest(d);
    return 0;
}

/* Writes the records in the window (after an error: they came before it). */
void argus_kd_drain(argus_kd *d)
{
    while (d->window.count)
        take_oldest(d);
}

int argus_kd_finish(argus_kd *d)
{
    argus_kd_drain(d);
    if (!d->header_written)
        write_header(d);
    return 0;
}

void argus_kd_print_counts(const argus_kd *d, void *file)
{
    FILE *f = file;
    fprintf(f, "%s: %llu records read, %llu events written\n", argus_prog(),
            (unsigned long long)d->n_records, (unsigned long long)d->n_events);
#define COUNT(n, what) fprintf(f, "  %llu %s\n", (unsigned long long)(n), what)
    COUNT(d->nmap, "threads in the thread map");
    COUNT(d->n_unmapped_threads, "threads not in the thread map (pid 0, proc \"unknown\" unless a new-thread record named them)");
    COUNT(d->n_raw, "records of codes the table does not map (kdebug events)");
    COUNT(d->n_ignored, "records the table ignores");
    COUNT(d->n_woken, "woken events at a context switch");
    COUNT(d->n_synth_woken, "woken events made before a thread's next record (DEC-WOKEN, synth)");
    COUNT(d->n_unmatched_end, "syscall ENDs without their START (begun before the trace)");
    COUNT(d->n_strings, "strings reassembled (thread and process names)");
    COUNT(d->n_lost, "lost-events records");
    COUNT(d->window.moved, "records moved into ts order by the reorder window");
#undef COUNT
}

/* ---- Binary containers ---------------------------------------------------- */

#define RAW_VERSION1 0x55aa0101u
#define RAW_VERSION2 0x55aa0200u
#define RAW_VERSION3 0x00001000u      /* kernel-written: the header chunk's tag */
#define RAW_VERSION3_LIB 0x55aa0300u  /* libktrace files */
#define V3_THREAD_MAP 0x1d00u
#define V3_RAW_EVENTS 0x1e00u
#define MAP_ENTRY 32                  /* kd_threadmap */
#define MAX_THREADS (1u << 22)

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }

const char *argus_kd_sniff(const uint8_t *buf, size_t len)
{
    if (len < 4)
        return NULL;
    switch (le32(buf)) {
    case RAW_VERSION1: return "kdebug-v1";
    case RAW_VERSION2: return "kdebug-v2";
    case RAW_VERSION3_LIB: return "kdebug-v3";
    case RAW_VERSION3:
        /* sub_tag (the header's version) is small; the length names the
         * fixed fields at least */
        if (len >= 16 && le32(buf + 4) < 0x100 && le64(buf + 8) >= 40)
            return "kdebug-v3";
        return NULL;
    default: return NULL;
    }
}

/* The binary reader: a position in the file over the input window. */
typedef struct bin {
    argus_kd *d;
    argus_input *in;
    uint64_t pos;       /* file offset of in->buf[in->lo] */
    uint64_t size;      /* the file's size, or UINT64_MAX when unknown */
} bin;

/* Makes N bytes available at in->lo. Returns false at the end of input. */
static bool need(bin *b, size_t n)
{
    while (b->in->hi - b->in->lo < n) {
        if (b->in->eof)
            return false;
        if (!argus_input_fill(b->in))
            return false;
    }
    return true;
}

static const uint8_t *at(bin *b) { return b->in->buf + b->in->lo; }

static void advance(bin *b, size_t n)
{
    b->in->lo += n;
    b->pos += n;
}

/* Skips N bytes (possibly more than the window holds). */
static bool skip(bin *b, uint64_t n)
{
    while (n) {
        if (!need(b, 1))
            return false;
        size_t have = b->in->hi - b->in->lo;
        size_t k = have < n ? have : (size_t)n;
        advance(b, k);
        n -= k;
    }
    return true;
}

static int truncated(bin *b, const char *what, uint64_t want)
{
    return argus_kd_fail(b->d, "%s: byte %llu: the file ends inside %s "
                               "(%llu bytes wanted, %zu there)",
                         b->d->o.name, (unsigned long long)b->pos, what,
                         (unsigned long long)want, b->in->hi - b->in->lo);
}

/* COUNT kd_threadmap entries at the position. */
static int read_thread_map(bin *b, uint64_t count)
{
    for (uint64_t i = 0; i < count; i++) {
        if (!need(b, MAP_ENTRY))
            return truncated(b, "the thread map", MAP_ENTRY);
        const uint8_t *p = at(b);
        uint64_t tid = le64(p);
        uint32_t pid = le32(p + 8);
        if (tid) /* zero entries are padding */
            argus_kd_map_thread(b->d, tid, pid, (const char *)p + 12, 20);
        advance(b, MAP_ENTRY);
    }
    return 0;
}

/* Guesses the record size of a V0/V1 file from its first records: the
 * 64-bit form has a small cpuid and a zero 'unused' word. */
static unsigned guess_record_size(bin *b)
{
    need(b, 64 * 16);
    size_t have = b->in->hi - b->in->lo;
    const uint8_t *p = at(b);
    unsigned n64 = 0, ok64 = 0, n32 = 0, ok32 = 0;
    for (size_t off = 0; off + 64 <= have && n64 < 16; off += 64, n64++)
        ok64 += le32(p + off + 52) < 1024 && le64(p + off + 56) == 0 &&
                le32(p + off + 48) != 0;
    uint64_t prev = 0;
    for (size_t off = 0; off + 32 <= have && n32 < 32; off += 32, n32++) {
        uint64_t ts = le64(p + off) & 0x00ffffffffffffffull;
        ok32 += ts >= prev && le32(p + off + 28) != 0;
        prev = ts;
    }
    if (n64 == 0) /* less than one 64-byte record: only 32-byte ones fit */
        return have >= 32 ? 32 : 64;
    return ok64 * 2 >= n64 || ok64 * n32 >= ok32 * n64 ? 64 : 32;
}

/* Records from the position up to LIMIT (file offset) or the end. */
static int read_records(bin *b, unsigned size, uint64_t limit)
{
    argus_kd *d = b->d;
    d->arg_bytes = size == 64 ? 8 : 4;
    argus_kd_rec r;
    for (;;) {
        if (b->pos >= limit)
            return 0;
        size_t have = b->in->hi - b->in->lo;
        if (have < size) {
            if (!need(b, size)) {
                if (b->in->hi == b->in->lo && limit == UINT64_MAX)
                    return 0;
                return argus_kd_fail(d, "%s: byte %llu: the file ends inside a "
                                        "record (%zu of %u bytes)",
                                     d->o.name, (unsigned long long)b->pos,
                                     b->in->hi - b->in->lo, size);
            }
            have = b->in->hi - b->in->lo;
        }
        /* records whole in the window, up to the limit */
        uint64_t n = have / size;
        if (limit != UINT64_MAX && n > (limit - b->pos) / size)
            n = (limit - b->pos) / size;
        if (n == 0)
            return argus_kd_fail(d, "%s: byte %llu: a chunk ends inside a record",
                                 d->o.name, (unsigned long long)b->pos);
        const uint8_t *p = at(b);
        for (uint64_t i = 0; i < n; i++, p += size) {
            if (size == 64) {
                r.ts = le64(p);
                r.arg[0] = le64(p + 8);
                r.arg[1] = le64(p + 16);
                r.arg[2] = le64(p + 24);
                r.arg[3] = le64(p + 32);
                r.tid = le64(p + 40);
                r.debugid = le32(p + 48);
                r.cpu = le32(p + 52);
            } else {
                uint64_t ts = le64(p);
                r.ts = ts & 0x00ffffffffffffffull;
                r.cpu = (uint32_t)(ts >> 56);
                r.arg[0] = le32(p + 8);
                r.arg[1] = le32(p + 12);
                r.arg[2] = le32(p + 16);
                r.arg[3] = le32(p + 20);
                r.tid = le32(p + 24);
                r.debugid = le32(p + 28);
            }
            r.where = b->pos + i * size;
            if (argus_kd_push(d, &r) < 0)
                return -1;
        }
        advance(b, (size_t)(n * size));
    }
}

static uint64_t round_up(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

static int check_thread_count(bin *b, int64_t count, uint64_t map_at, uint64_t at_byte)
{
    if (count < 0 || count > MAX_THREADS ||
        (b->size != UINT64_MAX && map_at + (uint64_t)count * MAP_ENTRY > b->size))
        return argus_kd_fail(b->d, "%s: byte %llu: thread count %lld does not fit "
                                   "the file (%llu bytes)",
                             b->d->o.name, (unsigned long long)at_byte,
                             (long long)count,
                             (unsigned long long)(b->size == UINT64_MAX ? 0 : b->size));
    return 0;
}

static unsigned record_size(argus_kd *d, unsigned from_file)
{
    return d->o.record_size ? d->o.record_size : from_file;
}

static int read_v0_v1(bin *b, bool v1)
{
    argus_kd *d = b->d;
    uint64_t hdr = v1 ? 24 : 4;
    if (!need(b, hdr))
        return truncated(b, "the header", hdr);
    const uint8_t *p = at(b);
    int64_t count = (int32_t)le32(p + (v1 ? 4 : 0));
    if (check_thread_count(b, count, hdr, v1 ? 4 : 0) < 0)
        return -1;
    argus_kd_set_source(d, v1 ? "kdebug-v1" : "kdebug-v0");
    argus_kd_set_timebase(d, 1, 1);
    if (v1) {
        uint64_t secs = le64(p + 8);
        uint32_t usecs = le32(p + 16);
        if (secs)
            argus_kd_set_walltime(d, secs * 1000000000ull + usecs * 1000ull, UINT64_MAX);
    }
    advance(b, hdr);
    if (read_thread_map(b, (uint64_t)count) < 0)
        return -1;
    uint64_t events = b->pos;
    if (v1) {
        /* a CPU map may hide in the padding: kd_cpumap_header, then
         * 16-byte entries; events start at the next 4 KiB after it */
        uint64_t end = b->pos;
        if (need(b, 8) && le32(at(b)) == RAW_VERSION1) {
            uint32_t cpus = le32(at(b) + 4);
            if (cpus > 4096)
                return argus_kd_fail(d, "%s: byte %llu: CPU map of %u CPUs",
                                     d->o.name, (unsigned long long)b->pos, cpus);
            end += 8 + 16ull * cpus;
        }
        events = round_up(end, 4096);
        if (!skip(b, events - b->pos))
            return truncated(b, "the padding before the events", events - b->pos);
    }
    return read_records(b, record_size(d, d->o.record_size ? 0 : guess_record_size(b)),
                        UINT64_MAX);
}

static int read_v2(bin *b)
{
    argus_kd *d = b->d;
    if (!need(b, 0x120))
        return truncated(b, "the header", 0x120);
    const uint8_t *p = at(b);
    int64_t count = (int32_t)le32(p + 4);
    if (check_thread_count(b, count, 0x120, 4) < 0)
        return -1;
    uint64_t secs = le64(p + 8);
    uint32_t usecs = le32(p + 16);
    bool is64 = le32(p + 20) & 1;
    uint64_t hz = le64(p + 24);
    argus_kd_set_source(d, "kdebug-v2");
    argus_kd_set_timebase(d, 1000000000ull, hz ? hz : 1000000000ull);
    if (secs)
        argus_kd_set_walltime(d, secs * 1000000000ull + usecs * 1000ull, UINT64_MAX);
    advance(b, 0x120);
    if (read_thread_map(b, (uint64_t)count) < 0)
        return -1;
    uint64_t events = round_up(b->pos, 4096);
    if (!skip(b, events - b->pos))
        return truncated(b, "the padding before the events", events - b->pos);
    return read_records(b, record_size(d, is64 ? 64 : 32), UINT64_MAX);
}

static int read_v3(bin *b)
{
    argus_kd *d = b->d;
    if (!need(b, 56))
        return truncated(b, "the header", 56);
    const uint8_t *p = at(b);
    uint64_t len = le64(p + 8);
    uint32_t numer = le32(p + 16), denom = le32(p + 20);
    uint64_t start = le64(p + 24), secs = le64(p + 32);
    uint32_t usecs = le32(p + 40), flags = le32(p + 52);
    if (len < 40 || (b->size != UINT64_MAX && 16 + len > b->size))
        return argus_kd_fail(d, "%s: byte 8: header chunk length %llu does not fit "
                                "the file", d->o.name, (unsigned long long)len);
    argus_kd_set_source(d, "kdebug-v3");
    argus_kd_set_timebase(d, numer, denom);
    if (secs)
        argus_kd_set_walltime(d, secs * 1000000000ull + usecs * 1000ull, start);
    unsigned size = record_size(d, (flags & 1) ? 64 : 32);
    /* the header's sub-chunks (a CPU map) are inside its length */
    if (!skip(b, round_up(16 + len, 8)))
        return truncated(b, "the header chunk", 16 + len);
    for (;;) {
        if (!need(b, 16)) {
            if (b->in->hi == b->in->lo)
                return 0;
            return truncated(b, "a chunk header", 16);
        }
        uint64_t chunk_at = b->pos;
        p = at(b);
        uint32_t tag = le32(p);
        uint64_t clen = le64(p + 8);
        if (b->size != UINT64_MAX && clen > b->size - chunk_at - 16)
            return argus_kd_fail(d, "%s: byte %llu: chunk 0x%x of %llu bytes goes "
                                    "past the end of the file (%llu bytes)",
                                 d->o.name, (unsigned long long)chunk_at, tag,
                                 (unsigned long long)clen, (unsigned long long)b->size);
        advance(b, 16);
        uint64_t end = chunk_at + 16 + clen;
        if (tag == V3_THREAD_MAP) {
            if (clen % MAP_ENTRY)
                return argus_kd_fail(d, "%s: byte %llu: thread map chunk of %llu "
                                        "bytes is not whole 32-byte entries",
                                     d->o.name, (unsigned long long)chunk_at,
                                     (unsigned long long)clen);
            if (read_thread_map(b, clen / MAP_ENTRY) < 0)
                return -1;
        } else if (tag == V3_RAW_EVENTS) {
            if (clen < 8 || (clen - 8) % size)
                return argus_kd_fail(d, "%s: byte %llu: events chunk of %llu bytes "
                                        "is not 8 + whole %u-byte records",
                                     d->o.name, (unsigned long long)chunk_at,
                                     (unsigned long long)clen, size);
            if (!skip(b, 8))
                return truncated(b, "an events chunk", 8);
            if (read_records(b, size, end) < 0)
                return -1;
        } else if (!skip(b, clen)) { /* config 0x1b00, CPU map 0x1c00, null 0x2000, others */
            return truncated(b, "a chunk", clen);
        }
        /* chunks are 8-byte aligned */
        uint64_t next = round_up(end, 8);
        if (next > b->pos && !skip(b, next - b->pos)) {
            if (b->in->hi == b->in->lo)
                return 0;
            return truncated(b, "the padding after a chunk", next - b->pos);
        }
    }
}

int argus_kd_read_binary(argus_kd *d, argus_input *in)
{
    bin b = {d, in, 0, UINT64_MAX};
    struct stat st;
    if (fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode))
        b.size = (uint64_t)st.st_size;
    if (!need(&b, 4)) {
        if (in->hi == in->lo)
            return argus_kd_fail(d, "%s: byte 0: the file is empty", d->o.name);
        return truncated(&b, "the magic number", 4);
    }
    uint32_t magic = le32(at(&b));
    int rc;
    if (d->o.kdebug_v0)
        rc = read_v0_v1(&b, false);
    else if (magic == RAW_VERSION1)
        rc = read_v0_v1(&b, true);
    else if (magic == RAW_VERSION2)
        rc = read_v2(&b);
    else if (magic == RAW_VERSION3 || magic == RAW_VERSION3_LIB)
        rc = read_v3(&b);
    else
        return argus_kd_fail(d, "%s: byte 0: magic 0x%08x is not a kdebug file "
                                "(RAW_VERSION1 0x%08x, RAW_VERSION2 0x%08x, "
                                "RAW_VERSION3 0x%08x or 0x%08x; a RAW_VERSION0 "
                                "file has none: give --kdebug-v0)",
                             d->o.name, magic, RAW_VERSION1, RAW_VERSION2,
                             RAW_VERSION3, RAW_VERSION3_LIB);
    if (rc < 0) {
        /* the complete records before the error stay (docs/stages/decode.md) */
        argus_kd_drain(d);
        return -1;
    }
    return argus_kd_finish(d);
}
