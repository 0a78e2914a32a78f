/* Linux ftrace text to an argus stream (include/argus/decode/ftrace.h): the line
 * reader. Lines come in (a first pass over a file finds the threads asleep
 * at the start), go through the reorder window into ts order, and leave it
 * for the mapping (argus_ft_map_line, lib/decode/ftrace-kernel.c); comment lines
 * give the header (argus-record's clock, command, focus and threads) and
 * what the trace lost (DEC-LOSS); a text that is no ftrace is refused.
 * include/argus/decode/ftrace-internal.h lists the other parts
 * (docs/inputs/linux.md has the table). */
#include "argus/decode/ftrace-internal.h"
#include "argus/decode/decode.h"
#include "argus/stream/cli.h"
#include "argus/stream/procname.h"
#include "argus/stream/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define LINE_MAX_BYTES (1u << 20)

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

ev_kind argus_ft_event_kind(const argus_ft *d, const char *name, size_t len)
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
    argus_ft *d = argus_xcalloc(1, sizeof *d, "ftrace reader");
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
    argus_table_init(&d->cmdlines, sizeof(char *));
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
    size_t pos = 0;
    uint64_t pid;
    void *cmdline;
    while (argus_table_next(&d->cmdlines, &pos, &pid, &cmdline))
        free(*(char **)cmdline);
    argus_table_free(&d->cmdlines);
    for (uint32_t i = 0; i < d->ncpus; i++)
        free(d->cpus[i].run);
    free(d->cpus);
    free(d->dbus);
    argus_android_free(d->android);
    free(d);
}

/* ---- The header and argus-record's header lines --------------------------- */

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
    if (argus_ft_parse_ts(&m, end, &mono, &cm) && argus_ft_parse_ts(&r, end, &real, &cr) && !cm &&
        !cr) {
        d->have_clock = true;
        d->clock_mono = mono;
        d->clock_real = real;
    }
}

/* "# argus-thread: tid=T tgid=G kernel=K [ppid=P] comm=NAME"
 * (argus-record). */
static void map_thread_line(argus_ft *d, const char *p, size_t n)
{
    span body = {p, n}, comm = {0};
    uint64_t tid, tgid, kernel = 0, ppid;
    if (!argus_ft_field_dec(body, "tid", &tid) || tid == 0)
        return; /* tid 0 is the idle task, a kernel thread whatever a line says */
    thread *t = argus_ft_get_thread(d, tid);
    if (argus_ft_field_dec(body, "tgid", &tgid))
        argus_ft_set_tgid(t, (int64_t)tgid);
    if (argus_ft_field_dec(body, "kernel", &kernel)) {
        t->kernel_known = true;
        t->kernel = kernel != 0;
        t->announced = false;
    }
    if (argus_ft_field_dec(body, "ppid", &ppid) && ppid != 0 && ppid != pid_of(t)) {
        t->parent = ppid;       /* DEC-PARENT, for a process older than the trace */
        t->announced = false;
    }
    if (argus_ft_field(body, "comm", &comm))
        argus_ft_set_comm(t, comm.p, comm.n);
    if (comm.n == 12 && memcmp(comm.p, "argus-record", 12) == 0 && d->recorder_pid &&
        tid != d->recorder_pid && pid_of(t) == tid) {
        d->held_child = tid;
        d->n_held_children++;
    }
}

/* "# argus-cmdline: pid=P ARG..." (argus-record): process P's command line,
 * on its main thread's record (DEC-CMDLINE); a later line for P wins. */
