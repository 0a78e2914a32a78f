/* The ftrace decoder's parts (include/argus/decode/ftrace.h is what the
 * rest of argus sees), and the reader's state they share: only
 * lib/decode/ftrace*.c include this.
 *
 *   ftrace.c          the reader: lines in, the first pass, the reorder
 *                     window, the header and argus-record's header lines,
 *                     losses, refusals, sniffing, counters
 *   ftrace-parse.c    a line's text: its head, numbers, key=value fields
 *   ftrace-records.c  threads and the records written (event heads, pairs)
 *   ftrace-kernel.c   each line's mapping (argus_ft_map_line) and the kernel's
 *                     events: scheduler, syscalls, fds, interrupts,
 *                     workqueues, timers, tasks
 *   ftrace-desktop.c  argus-record's uprobes on the desktop's libraries
 *                     (main loops, input)
 *   ftrace-dbus.c     D-Bus messages paired across the bus daemon
 *   ftrace-android.c  binder and atrace marks (lib/decode/android.c pairs them)
 *
 * The functions declared here are the parts' own, named as they were when
 * one file held them all: nothing outside lib/decode/ftrace*.c calls them. */
#ifndef ARGUS_FTRACE_INTERNAL_H
#define ARGUS_FTRACE_INTERNAL_H

#include "argus/decode/android.h"
#include "argus/decode/decoder.h"
#include "argus/decode/ftrace.h"
#include "argus/decode/reorder.h"
#include "argus/stream/table.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define COMM_MAX 64        /* thread names kept (the kernel's are 16) */
#define SYSNAME_MAX 32

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
    uint64_t full_chunks;  /* argus_ft_buffer_full: chunks discarded */
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
    argus_table cmdlines;  /* pid -> char *: its arguments, separated by
                              '\n' ("# argus-cmdline:", DEC-CMDLINE) */
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

enum { CPU_CTX_MAX = 8192 }; /* cpus tracked (a bad head may say 99999999) */

/* ---- Events known by name (ftrace.c's table) ------------------------- */

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

/* ---- D-Bus messages in flight (ftrace-dbus.c) ------------------------ */

#define DBUS_PENDING 1024      /* entries of each table below (oldest dropped) */
#define DBUS_DAEMONS 16

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

/* ---- Small helpers every part uses -------------------------------------- */

static inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
static inline bool is_ident(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_';
}
static inline int hex_value(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static inline bool key_is_n(span k, const char *lit, size_t n)
{
    return k.n == n && memcmp(k.p, lit, n) == 0;
}
#define key_is(k, lit) key_is_n((k), (lit), strlen(lit))

/* The process: the tgid, or the tid itself when no line told it. */
static inline uint64_t pid_of(const thread *t)
{
    return t->tgid >= 0 ? (uint64_t)t->tgid : t->tid;
}

#define PUT_LIT(w, lit) argus_put_text((w), lit, sizeof lit - 1)
#define BEGIN(d, s, t, lit, extra) argus_ft_begin_event(d, s, t, lit, sizeof lit - 1, extra)

/* ---- ftrace.c ----------------------------------------------------------- */

ev_kind argus_ft_event_kind(const argus_ft *d, const char *name, size_t len);

/* ---- ftrace-parse.c ----------------------------------------------------- */

bool argus_ft_span_dec(span s, uint64_t *v);
bool argus_ft_span_hex(span s, uint64_t *v);
bool argus_ft_span_hex_whole(span s, uint64_t *v);
bool argus_ft_next_field(span *rest, span *key, span *val);
bool argus_ft_field(span body, const char *key, span *val);
bool argus_ft_field_dec(span body, const char *key, uint64_t *v);
bool argus_ft_field_hex(span body, const char *key, uint64_t *v);
bool argus_ft_parse_ts(const char **pp, const char *end, uint64_t *ns, bool *counter);
uint64_t argus_ft_dec_digit_saturating(uint64_t v, char c);
uint64_t argus_ft_read_dec(const char **q, const char *end);
bool argus_ft_parse_head_how(line_slot *s, bool who_only);
bool argus_ft_parse_head(line_slot *s);

/* ---- ftrace-records.c --------------------------------------------------- */

thread *argus_ft_find_thread(argus_ft *d, uint64_t tid);
thread *argus_ft_get_thread(argus_ft *d, uint64_t tid);
void argus_ft_set_comm(thread *t, const char *c, size_t n);
void argus_ft_set_tgid(thread *t, int64_t tgid);
bool argus_ft_thread_is_kernel(const thread *t);
void argus_ft_begin_event(argus_ft *d, const line_slot *s, thread *t, const char *type,
                          size_t type_len, unsigned extra);
void argus_ft_put_uint_kv(argus_ft *d, const char *key, uint64_t v);
void argus_ft_put_span_kv(argus_ft *d, const char *key, span v);
void argus_ft_put_phase(argus_ft *d, bool begin);
void argus_ft_write_raw(argus_ft *d, const line_slot *s, thread *t);

/* ---- ftrace-kernel.c ---------------------------------------------------- */

void argus_ft_map_line(argus_ft *d, line_slot *s);
struct cpu_ctx *argus_ft_cpu_ctx(argus_ft *d, uint32_t cpu);
void argus_ft_synth_irq(argus_ft *d, const line_slot *s, uint64_t tid, bool begin, char ctx);
bool argus_ft_plugin_task(span s, span *comm, uint64_t *pid, span *after);
bool argus_ft_plugin_switch(span body, span *prev_comm, uint64_t *prev_pid, span *prev_state,
                            span *next_comm, uint64_t *next_pid);

/* ---- ftrace-desktop.c --------------------------------------------------- */

/* The user's input as a toolkit saw it -> ui_event with the kind macOS
 * gives it (and the key: GTK's keyval, Qt's X keysym); the toolkit's
 * other event types stay ftrace events. */
struct input_kind {
    unsigned type;
    const char *kind;
};
extern const struct input_kind argus_ft_gtk_kinds[], argus_ft_x_kinds[], argus_ft_qt_kinds[];

void argus_ft_map_loop_dispatch(argus_ft *d, const line_slot *s, thread *cur, span body,
                                bool begin);
void argus_ft_map_loop_poll(argus_ft *d, const line_slot *s, thread *cur, span body, bool before);
void argus_ft_map_input(argus_ft *d, const line_slot *s, thread *cur, span body,
                        const struct input_kind *kinds, const char *key_field);

/* ---- ftrace-dbus.c ------------------------------------------------------ */

struct dbus_daemon *argus_ft_dbus_daemon(const argus_ft *d, uint64_t pid);
struct dbus_daemon *argus_ft_dbus_add_daemon(argus_ft *d, uint64_t pid);
void argus_ft_map_dbus_set_serial(argus_ft *d, const line_slot *s, thread *cur, span body,
                                  bool libdbus);
void argus_ft_map_dbus_set_reply_serial(argus_ft *d, const line_slot *s, thread *cur, span body);
void argus_ft_map_dbus_set_sender(argus_ft *d, const line_slot *s, thread *cur, span body);
void argus_ft_map_dbus_send_prealloc(argus_ft *d, const line_slot *s, thread *cur, span body);
void argus_ft_map_dbus_recv(argus_ft *d, const line_slot *s, thread *cur, span body, bool libdbus);

/* ---- ftrace-android.c --------------------------------------------------- */

void argus_ft_map_binder(argus_ft *d, const line_slot *s, thread *cur, span body, bool send);
void argus_ft_map_mark(argus_ft *d, const line_slot *s, thread *cur, span body);

#endif
