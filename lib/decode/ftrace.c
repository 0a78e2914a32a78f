/* Linux ftrace text to an argus stream (include/argus/decode/ftrace.h): the line
 * reader, the reorder window of lines, and the mapping of each event
 * (docs/inputs/linux.md has the table). */
#include "argus/decode/ftrace.h"
#include "argus/decode/android.h"
#include "argus/decode/decode.h"
#include "argus/stream/cli.h"
#include "argus/decode/decoder.h"
#include "argus/decode/reorder.h"
#include "argus/stream/table.h"
#include "argus/stream/text.h"

#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define COMM_MAX 64        /* thread names kept (the kernel's are 16) */
#define SYSNAME_MAX 32
#define LINE_MAX_BYTES (1u << 20)
#define HEAD_MAX 256       /* bytes before a line's [CPU] */
#define RUN_RING 256       /* run slices kept per cpu */
#define PREEMPTED_MIN 1000000 /* a CPU wait of 1 ms matters (preempted, cpu_holder) */

typedef struct span {
    const char *p;
    size_t n;
} span;

/* ---- Threads ------------------------------------------------------------- */

typedef struct thread {
    uint64_t tid;
    int64_t tgid;          /* -1: not known */
    char comm[COMM_MAX];
    bool kernel_known, kernel; /* from an argus-thread line */
    uint64_t parent;       /* the process that forked it (sched_process_fork), 0 */
    bool announced;        /* its thread record is written, up to date */
    bool waiting;          /* a wait written, its woken not yet */
    bool woken_by_wakeup;  /* a wakeup came for the wait */
    bool woken_by_timer;   /* ... from the expiry of its own timer */
    uint64_t wakeup_ts;    /* when that wakeup came (runnable since) */
    bool preempted;        /* switched out while it could run (R) ... */
    uint64_t preempted_ts; /* ... then */
    bool waking_pending;   /* a sched_waking counted; its sched_wakeup is not */
    bool in_syscall;
    char sys[SYSNAME_MAX]; /* the syscall in progress */
    uint64_t sys_arg0, sys_arg1;
    uint64_t sys_ts;       /* its enter line's ts (stream ns) */
    uint64_t ipc_msg;      /* an ipc recv to write when the syscall ends */
    uint64_t ipc_peer;
    const char *ipc_via;
    bool in_work;          /* a workqueue item runs: its item and queue */
    uint64_t work_item, work_queue;
    uint64_t loop_item[8]; /* the main-loop dispatches running, innermost last */
    uint32_t loop_depth;   /* (deeper ones are counted, not kept) */
} thread;

/* What a first pass over a file tells of a thread (argus_ft_prescan): it
 * was asleep when the trace began when a wakeup of it comes before any
 * line of its own. */
struct prescan {
    bool seen;             /* a line of its own, a switch to it, or a wakeup */
    bool asleep;           /* ... and the first was a wakeup */
    bool own_line;         /* a line of its own came (after the wakeup) */
    int64_t tgid;
    char sys[SYSNAME_MAX]; /* the syscall its first own line ends */
    char comm[16];         /* as the wakeup names it */
};

/* ---- Lines in the window ---------------------------------------------- */

enum { HEAD_NONE = 0, HEAD_EVENT, HEAD_COMMENT };

typedef struct line_slot {
    uint64_t ts;           /* ns, as in the file (first: the window's key) */
    uint64_t line;         /* line number */
    char *text;            /* owned, reused when the slot comes round */
    uint32_t len, cap;
    /* the parsed head: COMM-TID (TGID) [CPU] FLAGS TS: then the body */
    uint32_t comm_off, comm_len, body_off;
    uint64_t tid;
    int64_t tgid;
    uint32_t cpu;
    int kind;
    char irq_ctx;          /* the flags' hardirq/softirq mark (h, H, s, z, Z), '.'
                            * in task context, 0 without flags */
    bool counter;          /* TS had no fraction: a counter clock's ticks */
    bool negative_ts;      /* TS had a minus sign: refused, not read as a
                            * line without a head (DEC-RANGE) */
    uint32_t tid_off, tid_len; /* the tid's and tgid's digits, for a message */
    uint32_t tgid_off, tgid_len;
} line_slot;

/* What the trace showed a file descriptor to be (DEC-FD): the syscall of
 * its process that gave it that meaning, when, and by which thread. */
enum fd_how { FD_CONNECT = 1, FD_CONNECTING, FD_ACCEPT, FD_FLOCK };
struct fd_origin {
    uint64_t ts;           /* stream ns of the syscall's enter line */
    uint64_t tid;          /* the thread that made it */
    uint64_t listen;       /* FD_ACCEPT: the listening fd */
    uint8_t how;           /* enum fd_how */
};

struct argus_ft {
    argus_writer *w;
    argus_ft_options o;
    char err[512];
    argus_reorder window;

    argus_threads threads; /* of thread */
    /* the threads looked up last, by tid modulo 256: a line's thread and
     * the ones it names are mostly ones seen a moment ago (threads never
     * move, so the pointers stay good) */
    struct { uint64_t tid; thread *t; } recent[256];
    argus_table names;     /* event name hash -> event kind + 1 */
    argus_table work_queue; /* work item -> queue, enqueued not yet run */

    uint64_t line_no;
    span event_name;       /* of the line being mapped, when it has one */
    bool html, in_script, script_checked;
    bool header_written, have_zero, have_last;
    uint64_t zero, last_ts, next_id, next_msg;
    /* "# argus-clock: mono=S realtime=S" (argus-record): one moment on the
     * trace's clock (mono) and on the wall clock, ns */
    bool have_clock;
    uint64_t clock_mono, clock_real;
    uint64_t launched;     /* "# argus-command: pid=N": the command's pid */
    /* "# argus-focus: pid=N" (argus-record --pid, --proc): the running
     * processes asked about, each once (DEC-FOCUS) */
    uint64_t focus[ARGUS_MAX_FOCUS];
    size_t n_focus;
    /* DEC-LAUNCHED without that line (argus-record before it wrote one):
     * the recorder's pid ("# recorded by argus-record V: instance
     * argus-PID"), and the other processes its header lists as
     * "argus-record": the command, forked and held before tracing */
    uint64_t recorder_pid, held_child;
    /* DEC-LOSS: the header's entries-in-buffer/entries-written, the end
     * mark argus-record promised ("# argus-end: expected") and wrote, the
     * line number of a last line cut short */
    uint64_t entries_kept, entries_written;
    bool end_expected, end_seen;
    uint64_t cut_line;
    uint32_t n_held_children;
    uint64_t last_pushed_ts;

    /* per cpu: the irq_handler/softirq windows open (a bit per depth: a
     * softirq the running thread's own system call ran), the thread whose
     * synthetic interrupt window is open (lines in interrupt context by
     * their flags, outside any of those: the local timer, IPIs), the
     * previous line (its thread, whether in hardirq context), and the timer
     * callback running (its function a timeout's, its armer's process) */
    struct cpu_ctx {
        /* the latest run slices on it (who held it while a woken thread
         * waited for it) */
        struct run_slice { uint64_t tid, from, to; } *run; /* RUN_RING, on first use */
        uint32_t run_next;
        uint64_t running_since;
        uint32_t real_depth, own_mask;
        bool synth_open, last_hard, in_timer, timer_timeout;
        char synth_ctx;
        uint64_t synth_tid, last_tid;
        int64_t timer_armer;
        /* DEC-LOSS: its first event kept, a "##### CPU N buffer started"
         * mark (its older events overwritten), events dropped ("CPU:N
         * [LOST M EVENTS]") and about when (the latest line read then) */
        uint64_t first_ts, dropped, dropped_from, dropped_to, drop_lines;
        bool seen, started_mark, drop_timed;
    } *cpus;
    uint32_t ncpus;
    /* the context of the line being mapped (track_irq_ctx) */
    enum { CTX_TASK, CTX_OWN_SOFTIRQ, CTX_IRQ } line_ctx;
    bool line_own_irq;     /* its interrupt begin/end is of an own softirq */
    const struct cpu_ctx *line_cpu;
    argus_table timer_armer; /* timer -> the arming process + 1 */
    argus_table fds;       /* (pid << 32 | fd) -> struct fd_origin (DEC-FD) */
    argus_table prescan;   /* tid -> struct prescan (argus_ft_prescan) */
    uint64_t prescan_done[256]; /* tid + 1 by tid modulo 256: nothing more
                                 * for its own lines to tell (a line's
                                 * thread is mostly one seen a moment ago) */
    bool start_waits_written;

    /* lines that reach the window, and those of them with an ftrace
     * head: a text none of whose lines has one is not ftrace (65) */
    uint64_t n_content, n_heads;
    /* of the lines without a head: those that are no stack trace line
     * (" => func"), and those shaped as perf script's; more of the first
     * than of heads is not ftrace (65): no verdict from lines not understood */
    uint64_t n_headless, n_perf_script;
    char first_content[80];

    /* -v counters */
    uint64_t n_lines, n_events, n_raw, n_comments, n_skipped_html, n_woken,
        n_synth_woken, n_pair_wakeups, n_lost, n_failed_wakeups, n_ipc, n_synth_irq,
        n_own_softirq, n_timer_wakeups, n_start_waits, n_preempted, n_probe_events,
        n_fd_named, n_fd_forgotten;

    struct dbus_state *dbus; /* D-Bus messages in flight (on the first D-Bus line) */
    argus_android *android;  /* binder calls in flight, Looper slices (on the
                              * first binder or atrace line) */
};

const char *argus_ft_error(const argus_ft *d) { return d->err; }