static void map_cmdline_line(argus_ft *d, const char *p, size_t n)
{
    uint64_t pid = parse_pid_field(p, n);
    size_t i = 0;
    while (i < n && p[i] != ' ')
        i++;
    char args[4096];
    if (!pid || pid > ARGUS_PID_MAX || i >= n ||
        argus_cmdline_unescape(args, sizeof args, p + i + 1, n - i - 1) == 0)
        return;
    bool created;
    char **slot = argus_table_put(&d->cmdlines, pid, &created);
    if (!created)
        free(*slot);
    *slot = argus_xstrdup(args, "a command line");
    thread *t = argus_ft_find_thread(d, pid);
    if (t)
        t->announced = false;
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
    if (!argus_ft_parse_head_how(&s, true))
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
        ev_kind k = argus_ft_event_kind(d, name.p, name.n);
        if (k == EV_DBUS_SET_SENDER || k == EV_DBUS_SEND_PREALLOC)
            argus_ft_dbus_add_daemon(d, s.tgid >= 0 ? (uint64_t)s.tgid : s.tid);
        return;
    }
    if (q == end || *q != ':' || name.n < 12 || memcmp(name.p, "sched_", 6) != 0)
        return;
    ev_kind kind = argus_ft_event_kind(d, name.p, name.n);
    if (kind != EV_WAKING && kind != EV_WAKEUP && kind != EV_WAKEUP_NEW && kind != EV_SWITCH)
        return;
    span body = {q + 1, (size_t)(end - q - 1)}, comm = {0}, after, st;
    uint64_t target = 0, prev;
    bool have = kind == EV_SWITCH
                    ? argus_ft_field_dec(body, "next_pid", &target) ||
                          argus_ft_plugin_switch(body, &comm, &prev, &st, &comm, &target)
                    : argus_ft_field_dec(body, "pid", &target) ||
                          argus_ft_plugin_task(body, &comm, &target, &after);
    if (!have || target == 0 || target > ARGUS_PID_MAX)
        return;     /* no pid (DEC-RANGE: the line is refused when it is read) */
    struct prescan *t = prescan_thread(d, target);
    if (!t->seen) { /* a new task's first wakeup is no sleep */
        t->asleep = kind == EV_WAKING || kind == EV_WAKEUP;
        if (t->asleep && (comm.n || argus_ft_field(body, "comm", &comm)))
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
    uint64_t tid, *tids = argus_xmalloc((d->prescan.count + 1) * sizeof *tids,
                                        "threads asleep at the start");
    void *v;
    while (argus_table_next(&d->prescan, &pos, &tid, &v))
        if (((struct prescan *)v)->asleep)
            tids[n++] = tid;
    argus_sort(tids, n, sizeof *tids, by_tid);
    for (size_t i = 0; i < n; i++) {
        struct prescan *p = argus_table_get(&d->prescan, tids[i]);
        thread *t = argus_ft_get_thread(d, tids[i]);
        if (t->tgid < 0 && p->tgid >= 0)
            argus_ft_set_tgid(t, p->tgid);
        if (!t->comm[0])
            argus_ft_set_comm(t, p->comm, strlen(p->comm));
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
            struct cpu_ctx *c = argus_ft_cpu_ctx(d, s->cpu);
            if (!c->seen) {
                c->seen = true;
                c->first_ts = s->ts;
            }
        }
        argus_ft_map_line(d, s);
    } else {
        /* no head: an `ftrace` event of the idle/kernel thread 0 */
        d->event_name = (span){0};
        argus_ft_write_raw(d, s, argus_ft_get_thread(d, 0));
    }
    argus_reorder_pop(&d->window);
}

/* A "CPU:N [LOST M EVENTS]" line (trace_pipe's; trace-cmd report's is
 * "CPU:N [M EVENTS DROPPED]"): a warning, counted (no event). */
static bool lost_line(argus_ft *d, const char *p, size_t n)
{
    /* after a buffer instance's "NAME: ", when trace-cmd report prints one */
    const char *lost = n >= 8 ? memmem(p, n < 80 ? n : 80, ": CPU:", 6) : NULL;
    if (lost && memcmp(p, "CPU:", 4) != 0)
        n -= (size_t)(lost + 2 - p), p = lost + 2;
    if (n < 8 || memcmp(p, "CPU:", 4) != 0 ||
        !((lost = memmem(p, n, "[LOST ", 6)) ? (lost += 6) :
          memmem(p, n, "EVENTS DROPPED]", 15) && (lost = memchr(p, '[', n)) ? ++lost : NULL))
        return false;
    d->n_lost++;
    const char *q = p + 4, *end = p + n;
    uint64_t cpu = argus_ft_read_dec(&q, end);
    q = lost;
    uint64_t m = argus_ft_read_dec(&q, end);
    if (cpu < CPU_CTX_MAX) {
        struct cpu_ctx *c = argus_ft_cpu_ctx(d, (uint32_t)cpu);
        c->dropped += m;
        c->drop_lines++;
        if (d->n_heads) {
            if (!c->drop_timed)
                c->dropped_from = d->last_pushed_ts;
            c->dropped_to = d->last_pushed_ts;
            c->drop_timed = true;
        }
    }
    argus_note("%s:%llu: warning: %.*s", d->o.name ? d->o.name : "<input>",
               (unsigned long long)d->line_no, (int)(n > 200 ? 200 : n), p);
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
            x = argus_ft_dec_digit_saturating(x, *q++);
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
    uint64_t kept = argus_ft_read_dec(&q, end);
    if (q == end || *q++ != '/')
        return;
    d->entries_kept = kept;
    d->entries_written = argus_ft_read_dec(&q, end);
}

/* "##### CPU N buffer started ####": CPU N's older events were
 * overwritten (DEC-LOSS). */
static void buffer_started_line(argus_ft *d, const char *p, size_t n)
{
    const char *cpu = memmem(p, n, "CPU ", 4);
    if (!cpu || !memmem(p, n, "buffer started", 14))
        return;
    const char *q = cpu + 4, *end = p + n;
    uint64_t x = argus_ft_read_dec(&q, end);
    if (q > cpu + 4 && x < CPU_CTX_MAX)
        argus_ft_cpu_ctx(d, (uint32_t)x)->started_mark = true;
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
        static const char cmdline[] = "# argus-cmdline: pid=";
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
                if (!argus_ft_field(body, keys[k], &v))
                    continue;
                at = v.n && v.p[0] == '-';
                while (at + digits < v.n && is_digit(v.p[at + digits]))
                    x = argus_ft_dec_digit_saturating(x, v.p[at + digits++]);
                if (digits && (at || x > ARGUS_PID_MAX))
                    return fail(d, "%s:%llu: %s=%.*s is out of the kernel's range (0 to %u)",
                                d->o.name, (unsigned long long)d->line_no, keys[k],
                                (int)(v.n > 40 ? 40 : v.n), v.p, ARGUS_PID_MAX);
            }
            map_thread_line(d, body.p, body.n);
        }
        else if (n - i > sizeof clock - 1 && memcmp(p + i, clock, sizeof clock - 1) == 0)
            map_clock_line(d, p + i + sizeof clock - 1, n - i - (sizeof clock - 1));
        else if (n - i > sizeof cmdline - 1 && memcmp(p + i, cmdline, sizeof cmdline - 1) == 0)
            map_cmdline_line(d, p + i + sizeof cmdline - 1, n - i - (sizeof cmdline - 1));
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
        s->text = argus_xmalloc(s->cap, "a line of the trace");
    }
    memcpy(s->text, p + i, n - i);
    s->len = (uint32_t)(n - i);
    s->line = d->line_no;
    if (!d->n_content++)
        snprintf(d->first_content, sizeof d->first_content, "%.*s",
                 (int)(n - i < 60 ? n - i : 60), p + i);
    if (argus_ft_parse_head(s)) {
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
        argus_ft_put_uint_kv(d, "events", d->entries_written - d->entries_kept);
        argus_ft_put_uint_kv(d, "written", d->entries_written);
        argus_end_record(d->w);
    }
    for (uint32_t cpu = 0; cpu < d->ncpus; cpu++) {
        const struct cpu_ctx *c = &d->cpus[cpu];
        if (c->seen && (overwritten || c->started_mark)) {
            begin_loss(d, "cpu_start", 2);
            argus_ft_put_uint_kv(d, "cpu", cpu);
            argus_ft_put_uint_kv(d, "since", c->first_ts > d->zero ? c->first_ts - d->zero : 0);
            argus_end_record(d->w);
        }
        if (c->drop_lines) {
            begin_loss(d, "dropped", 2 + 2 * c->drop_timed);
            argus_ft_put_uint_kv(d, "cpu", cpu);
            argus_ft_put_uint_kv(d, "events", c->dropped);
            if (c->drop_timed) {
                argus_ft_put_uint_kv(d, "from",
                                     c->dropped_from > d->zero ? c->dropped_from - d->zero : 0);
                argus_ft_put_uint_kv(d, "to",
                                     c->dropped_to > d->zero ? c->dropped_to - d->zero : 0);
            }
            argus_end_record(d->w);
        }
    }
    if (d->cut_line) {
        begin_loss(d, "cut", 1);
        argus_ft_put_uint_kv(d, "line", d->cut_line);
        argus_end_record(d->w);
    }
    if (d->end_expected && !d->end_seen) {
        begin_loss(d, "no_end", 0);
        argus_end_record(d->w);
    }
    if (d->full_chunks) {
        begin_loss(d, "full", 1);
        argus_ft_put_uint_kv(d, "chunks", d->full_chunks);
        argus_end_record(d->w);
    }
}

void argus_ft_buffer_full(argus_ft *d, uint64_t chunks)
{
    d->full_chunks = chunks;
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
            argus_ft_synth_irq(d, &end, d->cpus[cpu].synth_tid, false, d->cpus[cpu].synth_ctx);
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
    return argus_ft_parse_head(&s);
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