static int fail(argus_ft *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int fail(argus_ft *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->err, sizeof d->err, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- Events known by name ---------------------------------------------- */

typedef enum ev_kind {
    EV_OTHER = 0,
    EV_SWITCH, EV_WAKING, EV_WAKEUP, EV_WAKEUP_NEW,
    EV_IRQ_ENTRY, EV_IRQ_EXIT, EV_SOFTIRQ_ENTRY, EV_SOFTIRQ_EXIT,
    EV_WQ_QUEUE, EV_WQ_START, EV_WQ_END,
    EV_HRTIMER_START, EV_HRTIMER_ENTRY, EV_HRTIMER_EXIT, EV_HRTIMER_CANCEL,
    EV_TIMER_START, EV_TIMER_ENTRY, EV_TIMER_EXIT, EV_TIMER_CANCEL,
    EV_FORK, EV_EXEC, EV_EXIT, EV_NEWTASK, EV_RENAME,
    EV_RAW_SYS_ENTER, EV_RAW_SYS_EXIT,
    EV_FLAG_WRITE, EV_FLAG_READ,
    EV_LOOP_DISPATCH, EV_LOOP_DISPATCH_RET, EV_LOOP_POLL, EV_LOOP_POLL_RET,
    EV_GTK_EVENT, EV_QT_INPUT, EV_TK_INPUT,
    EV_GDBUS_SET_SERIAL, EV_LIBDBUS_SET_SERIAL, EV_DBUS_SET_REPLY_SERIAL, EV_DBUS_FROM_BLOB, EV_DBUS_GET_REPLY_SERIAL,
    EV_DBUS_SET_SENDER, EV_DBUS_SEND_PREALLOC,
    EV_BINDER_TXN, EV_BINDER_RECV, EV_MARK,
} ev_kind;

static const struct { const char *name; ev_kind kind; } event_names[] = {
    {"sched_switch", EV_SWITCH},
    {"sched_waking", EV_WAKING},
    {"sched_wakeup", EV_WAKEUP},
    {"sched_wakeup_new", EV_WAKEUP_NEW},
    {"irq_handler_entry", EV_IRQ_ENTRY},
    {"irq_handler_exit", EV_IRQ_EXIT},
    {"softirq_entry", EV_SOFTIRQ_ENTRY},
    {"softirq_exit", EV_SOFTIRQ_EXIT},
    {"workqueue_queue_work", EV_WQ_QUEUE},
    {"workqueue_execute_start", EV_WQ_START},
    {"workqueue_execute_end", EV_WQ_END},
    {"hrtimer_start", EV_HRTIMER_START},
    {"hrtimer_expire_entry", EV_HRTIMER_ENTRY},
    {"hrtimer_expire_exit", EV_HRTIMER_EXIT},
    {"hrtimer_cancel", EV_HRTIMER_CANCEL},
    {"timer_start", EV_TIMER_START},
    {"timer_expire_entry", EV_TIMER_ENTRY},
    {"timer_expire_exit", EV_TIMER_EXIT},
    {"timer_cancel", EV_TIMER_CANCEL},
    {"sched_process_fork", EV_FORK},
    {"sched_process_exec", EV_EXEC},
    {"sched_process_exit", EV_EXIT},
    {"task_newtask", EV_NEWTASK},
    {"task_rename", EV_RENAME},
    {"sys_enter", EV_RAW_SYS_ENTER},
    {"sys_exit", EV_RAW_SYS_EXIT},
    {"argus_flag_write", EV_FLAG_WRITE},
    {"argus_flag_read", EV_FLAG_READ},
    /* argus-record's uprobes (filters/record/probes.c) */
    {"argus_glib_dispatch", EV_LOOP_DISPATCH},
    {"argus_glib_dispatch_ret", EV_LOOP_DISPATCH_RET},
    {"argus_glib_poll", EV_LOOP_POLL},
    {"argus_glib_poll_ret", EV_LOOP_POLL_RET},
    {"argus_gtk_event", EV_GTK_EVENT},
    {"argus_qt_key", EV_QT_INPUT},
    {"argus_qt_mouse", EV_QT_INPUT},
    {"argus_tcl_service", EV_LOOP_DISPATCH},
    {"argus_tcl_service_ret", EV_LOOP_DISPATCH_RET},
    {"argus_tcl_wait", EV_LOOP_POLL},
    {"argus_tcl_wait_ret", EV_LOOP_POLL_RET},
    {"argus_tk_event", EV_TK_INPUT},
    {"argus_gd_set_serial", EV_GDBUS_SET_SERIAL},
    {"argus_gd_set_reply_serial", EV_DBUS_SET_REPLY_SERIAL},
    {"argus_gd_from_blob", EV_DBUS_FROM_BLOB},
    {"argus_db_set_serial", EV_LIBDBUS_SET_SERIAL},
    {"argus_db_set_reply_serial", EV_DBUS_SET_REPLY_SERIAL},
    {"argus_db_get_reply_serial", EV_DBUS_GET_REPLY_SERIAL},
    {"argus_db_set_sender", EV_DBUS_SET_SENDER},
    {"argus_db_send_prealloc", EV_DBUS_SEND_PREALLOC},
    /* Android (lib/decode/android.c) */
    {"binder_transaction", EV_BINDER_TXN},
    {"binder_transaction_received", EV_BINDER_RECV},
    {"tracing_mark_write", EV_MARK},
    {"print", EV_MARK},
};

static ev_kind event_kind(const argus_ft *d, const char *name, size_t len)
{
    const uint32_t *k = argus_table_get(&d->names, XXH3_64bits(name, len));
    if (!k)
        return EV_OTHER;
    const char *known = event_names[*k - 1].name;
    return strlen(known) == len && memcmp(known, name, len) == 0
               ? event_names[*k - 1].kind : EV_OTHER;
}

/* ---- Setup ------------------------------------------------------------- */

argus_ft *argus_ft_new(argus_writer *w, const argus_ft_options *o)
{
    argus_ft *d = calloc(1, sizeof *d);
    if (!d)
        abort();
    d->w = w;
    d->o = *o;
    d->o.window = o->window ? o->window : ARGUS_FT_DEFAULT_WINDOW;
    d->next_id = 1;
    d->next_msg = 1;
    argus_reorder_init(&d->window, sizeof(line_slot), d->o.window);
    argus_threads_init(&d->threads, sizeof(thread));
    argus_table_init(&d->names, sizeof(uint32_t));
    argus_table_init(&d->work_queue, sizeof(uint64_t));
    argus_table_init(&d->timer_armer, sizeof(uint64_t));
    argus_table_init(&d->fds, sizeof(struct fd_origin));
    argus_table_init(&d->prescan, sizeof(struct prescan));
    for (size_t i = 0; i < sizeof event_names / sizeof *event_names; i++) {
        bool created;
        uint32_t *k = argus_table_put(
            &d->names, XXH3_64bits(event_names[i].name, strlen(event_names[i].name)),
            &created);
        *k = (uint32_t)i + 1;
    }
    return d;
}

void argus_ft_free(argus_ft *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->window.cap; i++)
        free(((line_slot *)(d->window.slots + i * d->window.size))->text);
    argus_reorder_free(&d->window);
    argus_threads_free(&d->threads);
    argus_table_free(&d->names);
    argus_table_free(&d->work_queue);
    argus_table_free(&d->timer_armer);
    argus_table_free(&d->fds);
    argus_table_free(&d->prescan);
    for (uint32_t i = 0; i < d->ncpus; i++)
        free(d->cpus[i].run);
    free(d->cpus);
    free(d->dbus);
    argus_android_free(d->android);
    free(d);
}

/* ---- Small parsers ------------------------------------------------------ */


static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_ident(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_';
}
static int hex_value(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* A decimal number at the start of S (an optional '-' wraps around). */
static bool span_dec(span s, uint64_t *v)
{
    size_t i = 0;
    bool neg = s.n > 0 && s.p[0] == '-';
    i += neg;
    uint64_t x = 0;
    size_t start = i;
    for (; i < s.n && is_digit(s.p[i]); i++)
        x = x * 10 + (uint64_t)(s.p[i] - '0');
    if (i == start || i - start > 19)
        return false;
    *v = neg ? (uint64_t)0 - x : x;
    return true;
}

/* A hex number at the start of S, with or without "0x". */
static bool span_hex(span s, uint64_t *v)
{
    size_t i = 0;
    if (s.n >= 2 && s.p[0] == '0' && (s.p[1] == 'x' || s.p[1] == 'X'))
        i = 2;
    uint64_t x = 0;
    size_t start = i;
    int h;
    for (; i < s.n && (h = hex_value(s.p[i])) >= 0; i++)
        x = x << 4 | (uint64_t)h;
    if (i == start || i - start > 16)
        return false;
    *v = x;
    return true;
}

/* A hex number that is the whole of S ("events" is a name, not 0xe). */
static bool span_hex_whole(span s, uint64_t *v)
{
    size_t i = s.n >= 2 && s.p[0] == '0' && (s.p[1] == 'x' || s.p[1] == 'X') ? 2 : 0;
    if (i == s.n)
        return false;
    for (size_t k = i; k < s.n; k++)
        if (hex_value(s.p[k]) < 0)
            return false;
    return span_hex(s, v);
}

/* "key=value" fields: a value runs to the space before the next
 * "ident=" or "==>" (so comm values may hold spaces). Returns false at
 * the end. */
static bool next_field(span *rest, span *key, span *val)
{
    const char *p = rest->p, *end = p + rest->n;
    for (;;) {
        while (p < end && *p == ' ')
            p++;
        if (p == end)
            return false;
        const char *k = p;
        while (p < end && is_ident(*p))
            p++;
        if (p < end && *p == '=' && p > k) {
            key->p = k;
            key->n = (size_t)(p - k);
            p++;
            break;
        }
        while (p < end && *p != ' ') /* a word that is no field: "==>" */
            p++;
    }
    const char *v = p;
    while (p < end) {
        if (*p == ' ') {
            const char *q = p;
            while (q < end && *q == ' ')
                q++;
            if (q == end)
                break;
            if (end - q >= 3 && memcmp(q, "==>", 3) == 0)
                break;
            const char *r = q;
            while (r < end && is_ident(*r))
                r++;
            if (r > q && r < end && *r == '=')
                break;
            /* the spaces and the word are the value's: go on after them
             * (each byte is looked at a bounded number of times) */
            p = r > q ? r : q;
            continue;
        }
        p++;
    }
    val->p = v;
    val->n = (size_t)(p - v);
    rest->p = p;
    rest->n = (size_t)(end - p);
    return true;
}

static bool key_is_n(span k, const char *lit, size_t n)
{
    return k.n == n && memcmp(k.p, lit, n) == 0;
}
#define key_is(k, lit) key_is_n((k), (lit), strlen(lit))

/* The value of KEY among BODY's fields. */
static bool field(span body, const char *key, span *val)
{
    span k;
    while (next_field(&body, &k, val))
        if (key_is(k, key))
            return true;
    *val = (span){0};
    return false;
}

static bool field_dec(span body, const char *key, uint64_t *v)
{
    span s;
    return field(body, key, &s) && span_dec(s, v);
}

static bool field_hex(span body, const char *key, uint64_t *v)
{
    span s;
    return field(body, key, &s) && span_hex(s, v);
}

/* ---- The line head ----------------------------------------------------- */

/* A timestamp "SECONDS[.FRACTION]" at P, to ns; P moves past it. */
static bool parse_ts(const char **pp, const char *end, uint64_t *ns, bool *counter)
{
    const char *p = *pp;
    uint64_t sec = 0, frac = 0;
    int sd = 0, fd = 0;
    for (; p < end && is_digit(*p); p++, sd++)
        sec = sec * 10 + (uint64_t)(*p - '0');
    if (sd == 0 || sd > 19)
        return false;
    if (p < end && *p == '.') {
        p++;
        for (; p < end && is_digit(*p); p++, fd++)
            if (fd < 9)
                frac = frac * 10 + (uint64_t)(*p - '0');
        if (fd == 0)
            return false;
        for (int k = fd; k < 9; k++)
            frac *= 10;
        if (sec > (UINT64_MAX - frac) / 1000000000u)
            return false;
        *ns = sec * 1000000000u + frac;
        *counter = false;
    } else {
        *ns = sec; /* a counter clock: taken as ns */
        *counter = true;
    }
    *pp = p;
    return true;
}

/* A timestamp with a minus sign at P: "-SECONDS[.FRACTION]:". */
static bool negative_ts_at(const char *p, const char *end)
{
    if (p >= end || *p != '-')
        return false;
    const char *q = p + 1;
    uint64_t ns;
    bool counter;
    return parse_ts(&q, end, &ns, &counter) && q < end && *q == ':';
}

/* V * 10 + digit C, held at UINT64_MAX rather than wrapped round: a
 * number too large stays too large. */
static uint64_t dec_digit_saturating(uint64_t v, char c)
{
    uint64_t digit = (uint64_t)(c - '0');
    return v > (UINT64_MAX - digit) / 10 ? UINT64_MAX : v * 10 + digit;
}

/* The decimal at *Q (before END), saturating; *Q moves past its digits. */
static uint64_t read_dec(const char **q, const char *end)
{
    uint64_t v = 0;
    while (*q < end && is_digit(**q))
        v = dec_digit_saturating(v, *(*q)++);
    return v;
}

/* Parses "COMM-TID [(TGID)] [CPU] [FLAGS] TS: " into S; WHO_ONLY (the
 * first pass) skips the flags and the timestamp: the body is after the
 * first ':' that ends a number. */
static bool parse_head_how(line_slot *s, bool who_only)
{
    const char *start = s->text, *end = start + s->len, *p = start;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    const char *comm = p;
    /* the head is at the start: COMM (16 bytes in the kernel, more with
     * an instance prefix), -TID and (TGID); a '[' further on is not its
     * [CPU], and bounding the search keeps long lines linear */
    const char *head_end = end - p > HEAD_MAX ? p + HEAD_MAX : end;
    for (const char *b = p; (b = memchr(b, '[', (size_t)(head_end - b))) != NULL; b++) {
        /* [CPU] */
        const char *q = b + 1;
        uint64_t cpu = 0;
        while (q < end && is_digit(*q))
            cpu = cpu * 10 + (uint64_t)(*q++ - '0');
        if (q == b + 1 || q - b > 8 || q >= end || *q != ']')
            continue;
        const char *after = q + 1;
        /* back over spaces, an optional (TGID), spaces, then -TID */
        const char *e = b;
        while (e > comm && e[-1] == ' ')
            e--;
        int64_t tgid = -1;
        if (e > comm && e[-1] == ')') {
            const char *o = e - 1;
            while (o > comm && o[-1] != '(')
                o--;
            if (o == comm)
                continue;
            const char *t = o;
            while (t < e - 1 && *t == ' ')
                t++;
            if (is_digit(*t)) {
                uint64_t g = 0;
                s->tgid_off = (uint32_t)(t - start);
                while (t < e - 1 && is_digit(*t))
                    g = dec_digit_saturating(g, *t++);
                s->tgid_len = (uint32_t)(t - start) - s->tgid_off;
                /* out of the kernel's range: refused by the caller */
                tgid = g > INT64_MAX ? INT64_MAX : (int64_t)g;
            }
            e = o - 1;
            while (e > comm && e[-1] == ' ')
                e--;
        }
        const char *dstart = e;
        while (dstart > comm && is_digit(dstart[-1]))
            dstart--;
        /* up to 20 digits: a tid out of the kernel's range is refused by
         * the caller (DEC-RANGE), not read as a line without a head */
        if (dstart == e || e - dstart > 64 || dstart - 1 < comm || dstart[-1] != '-')
            continue;
        uint64_t tid = 0;
        for (const char *t = dstart; t < e; t++)
            tid = dec_digit_saturating(tid, *t);
        /* after [CPU]: optional flags, then TS: */
        p = after;
        while (p < end && *p == ' ')
            p++;
        uint64_t ns = 0;
        const char *tp = p;
        s->irq_ctx = 0;
        s->negative_ts = false;
        if (who_only) {
            tp = memchr(p, ':', (size_t)(end - p));
            if (!tp || tp == p || !is_digit(tp[-1]))
                return false;
        } else if (negative_ts_at(p, end)) {
            s->negative_ts = true;
            tp = memchr(p, ':', (size_t)(end - p));
        } else if (!parse_ts(&tp, end, &ns, &s->counter) || tp >= end || *tp != ':') {
            /* FLAGS: irqs-off, need-resched, hardirq/softirq, ... */
            const char *flags = p;
            while (p < end && *p != ' ')
                p++;
            if (p - flags >= 4)
                s->irq_ctx = flags[2] && strchr("hHszZ", flags[2]) ? flags[2] : '.';
            while (p < end && *p == ' ')
                p++;
            tp = p;
            if (negative_ts_at(p, end)) {
                s->negative_ts = true;
                tp = memchr(p, ':', (size_t)(end - p));
            } else if (!parse_ts(&tp, end, &ns, &s->counter) || tp >= end || *tp != ':') {
                return false;
            }
        }
        tp++;
        while (tp < end && *tp == ' ')
            tp++;
        /* trace-cmd report of an instance starts each line "NAME: " */
        const char *cut = memmem(comm, (size_t)(dstart - 1 - comm), ": ", 2);
        if (cut) {
            cut += 2;
            while (cut < dstart - 1 && *cut == ' ')
                cut++;
            if (cut < dstart - 1)
                comm = cut;
        }
        s->comm_off = (uint32_t)(comm - start);
        s->comm_len = (uint32_t)(dstart - 1 - comm);
        s->body_off = (uint32_t)(tp - start);
        s->tid = tid;
        s->tid_off = (uint32_t)(dstart - start);
        s->tid_len = (uint32_t)(e - dstart);
        s->tgid = tgid;
        s->cpu = (uint32_t)cpu;
        s->ts = ns;
        return true;
    }
    return false;
}

static bool parse_head(line_slot *s)
{
    return parse_head_how(s, false);
}

/* ---- Output ------------------------------------------------------------- */

#define PUT_LIT(w, lit) argus_put_text((w), lit, sizeof lit - 1)

/* A text value as valid UTF-8. */
static void put_text_utf8(argus_writer *w, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && (unsigned char)s[i] < 0x80)
        i++;
    if (i == n) {
        argus_put_text(w, s, n);
        return;
    }
    char *tmp = malloc(n * 3 + 1);
    if (!tmp)
        abort();
    size_t o = 0;
    for (i = 0; i < n;) {
        size_t k = argus_utf8_char((const uint8_t *)s + i, n - i);
        if (k == 0) {
            memcpy(tmp + o, "\xef\xbf\xbd", 3); /* U+FFFD */
            o += 3;
            i++;
        } else {
            memcpy(tmp + o, s + i, k);
            o += k;
            i += k;
        }
    }
    argus_put_text(w, tmp, o);
    free(tmp);
}

/* The header, written when the first line S leaves the window: its
 * TIMESTAMP is ts 0, the header's "origin" (DEC-ORIGIN); with argus-record's
 * clock line, "t0" too: the wall clock of ts 0. A counter clock's ticks, or a
 * first line without a head, give neither. */
static void write_header(argus_ft *d, const line_slot *s)
{
    bool origin = s->kind == HEAD_EVENT && !s->counter;
    bool t0 = origin && d->have_clock &&
              d->clock_real + s->ts >= d->clock_mono; /* not before 1970 */
    uint64_t launched = d->launched ? d->launched
                        : d->n_held_children == 1 ? d->held_child : 0;
    argus_put_stream_header_focus(d->w, "ftrace", t0,
                                  t0 ? d->clock_real + s->ts - d->clock_mono : 0, origin, s->ts,
                                  launched, d->focus, d->n_focus, d->o.command);
    d->header_written = true;
}

/* The decimal pid at P (up to N bytes, a space or the end after it) of
 * "# argus-command: pid=N"; 0 when it is not one (0 is no process). */
static uint64_t parse_pid_field(const char *p, size_t n)
{
    uint64_t v = 0;
    size_t i = 0;
    for (; i < n && p[i] >= '0' && p[i] <= '9' && i < 10; i++)
        v = v * 10 + (uint64_t)(p[i] - '0');
    return i > 0 && (i == n || p[i] == ' ' || p[i] == '\r' || p[i] == '\n') ? v : 0;
}

/* A focused process's pid (DEC-FOCUS): each once, up to ARGUS_MAX_FOCUS;
 * 0 (not a pid) is none. */
static void add_focus(argus_ft *d, uint64_t pid)
{
    if (!pid || d->n_focus == ARGUS_MAX_FOCUS)
        return;
    for (size_t i = 0; i < d->n_focus; i++)
        if (d->focus[i] == pid)
            return;
    d->focus[d->n_focus++] = pid;
}

/* The recorder's pid in "# recorded by argus-record V: instance
 * argus-PID, ..." (its tracefs instance is named after it); 0 if none. */
static uint64_t recorder_pid(const char *p, size_t n)
{
    static const char instance[] = ": instance argus-";
    const char *at = memmem(p, n, instance, sizeof instance - 1);
    if (!at)
        return 0;
    at += sizeof instance - 1;
    size_t len = 0;
    while (at + len < p + n && at[len] >= '0' && at[len] <= '9')
        len++;
    /* the pid ends the instance's name */
    return len && (at + len == p + n || at[len] == ',') ? parse_pid_field(at, len) : 0;
}

/* "mono=SECONDS.FRACTION realtime=SECONDS.FRACTION" of a clock line. */
static void map_clock_line(argus_ft *d, const char *p, size_t n)
{
    const char *end = p + n, *m = memmem(p, n, "mono=", 5), *r = memmem(p, n, "realtime=", 9);
    if (!m || !r)
        return;
    m += 5;
    r += 9;
    bool cm, cr;
    uint64_t mono, real;
    if (parse_ts(&m, end, &mono, &cm) && parse_ts(&r, end, &real, &cr) && !cm && !cr) {
        d->have_clock = true;
        d->clock_mono = mono;
        d->clock_real = real;
    }
}

static thread *find_thread(argus_ft *d, uint64_t tid)
{
    return argus_threads_find(&d->threads, tid);
}

static thread *get_thread(argus_ft *d, uint64_t tid)
{
    if (d->recent[tid & 255].t && d->recent[tid & 255].tid == tid)
        return d->recent[tid & 255].t;
    bool created;
    thread *t = argus_threads_add(&d->threads, tid, &created);
    if (created) {
        t->tgid = tid == 0 ? 0 : -1;
        if (tid == 0)
            strcpy(t->comm, "swapper");
    }
    d->recent[tid & 255].tid = tid;
    d->recent[tid & 255].t = t;
    return t;
}

/* Sets T's name from a trace (not "<...>", the unknown comm). The idle
 * task is "swapper/N" on CPU N, one tid 0 for all: it keeps "swapper". */
static void set_comm(thread *t, const char *c, size_t n)
{
    if (t->tid == 0 || n == 0 || (n == 5 && memcmp(c, "<...>", 5) == 0) ||
        (n == 6 && memcmp(c, "<idle>", 6) == 0))
        return;
    if (strlen(t->comm) == n && memcmp(t->comm, c, n) == 0)
        return;
    argus_utf8_copy(t->comm, sizeof t->comm, c, n);
    t->announced = false;
}

static void set_tgid(thread *t, int64_t tgid)
{
    if (tgid < 0 || t->tgid == tgid || t->tid == 0)
        return;
    t->tgid = tgid;
    t->announced = false;
}

/* Kernel threads by name, where the trace has no better word. */
static bool kernel_comm(const char *c)
{
    static const char *const prefixes[] = {
        "kworker/", "ksoftirqd/", "migration/", "rcu_", "rcuc/", "rcuog/",
        "rcuop/", "rcuos/", "cpuhp/", "watchdog/", "irq/", "idle_inject/",
        "jbd2/", "kswapd", "kcompactd", "scsi_eh_", "scsi_tmf_", "kthreadd",
        "khugepaged", "ksmd", "kauditd", "khungtaskd", "oom_reaper",
        "kdevtmpfs", "kblockd", "kintegrityd", "writeback", "kthrotld",
        "ecryptfs-kthrea", "kstrp", "ipv6_addrconf", "mm_percpu_wq",
        "netns", "pool_workqueue_", "psimon", "swapper", "xfsaild/",
        "card0-crtc", "nvme-", "ext4-rsv-conver", "hwrng", "kerneloops",
    };
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (strncmp(c, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    return false;
}

/* The process: the tgid, or the tid itself when no line told it. */
static uint64_t pid_of(const thread *t)
{
    return t->tgid >= 0 ? (uint64_t)t->tgid : t->tid;
}

/* A kernel thread: by argus-record's word, else by its name. */
static bool thread_is_kernel(const thread *t)
{
    return t->kernel_known ? t->kernel : (t->tid == 0 || kernel_comm(t->comm));
}

static void write_thread(argus_ft *d, thread *t)
{
    argus_writer *w = d->w;
    bool kernel = thread_is_kernel(t);
    bool main = t->tid != 0 && t->tgid >= 0 && (uint64_t)t->tgid == t->tid;
    const char *proc = t->comm;
    if (t->tgid >= 0 && !main) {
        const thread *m = find_thread(d, (uint64_t)t->tgid);
        if (m && m->comm[0])
            proc = m->comm;
    }
    /* a thread's parent is its own process: only another process is told */
    uint64_t parent = t->parent != pid_of(t) ? t->parent : 0;
    argus_put_thread_record(w, t->tid, pid_of(t), proc, t->comm, main, kernel, parent);
    t->announced = true;
}

/* Starts an event of TYPE by T, at S's time on S's cpu, with EXTRA more
 * pairs to come. */
static void begin_event(argus_ft *d, const line_slot *s, thread *t,
                        const char *type, size_t type_len, unsigned extra)
{
    if (!t->announced)
        write_thread(d, t);
    argus_put_event_head(d->w, type, type_len, d->next_id++, s->ts - d->zero, t->tid,
                         pid_of(t), s->cpu, extra);
    d->n_events++;
}
#define BEGIN(d, s, t, lit, extra) begin_event(d, s, t, lit, sizeof lit - 1, extra)

static void put_uint_kv(argus_ft *d, const char *key, uint64_t v)
{
    argus_put_key(d->w, key);
    argus_put_uint(d->w, v);
}

static void put_span_kv(argus_ft *d, const char *key, span v)
{
    argus_put_key(d->w, key);
    put_text_utf8(d->w, v.p, v.n);
}

static void put_phase(argus_ft *d, bool begin)
{
    PUT_LIT(d->w, "phase");
    if (begin)
        PUT_LIT(d->w, "begin");
    else
        PUT_LIT(d->w, "end");
}

/* The line as an `ftrace` event: its event name when it has one, and the
 * whole text. */
static void write_raw(argus_ft *d, const line_slot *s, thread *t)
{
    span name = d->event_name;
    BEGIN(d, s, t, "ftrace", 1 + (name.n > 0));
    if (name.n)
        put_span_kv(d, "event", name);
    PUT_LIT(d->w, "text"); /* the line as read, but for leading blanks */
    put_text_utf8(d->w, s->text, s->len);
    argus_end_record(d->w);
    d->n_raw++;
}

/* The woken that ends T's wait (DEC-WOKEN): at the switch that runs it
 * again (HOLDER: the thread the CPU ran before it), or SYNTH at its own
 * next line. A wakeup came for it: `awakened`, or `timed_out` when it came
 * from the expiry of its own timer (TIMED_OUT: a line of its own says the
 * wait timed out); `runnable` is how long it then waited for a CPU. */
static void write_woken(argus_ft *d, const line_slot *s, thread *t, bool synth,
                        const thread *holder, bool timed_out)
{
    bool result = t->woken_by_wakeup || timed_out;
    timed_out = timed_out || t->woken_by_timer;
    bool runnable = t->woken_by_wakeup && !synth && s->ts >= t->wakeup_ts;
    bool has_holder = runnable && holder && holder->tid != 0 && holder != t;
    BEGIN(d, s, t, "woken", result + synth + runnable + has_holder);
    if (result) {
        PUT_LIT(d->w, "result");
        if (timed_out)
            PUT_LIT(d->w, "timed_out");
        else
            PUT_LIT(d->w, "awakened");
    }
    if (synth) {
        PUT_LIT(d->w, "synth");
        argus_put_bool(d->w, true);
    }
    if (runnable)
        put_uint_kv(d, "runnable", s->ts - t->wakeup_ts);
    if (has_holder)
        put_uint_kv(d, "cpu_holder", holder->tid);
    argus_end_record(d->w);
    t->waiting = false;
    t->woken_by_wakeup = false;
    t->woken_by_timer = false;
    if (synth)
        d->n_synth_woken++;
    else
        d->n_woken++;
}

/* ---- Syscalls ------------------------------------------------------------ */

static bool name_in(const char *name, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(name, *list) == 0)
            return true;
    return false;
}

/* Syscalls whose first argument names what a wait in them waits on: a
 * futex word, or a file descriptor. */
static const char *const fd_syscalls[] = {
    "read", "write", "readv", "writev", "pread64", "pwrite64", "recvfrom",
    "recvmsg", "recvmmsg", "sendto", "sendmsg", "sendmmsg", "accept",
    "accept4", "connect", "epoll_wait", "epoll_pwait", "epoll_pwait2", NULL};

bool argus_ft_fd_syscall(const char *name)
{
    return name && name_in(name, fd_syscalls);
}
/* Syscalls that hand data to another thread, and those that take it. */
static const char *const send_syscalls[] = {"write", "writev", "sendto",
                                            "sendmsg", "sendmmsg", NULL};
static const char *const recv_syscalls[] = {
    "read", "readv", "recvfrom", "recvmsg", "recvmmsg", "poll", "ppoll",
    "select", "pselect6", "epoll_wait", "epoll_pwait", "epoll_pwait2", NULL};

/* Arguments "a: 0x1, b: 0x2" (or "(a: 1, b: 2)" without 0x), up to 6. */
/* Arguments as key=value fields (trace-cmd report -R, and its futex
 * plugin's "op=FUTEX_WAKE uaddr=0x..."): the numbers in the order given,
 * __syscall_nr and symbolic values left out. */
static size_t parse_kv_args(span s, uint64_t *args)
{
    size_t n = 0;
    span k, v;
    while (n < 6 && next_field(&s, &k, &v)) {
        if (key_is(k, "__syscall_nr"))
            continue;
        /* 0x... is hex, digits alone decimal; a value is taken whole */
        size_t len = 0;
        bool hex = v.n > 2 && v.p[0] == '0' && v.p[1] == 'x';
        for (len = hex ? 2 : 0; len < v.n; len++)
            if (hex ? hex_value(v.p[len]) < 0 : !is_digit(v.p[len]))
                break;
        if (len == v.n && (hex ? span_hex(v, &args[n]) : span_dec(v, &args[n])))
            n++;
    }
    return n;
}

static size_t parse_args(span s, uint64_t *args)
{
    const char *eq = memchr(s.p, '=', s.n), *colon = memchr(s.p, ':', s.n);
    if (eq && (!colon || eq < colon))
        return parse_kv_args(s, args);
    size_t n = 0;
    const char *p = s.p, *end = s.p + s.n;
    while (p < end && n < 6) {
        const char *colon = memchr(p, ':', (size_t)(end - p));
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *v = p;
        if (colon && (!comma || colon < comma))
            v = colon + 1;
        while (v < end && *v == ' ')
            v++;
        uint64_t x;
        if (!span_hex((span){v, (size_t)(end - v)}, &x))
            break;
        args[n++] = x;
        if (!comma)
            break;
        p = comma + 1;
    }
    return n;
}

/* ---- What a file descriptor is (DEC-FD) -------------------------------- */

/* The key of fd FD of process PID in d->fds; false for a number no fd
 * has (negative, or past 2^31). */
static bool fd_key(uint64_t pid, uint64_t fd, uint64_t *key)
{
    if (fd >= 1u << 31 || pid >= 1ull << 32)
        return false;
    *key = pid << 32 | fd;
    return true;
}

static void fd_forget(argus_ft *d, uint64_t pid, uint64_t fd)
{
    uint64_t key;
    if (fd_key(pid, fd, &key) && argus_table_remove(&d->fds, key))
        d->n_fd_forgotten++;
}

/* Every fd of process PID from FIRST to LAST (close_range, exec, exit). */
static void fd_forget_range(argus_ft *d, uint64_t pid, uint64_t first, uint64_t last)
{
    if (pid >= 1ull << 32 || first > last || !d->fds.count)
        return;
    if (last - first < 64) { /* close_range of a few */
        for (uint64_t fd = first; fd <= last && fd < 1u << 31; fd++)
            fd_forget(d, pid, fd);
        return;
    }
    uint64_t key, gone[64];
    void *val;
    size_t n;
    do { /* the table's entries are not removed while it is walked */
        n = 0;
        for (size_t pos = 0; n < 64 && argus_table_next(&d->fds, &pos, &key, &val);)
            if (key >> 32 == pid && (key & 0xffffffffu) >= first && (key & 0xffffffffu) <= last)
                gone[n++] = key;
        for (size_t i = 0; i < n; i++)
            argus_table_remove(&d->fds, gone[i]);
        d->n_fd_forgotten += n;
    } while (n == 64);
}

static void fd_name(argus_ft *d, const thread *t, uint64_t fd, uint8_t how, uint64_t listen)
{
    uint64_t key;
    if (!fd_key(pid_of(t), fd, &key))
        return;
    bool created;
    struct fd_origin *o = argus_table_put(&d->fds, key, &created);
    *o = (struct fd_origin){.ts = t->sys_ts, .tid = t->tid, .listen = listen, .how = how};
    d->n_fd_named++;
}

/* A syscall's enter: the fds it closes are forgotten, whatever it then
 * returns (Linux closes the fd even when close fails with EINTR). */
static void fd_enter(argus_ft *d, const thread *t, const char *sys, const uint64_t *args,
                     size_t nargs)
{
    if (strcmp(sys, "close") == 0 && nargs >= 1)
        fd_forget(d, pid_of(t), args[0]);
    else if ((strcmp(sys, "dup2") == 0 || strcmp(sys, "dup3") == 0) && nargs >= 2)
        fd_forget(d, pid_of(t), args[1]); /* the new fd: whatever it was is closed */
    else if (strcmp(sys, "close_range") == 0 && nargs >= 2)
        fd_forget_range(d, pid_of(t), args[0], args[1]);
}

/* A syscall's exit with its return value: the fd it gave a meaning. */
static void fd_exit(argus_ft *d, const thread *t, uint64_t ret)
{
    int64_t r = (int64_t)ret;
    const char *sys = t->sys;
    if (strcmp(sys, "accept") == 0 || strcmp(sys, "accept4") == 0) {
        if (r >= 0)
            fd_name(d, t, ret, FD_ACCEPT, t->sys_arg0);
    } else if (strcmp(sys, "connect") == 0) {
        if (r == 0)
            fd_name(d, t, t->sys_arg0, FD_CONNECT, 0);
        else if (r == -115) /* EINPROGRESS: a non-blocking socket's connect begun */
            fd_name(d, t, t->sys_arg0, FD_CONNECTING, 0);
        /* else it failed: the program will likely close it; say nothing */
    } else if (strcmp(sys, "flock") == 0) {
        if (r == 0 && (t->sys_arg1 & 3)) /* LOCK_SH or LOCK_EX taken */
            fd_name(d, t, t->sys_arg0, FD_FLOCK, 0);
    }
}

/* The fields of a wait in SYS on fd FD of T's process, when the trace
 * showed what FD is: their count, and written when WRITE. */
static unsigned put_fd_origin(argus_ft *d, const thread *t, uint64_t fd, bool write)
{
    uint64_t key;
    const struct fd_origin *o;
    if (!fd_key(pid_of(t), fd, &key) || !(o = argus_table_get(&d->fds, key)))
        return 0;
    if (!write)
        return 3 + (o->how == FD_ACCEPT);
    static const char *const how[] = {NULL, "connect", "connect_started", "accept", "flock"};
    argus_put_key(d->w, "fd_origin");
    argus_put_cstr(d->w, how[o->how]);
    put_uint_kv(d, "fd_origin_ts", o->ts);
    put_uint_kv(d, "fd_origin_tid", o->tid);
    if (o->how == FD_ACCEPT)
        put_uint_kv(d, "fd_listen", o->listen);
    return 0;
}

static void write_syscall(argus_ft *d, const line_slot *s, thread *t, span name,
                          bool begin, const uint64_t *args, size_t nargs,
                          bool have_ret, uint64_t ret)
{
    if (begin) {
        t->in_syscall = true;
        argus_utf8_copy(t->sys, sizeof t->sys, name.p, name.n);
        t->sys_arg0 = nargs ? args[0] : 0;
        t->sys_arg1 = nargs > 1 ? args[1] : 0;
        t->sys_ts = s->ts - d->zero;
        fd_enter(d, t, t->sys, args, nargs);
    } else if (t->in_syscall) {
        if (have_ret && name.n == strlen(t->sys) && memcmp(name.p, t->sys, name.n) == 0)
            fd_exit(d, t, ret);
        if (t->ipc_msg) {
            /* the data a sender handed over while this syscall waited */
            BEGIN(d, s, t, "ipc", 4);
            PUT_LIT(d->w, "dir");
            PUT_LIT(d->w, "recv");
            put_uint_kv(d, "msg", t->ipc_msg);
            put_uint_kv(d, "peer", t->ipc_peer);
            argus_put_key(d->w, "via");
            argus_put_cstr(d->w, t->ipc_via);
            argus_end_record(d->w);
            t->ipc_msg = 0;
            d->n_ipc++;
        }
        t->in_syscall = false;
    }
    BEGIN(d, s, t, "syscall", 2 + (begin ? 1 : have_ret));
    put_span_kv(d, "name", name);
    put_phase(d, begin);
    if (begin) {
        PUT_LIT(d->w, "args");
        argus_put_array(d->w, nargs);
        for (size_t i = 0; i < nargs; i++)
            argus_put_uint(d->w, args[i]);
    } else if (have_ret) {
        PUT_LIT(d->w, "ret");
        argus_put_int(d->w, (int64_t)ret);
    }
    argus_end_record(d->w);
}

/* The interrupt context of CPU (grown on demand). */
enum { CPU_CTX_MAX = 8192 }; /* cpus tracked (a bad head may say 99999999) */

static struct cpu_ctx *cpu_ctx(argus_ft *d, uint32_t cpu)
{
    if (cpu >= d->ncpus) {
        uint32_t n = cpu + 1 > 2 * d->ncpus ? cpu + 1 : 2 * d->ncpus;
        struct cpu_ctx *c = realloc(d->cpus, n * sizeof *c);
        if (!c)
            abort();
        memset(c + d->ncpus, 0, (n - d->ncpus) * sizeof *c);
        d->cpus = c;
        d->ncpus = n;
    }
    return &d->cpus[cpu];
}

/* ---- Mapping ------------------------------------------------------------- */

static struct dbus_daemon *dbus_daemon(const argus_ft *d, uint64_t pid);
static struct dbus_daemon *dbus_add_daemon(argus_ft *d, uint64_t pid);

/* The wait of a blocking prev_state: false for runnable (preempted) or
 * dead states. Letters (S, D, "D|K", I, ...) or the raw number trace-cmd
 * report prints when it cannot format it: bits 1 S, 2 D, 4 T, 8 t, 128 I
 * (kernels since 4.14); 0 is running, 16/32/64 dead or parked, 256 and
 * up the preemption mark. */
static bool blocking_state(span st, const char **word)
{
    if (st.n == 0)
        return false;
    if (is_digit(st.p[0])) {
        uint64_t v;
        if (!span_dec(st, &v))
            return false;
        if (v & 1) { *word = "sleeping"; return true; }
        if (v & 2) { *word = "disk"; return true; }
        if (v & 4) { *word = "stopped"; return true; }
        if (v & 8) { *word = "traced"; return true; }
        if (v == 128) { *word = "idle"; return true; }
        return false;
    }
    switch (st.p[0]) {
    case 'S': *word = "sleeping"; return true;
    case 'D': *word = "disk"; return true;
    case 'I': *word = "idle"; return true;
    case 'T': *word = "stopped"; return true;
    case 't': *word = "traced"; return true;
    case 'P': *word = "parked"; return true;
    case 'K': *word = "killable"; return true;
    /* trace-cmd's sched plugin prints TASK_IDLE (0x80) as W */
    case 'W': *word = "idle"; return true;
    default: return false; /* R, R+, X, Z, x */
    }
}

/* "COMM:PID [PRIO]" at the start of S (trace-cmd report's sched plugin):
 * the comm runs to the last ':' before " [" (kworker/1:2:3540). AFTER is
 * what follows the "]". */
static bool plugin_task(span s, span *comm, uint64_t *pid, span *after)
{
    const char *end = s.p + s.n;
    const char *b = memmem(s.p, s.n, " [", 2);
    if (!b)
        return false;
    const char *c = memrchr(s.p, ':', (size_t)(b - s.p));
    const char *close = memchr(b, ']', (size_t)(end - b));
    if (!c || !close || c + 1 == b)
        return false;
    for (const char *q = c + 1; q < b; q++)
        if (!is_digit(*q))
            return false;
    span_dec((span){c + 1, (size_t)(b - c - 1)}, pid);
    *comm = (span){s.p, (size_t)(c - s.p)};
    const char *a = close + 1;
    while (a < end && *a == ' ')
        a++;
    *after = (span){a, (size_t)(end - a)};
    return true;
}

/* "PREV:PID [PRIO] STATE ==> NEXT:PID [PRIO]" (trace-cmd report's sched
 * plugin) into the fields of the key=value form. */
static bool plugin_switch(span body, span *prev_comm, uint64_t *prev_pid,
                          span *prev_state, span *next_comm, uint64_t *next_pid)
{
    const char *arrow = memmem(body.p, body.n, " ==> ", 5);
    span after, rest;
    if (!arrow ||
        !plugin_task((span){body.p, (size_t)(arrow - body.p)}, prev_comm, prev_pid, &after) ||
        !plugin_task((span){arrow + 5, body.n - (size_t)(arrow + 5 - body.p)}, next_comm,
                     next_pid, &rest))
        return false;
    const char *q = after.p;
    while (q < after.p + after.n && *q != ' ')
        q++;
    *prev_state = (span){after.p, (size_t)(q - after.p)};
    return true;
}

/* The thread that ran longest on CPU C in [FROM, TO], of the slices
 * kept: who held the CPU that T, woken, waited for. Asked when the wait
 * for the CPU was long enough to matter (1 ms). */
static const thread *cpu_holder(argus_ft *d, const struct cpu_ctx *c, const thread *t,
                                uint64_t from, uint64_t to)
{
    if (to - from < PREEMPTED_MIN || !c->run)
        return NULL;
    struct { uint64_t tid, total; } seen[32];
    uint32_t nseen = 0, n = c->run_next < RUN_RING ? c->run_next : RUN_RING;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t a = c->run[i].from > from ? c->run[i].from : from;
        uint64_t b = c->run[i].to < to ? c->run[i].to : to;
        uint64_t tid = c->run[i].tid;
        if (b <= a || tid == 0 || tid == t->tid)
            continue;
        uint32_t k = 0;
        while (k < nseen && seen[k].tid != tid)
            k++;
        if (k == nseen) {
            if (nseen == 32)
                continue;
            seen[nseen].tid = tid;
            seen[nseen++].total = 0;
        }
        seen[k].total += b - a;
    }
    uint32_t best = 0;
    for (uint32_t k = 1; k < nseen; k++)
        if (seen[k].total > seen[best].total)
            best = k;
    return nseen ? find_thread(d, seen[best].tid) : NULL;
}

/* A prev_state of a task switched out while it could still run:
 * preempted (R, R+; 0, or the preemption mark 256 and up alone). */
static bool preempted_state(span st)
{
    if (st.n == 0)
        return false;
    if (is_digit(st.p[0])) {
        uint64_t v;
        return span_dec(st, &v) && (v & 255) == 0;
    }
    return st.p[0] == 'R';
}

static void map_switch(argus_ft *d, const line_slot *s, thread *cur, span body)
{
    span k, v, prev_state = {0}, next_comm = {0}, prev_comm = {0};
    uint64_t prev_pid = cur->tid, next_pid = 0;
    bool have_next = false, have_prev_comm = false;
    span rest = body;
    while (next_field(&rest, &k, &v)) {
        if (key_is(k, "prev_comm"))
            prev_comm = v, have_prev_comm = true;
        else if (key_is(k, "prev_pid"))
            span_dec(v, &prev_pid);
        else if (key_is(k, "prev_state"))
            prev_state = v;
        else if (key_is(k, "next_comm"))
            next_comm = v;
        else if (key_is(k, "next_pid"))
            have_next = span_dec(v, &next_pid);
    }
    if (!have_next && !have_prev_comm)
        have_next = have_prev_comm = plugin_switch(body, &prev_comm, &prev_pid, &prev_state,
                                                   &next_comm, &next_pid);
    if (!have_next) /* a broken line: kept whole */
        return write_raw(d, s, cur);
    thread *prev = prev_pid == cur->tid ? cur : get_thread(d, prev_pid);
    if (have_prev_comm)
        set_comm(prev, prev_comm.p, prev_comm.n);
    const char *word;
    /* the idle task (tid 0, one for every CPU) does not wait, whatever
     * state some kernels print for it */
    if (prev->tid != 0 && blocking_state(prev_state, &word) && !prev->waiting) {
        const char *reason = prev->in_syscall ? prev->sys : word;
        bool resource = prev->in_syscall &&
                        (strcmp(prev->sys, "futex") == 0 || name_in(prev->sys, fd_syscalls));
        /* a binder call's caller asleep for its reply: resource the call's
         * reply port (its ioctl, which atrace does not trace) */
        uint64_t binder_port = 0;
        if (!resource && d->android &&
            argus_android_binder_waiting(d->android, prev->tid, &binder_port)) {
            reason = "binder";
            resource = true;
        }
        bool fd = resource && strcmp(prev->sys, "futex") != 0;
        unsigned origin = fd ? put_fd_origin(d, prev, prev->sys_arg0, false) : 0;
        BEGIN(d, s, prev, "wait", 1 + resource + origin);
        argus_put_key(d->w, "reason");
        argus_put_cstr(d->w, reason);
        if (resource)
            put_uint_kv(d, "resource", binder_port ? binder_port : prev->sys_arg0);
        if (origin)
            put_fd_origin(d, prev, prev->sys_arg0, true);
        argus_end_record(d->w);
        prev->waiting = true;
    }
    else if (prev->tid != 0 && preempted_state(prev_state)) {
        prev->preempted = true;
        prev->preempted_ts = s->ts;
    }
    thread *next = get_thread(d, next_pid);
    set_comm(next, next_comm.p, next_comm.n);
    const thread *holder = NULL;
    if (s->cpu < CPU_CTX_MAX) {
        struct cpu_ctx *c = cpu_ctx(d, s->cpu);
        if (!c->run && !(c->run = calloc(RUN_RING, sizeof *c->run)))
            abort();
        c->run[c->run_next % RUN_RING].tid = prev->tid;
        c->run[c->run_next % RUN_RING].from = c->running_since;
        c->run[c->run_next % RUN_RING].to = s->ts;
        c->run_next++;
        c->running_since = s->ts;
        if (next->waiting && next->woken_by_wakeup)
            holder = cpu_holder(d, c, next, next->wakeup_ts, s->ts);
        if (next->preempted && s->ts >= next->preempted_ts + PREEMPTED_MIN) {
            /* it waited for a CPU long enough to matter: how long, and
             * who held the CPU then */
            const thread *h = cpu_holder(d, c, next, next->preempted_ts, s->ts);
            BEGIN(d, s, next, "preempted", 1 + (h != NULL));
            put_uint_kv(d, "runnable", s->ts - next->preempted_ts);
            if (h)
                put_uint_kv(d, "cpu_holder", h->tid);
            argus_end_record(d->w);
            d->n_preempted++;
        }
    }
    next->preempted = false;
    if (next->waiting)
        write_woken(d, s, next, false, holder, false);
}

static void map_wakeup(argus_ft *d, const line_slot *s, thread *cur, span body,
                       ev_kind kind)
{
    uint64_t pid = 0, success = 1;
    span comm = {0}, k, v, rest = body;
    bool have_pid = false;
    while (next_field(&rest, &k, &v)) {
        if (key_is(k, "pid"))
            have_pid = span_dec(v, &pid);
        else if (key_is(k, "comm"))
            comm = v;
        else if (key_is(k, "success"))
            span_dec(v, &success);
    }
    span after;
    if (!have_pid && plugin_task(body, &comm, &pid, &after)) { /* "COMM:PID [PRIO] CPU:N" */
        have_pid = true;
        if (memmem(after.p, after.n, "success=0", 9))
            success = 0;
    }
    if (!have_pid)
        return (void)write_raw(d, s, cur);
    if (success == 0) {
        d->n_failed_wakeups++;
        return;
    }
    thread *target = get_thread(d, pid);
    set_comm(target, comm.p, comm.n);
    /* sched_waking, then sched_wakeup for the same wakeup: one counts */
    if (kind == EV_WAKEUP && target->waking_pending) {
        target->waking_pending = false;
        d->n_pair_wakeups++;
        return;
    }
    target->waking_pending = kind == EV_WAKING;
    /* from a timer's expiry: a sleep's or a timeout's (hrtimer_wakeup,
     * process_timeout), or a timer the target's own process armed (an
     * itimer's signal, a timerfd): its wait timed out, nobody woke it */
    const struct cpu_ctx *c = d->line_cpu;
    bool by_timer = c && c->in_timer &&
                    (c->timer_timeout || (c->timer_armer >= 0 &&
                                          (uint64_t)c->timer_armer == pid_of(target)));
    if (by_timer)
        d->n_timer_wakeups++;
    if (target->waiting) {
        target->woken_by_wakeup = true;
        target->woken_by_timer = by_timer;
        target->wakeup_ts = s->ts;
    }
    /* a sender waking a receiver inside their syscalls: the data went
     * from one to the other (not a wakeup an interrupt made while the
     * sender happened to be in a write). To or from a D-Bus daemon seen in
     * the D-Bus probes, the D-Bus pair wins: it names the message and
     * joins the thread that made the call (GDBus's worker only writes
     * it), and one write as two ipc pairs would count it twice (SEG-IPC,
     * SIM-SIG). */
    if (d->line_ctx != CTX_IRQ && cur->in_syscall && target->in_syscall && target != cur &&
        name_in(cur->sys, send_syscalls) && name_in(target->sys, recv_syscalls) &&
        !dbus_daemon(d, pid_of(cur)) && !dbus_daemon(d, pid_of(target))) {
        bool socket = strncmp(cur->sys, "send", 4) == 0 ||
                      strncmp(target->sys, "recv", 4) == 0;
        const char *via = socket ? "socket" : "fd";
        uint64_t msg = d->next_msg++;
        uint64_t peer = pid_of(target);
        BEGIN(d, s, cur, "ipc", 4);
        PUT_LIT(d->w, "dir");
        PUT_LIT(d->w, "send");
        put_uint_kv(d, "msg", msg);
        put_uint_kv(d, "peer", peer);
        argus_put_key(d->w, "via");
        argus_put_cstr(d->w, via);
        argus_end_record(d->w);
        target->ipc_msg = msg;
        target->ipc_peer = pid_of(cur);
        target->ipc_via = via;
        d->n_ipc++;
    }
    BEGIN(d, s, cur, "wakeup", 1 + by_timer);
    put_uint_kv(d, "target", pid);
    if (by_timer) {
        PUT_LIT(d->w, "result");
        PUT_LIT(d->w, "timed_out");
    }
    argus_end_record(d->w);
}

/* An interrupt: hard (irq=N name=X) or soft (vec=N [action=X]). */
static void map_interrupt(argus_ft *d, const line_slot *s, thread *cur, span body,
                          bool begin, bool soft)
{
    uint64_t n;
    span name = {0};
    if (!field_dec(body, soft ? "vec" : "irq", &n))
        return (void)write_raw(d, s, cur);
    if (soft) {
        const char *a = memmem(body.p, body.n, "action=", 7);
        if (a) {
            name.p = a + 7;
            const char *e = body.p + body.n, *q = name.p;
            while (q < e && *q != ']' && *q != ' ')
                q++;
            name.n = (size_t)(q - name.p);
        }
    } else if (begin) {
        field(body, "name", &name);
    }
    bool own = soft && d->line_own_irq;
    BEGIN(d, s, cur, "interrupt", 2 + (name.n > 0) + soft + own);
    put_phase(d, begin);
    put_uint_kv(d, "irq", n);
    if (name.n)
        put_span_kv(d, "name", name);
    if (soft) {
        PUT_LIT(d->w, "softirq");
        argus_put_bool(d->w, true);
    }
    if (own) { /* run by the thread's own system call (CULL-SYSCALL) */
        PUT_LIT(d->w, "in_syscall");
        argus_put_cstr(d->w, cur->sys);
    }
    argus_end_record(d->w);
}

/* A workqueue: "work struct=W function=F workqueue=Q ..." (enqueue),
 * "work struct W: function F" (start), "work struct W[: function F]"
 * (end). The queue is the workqueue's address, or a hash of its name. */
static void map_work(argus_ft *d, const line_slot *s, thread *cur, span body,
                     ev_kind kind)
{
    uint64_t item;
    span func = {0}, qname = {0};
    /* "work struct=W" (tracefs), "work=W" (trace-cmd report -R) */
    bool kv = body.n > 5 && memcmp(body.p, "work=", 5) == 0;
    if (kind == EV_WQ_QUEUE) {
        if (!field_hex(body, kv ? "work" : "struct", &item))
            return (void)write_raw(d, s, cur);
        field(body, "function", &func);
        field(body, "workqueue", &qname);
        uint64_t queue;
        if (!span_hex_whole(qname, &queue) || qname.n < 8)
            queue = XXH3_64bits(qname.p, qname.n);
        bool created;
        *(uint64_t *)argus_table_put(&d->work_queue, item, &created) = queue;
        BEGIN(d, s, cur, "dispatch_enqueue", 2 + (func.n > 0) + (qname.n > 0));
        put_uint_kv(d, "queue", queue);
        put_uint_kv(d, "item", item);
        if (func.n)
            put_span_kv(d, "func", func);
        if (qname.n)
            put_span_kv(d, "queue_name", qname);
        argus_end_record(d->w);
        return;
    }
    const char *p = body.p, *end = body.p + body.n;
    if (kv) {
        if (!field_hex(body, "work", &item))
            return (void)write_raw(d, s, cur);
        field(body, "function", &func);
    } else if (body.n < 12 || memcmp(p, "work struct ", 12) != 0 ||
               !span_hex((span){p + 12, body.n - 12}, &item)) {
        return (void)write_raw(d, s, cur);
    }
    const char *f = kv ? NULL : memmem(p, (size_t)(end - p), "function ", 9);
    if (f) {
        func.p = f + 9;
        const char *q = func.p;
        while (q < end && *q != ' ')
            q++;
        func.n = (size_t)(q - func.p);
    }
    bool begin = kind == EV_WQ_START;
    const uint64_t *queue = argus_table_get(&d->work_queue, item);
    bool have_queue = queue != NULL;
    uint64_t q = queue ? *queue : 0;
    if (begin) {
        if (queue)
            argus_table_remove(&d->work_queue, item);
        cur->in_work = have_queue; /* for the end: the item may be queued again meanwhile */
        cur->work_item = item;
        cur->work_queue = q;
    } else if (cur->in_work && cur->work_item == item) {
        have_queue = true;
        q = cur->work_queue;
        cur->in_work = false;
    }
    BEGIN(d, s, cur, "dispatch_invoke", 2 + have_queue + (func.n > 0));
    put_phase(d, begin);
    if (have_queue)
        put_uint_kv(d, "queue", q);
    put_uint_kv(d, "item", item);
    if (func.n)
        put_span_kv(d, "func", func);
    argus_end_record(d->w);
}

/* Who armed which timer, and which timer's callback runs on the line's
 * CPU: a wakeup made inside it is the expiry of a sleep or a timeout
 * (map_wakeup). Only an arm made in a thread's own context names its
 * process (the tick re-arms itself in interrupts). OP: 0 start, 1
 * expire entry, 2 expire exit, 3 cancel. */
static void track_timer(argus_ft *d, const line_slot *s, const thread *cur, int op,
                        uint64_t timer, span func)
{
    if (op == 0) {
        bool created;
        uint64_t *armer = argus_table_put(&d->timer_armer, timer, &created);
        *armer = d->line_ctx == CTX_IRQ || cur->tid == 0 ? 0 : pid_of(cur) + 1;
        return;
    }
    if (op == 3 || s->cpu >= CPU_CTX_MAX)
        return;
    struct cpu_ctx *c = cpu_ctx(d, s->cpu);
    c->in_timer = op == 1;
    if (op == 1) {
        static const char *const timeouts[] = {"hrtimer_wakeup", "process_timeout", NULL};
        char fn[40];
        argus_utf8_copy(fn, sizeof fn, func.p, func.n);
        c->timer_timeout = name_in(fn, timeouts);
        const uint64_t *armer = argus_table_get(&d->timer_armer, timer);
        c->timer_armer = armer && *armer ? (int64_t)(*armer - 1) : -1;
    }
}

/* hrtimer_* (hrtimer=A function=F expires=NS) and timer_* (timer=A
 * function=F expires=JIFFIES). */
static void map_timer(argus_ft *d, const line_slot *s, thread *cur, span body,
                      ev_kind kind)
{
    bool hr = kind >= EV_HRTIMER_START && kind <= EV_HRTIMER_CANCEL;
    uint64_t timer, expires = 0;
    span func = {0};
    if (!field_hex(body, hr ? "hrtimer" : "timer", &timer))
        return (void)write_raw(d, s, cur);
    field(body, "function", &func);
    /* trace-cmd report prints "tick_nohz_handler/0x0" */
    const char *slash = func.n ? memchr(func.p, '/', func.n) : NULL;
    if (slash && func.p + func.n - slash > 2 && slash[1] == '0' && slash[2] == 'x')
        func.n = (size_t)(slash - func.p);
    int op = kind - (hr ? EV_HRTIMER_START : EV_TIMER_START); /* start, entry, exit, cancel */
    track_timer(d, s, cur, op, timer, func);
    switch (op) {
    case 0: {
        /* an hrtimer's expiry is in ns of its clock, the trace's clock for
         * mono/local traces; a timer's is in jiffies: left out */
        bool deadline = hr && field_dec(body, "expires", &expires);
        BEGIN(d, s, cur, "timer_arm", 1 + deadline + (func.n > 0));
        put_uint_kv(d, "timer", timer);
        if (deadline)
            put_uint_kv(d, "deadline", expires > d->zero ? expires - d->zero : 0);
        if (func.n)
            put_span_kv(d, "func", func);
        break;
    }
    case 1:
    case 2:
        BEGIN(d, s, cur, "timer_fire", 2 + (func.n > 0));
        put_phase(d, op == 1);
        put_uint_kv(d, "timer", timer);
        if (func.n)
            put_span_kv(d, "func", func);
        break;
    default:
        BEGIN(d, s, cur, "timer_cancel", 1);
        put_uint_kv(d, "timer", timer);
        break;
    }
    argus_end_record(d->w);
}

/* Task lifetimes: thread records, and exec/exit events. */
static void map_task(argus_ft *d, const line_slot *s, thread *cur, span body,
                     ev_kind kind)
{
    uint64_t pid = 0, flags = 0;
    span comm = {0}, v;
    switch (kind) {
    case EV_NEWTASK: {
        if (!field_dec(body, "pid", &pid))
            return (void)write_raw(d, s, cur);
        field(body, "comm", &comm);
        thread *t = get_thread(d, pid);
        set_comm(t, comm.p, comm.n);
        /* CLONE_THREAD: a thread of the creator's process */
        if (field_hex(body, "clone_flags", &flags) && (flags & 0x10000))
            set_tgid(t, cur->tgid); /* when known */
        else
            set_tgid(t, (int64_t)pid);
        return;
    }
    case EV_FORK: {
        if (!field_dec(body, "child_pid", &pid))
            return (void)write_raw(d, s, cur);
        field(body, "child_comm", &comm);
        thread *t = get_thread(d, pid);
        set_comm(t, comm.p, comm.n);
        /* DEC-PARENT: the process that forked it */
        if (pid != 0 && t->parent != pid_of(cur)) {
            t->parent = pid_of(cur);
            t->announced = false;
        }
        return;
    }
    case EV_RENAME: {
        if (!field_dec(body, "pid", &pid) || !field(body, "newcomm", &comm))
            return (void)write_raw(d, s, cur);
        set_comm(get_thread(d, pid), comm.p, comm.n);
        return;
    }
    case EV_EXEC: {
        span file = {0};
        field(body, "filename", &file);
        if (file.n) {
            /* the new name, as the kernel sets it (when no task_rename
             * line says it): the file's base name, 15 bytes at most */
            const char *slash = memrchr(file.p, '/', file.n);
            const char *base = slash ? slash + 1 : file.p;
            size_t n = (size_t)(file.p + file.n - base);
            set_comm(cur, base, n > 15 ? 15 : n);
        }
        /* its fds opened close-on-exec are closed now, and the trace
         * does not say which: none is named any more (DEC-FD) */
        fd_forget_range(d, pid_of(cur), 0, (1u << 31) - 1);
        BEGIN(d, s, cur, "exec", file.n > 0);
        if (file.n)
            put_span_kv(d, "filename", file);
        argus_end_record(d->w);
        return;
    }
    default: { /* EV_EXIT */
        thread *t = cur;
        if (field_dec(body, "pid", &pid) && pid != cur->tid)
            t = get_thread(d, pid);
        if (field(body, "comm", &v))
            set_comm(t, v.p, v.n);
        if (t->tid == pid_of(t)) /* the process ends (its leader) */
            fd_forget_range(d, pid_of(t), 0, (1u << 31) - 1);
        BEGIN(d, s, t, "exit", 0);
        argus_end_record(d->w);
        return;
    }
    }
}

static void map_flag(argus_ft *d, const line_slot *s, thread *cur, span body,
                     bool write)
{
    uint64_t addr, value = 0;
    span name = {0};
    if (!field_hex(body, "addr", &addr))
        return (void)write_raw(d, s, cur);
    bool have_value = field_hex(body, "value", &value);
    field(body, "name", &name);
    if (write)
        BEGIN(d, s, cur, "flag_write", 1 + have_value + (name.n > 0));
    else
        BEGIN(d, s, cur, "flag_read", 1 + have_value + (name.n > 0));
    put_uint_kv(d, "addr", addr);
    if (have_value)
        put_uint_kv(d, "value", value);
    if (name.n)
        put_span_kv(d, "name", name);
    argus_end_record(d->w);
}

/* ---- The desktop's libraries (argus-record's uprobes) -------------------- */

/* A main loop's dispatch of its ready sources (GLib's
 * g_main_context_dispatch: item = its context, which tells a nested
 * private loop from the default one) -> runloop_invoke begin/end. */
static void map_loop_dispatch(argus_ft *d, const line_slot *s, thread *cur, span body,
                              bool begin)
{
    uint64_t item = 0;
    bool have_item;
    if (begin) {
        have_item = field_hex(body, "ctx", &item);
        if (cur->loop_depth < sizeof cur->loop_item / sizeof *cur->loop_item)
            cur->loop_item[cur->loop_depth] = have_item ? item : 0;
        cur->loop_depth++;
    } else {
        /* a return probe sees no arguments: the item of its begin */
        if (cur->loop_depth > 0)
            cur->loop_depth--;
        have_item = cur->loop_depth < sizeof cur->loop_item / sizeof *cur->loop_item &&
                    (item = cur->loop_item[cur->loop_depth]) != 0;
    }
    BEGIN(d, s, cur, "runloop_invoke", 2 + have_item);
    put_phase(d, begin);
    PUT_LIT(d->w, "kind");
    PUT_LIT(d->w, "source");
    if (have_item)
        put_uint_kv(d, "item", item);
    argus_end_record(d->w);
    d->n_probe_events++;
}

/* The loop's wait for its sources (g_poll) -> runloop_phase before_waiting
 * (with its timeout in ns, when it has one) and after_waiting. */
static void map_loop_poll(argus_ft *d, const line_slot *s, thread *cur, span body, bool before)
{
    uint64_t ms = 0;
    bool timeout = before && field_dec(body, "timeout", &ms) && (int64_t)ms >= 0;
    BEGIN(d, s, cur, "runloop_phase", 1 + timeout);
    PUT_LIT(d->w, "stage");
    if (before)
        PUT_LIT(d->w, "before_waiting");
    else
        PUT_LIT(d->w, "after_waiting");
    if (timeout)
        put_uint_kv(d, "timeout", ms * 1000000u);
    argus_end_record(d->w);
    d->n_probe_events++;
}

/* The user's input as a toolkit saw it -> ui_event with the kind macOS
 * gives it (and the key: GTK's keyval, Qt's X keysym); the toolkit's
 * other event types stay ftrace events. */
struct input_kind {
    unsigned type;
    const char *kind;
};

/* GTK 3's gtk_main_do_event: GdkEventType */
static const struct input_kind gtk_kinds[] = {
    {3, "mouseMoved"}, {4, "mouseDown"}, {5, "mouseDown"}, {6, "mouseDown"},
    {7, "mouseUp"}, {8, "keyDown"}, {9, "keyUp"}, {31, "scrollWheel"},
    {37, "touchBegin"}, {39, "touchEnd"}, {0, NULL},
};
/* Tk's Tk_HandleEvent: the XEvent's type */
static const struct input_kind x_kinds[] = {
    {2, "keyDown"}, {3, "keyUp"}, {4, "mouseDown"}, {5, "mouseUp"}, {0, NULL},
};
/* Qt 5's processKeyEvent and processMouseEvent: QEvent::Type */
static const struct input_kind qt_kinds[] = {
    {2, "mouseDown"}, {3, "mouseUp"}, {4, "mouseDown"}, {6, "keyDown"}, {7, "keyUp"},
    {0, NULL},
};

static void map_input(argus_ft *d, const line_slot *s, thread *cur, span body,
                      const struct input_kind *kinds, const char *key_field)
{
    uint64_t type, key = 0;
    if (!field_dec(body, "type", &type))
        return (void)write_raw(d, s, cur);
    const char *kind = NULL;
    for (; kinds->kind && !kind; kinds++)
        if (kinds->type == type)
            kind = kinds->kind;
    if (!kind)
        return (void)write_raw(d, s, cur);
    bool has_key = key_field && strncmp(kind, "key", 3) == 0 && field_dec(body, key_field, &key);
    BEGIN(d, s, cur, "ui_event", 1 + has_key);
    argus_put_key(d->w, "kind");
    argus_put_text(d->w, kind, strlen(kind));
    if (has_key)
        put_uint_kv(d, "key", key);
    argus_end_record(d->w);
    d->n_probe_events++;
}

/* ---- D-Bus messages (argus-record's gdbus and libdbus probes) ----------- */

/* A D-Bus message goes sender -> bus daemon -> receiver, and is known by
 * (the sender's unique name, its serial): the sender's set_serial gives
 * (process, serial, type), the daemon's set_sender (name, serial, type),
 * its send_preallocated (connection, serial, type) once per recipient,
 * and the receiver's from_blob / first get_reply_serial (serial, type).
 * Serials are small and reused by every connection, so each hop is
 * paired with the oldest pending one of the same (serial, type) that the
 * name <-> process and connection <-> process maps learnt so far allow
 * (tests/live/probes-notes.md 6.4; a process holds one name, and the
 * daemon one connection, per connection it opened: dbus_sender_fits says
 * which process a new name can be). Each hop becomes an ipc send/recv pair
 * with a msg of its own (IPC-MSG); the daemon's forward is joined to its
 * receipt, and the service's reply to the request it received, by
 * IPC-REPLY: every send carries a reply_port naming the next hop, and the
 * send that hop makes (the daemon's forward, the service's reply) goes to
 * that port. */
#define DBUS_PENDING 1024      /* entries of each table below (oldest dropped) */
#define DBUS_DAEMONS 16
#define DBUS_PORT_BASE 0xdb50000000000000ull /* the conversation ports we number */

typedef struct dbus_entry {
    bool used;
    uint64_t pid;       /* the sender, receiver, or the process a name/connection is */
    uint64_t daemon;    /* the bus daemon it went through (forward, name, connection) */
    uint64_t conn;      /* forward: the daemon's connection it went to */
    uint64_t key;       /* a serial; a message pointer (hint, seen); a name's hash;
                         * a connection pointer */
    uint64_t type;
    uint64_t serial;    /* hint: the reply serial it answers */
    uint64_t msg;       /* the ipc msg given to its send */
    uint64_t port;      /* the reply_port of its send; request: its reply's port */
} dbus_entry;

typedef struct dbus_table {
    dbus_entry v[DBUS_PENDING];
    uint32_t next;      /* the oldest slot, the next one taken */
} dbus_table;

struct dbus_state {
    dbus_table sent;      /* messages sent by clients, not yet at the daemon */
    dbus_table forwarded; /* the daemon's sends, not yet at their receiver */
    dbus_table requests;  /* method calls received, their reply not yet sent */
    dbus_table hints;     /* set_reply_serial: the reply being built answers serial */
    dbus_table names;     /* unique name (per daemon) -> process */
    dbus_table conns;     /* the daemon's connection -> process */
    dbus_table seen;      /* libdbus messages already received or sent (its
                           * get_reply_serial runs several times a message) */
    struct dbus_daemon {
        uint64_t pid;
        uint64_t msg, serial, type; /* the message it received last ... */
        uint64_t sender;            /* ... from this process (0: unknown) */
        bool hello;                 /* ... stamped ":not.active.yet" (a Hello) */
        uint64_t act_port;          /* the reply_port of that message: what the
                                     * daemon sends next is its doing */
    } daemons[DBUS_DAEMONS];
    uint32_t n_daemons;
    uint64_t next_port;
    uint64_t n_ipc, n_unmatched, n_dropped, n_folded;
};

static struct dbus_state *dbus_state(argus_ft *d)
{
    if (!d->dbus && !(d->dbus = calloc(1, sizeof *d->dbus)))
        abort();
    return d->dbus;
}

static void dbus_add(struct dbus_state *b, dbus_table *t, dbus_entry e)
{
    dbus_entry *slot = &t->v[t->next];
    t->next = (t->next + 1) % DBUS_PENDING;
    /* a message whose other end never came (the maps and the hints are
     * only forgotten) */
    if (slot->used && (t == &b->sent || t == &b->forwarded || t == &b->requests))
        b->n_dropped++;
    e.used = true;
    *slot = e;
}

typedef bool (*dbus_match)(const dbus_entry *e, const void *want);

/* The oldest entry of T that MATCH accepts, or NULL. */
static dbus_entry *dbus_oldest(dbus_table *t, dbus_match match, const void *want)
{
    for (uint32_t i = 0; i < DBUS_PENDING; i++) {
        dbus_entry *e = &t->v[(t->next + i) % DBUS_PENDING];
        if (e->used && match(e, want))
            return e;
    }
    return NULL;
}

/* The newest entry of T that MATCH accepts, or NULL. */
static dbus_entry *dbus_newest(dbus_table *t, dbus_match match, const void *want)
{
    for (uint32_t i = 1; i <= DBUS_PENDING; i++) {
        dbus_entry *e = &t->v[(t->next + DBUS_PENDING - i) % DBUS_PENDING];
        if (e->used && match(e, want))
            return e;
    }
    return NULL;
}

static bool same_pid_key_type(const dbus_entry *e, const void *want)
{
    const dbus_entry *w = want;
    return e->pid == w->pid && e->key == w->key && e->type == w->type;
}

static bool same_message(const dbus_entry *e, const void *want)
{
    const dbus_entry *w = want;
    return same_pid_key_type(e, want) && e->serial == w->serial;
}

static bool same_pid_key(const dbus_entry *e, const void *want)
{
    const dbus_entry *w = want;
    return e->pid == w->pid && e->key == w->key;
}

static bool same_daemon_key(const dbus_entry *e, const void *want)
{
    const dbus_entry *w = want;
    return e->daemon == w->daemon && e->key == w->key;
}

/* A bus daemon: a process that named a sender or forwarded a message
 * (or was seen doing it by the first pass), by its pid. */
static struct dbus_daemon *dbus_daemon(const argus_ft *d, uint64_t pid)
{
    if (!d->dbus)
        return NULL;
    for (uint32_t i = 0; i < d->dbus->n_daemons; i++)
        if (d->dbus->daemons[i].pid == pid)
            return &d->dbus->daemons[i];
    return NULL;
}

static struct dbus_daemon *dbus_add_daemon(argus_ft *d, uint64_t pid)
{
    struct dbus_daemon *x = dbus_daemon(d, pid);
    struct dbus_state *b = dbus_state(d);
    if (x || b->n_daemons == DBUS_DAEMONS)
        return x;
    x = &b->daemons[b->n_daemons++];
    x->pid = pid;
    return x;
}

/* Whether T's process relays messages: a known daemon, or one by its name
 * before its first set_sender (its get_reply_serial comes before it). */
static bool dbus_relay(const argus_ft *d, const thread *t)
{
    return dbus_daemon(d, pid_of(t)) || strncmp(t->comm, "dbus-daemon", 11) == 0;
}

/* The D-Bus message types (1..4, as the probes read them), as the
 * specification names them (dbus-monitor prints them with spaces). */
static const char *const dbus_type_names[] = {"method_call", "method_return", "error",
                                              "signal"};

/* One hop of a D-Bus message: besides the pairing (msg, ports, peer), the
 * message's serial, as its sender numbered it (the same at every hop: the
 * daemon forwards it as it is), and its type. */
static void write_dbus_ipc(argus_ft *d, const line_slot *s, thread *t, bool send, uint64_t msg,
                           uint64_t peer, uint64_t port, uint64_t reply_port, uint64_t serial,
                           uint64_t type)
{
    BEGIN(d, s, t, "ipc", 5 + (peer != 0) + (port != 0) + (reply_port != 0));
    PUT_LIT(d->w, "dir");
    if (send)
        PUT_LIT(d->w, "send");
    else
        PUT_LIT(d->w, "recv");
    if (port)
        put_uint_kv(d, "port", port);
    put_uint_kv(d, "msg", msg);
    if (reply_port)
        put_uint_kv(d, "reply_port", reply_port);
    if (peer)
        put_uint_kv(d, "peer", peer);
    PUT_LIT(d->w, "via");
    PUT_LIT(d->w, "dbus");
    put_uint_kv(d, "serial", serial);
    argus_put_key(d->w, "dbus_type");
    argus_put_cstr(d->w, dbus_type_names[type - 1]);
    argus_end_record(d->w);
    d->dbus->n_ipc++;
    d->n_probe_events++;
}

/* The fields every D-Bus line has: msg (a pointer), serial, type. */
static bool dbus_fields(span body, uint64_t *msg, uint64_t *serial, uint64_t *type)
{
    return field_hex(body, "msg", msg) && field_dec(body, "serial", serial) &&
           field_dec(body, "type", type) && *serial != 0 && *type >= 1 && *type <= 4;
}

/* A client's set_serial: the message is sent (GDBus sets it on the
 * calling thread, before its worker writes it). A reply (type 2, error 3)
 * goes to the port of the request it answers: set_reply_serial named it
 * on the same message just before. The sender does not see which bus it
 * writes to, so the send names no peer. */
static void map_dbus_set_serial(argus_ft *d, const line_slot *s, thread *cur, span body,
                                bool libdbus)
{
    uint64_t msg, serial, type, pid = pid_of(cur);
    if (!dbus_fields(body, &msg, &serial, &type) || dbus_relay(d, cur))
        return (void)write_raw(d, s, cur); /* the daemon's own: its send_preallocated sends */
    struct dbus_state *b = dbus_state(d);
    if (libdbus)
        dbus_add(b, &b->seen, (dbus_entry){.pid = pid, .key = msg, .serial = serial, .type = type});
    uint64_t port = 0;
    /* the newest: a pointer reused since an older hint (a prebuilt
     * timeout error never sent) has a newer one */
    dbus_entry *hint = type == 2 || type == 3
                           ? dbus_newest(&b->hints, same_pid_key_type,
                                         &(dbus_entry){.pid = pid, .key = msg, .type = type})
                           : NULL;
    if (hint) {
        dbus_entry *req = dbus_oldest(&b->requests, same_pid_key,
                                      &(dbus_entry){.pid = pid, .key = hint->serial});
        hint->used = false;
        if (req) {
            port = req->port;
            req->used = false;
        }
    }
    uint64_t id = d->next_msg++, reply_port = DBUS_PORT_BASE + ++b->next_port;
    write_dbus_ipc(d, s, cur, true, id, 0, port, reply_port, serial, type);
    dbus_add(b, &b->sent,
             (dbus_entry){.pid = pid, .key = serial, .type = type, .msg = id, .port = reply_port});
}

/* set_reply_serial: the reply being built answers reply_serial. Only a
 * hint: libdbus also builds the timeout error of every call it sends, and
 * never sends it; it counts when the same message is then sent. */
static void map_dbus_set_reply_serial(argus_ft *d, const line_slot *s, thread *cur, span body)
{
    uint64_t msg, reply_serial, type = 0;
    if (!field_hex(body, "msg", &msg) || !field_dec(body, "reply_serial", &reply_serial) ||
        !field_dec(body, "type", &type) || dbus_relay(d, cur))
        return (void)write_raw(d, s, cur);
    struct dbus_state *b = dbus_state(d);
    dbus_add(b, &b->hints,
             (dbus_entry){.pid = pid_of(cur), .key = msg, .serial = reply_serial, .type = type});
    b->n_folded++;
}

struct dbus_sender_want {
    uint64_t serial, type, daemon, name; /* name: its hash, 0 for a Hello */
    const dbus_table *names;
};

/* A pending send of (serial, type) that a message stamped with a name the
 * map does not know yet can be. A Hello (NAME 0, stamped
 * ":not.active.yet") opens a new connection: any process may send one,
 * named on this bus or not (a second connection of one program: libdbus
 * and GDBus in it, or one library twice), and its second stamp gives that
 * process one more name. Another message with a new unique name: a
 * process with no other unique name on this bus (one that has a name would
 * have been stamped with it, unless the trace lacks the Hello of its
 * second connection: then it is not paired). Every name of the process
 * counts, whichever slot of the map holds it. */
static bool dbus_sender_fits(const dbus_entry *e, const void *want)
{
    const struct dbus_sender_want *w = want;
    if (e->key != w->serial || e->type != w->type)
        return false;
    if (!w->name)
        return true;
    for (uint32_t i = 0; i < DBUS_PENDING; i++) {
        const dbus_entry *n = &w->names->v[i];
        if (n->used && n->daemon == w->daemon && n->pid == e->pid && n->key != w->name)
            return false;
    }
    return true;
}

static void dbus_learn(struct dbus_state *b, dbus_table *t, uint64_t daemon, uint64_t key,
                       uint64_t pid)
{
    dbus_entry *known = dbus_oldest(t, same_daemon_key, &(dbus_entry){.daemon = daemon, .key = key});
    if (known)
        known->pid = pid;
    else
        dbus_add(b, t, (dbus_entry){.daemon = daemon, .key = key, .pid = pid});
}

/* The daemon's set_sender: it received a message and stamps its sender's
 * unique name. Its own messages (replies to the bus's methods, signals)
 * have sender org.freedesktop.DBus; a new connection's Hello is stamped
 * twice (":not.active.yet", then its name). */
static void map_dbus_set_sender(argus_ft *d, const line_slot *s, thread *cur, span body)
{
    uint64_t msg, serial, type;
    span sender;
    uint64_t daemon_pid = pid_of(cur);
    struct dbus_daemon *x = dbus_add_daemon(d, daemon_pid);
    if (!dbus_fields(body, &msg, &serial, &type) || !field(body, "sender", &sender) || !x)
        return (void)write_raw(d, s, cur);
    if (sender.n >= 2 && sender.p[0] == '"' && sender.p[sender.n - 1] == '"')
        sender = (span){sender.p + 1, sender.n - 2};
    struct dbus_state *b = d->dbus;
    bool unique = sender.n >= 2 && sender.p[0] == ':' && is_digit(sender.p[1]);
    uint64_t name = unique ? XXH3_64bits_withSeed(sender.p, sender.n, daemon_pid) | 1 : 0;
    if (x->hello && x->msg == msg && x->serial == serial && x->type == type) {
        /* the same message stamped again: its sender's name at last */
        if (unique && x->sender)
            dbus_learn(b, &b->names, daemon_pid, name, x->sender);
        x->hello = false;
        b->n_folded++;
        return;
    }
    if (!unique && !(sender.n == 15 && memcmp(sender.p, ":not.active.yet", 15) == 0))
        return (void)write_raw(d, s, cur); /* the daemon's own message */
    dbus_entry *from = NULL;
    const dbus_entry *known =
        unique ? dbus_oldest(&b->names, same_daemon_key,
                             &(dbus_entry){.daemon = daemon_pid, .key = name})
               : NULL;
    if (known)
        from = dbus_oldest(&b->sent, same_pid_key_type,
                           &(dbus_entry){.pid = known->pid, .key = serial, .type = type});
    else
        from = dbus_oldest(&b->sent, dbus_sender_fits,
                           &(struct dbus_sender_want){serial, type, daemon_pid, name, &b->names});
    *x = (struct dbus_daemon){.pid = daemon_pid, .msg = msg, .serial = serial, .type = type,
                              .hello = !unique};
    if (!from) {
        b->n_unmatched++;
        return (void)write_raw(d, s, cur);
    }
    if (unique)
        dbus_learn(b, &b->names, daemon_pid, name, from->pid);
    x->sender = from->pid;
    x->act_port = from->port;
    from->used = false;
    write_dbus_ipc(d, s, cur, false, from->msg, from->pid, 0, 0, serial, type);
}

/* The daemon's send_preallocated: it sends a message to the connection
 * conn, once per recipient. It acts on the message it received last (a
 * forward, or its own answer to a call to the bus): the send goes to that
 * message's reply_port. A method call's receiver will answer it: a port
 * for that. */
static void map_dbus_send_prealloc(argus_ft *d, const line_slot *s, thread *cur, span body)
{
    uint64_t msg, serial, type, conn;
    uint64_t daemon_pid = pid_of(cur);
    struct dbus_daemon *x = dbus_add_daemon(d, daemon_pid);
    if (!dbus_fields(body, &msg, &serial, &type) || !field_hex(body, "conn", &conn) || !x)
        return (void)write_raw(d, s, cur);
    struct dbus_state *b = d->dbus;
    const dbus_entry *to =
        dbus_oldest(&b->conns, same_daemon_key, &(dbus_entry){.daemon = daemon_pid, .key = conn});
    uint64_t id = d->next_msg++, reply_port = type == 1 ? DBUS_PORT_BASE + ++b->next_port : 0;
    write_dbus_ipc(d, s, cur, true, id, to ? to->pid : 0, x->act_port, reply_port, serial,
                   type);
    dbus_add(b, &b->forwarded,
             (dbus_entry){.daemon = daemon_pid, .conn = conn, .key = serial, .type = type,
                          .msg = id, .port = reply_port});
}

struct dbus_receiver_want {
    uint64_t serial, type, pid;
    const dbus_table *conns;
};

/* A forward of (serial, type) to a connection that is the receiver's, or
 * not known to be another process's (a process may have several
 * connections: each is its own entry). Every entry of the connection
 * counts, whichever slot holds it (dbus_learn keeps one). */
static bool dbus_receiver_fits(const dbus_entry *e, const void *want)
{
    const struct dbus_receiver_want *w = want;
    if (e->key != w->serial || e->type != w->type)
        return false;
    for (uint32_t i = 0; i < DBUS_PENDING; i++) {
        const dbus_entry *c = &w->conns->v[i];
        if (c->used && c->daemon == e->daemon && c->key == e->conn && c->pid != w->pid)
            return false;
    }
    return true;
}

/* A client receives a message: GDBus's new_from_blob (once a message, on
 * its worker thread), libdbus's first get_reply_serial of it (the daemon's
 * own are its receipts before set_sender: left out). */
static void map_dbus_recv(argus_ft *d, const line_slot *s, thread *cur, span body, bool libdbus)
{
    uint64_t msg, serial, type, pid = pid_of(cur);
    if (libdbus && dbus_relay(d, cur)) {
        dbus_state(d)->n_folded++;
        return;
    }
    if (!dbus_fields(body, &msg, &serial, &type))
        return (void)write_raw(d, s, cur);
    struct dbus_state *b = dbus_state(d);
    if (libdbus) {
        dbus_entry want = {.pid = pid, .key = msg, .serial = serial, .type = type};
        if (dbus_oldest(&b->seen, same_message, &want)) {
            b->n_folded++;
            return;
        }
        dbus_add(b, &b->seen, want);
    }
    dbus_entry *from = dbus_oldest(&b->forwarded, dbus_receiver_fits,
                                   &(struct dbus_receiver_want){serial, type, pid, &b->conns});
    if (!from) {
        b->n_unmatched++;
        return (void)write_raw(d, s, cur);
    }
    dbus_learn(b, &b->conns, from->daemon, from->conn, pid);
    from->used = false;
    write_dbus_ipc(d, s, cur, false, from->msg, from->daemon, 0, 0, serial, type);
    if (type == 1 && from->port)
        dbus_add(b, &b->requests, (dbus_entry){.pid = pid, .key = serial, .port = from->port});
}

/* raw_syscalls: "NR 202 (7f.., 80, ...)" and "NR 202 = 0": no names
 * (the numbers are the architecture's), "NR_202". */
/* ---- Android: binder and atrace (lib/decode/android.c) ------------------- */

static argus_android *android_state(argus_ft *d)
{
    if (!d->android)
        d->android = argus_android_new();
    return d->android;
}

/* binder_transaction (SEND) and binder_transaction_received -> an ipc
 * event via binder (docs/inputs/android.md). */
static void map_binder(argus_ft *d, const line_slot *s, thread *cur, span body, bool send)
{
    argus_binder_txn t = {0};
    argus_binder_ipc m;
    uint64_t reply = 0;
    if (!field_dec(body, "transaction", &t.id))
        return write_raw(d, s, cur);
    if (send) {
        if (!field_dec(body, "dest_proc", &t.dest_proc) ||
            !field_dec(body, "reply", &reply) || !field_hex(body, "flags", &t.flags))
            return write_raw(d, s, cur);
        field_dec(body, "dest_thread", &t.dest_thread);
        field_hex(body, "code", &t.code);
        t.reply = reply != 0;
        argus_android_binder_send(android_state(d), cur->tid, pid_of(cur), &t, &m);
        /* a reply goes to the caller's thread: its process is told */
        if (t.reply && t.dest_thread && t.dest_proc && t.dest_proc <= INT32_MAX) {
            thread *caller = get_thread(d, t.dest_thread);
            if (caller->tgid < 0)
                set_tgid(caller, (int64_t)t.dest_proc);
        }
    } else {
        argus_android_binder_recv(android_state(d), cur->tid, t.id, &m);
        if (m.self_pid && m.self_pid <= INT32_MAX && cur->tgid < 0)
            set_tgid(cur, (int64_t)m.self_pid);
    }
    BEGIN(d, s, cur, "ipc", 3 + (m.port != 0) + (m.reply_port != 0) + (m.peer != 0) +
                                (m.code != 0 || (m.send && !m.reply)) + m.oneway + m.reply);
    PUT_LIT(d->w, "dir");
    if (m.send)
        PUT_LIT(d->w, "send");
    else
        PUT_LIT(d->w, "recv");
    if (m.port)
        put_uint_kv(d, "port", m.port);
    put_uint_kv(d, "msg", m.msg);
    if (m.reply_port)
        put_uint_kv(d, "reply_port", m.reply_port);
    if (m.peer)
        put_uint_kv(d, "peer", m.peer);
    PUT_LIT(d->w, "via");
    PUT_LIT(d->w, "binder");
    if (m.code != 0 || (m.send && !m.reply))
        put_uint_kv(d, "code", m.code);
    if (m.oneway) {
        PUT_LIT(d->w, "oneway");
        argus_put_bool(d->w, true);
    }
    if (m.reply) {
        PUT_LIT(d->w, "reply");
        argus_put_bool(d->w, true);
    }
    argus_end_record(d->w);
}

/* An atrace mark (tracing_mark_write, print): a main thread's outermost
 * slice is a message of its Looper (runloop_phase after_waiting and
 * runloop_invoke begin, then end and before_waiting), deliverInputEvent
 * the app's input (ui_event `input`); every other mark stays an ftrace
 * event with its text. */
static void map_mark(argus_ft *d, const line_slot *s, thread *cur, span body)
{
    argus_android_mark m;
    if (!argus_android_mark_parse(android_state(d), cur->tid, body.p, body.n, &m))
        return write_raw(d, s, cur);
    /* atrace writes the process's pid: the thread's, when no column told it */
    if (m.pid && m.pid <= INT32_MAX && cur->tgid < 0)
        set_tgid(cur, (int64_t)m.pid);
    if (m.loop == 0 && !m.input)
        return write_raw(d, s, cur);
    if (m.loop > 0) {
        BEGIN(d, s, cur, "runloop_phase", 1);
        PUT_LIT(d->w, "stage");
        PUT_LIT(d->w, "after_waiting");
        argus_end_record(d->w);
        BEGIN(d, s, cur, "runloop_invoke", 3);
        put_phase(d, true);
        PUT_LIT(d->w, "kind");
        PUT_LIT(d->w, "message");
        put_span_kv(d, "name", (span){m.name, m.name_len});
        argus_end_record(d->w);
    }
    if (m.input) {
        BEGIN(d, s, cur, "ui_event", 1);
        PUT_LIT(d->w, "kind");
        PUT_LIT(d->w, "input");
        argus_end_record(d->w);
    }
    if (m.loop < 0) {
        BEGIN(d, s, cur, "runloop_invoke", 2);
        put_phase(d, false);
        PUT_LIT(d->w, "kind");
        PUT_LIT(d->w, "message");
        argus_end_record(d->w);
        BEGIN(d, s, cur, "runloop_phase", 1);
        PUT_LIT(d->w, "stage");
        PUT_LIT(d->w, "before_waiting");
        argus_end_record(d->w);
    }
}

static void map_raw_syscall(argus_ft *d, const line_slot *s, thread *cur, span body,
                            bool begin)
{
    uint64_t nr, args[6], ret = 0;
    if (body.n < 4 || memcmp(body.p, "NR ", 3) != 0 ||
        !span_dec((span){body.p + 3, body.n - 3}, &nr))
        return (void)write_raw(d, s, cur);
    char name[32];
    int n = snprintf(name, sizeof name, "NR_%llu", (unsigned long long)nr);
    size_t nargs = 0;
    bool have_ret = false;
    if (begin) {
        const char *o = memchr(body.p, '(', body.n);
        if (o)
            nargs = parse_args((span){o + 1, body.n - (size_t)(o + 1 - body.p)}, args);
    } else {
        const char *eq = memmem(body.p, body.n, "= ", 2);
        have_ret = eq && span_dec((span){eq + 2, body.n - (size_t)(eq + 2 - body.p)}, &ret);
    }
    write_syscall(d, s, cur, (span){name, (size_t)n}, begin, args, nargs, have_ret, ret);
}

/* "# argus-thread: tid=T tgid=G kernel=K [ppid=P] comm=NAME"
 * (argus-record). */
static void map_thread_line(argus_ft *d, const char *p, size_t n)
{
    span body = {p, n}, comm = {0};
    uint64_t tid, tgid, kernel = 0, ppid;
    if (!field_dec(body, "tid", &tid) || tid == 0)
        return; /* tid 0 is the idle task, a kernel thread whatever a line says */
    thread *t = get_thread(d, tid);
    if (field_dec(body, "tgid", &tgid))
        set_tgid(t, (int64_t)tgid);
    if (field_dec(body, "kernel", &kernel)) {
        t->kernel_known = true;
        t->kernel = kernel != 0;
        t->announced = false;
    }
    if (field_dec(body, "ppid", &ppid) && ppid != 0 && ppid != pid_of(t)) {
        t->parent = ppid;       /* DEC-PARENT, for a process older than the trace */
        t->announced = false;
    }
    if (field(body, "comm", &comm))
        set_comm(t, comm.p, comm.n);
    if (comm.n == 12 && memcmp(comm.p, "argus-record", 12) == 0 && d->recorder_pid &&
        tid != d->recorder_pid && pid_of(t) == tid) {
        d->held_child = tid;
        d->n_held_children++;
    }
}

/* Whether line S (event NAME, Q just after it) ends a system call whose
 * wait timed out: a sleep that returned 0, a poll/select/epoll that
 * returned 0 (nothing ready), any that returned -ETIMEDOUT. */
static bool line_says_timed_out(const line_slot *s, span name, const char *q)
{
    static const char *const sleeps_and_polls[] = {
        "nanosleep", "clock_nanosleep", "poll", "ppoll", "select", "pselect6",
        "epoll_wait", "epoll_pwait", "epoll_pwait2", NULL};
    const char *end = s->text + s->len;
    span sys, ret;
    if (name.n > 9 && memcmp(name.p, "sys_exit_", 9) == 0 && q < end) {
        sys = (span){name.p + 9, name.n - 9};   /* "sys_exit_X: 0x0", "... ret=0" */
        ret = (span){q + 1, (size_t)(end - q - 1)};
        while (ret.n && *ret.p == ' ')
            ret.p++, ret.n--;
    } else if (name.n > 4 && memcmp(name.p, "sys_", 4) == 0 && end - q >= 4 &&
               memcmp(q, " -> ", 4) == 0) {
        sys = (span){name.p + 4, name.n - 4};   /* "sys_X -> 0x0" */
        ret = (span){q + 4, (size_t)(end - q - 4)};
    } else {
        return false;
    }
    uint64_t v;
    if (!span_hex(ret, &v) && !field_hex(ret, "ret", &v))
        return false;
    if ((int64_t)v == -110)
        return true;
    char n[SYSNAME_MAX];
    argus_utf8_copy(n, sizeof n, sys.p, sys.n);
    return v == 0 && name_in(n, sleeps_and_polls);
}

/* A synthetic interrupt window on thread TID. */
static void synth_irq(argus_ft *d, const line_slot *s, uint64_t tid, bool begin, char ctx)
{
    thread *t = get_thread(d, tid);
    BEGIN(d, s, t, "interrupt", 2);
    put_phase(d, begin);
    PUT_LIT(d->w, "name");
    argus_put_cstr(d->w, ctx == 's' ? "softirq context" : "hardirq context");
    argus_end_record(d->w);
    if (begin)
        d->n_synth_irq++;
}

/* A NET_RX or NET_TX softirq (by its action, else its vector). */
static bool net_softirq(const line_slot *s)
{
    span body = {s->text + s->body_off, s->len - s->body_off};
    if (memmem(body.p, body.n, "action=NET_", 11))
        return true;
    uint64_t vec;
    return !memmem(body.p, body.n, "action=", 7) && field_dec(body, "vec", &vec) &&
           (vec == 2 || vec == 3);
}

/* The context of line S, and the interrupt windows of its CPU.
 *
 * A softirq is the running thread's own work when its system call ran it
 * (CULL-SYSCALL): loopback TCP hands a packet to NET_RX inside the
 * sender's write or sendto, on the sender's thread, and the receiver's
 * wakeup happens there. That is a network softirq that opens on a thread
 * (not the idle task, not a kernel thread: ksoftirqd runs them for
 * interrupts) that is in a system call, with no interrupt open and the
 * CPU's previous line that thread's own, in task context (not right after
 * a hardirq, whose exit runs softirqs too).
 *
 * Lines in hardirq/softirq context by their flags outside irq_handler and
 * softirq events (the local timer's hrtimers, IPIs, their wakeups) go in
 * a synthetic interrupt window of the thread they interrupted, so that
 * they are not taken for its own work. */
static void track_irq_ctx(argus_ft *d, const line_slot *s, ev_kind kind)
{
    bool hard_flag = s->irq_ctx == 'h' || s->irq_ctx == 'H';
    d->line_own_irq = false;
    d->line_cpu = NULL;
    d->line_ctx = hard_flag || (s->irq_ctx && s->irq_ctx != '.') ? CTX_IRQ : CTX_TASK;
    if (s->cpu >= CPU_CTX_MAX)
        return;
    struct cpu_ctx *c = cpu_ctx(d, s->cpu);
    d->line_cpu = c;
    bool real_edge = kind == EV_IRQ_ENTRY || kind == EV_IRQ_EXIT ||
                     kind == EV_SOFTIRQ_ENTRY || kind == EV_SOFTIRQ_EXIT;
    bool in_irq = s->irq_ctx && s->irq_ctx != '.';
    /* a line in task context: no irq is open on this cpu (its exit line
     * may be lost, or the trace began inside it) */
    if (s->irq_ctx == '.')
        c->real_depth = 0;
    /* leave a synthetic window when the cpu is back in task context, at a
     * real interrupt's own events, or on another thread */
    if (c->synth_open && (!in_irq || real_edge || s->tid != c->synth_tid)) {
        synth_irq(d, s, c->synth_tid, false, c->synth_ctx);
        c->synth_open = false;
    }
    if (in_irq && !real_edge && c->real_depth == 0) {
        if (!c->synth_open) {
            synth_irq(d, s, s->tid, true, s->irq_ctx);
            c->synth_ctx = s->irq_ctx;
        }
        c->synth_open = true;
        c->synth_tid = s->tid;
    }
    uint32_t bit = c->real_depth < 32 ? 1u << c->real_depth : 0;
    if (kind == EV_SOFTIRQ_ENTRY) {
        const thread *t = get_thread(d, s->tid);
        bool own = c->real_depth == 0 && s->tid != 0 && t->in_syscall &&
                   !thread_is_kernel(t) && !c->last_hard && c->last_tid == s->tid &&
                   net_softirq(s);
        c->own_mask = own ? c->own_mask | bit : c->own_mask & ~bit;
        d->n_own_softirq += own;
    }
    if (kind == EV_IRQ_ENTRY || kind == EV_SOFTIRQ_ENTRY)
        c->real_depth++;
    /* the innermost window open now (an exit's is the one it closes) */
    if (c->real_depth > 0 && c->real_depth <= 32) {
        bool own = c->own_mask >> (c->real_depth - 1) & 1;
        d->line_own_irq = own && (kind == EV_SOFTIRQ_ENTRY || kind == EV_SOFTIRQ_EXIT);
        d->line_ctx = own && !hard_flag ? CTX_OWN_SOFTIRQ : CTX_IRQ;
    } else if (c->real_depth > 32) {
        d->line_ctx = CTX_IRQ;
    }
    if ((kind == EV_IRQ_EXIT || kind == EV_SOFTIRQ_EXIT) && c->real_depth > 0)
        c->real_depth--;
    c->last_tid = s->tid;
    c->last_hard = hard_flag || kind == EV_IRQ_ENTRY || kind == EV_IRQ_EXIT;
}

static void map_line(argus_ft *d, line_slot *s)
{
    thread *cur = get_thread(d, s->tid);
    /* the head's name comes from the kernel's cache of names (it may be
     * stale: Android shows one thread under two names); the names events
     * carry (prev_comm, comm=, newcomm) win */
    if (!cur->comm[0])
        set_comm(cur, s->text + s->comm_off, s->comm_len);
    set_tgid(cur, s->tgid);
    const char *p = s->text + s->body_off, *end = s->text + s->len;
    const char *q = p;
    while (q < end && is_ident(*q))
        q++;
    span name = {p, (size_t)(q - p)};
    bool named = q < end && *q == ':' && name.n;
    ev_kind kind = named ? event_kind(d, name.p, name.n) : EV_OTHER;
    if (cur->waiting) /* its own event before a switch-in */
        write_woken(d, s, cur, true, NULL, line_says_timed_out(s, name, q));
    /* a uprobe's line ("NAME: (0x7f..) ..."): it ran in the thread's own
     * context, whatever its flags say (6.18 prints "DBZff" there) */
    if (named && end - q >= 5 && memcmp(q, ": (0x", 5) == 0)
        s->irq_ctx = s->irq_ctx ? '.' : 0;
    track_irq_ctx(d, s, kind);
    d->event_name = (span){0};
    if (named) {
        d->event_name = name;
        const char *b = q + 1;
        while (b < end && *b == ' ')
            b++;
        span body = {b, (size_t)(end - b)};
        if (name.n > 10 && memcmp(name.p, "sys_enter_", 10) == 0) {
            uint64_t args[6];
            size_t nargs = parse_args(body, args);
            write_syscall(d, s, cur, (span){name.p + 10, name.n - 10}, true, args,
                          nargs, false, 0);
            return;
        }
        if (name.n > 9 && memcmp(name.p, "sys_exit_", 9) == 0) {
            uint64_t ret = 0;
            /* "0x5", or "__syscall_nr=0 ret=0x5" (trace-cmd report -R) */
            bool have = span_hex(body, &ret) || field_hex(body, "ret", &ret);
            write_syscall(d, s, cur, (span){name.p + 9, name.n - 9}, false, NULL, 0,
                          have, ret);
            return;
        }
        switch (kind) {
        case EV_SWITCH: return map_switch(d, s, cur, body);
        case EV_WAKING:
        case EV_WAKEUP:
        case EV_WAKEUP_NEW: return map_wakeup(d, s, cur, body, kind);
        case EV_IRQ_ENTRY:
        case EV_IRQ_EXIT: return map_interrupt(d, s, cur, body, kind == EV_IRQ_ENTRY, false);
        case EV_SOFTIRQ_ENTRY:
        case EV_SOFTIRQ_EXIT:
            return map_interrupt(d, s, cur, body, kind == EV_SOFTIRQ_ENTRY, true);
        case EV_WQ_QUEUE:
        case EV_WQ_START:
        case EV_WQ_END: return map_work(d, s, cur, body, kind);
        case EV_HRTIMER_START: case EV_HRTIMER_ENTRY: case EV_HRTIMER_EXIT:
        case EV_HRTIMER_CANCEL: case EV_TIMER_START: case EV_TIMER_ENTRY:
        case EV_TIMER_EXIT: case EV_TIMER_CANCEL: return map_timer(d, s, cur, body, kind);
        case EV_FORK: case EV_EXEC: case EV_EXIT: case EV_NEWTASK:
        case EV_RENAME: return map_task(d, s, cur, body, kind);
        case EV_RAW_SYS_ENTER:
        case EV_RAW_SYS_EXIT: return map_raw_syscall(d, s, cur, body, kind == EV_RAW_SYS_ENTER);
        case EV_FLAG_WRITE:
        case EV_FLAG_READ: return map_flag(d, s, cur, body, kind == EV_FLAG_WRITE);
        case EV_LOOP_DISPATCH:
        case EV_LOOP_DISPATCH_RET:
            return map_loop_dispatch(d, s, cur, body, kind == EV_LOOP_DISPATCH);
        case EV_LOOP_POLL:
        case EV_LOOP_POLL_RET: return map_loop_poll(d, s, cur, body, kind == EV_LOOP_POLL);
        case EV_GTK_EVENT: return map_input(d, s, cur, body, gtk_kinds, "keyval");
        case EV_QT_INPUT: return map_input(d, s, cur, body, qt_kinds, "keysym");
        case EV_TK_INPUT: return map_input(d, s, cur, body, x_kinds, NULL);
        case EV_GDBUS_SET_SERIAL:
        case EV_LIBDBUS_SET_SERIAL:
            return map_dbus_set_serial(d, s, cur, body, kind == EV_LIBDBUS_SET_SERIAL);
        case EV_DBUS_SET_REPLY_SERIAL: return map_dbus_set_reply_serial(d, s, cur, body);
        case EV_DBUS_FROM_BLOB: return map_dbus_recv(d, s, cur, body, false);
        case EV_DBUS_GET_REPLY_SERIAL: return map_dbus_recv(d, s, cur, body, true);
        case EV_DBUS_SET_SENDER: return map_dbus_set_sender(d, s, cur, body);
        case EV_DBUS_SEND_PREALLOC: return map_dbus_send_prealloc(d, s, cur, body);
        case EV_BINDER_TXN:
        case EV_BINDER_RECV: return map_binder(d, s, cur, body, kind == EV_BINDER_TXN);
        case EV_MARK: return map_mark(d, s, cur, body);
        case EV_OTHER: break;
        }
        return write_raw(d, s, cur);
    }
    /* "sys_foo(a: 1, b: 2)" and "sys_foo -> 0x0" (the syscall tracer of
     * older kernels) */
    if (name.n > 4 && memcmp(name.p, "sys_", 4) == 0 && q < end) {
        if (*q == '(') {
            const char *close = memrchr(q, ')', (size_t)(end - q));
            uint64_t args[6];
            size_t nargs = parse_args((span){q + 1, (size_t)((close ? close : end) - q - 1)},
                                      args);
            write_syscall(d, s, cur, (span){name.p + 4, name.n - 4}, true, args, nargs,
                          false, 0);
            return;
        }
        if (end - q >= 4 && memcmp(q, " -> ", 4) == 0) {
            uint64_t ret = 0;
            bool have = span_hex((span){q + 4, (size_t)(end - q - 4)}, &ret);
            write_syscall(d, s, cur, (span){name.p + 4, name.n - 4}, false, NULL, 0,
                          have, ret);
            return;
        }
    }
    write_raw(d, s, cur);
}

/* ---- The first pass: threads asleep when the trace began ---------------- */

/* A ring buffer in overwrite mode starts in the middle of the story: a
 * thread asleep all along shows up first as the target of a wakeup, with
 * no switch away from it before. A first pass over the text finds them,
 * so that each gets a `wait` at the trace's first instant (written before
 * the first event, in ts order) and its wakeup ends a wait like any
 * other. A thread first seen switched in was runnable, not asleep. */
static struct prescan *prescan_thread(argus_ft *d, uint64_t tid)
{
    bool created;
    struct prescan *p = argus_table_put(&d->prescan, tid, &created);
    if (created)
        p->tgid = -1;
    return p;
}

void argus_ft_prescan_line(argus_ft *d, const char *p, size_t n)
{
    while (n && (*p == ' ' || *p == '\t'))
        p++, n--;
    if (n == 0 || *p == '#' || n > LINE_MAX_BYTES)
        return;
    line_slot s = {.text = (char *)p, .len = (uint32_t)n};
    if (!parse_head_how(&s, true))
        return;
    const char *b = p + s.body_off, *end = p + n, *q = b;
    while (q < end && is_ident(*q))
        q++;
    span name = {b, (size_t)(q - b)};
    if (s.tid != 0 && d->prescan_done[s.tid & 255] != s.tid + 1) { /* the idle task never waits */
        struct prescan *own = prescan_thread(d, s.tid);
        if (own->asleep && !own->own_line) { /* its first line after the wakeup */
            if (name.n > 9 && memcmp(name.p, "sys_exit_", 9) == 0)
                argus_utf8_copy(own->sys, sizeof own->sys, name.p + 9, name.n - 9);
            else if (name.n > 4 && memcmp(name.p, "sys_", 4) == 0 && end - q >= 4 &&
                     memcmp(q, " -> ", 4) == 0)
                argus_utf8_copy(own->sys, sizeof own->sys, name.p + 4, name.n - 4);
            own->own_line = true;
        }
        own->seen = true;
        if (s.tgid >= 0)
            own->tgid = s.tgid;
        if (own->tgid >= 0 && (!own->asleep || own->own_line))
            d->prescan_done[s.tid & 255] = s.tid + 1;
    }
    /* the D-Bus daemons, so that their socket pairs give way to the D-Bus
     * ones from the first line on (map_wakeup) */
    if (q < end && *q == ':' && name.n > 9 && memcmp(name.p, "argus_db_s", 10) == 0) {
        ev_kind k = event_kind(d, name.p, name.n);
        if (k == EV_DBUS_SET_SENDER || k == EV_DBUS_SEND_PREALLOC)
            dbus_add_daemon(d, s.tgid >= 0 ? (uint64_t)s.tgid : s.tid);
        return;
    }
    if (q == end || *q != ':' || name.n < 12 || memcmp(name.p, "sched_", 6) != 0)
        return;
    ev_kind kind = event_kind(d, name.p, name.n);
    if (kind != EV_WAKING && kind != EV_WAKEUP && kind != EV_WAKEUP_NEW && kind != EV_SWITCH)
        return;
    span body = {q + 1, (size_t)(end - q - 1)}, comm = {0}, after, st;
    uint64_t target = 0, prev;
    bool have = kind == EV_SWITCH
                    ? field_dec(body, "next_pid", &target) ||
                          plugin_switch(body, &comm, &prev, &st, &comm, &target)
                    : field_dec(body, "pid", &target) || plugin_task(body, &comm, &target, &after);
    if (!have || target == 0 || target > ARGUS_PID_MAX)
        return;     /* no pid (DEC-RANGE: the line is refused when it is read) */
    struct prescan *t = prescan_thread(d, target);
    if (!t->seen) { /* a new task's first wakeup is no sleep */
        t->asleep = kind == EV_WAKING || kind == EV_WAKEUP;
        if (t->asleep && (comm.n || field(body, "comm", &comm)))
            argus_utf8_copy(t->comm, sizeof t->comm, comm.p, comm.n);
    }
    t->seen = true;
}

/* The waits of the threads asleep when the trace began, at its first
 * instant S, by tid. */
static int by_tid(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void write_start_waits(argus_ft *d, const line_slot *s)
{
    d->start_waits_written = true;
    size_t pos = 0, n = 0;
    uint64_t tid, *tids = malloc((d->prescan.count + 1) * sizeof *tids);
    void *v;
    if (!tids)
        abort();
    while (argus_table_next(&d->prescan, &pos, &tid, &v))
        if (((struct prescan *)v)->asleep)
            tids[n++] = tid;
    qsort(tids, n, sizeof *tids, by_tid);
    for (size_t i = 0; i < n; i++) {
        struct prescan *p = argus_table_get(&d->prescan, tids[i]);
        thread *t = get_thread(d, tids[i]);
        if (t->tgid < 0 && p->tgid >= 0)
            set_tgid(t, p->tgid);
        if (!t->comm[0])
            set_comm(t, p->comm, strlen(p->comm));
        BEGIN(d, s, t, "wait", 2);
        argus_put_key(d->w, "reason");
        argus_put_cstr(d->w, p->sys[0] ? p->sys : "sleeping");
        PUT_LIT(d->w, "synth");
        argus_put_bool(d->w, true);
        argus_end_record(d->w);
        t->waiting = true;
        d->n_start_waits++;
    }
    free(tids);
}

/* The first pass over a regular file, through an input of its own (the
 * decoder's input keeps its place and buffer; a compressed file is
 * decompressed twice); none over a pipe. A line longer than the buffer
 * is no head: skipped. */
static void prescan_file(argus_ft *d, const argus_input *in)
{
    argus_input again;
    if (!argus_input_reopen(in, &again, LINE_MAX_BYTES + 1))
        return;
    bool skipping = false; /* the rest of a line longer than the buffer */
    for (;;) {
        char *start = (char *)again.buf + again.lo;
        char *nl = memchr(start, '\n', again.hi - again.lo);
        if (!nl && !again.eof) {
            if (!argus_input_fill(&again)) {
                skipping = true;
                again.lo = again.hi;
            }
            continue;
        }
        if (!nl && again.hi == again.lo)
            break;
        size_t len = nl ? (size_t)(nl - start) : again.hi - again.lo;
        if (!skipping)
            argus_ft_prescan_line(d, start, len);
        skipping = false;
        again.lo += len + (nl ? 1 : 0);
    }
    argus_input_close(&again);
}

/* ---- The window ------------------------------------------------------- */

static void take_oldest(argus_ft *d)
{
    line_slot *s = argus_reorder_oldest(&d->window);
    if (!d->header_written)
        write_header(d, s);
    if (!d->have_zero) {
        d->have_zero = s->kind == HEAD_EVENT; /* not a headless line's 0 */
        d->zero = s->ts;
    }
    d->last_ts = s->ts;
    d->have_last = true;
    if (!d->start_waits_written && d->have_zero)
        write_start_waits(d, s);
    if (s->kind == HEAD_EVENT) {
        if (s->cpu < CPU_CTX_MAX) {
            struct cpu_ctx *c = cpu_ctx(d, s->cpu);
            if (!c->seen) {
                c->seen = true;
                c->first_ts = s->ts;
            }
        }
        map_line(d, s);
    } else {
        /* no head: an `ftrace` event of the idle/kernel thread 0 */
        d->event_name = (span){0};
        write_raw(d, s, get_thread(d, 0));
    }
    argus_reorder_pop(&d->window);
}

/* A "CPU:N [LOST M EVENTS]" line: a warning, counted (no event). */
static bool lost_line(argus_ft *d, const char *p, size_t n)
{
    const char *lost;
    if (n < 8 || memcmp(p, "CPU:", 4) != 0 || !(lost = memmem(p, n, "[LOST ", 6)))
        return false;
    d->n_lost++;
    const char *q = p + 4, *end = p + n;
    uint64_t cpu = read_dec(&q, end);
    q = lost + 6;
    uint64_t m = read_dec(&q, end);
    if (cpu < CPU_CTX_MAX) {
        struct cpu_ctx *c = cpu_ctx(d, (uint32_t)cpu);
        c->dropped += m;
        c->drop_lines++;
        if (d->n_heads) {
            if (!c->drop_timed)
                c->dropped_from = d->last_pushed_ts;
            c->dropped_to = d->last_pushed_ts;
            c->drop_timed = true;
        }
    }
    if (!d->o.quiet)
        fprintf(stderr, "%s: %s:%llu: warning: %.*s\n", argus_prog(),
                d->o.name ? d->o.name : "<input>", (unsigned long long)d->line_no,
                (int)(n > 200 ? 200 : n), p);
    return true;
}

/* Systrace HTML: only the text of <script class="trace-data"> blocks that
 * hold ftrace text is read. Returns true when the line is to be skipped. */
static bool html_skip(argus_ft *d, const char *p, size_t n)
{
    if (!d->in_script) {
        if (memmem(p, n, "<script class=\"trace-data\"", 26)) {
            d->in_script = true;
            d->script_checked = false;
        }
        d->n_skipped_html++;
        return true;
    }
    if (memmem(p, n, "</script>", 9)) {
        d->in_script = false;
        d->n_skipped_html++;
        return true;
    }
    if (!d->script_checked) {
        size_t i = 0;
        while (i < n && (p[i] == ' ' || p[i] == '\t'))
            i++;
        if (i == n)
            return true;
        d->script_checked = true;
        /* a block of JSON (or anything but ftrace text) is skipped whole */
        if (p[i] == '{' || p[i] == '[') {
            d->in_script = false;
            d->n_skipped_html++;
            return true;
        }
    }
    return false;
}

/* After this many lines none of which has an ftrace head, the input is
 * taken for something else (perf script output, a log) and refused. */
#define NOT_FTRACE_LINES 1000

/* Whether a line is shaped as perf script prints a tracepoint sample:
 * "COMM TID [CPU] SECONDS: SYSTEM:EVENT: ..." (TID may be PID/TID). */
bool argus_ft_perf_script_line(const char *p, size_t n)
{
    const char *end = p + n, *open = memchr(p, '[', n);
    if (!open || open - p < 2 || open[-1] != ' ')
        return false;
    const char *q = open - 1; /* the TID before it, after a space */
    while (q > p && *q == ' ')
        q--;
    const char *digits_end = q + 1;
    while (q > p && ((*q >= '0' && *q <= '9') || *q == '/' || *q == '-'))
        q--;
    if (q + 1 == digits_end || *q != ' ')
        return false;
    const char *c = open + 1;
    while (c < end && *c >= '0' && *c <= '9')
        c++;
    if (c == open + 1 || c + 1 >= end || c[0] != ']' || c[1] != ' ')
        return false;
    c += 2;
    while (c < end && *c == ' ')
        c++;
    const char *ts = c;
    while (c < end && ((*c >= '0' && *c <= '9') || *c == '.'))
        c++;
    if (c == ts || c >= end || *c != ':')
        return false;
    c++;
    while (c < end && *c == ' ')
        c++;
    /* "system:event:" with no space in it */
    const char *colon = NULL;
    for (const char *e = c; e < end && *e != ' '; e++)
        if (*e == ':') {
            if (colon)
                return e > colon + 1;
            colon = e;
        }
    return false;
}

static const char perf_script_hint[] =
    "; it is perf script text, which argus does not read (its default fields drop the "
    "process ids and nanoseconds): give argus the perf.data it printed instead "
    "(argus diagnose perf.data; docs/inputs/perf.md)";

static int not_ftrace(argus_ft *d, bool all)
{
    if (!d->n_content && d->html)       /* an HTML page, not systrace's */
        return fail(d, "%s: an HTML page, not a trace argus reads (" ARGUS_DECODE_READS
                       "); record a trace while the program hangs: sudo argus record -o "
                       "trace.txt -- PROGRAM", d->o.name);
    if (!d->n_content)
        return fail(d, "%s: no events: %llu comment and header lines, no trace line "
                       "(an empty trace)",
                    d->o.name, (unsigned long long)d->n_comments);
    bool perf = d->n_perf_script * 2 > d->n_headless;
    if (d->n_heads)
        return fail(d, "%s: not ftrace text: %llu of its %s%llu lines have no head "
                       "'TASK-PID [CPU] TIMESTAMP: EVENT:' and %llu have one (the first "
                       "line: '%s')%s",
                    d->o.name, (unsigned long long)d->n_headless, all ? "" : "first ",
                    (unsigned long long)d->n_content, (unsigned long long)d->n_heads,
                    d->first_content, perf ? perf_script_hint : "");
    return fail(d, "%s: not ftrace text: none of its %s%llu lines has the head "
                   "'TASK-PID [CPU] TIMESTAMP: EVENT:' (the first: '%s')%s",
                d->o.name, all ? "" : "first ", (unsigned long long)d->n_content,
                d->first_content, perf ? perf_script_hint : "; perf script output is not read");
}

/* Whether a line without a head is one of a stack trace (the stacktrace
 * option's "<stack trace>" and " => func" lines), which ftrace text holds. */
/* DEC-RANGE: a pid field ("pid=", "prev_pid=", "child_pid=", ...) of a
 * scheduler or task event in BODY that is not a pid (negative, or above
 * the kernel's PID_MAX_LIMIT); its key and value are copied to WHAT.
 * Other events' fields are their own (a probe's argument named pid may
 * be anything). */
static bool bad_pid_field(span body, char *what, size_t what_size)
{
    if (!(body.n > 6 && memcmp(body.p, "sched_", 6) == 0) &&
        !(body.n > 5 && memcmp(body.p, "task_", 5) == 0))
        return false;
    const char *p = body.p, *end = body.p + body.n;
    while ((p = memmem(p, (size_t)(end - p), "pid=", 4)) != NULL) {
        const char *key = p;
        while (key > body.p && key[-1] != ' ' && key[-1] != ':')
            key--;
        const char *v = p + 4;
        p = v;
        bool negative = v < end && *v == '-';
        const char *digits = v + negative;
        uint64_t x = 0;
        const char *q = digits;
        while (q < end && is_digit(*q))
            x = dec_digit_saturating(x, *q++);
        if (q == digits || (!negative && x <= ARGUS_PID_MAX))
            continue;
        snprintf(what, what_size, "%.*s", (int)(q - key > 64 ? 64 : q - key), key);
        return true;
    }
    return false;
}

/* "# entries-in-buffer/entries-written: KEPT/WRITTEN   #P:N" (DEC-LOSS):
 * more written than kept, the ring overwrote the difference. */
static void entries_line(argus_ft *d, const char *p, size_t n)
{
    const char *q = p, *end = p + n;
    uint64_t kept = read_dec(&q, end);
    if (q == end || *q++ != '/')
        return;
    d->entries_kept = kept;
    d->entries_written = read_dec(&q, end);
}

/* "##### CPU N buffer started ####": CPU N's older events were
 * overwritten (DEC-LOSS). */
static void buffer_started_line(argus_ft *d, const char *p, size_t n)
{
    const char *cpu = memmem(p, n, "CPU ", 4);
    if (!cpu || !memmem(p, n, "buffer started", 14))
        return;
    const char *q = cpu + 4, *end = p + n;
    uint64_t x = read_dec(&q, end);
    if (q > cpu + 4 && x < CPU_CTX_MAX)
        cpu_ctx(d, (uint32_t)x)->started_mark = true;
}

static bool stack_line(const char *p, size_t n)
{
    return (n >= 2 && memcmp(p, "=>", 2) == 0) || (n >= 7 && memcmp(p, "<stack", 6) == 0) ||
           (n >= 12 && memcmp(p, "<user stack", 11) == 0);
}

/* Whether most lines are not ftrace (see n_headless). */
static bool mostly_not_ftrace(const argus_ft *d)
{
    return d->o.need_ftrace && d->n_headless > d->n_heads;
}

int argus_ft_line(argus_ft *d, const char *p, size_t n)
{
    d->line_no++;
    d->n_lines++;
    if (n && p[n - 1] == '\r')
        n--;
    if (d->line_no == 1) {
        size_t i = 0;
        while (i < n && (p[i] == ' ' || p[i] == '\t'))
            i++;
        if (n - i >= 5 && (memcmp(p + i, "<!DOC", 5) == 0 || memcmp(p + i, "<html", 5) == 0))
            d->html = true;
    }
    if (d->html && html_skip(d, p, n))
        return 0;
    size_t i = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\t'))
        i++;
    if (i == n)
        return 0;
    if (p[i] == '#') {
        d->n_comments++;
        static const char tag[] = "# argus-thread:";
        static const char clock[] = "# argus-clock:";
        static const char command[] = "# argus-command: pid=";
        static const char focus[] = "# argus-focus: pid=";
        static const char recorder[] = "# recorded by argus-record ";
        static const char entries[] = "# entries-in-buffer/entries-written: ";
        static const char end_mark[] = "# argus-end: ";
        if (n - i > sizeof tag - 1 && memcmp(p + i, tag, sizeof tag - 1) == 0) {
            span body = {p + i + sizeof tag - 1, n - i - (sizeof tag - 1)};
            static const char *const keys[] = {"tid", "tgid", "ppid"};
            for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
                span v;
                uint64_t x = 0;
                size_t at = 0, digits = 0;
                if (!field(body, keys[k], &v))
                    continue;
                at = v.n && v.p[0] == '-';
                while (at + digits < v.n && is_digit(v.p[at + digits]))
                    x = dec_digit_saturating(x, v.p[at + digits++]);
                if (digits && (at || x > ARGUS_PID_MAX))
                    return fail(d, "%s:%llu: %s=%.*s is out of the kernel's range (0 to %u)",
                                d->o.name, (unsigned long long)d->line_no, keys[k],
                                (int)(v.n > 40 ? 40 : v.n), v.p, ARGUS_PID_MAX);
            }
            map_thread_line(d, body.p, body.n);
        }
        else if (n - i > sizeof clock - 1 && memcmp(p + i, clock, sizeof clock - 1) == 0)
            map_clock_line(d, p + i + sizeof clock - 1, n - i - (sizeof clock - 1));
        else if (n - i > sizeof command - 1 && memcmp(p + i, command, sizeof command - 1) == 0)
            d->launched = parse_pid_field(p + i + sizeof command - 1,
                                          n - i - (sizeof command - 1));
        else if (n - i > sizeof focus - 1 && memcmp(p + i, focus, sizeof focus - 1) == 0)
            add_focus(d, parse_pid_field(p + i + sizeof focus - 1, n - i - (sizeof focus - 1)));
        else if (n - i > sizeof recorder - 1 && memcmp(p + i, recorder, sizeof recorder - 1) == 0)
            d->recorder_pid = recorder_pid(p + i, n - i);
        else if (n - i > sizeof entries - 1 && memcmp(p + i, entries, sizeof entries - 1) == 0)
            entries_line(d, p + i + sizeof entries - 1, n - i - (sizeof entries - 1));
        else if (n - i >= 5 && memcmp(p + i, "#####", 5) == 0)
            buffer_started_line(d, p + i, n - i);
        else if (n - i > sizeof end_mark - 1 && memcmp(p + i, end_mark, sizeof end_mark - 1) == 0) {
            if (n - i - (sizeof end_mark - 1) == 8 &&
                memcmp(p + i + sizeof end_mark - 1, "expected", 8) == 0)
                d->end_expected = true;
            else
                d->end_seen = true;
        }
        return 0;
    }
    /* trace-cmd report and atrace preambles, overwrite-mode markers */
    if ((n - i >= 10 && memcmp(p + i, "version = ", 10) == 0) ||
        (n - i >= 5 && memcmp(p + i, "cpus=", 5) == 0) ||
        (n - i == 6 && memcmp(p + i, "TRACE:", 6) == 0) ||
        (n - i >= 18 && memcmp(p + i, "capturing trace...", 18) == 0) ||
        (n - i >= 5 && memcmp(p + i, "CPU ", 4) == 0 && memmem(p + i, n - i, " is empty", 9)) ||
        (n - i >= 5 && memcmp(p + i, "#####", 5) == 0)) {
        d->n_comments++;
        return 0;
    }
    if (lost_line(d, p + i, n - i))
        return 0;
    if (n > LINE_MAX_BYTES)
        return fail(d, "%s:%llu: a line of %zu bytes (at most %u)", d->o.name,
                    (unsigned long long)d->line_no, n, LINE_MAX_BYTES);
    line_slot *s = argus_reorder_tail(&d->window);
    if (s->cap < n) {
        free(s->text);
        s->cap = (uint32_t)(n < 256 ? 256 : n);
        s->text = malloc(s->cap);
        if (!s->text)
            abort();
    }
    memcpy(s->text, p + i, n - i);
    s->len = (uint32_t)(n - i);
    s->line = d->line_no;
    if (!d->n_content++)
        snprintf(d->first_content, sizeof d->first_content, "%.*s",
                 (int)(n - i < 60 ? n - i : 60), p + i);
    if (parse_head(s)) {
        d->n_heads++;
        s->kind = HEAD_EVENT;
        /* DEC-RANGE: refused rather than bent (clamped, wrapped, merged) */
        if (s->negative_ts)
            return fail(d, "%s:%llu: a negative timestamp", d->o.name,
                        (unsigned long long)s->line);
        if (s->tid > ARGUS_PID_MAX)
            return fail(d, "%s:%llu: tid %.*s is out of the kernel's range (at most %u)",
                        d->o.name, (unsigned long long)s->line, (int)s->tid_len,
                        s->text + s->tid_off, ARGUS_PID_MAX);
        if (s->tgid > (int64_t)ARGUS_PID_MAX)
            return fail(d, "%s:%llu: tgid %.*s is out of the kernel's range (at most %u)",
                        d->o.name, (unsigned long long)s->line, (int)s->tgid_len,
                        s->text + s->tgid_off, ARGUS_PID_MAX);
        char what[80];
        if (bad_pid_field((span){s->text + s->body_off, s->len - s->body_off}, what,
                          sizeof what))
            return fail(d, "%s:%llu: %s is out of the kernel's range (0 to %u)", d->o.name,
                        (unsigned long long)s->line, what, ARGUS_PID_MAX);
        /* before the trace's start (its first line written) is before
         * the last line written too: one message for both */
        if (d->have_last && s->ts < d->last_ts)
            return fail(d,
                        "%s:%llu: ts %llu.%09llu is before %llu.%09llu already written "
                        "(beyond the reorder window of %zu lines; try a larger --window)",
                        d->o.name, (unsigned long long)s->line,
                        (unsigned long long)(s->ts / 1000000000u),
                        (unsigned long long)(s->ts % 1000000000u),
                        (unsigned long long)(d->last_ts / 1000000000u),
                        (unsigned long long)(d->last_ts % 1000000000u), d->o.window);
        d->last_pushed_ts = s->ts;
    } else {
        if (!stack_line(p + i, n - i)) {
            d->n_headless++;
            if (argus_ft_perf_script_line(p + i, n - i))
                d->n_perf_script++;
        }
        if (d->n_content == NOT_FTRACE_LINES && mostly_not_ftrace(d))
            return not_ftrace(d, false);
        /* a line without a head stays where it is, at the time before it */
        s->kind = HEAD_NONE;
        s->tid = 0;
        s->tgid = -1;
        s->cpu = 0;
        s->ts = d->last_pushed_ts > d->last_ts || !d->have_last ? d->last_pushed_ts
                                                                : d->last_ts;
    }
    if (argus_reorder_commit(&d->window))
        take_oldest(d);
    return 0;
}

void argus_ft_drain(argus_ft *d)
{
    while (d->window.count)
        take_oldest(d);
}

/* DEC-LOSS: one `loss` record of KIND with NPAIRS more pairs to come. */
static void begin_loss(argus_ft *d, const char *kind, unsigned npairs)
{
    argus_put_map(d->w, 2 + npairs);
    argus_put_key(d->w, "type");
    argus_put_cstr(d->w, "loss");
    argus_put_key(d->w, "kind");
    argus_put_cstr(d->w, kind);
}

/* DEC-LOSS: what the trace lost, as `loss` records after its last event
 * (only then are all known): events the ring overwrote (the header's
 * counts) and the time each CPU's kept events start, events dropped
 * ("[LOST N EVENTS]"), a last line cut short, an end mark promised and
 * missing. Their times are the stream's (ts: from the trace's zero). */
static void write_losses(argus_ft *d)
{
    bool overwritten = d->entries_written > d->entries_kept;
    if (overwritten) {
        begin_loss(d, "overwritten", 2);
        put_uint_kv(d, "events", d->entries_written - d->entries_kept);
        put_uint_kv(d, "written", d->entries_written);
        argus_end_record(d->w);
    }
    for (uint32_t cpu = 0; cpu < d->ncpus; cpu++) {
        const struct cpu_ctx *c = &d->cpus[cpu];
        if (c->seen && (overwritten || c->started_mark)) {
            begin_loss(d, "cpu_start", 2);
            put_uint_kv(d, "cpu", cpu);
            put_uint_kv(d, "since", c->first_ts > d->zero ? c->first_ts - d->zero : 0);
            argus_end_record(d->w);
        }
        if (c->drop_lines) {
            begin_loss(d, "dropped", 2 + 2 * c->drop_timed);
            put_uint_kv(d, "cpu", cpu);
            put_uint_kv(d, "events", c->dropped);
            if (c->drop_timed) {
                put_uint_kv(d, "from", c->dropped_from > d->zero ? c->dropped_from - d->zero : 0);
                put_uint_kv(d, "to", c->dropped_to > d->zero ? c->dropped_to - d->zero : 0);
            }
            argus_end_record(d->w);
        }
    }
    if (d->cut_line) {
        begin_loss(d, "cut", 1);
        put_uint_kv(d, "line", d->cut_line);
        argus_end_record(d->w);
    }
    if (d->end_expected && !d->end_seen) {
        begin_loss(d, "no_end", 0);
        argus_end_record(d->w);
    }
}

int argus_ft_finish(argus_ft *d)
{
    if (mostly_not_ftrace(d) || (d->o.need_ftrace && !d->n_heads))
        return not_ftrace(d, true);
    argus_ft_drain(d);
    if (!d->header_written)
        write_header(d, &(line_slot){.kind = HEAD_NONE});
    /* synthetic interrupt windows still open end with the trace */
    for (uint32_t cpu = 0; cpu < d->ncpus; cpu++)
        if (d->cpus[cpu].synth_open) {
            line_slot end = {.ts = d->last_ts, .cpu = cpu};
            synth_irq(d, &end, d->cpus[cpu].synth_tid, false, d->cpus[cpu].synth_ctx);
            d->cpus[cpu].synth_open = false;
        }
    write_losses(d);
    return 0;
}

/* Whether the first 512 bytes of line P (N bytes) begin with a head. */
static bool head_parses(const char *p, size_t n)
{
    line_slot s = {0};
    char tmp[512];
    s.len = (uint32_t)(n < sizeof tmp ? n : sizeof tmp);
    memcpy(tmp, p, s.len);
    s.text = tmp;
    return parse_head(&s);
}

/* Whether a last line with no newline was cut short (a recording killed
 * or out of disk mid-write): tracefs ends every line; a comment, or a
 * line whose head parses and whose event has its colon and a body, may
 * just lack the newline of a hand-written file. */
static bool cut_short(const char *p, size_t n)
{
    while (n && (*p == ' ' || *p == '\t'))
        p++, n--;
    if (!n || *p == '#')
        return false;
    if (!head_parses(p, n))
        return true;
    /* a system call's arguments open and never close */
    const char *open = NULL;
    for (size_t i = 0; i < n; i++)
        if (p[i] == '(')
            open = p + i;
        else if (p[i] == ')')
            open = NULL;
    return open != NULL;
}

int argus_ft_read(argus_ft *d, argus_input *in)
{
    prescan_file(d, in);
    for (;;) {
        char *start = (char *)in->buf + in->lo;
        char *nl = memchr(start, '\n', in->hi - in->lo);
        if (!nl && !in->eof) {
            if (!argus_input_fill(in))
                return fail(d, "%s:%llu: a line longer than %zu bytes", d->o.name,
                            (unsigned long long)d->line_no + 1, in->max);
            continue;
        }
        if (!nl && in->hi == in->lo)
            break;
        size_t len = nl ? (size_t)(nl - start) : in->hi - in->lo;
        if (!nl && cut_short(start, len)) {
            d->cut_line = d->line_no + 1;       /* DEC-LOSS: not read */
            d->line_no++;
            break;
        }
        if (argus_ft_line(d, start, len) < 0)
            return -1;
        in->lo += len + (nl ? 1 : 0);
    }
    return argus_ft_finish(d);
}

/* ---- Sniffing and counters ---------------------------------------------- */

bool argus_ft_sniff(const uint8_t *buf, size_t len)
{
    const char *p = (const char *)buf, *end = p + len;
    for (int lines = 0; p < end && lines < 16; lines++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        while (p < e && (*p == ' ' || *p == '\t'))
            p++;
        size_t n = (size_t)(e - p);
        if (n >= 9 && memcmp(p, "# tracer:", 9) == 0)
            return true;
        if (n >= 15 && memcmp(p, "# argus-thread:", 15) == 0)
            return true;
        if (n >= 5 && (memcmp(p, "<!DOC", 5) == 0 || memcmp(p, "<html", 5) == 0))
            return memmem(buf, len, "trace-data", 10) != NULL || lines == 0;
        if ((n >= 10 && memcmp(p, "version = ", 10) == 0) || (n == 6 && memcmp(p, "TRACE:", 6) == 0) ||
            (n >= 5 && memcmp(p, "cpus=", 5) == 0))
            return true;
        if (n >= 18 && memcmp(p, "capturing trace...", 18) == 0) { /* atrace's first line */
            if (!nl)
                break;
            p = nl + 1;
            continue;
        }
        if (n > 0 && p[0] != '#') {
            if (p[0] == '{')
                return false;
            return head_parses(p, n);
        }
        if (!nl)
            break;
        p = nl + 1;
    }
    return false;
}

void argus_ft_print_counts(const argus_ft *d, void *file)
{
    FILE *f = file;
    fprintf(f, "%s: %llu lines read, %llu events written\n", argus_prog(),
            (unsigned long long)d->n_lines, (unsigned long long)d->n_events);
#define COUNT(v, what) \
    if (v)             \
        fprintf(f, "  %llu %s\n", (unsigned long long)(v), what)
    COUNT(d->n_raw, "lines not understood, kept as ftrace events");
    COUNT(d->n_comments, "comment and header lines");
    COUNT(d->n_skipped_html, "HTML lines around the trace");
    COUNT(d->n_woken, "woken at the switch that ran a waiting thread");
    COUNT(d->n_synth_woken, "woken synthesized (DEC-WOKEN: the thread's own event came first)");
    COUNT(d->n_pair_wakeups, "sched_wakeup lines after their sched_waking (one counts)");
    COUNT(d->n_failed_wakeups, "wakeups with success=0 (the target was running)");
    COUNT(d->n_ipc, "ipc events paired from a send waking a receive");
    COUNT(d->n_start_waits, "threads asleep when the trace began (a first wakeup before any line of theirs): a wait at its start");
    COUNT(d->n_own_softirq, "network softirqs run inside the thread's own system call (in_syscall)");
    COUNT(d->n_timer_wakeups, "wakeups by the expiry of the target's own timer (timed_out)");
    COUNT(d->n_preempted, "preempted events (switched out runnable, back on a CPU 1 ms or more later)");
    COUNT(d->n_fd_named, "fds named by an accept, connect or flock (DEC-FD)");
    COUNT(d->n_fd_forgotten, "fd names forgotten on close, dup2, dup3, close_range, exec or exit (DEC-FD)");
    COUNT(d->n_probe_events, "events of the desktop's libraries (argus-record's uprobes)");
    if (d->dbus) {
        COUNT(d->dbus->n_ipc, "ipc events of D-Bus messages (via dbus)");
        COUNT(d->dbus->n_folded, "D-Bus lines folded into others (reply serials, repeated receipts)");
        COUNT(d->dbus->n_unmatched, "D-Bus hops whose other end the trace lacks, kept as ftrace events");
        COUNT(d->dbus->n_dropped, "D-Bus messages dropped unmatched from a full pending table");
    }
    if (d->android) {
        const argus_android_counts *a = argus_android_counts_of(d->android);
        COUNT(a->binder_sends, "binder transactions sent (ipc sends via binder, DEC-BINDER)");
        COUNT(a->binder_recvs, "binder transactions received (ipc recvs via binder)");
        COUNT(a->binder_unknown_recvs, "binder receipts whose send the trace lacks (or was not kept)");
        COUNT(a->binder_dropped, "binder transactions not kept: 65536 in flight already");
        COUNT(a->loop_messages, "Looper messages: a main thread's outermost atrace slices (DEC-LOOPER)");
        COUNT(a->inputs, "deliverInputEvent slices (ui_event input)");
    }
    COUNT(d->n_synth_irq, "interrupt windows from the flags (interrupt context outside irq events)");
    COUNT(d->n_lost, "lost-events lines");
    if (d->entries_written > d->entries_kept)
        fprintf(f, "  %llu events of %llu written overwritten by the ring (DEC-LOSS)\n",
                (unsigned long long)(d->entries_written - d->entries_kept),
                (unsigned long long)d->entries_written);
    COUNT(d->cut_line, "(line number) the last line, cut short: not read (DEC-LOSS)");
    if (d->end_expected && !d->end_seen)
        fprintf(f, "  no end mark: the recording did not finish (DEC-LOSS)\n");
    COUNT(d->window.moved, "lines moved into ts order by the reorder window");
#undef COUNT
}
