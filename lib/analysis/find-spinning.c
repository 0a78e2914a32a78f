/* find-spinning: the hang nodes of a graph (spinning cursor, a GUI
 * program's main loop away from its wait, a main thread blocked or busy),
 * their class, causal paths and wait chains (docs/stages/find-spinning.md;
 * the command line is filters/find-spinning.c, argus-analyze runs it with
 * the stages after it). */
#include "argus/analysis/find-spinning.h"
#include "argus/analysis/findings.h"
#include "argus/decode/decoder.h"
#include "argus/stages/stage.h"
#include "argus/stream/cli.h"
#include "argus/stream/procname.h"
#include "argus/stream/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000ull
#define SEARCH_BACK (1500 * MS)     /* SPIN-INDICATOR: 1.5 s */
#define LONG_WAIT (800 * MS)        /* SPIN-CLASS wait */
#define LONG_RUN (1500 * MS)        /* SPIN-CLASS busy */
#define LINUX_HANG_MS ARGUS_LINUX_HANG_MS
#define LOOP_HANG_MS ARGUS_LOOP_HANG_MS
#define ANR_MS 5000                 /* SPIN-ANR: Android's input dispatch
                                       timeout (InputDispatcher's 5 s) */
#define HANG_LINUX_DEFAULT ARGUS_SPIN_HANG_DEFAULT

static const char *const default_symbols[] = {"CGSConnectionSetSpinning",
                                              "ConnectionSetSpinning"};
static const char spinning_flag[] = "sCGEventIsMainThreadSpinning";

typedef struct indicator {
    uint64_t id, ts, pid;
    const char *what;           /* the symbol or flag */
} indicator;

/* SPIN-LOOP: each thread's main loop as its runloop events tell (the
 * decoder's mapping of argus-record's uprobes): the callouts open, and
 * since when the loop has been away from its wait. */
typedef struct loop_state {
    uint32_t level;             /* runloop_invoke begins not ended */
    uint64_t since;             /* the stretch away from the wait began;
                                   UINT64_MAX: in its wait */
    uint64_t root_item;         /* the context the outermost dispatch runs */
    bool nested_root;           /* the last dispatch begun inside a callout
                                   ran root_item: a nested loop of the
                                   loop's own context (a modal dialog) */
    bool looper;                /* an Android Looper (runloop_invoke kind
                                   "message", the decoder's atrace mapping) */
    uint64_t input;             /* SPIN-ANR: ts of the first input of the
                                   stretch (a Looper's); UINT64_MAX: none */
} loop_state;

typedef struct away {           /* a stretch of the limit or more */
    uint64_t tid, from, to;
    uint64_t input;             /* SPIN-ANR: the input it held; UINT64_MAX */
} away;

typedef struct loops {
    uint64_t limit;             /* ns; 0: SPIN-LOOP off */
    argus_table threads;        /* tid -> loop_state */
    argus_table ui_pids;        /* pid -> a ui_event seen */
    argus_table servers;        /* tid -> a display server's thread (by
                                   its thread record) */
    const char **server_names;  /* the display servers (SPIN-IDLE's) */
    int nserver_names;
    away *v;
    uint32_t n;
    size_t cap;
} loops;

typedef struct finder {
    const char **symbols;
    int nsymbols;
    indicator *found;
    uint32_t nfound;
    size_t cap;
    loops loops;
} finder;

static bool holds(const char *s, size_t len, const char *sym)
{
    size_t n = strlen(sym);
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(s + i, sym, n) == 0)
            return true;
    return false;
}

static void add_indicator(finder *f, const argus_record *r, const char *what)
{
    *ARGUS_PUSH(f->found, f->nfound, f->cap) = (indicator){r->id, r->ts, r->pid, what};
}

/* The loop of L's thread TID was away from its wait until TS. */
static void loop_back(loops *l, uint64_t tid, const loop_state *st, uint64_t ts)
{
    if (st->since != UINT64_MAX && ts >= st->since && ts - st->since >= l->limit)
        *ARGUS_PUSH(l->v, l->n, l->cap) = (away){tid, st->since, ts, st->input};
}

/* The loop leaves its wait at after_waiting (or at a first dispatch when
 * the trace began inside it) and comes back at before_waiting, at callout
 * level 0. Inside a callout, a nested loop of the loop's own outermost
 * context (a modal dialog's) is the loop answering only when it shows it:
 * it waits with no deadline (idle: only input or another thread can end
 * that wait), or a dispatch of it draws (wakes a display server). A nested
 * loop that retries on its own timer and draws nothing (GTK's clipboard
 * wait) is the handler waiting. */
static void on_loop_event(loops *l, const argus_record *r)
{
    bool created;
    loop_state *st = argus_table_put(&l->threads, r->tid, &created);
    if (created)
        *st = (loop_state){.since = UINT64_MAX, .input = UINT64_MAX};
    if (r->type == ARGUS_T_UI_EVENT) {
        /* SPIN-ANR: the input a Looper's stretch away took */
        if (st->looper && st->since != UINT64_MAX && st->input == UINT64_MAX)
            st->input = r->ts;
        return;
    }
    if (r->type == ARGUS_T_WAKEUP) {
        uint64_t target;
        if (st->level >= 2 && st->nested_root && st->since != UINT64_MAX &&
            argus_get_uint(r, ARGUS_K_TARGET, &target) &&
            argus_table_get(&l->servers, target) && !argus_table_get(&l->servers, r->tid)) {
            loop_back(l, r->tid, st, r->ts);    /* it drew: answering */
            st->since = r->ts;
            st->input = UINT64_MAX;
        }
        return;
    }
    if (r->type == ARGUS_T_RUNLOOP_INVOKE) {
        uint64_t item = 0;
        argus_get_uint(r, ARGUS_K_ITEM, &item);
        if (argus_text_is(r, ARGUS_K_KIND, "message"))
            st->looper = true;
        if (argus_text_is(r, ARGUS_K_PHASE, "begin")) {
            if (st->level == 0) {
                if (st->since == UINT64_MAX)
                    st->since = r->ts;
                st->root_item = item;
                st->nested_root = false;
            } else {
                /* no item on either: a loop whose dispatches name no
                 * context (Tcl's notifier, one a thread) */
                st->nested_root = item == st->root_item;
            }
            st->level++;
        } else if (st->level > 0) {
            st->level--;
        }
    } else if (argus_text_is(r, ARGUS_K_STAGE, "before_waiting")) {
        /* the loop's wait, or a nested loop of its context idle: nothing
         * of its own due within the limit (no deadline, or one the limit
         * or more away: Qt's QMessageBox::exec polls 24.7 s) */
        uint64_t timeout = 0;
        bool idle = !argus_get_uint(r, ARGUS_K_TIMEOUT, &timeout) || timeout >= l->limit;
        if (st->level == 0 || (st->nested_root && idle)) {
            loop_back(l, r->tid, st, r->ts);
            st->since = UINT64_MAX;
            st->input = UINT64_MAX;
        }
    } else if (argus_text_is(r, ARGUS_K_STAGE, "after_waiting")) {
        if (st->level == 0 || st->since == UINT64_MAX) {
            st->since = r->ts;
            st->input = UINT64_MAX;
        }
    }
}

/* Whether NAME (LEN bytes) is one of LIST's N names. */
static bool name_n_in_list(const char *name, size_t len, const char *const *list, int n)
{
    for (int i = 0; i < n; i++)
        if (strlen(list[i]) == len && memcmp(name, list[i], len) == 0)
            return true;
    return false;
}

static bool name_in_list(const char *name, const char *const *list, int n)
{
    return name_n_in_list(name, strlen(name), list, n);
}

/* Keeps L's display-server threads as thread records name them (a thread
 * renamed is looked at again). */
static void note_server(loops *l, const argus_record *r)
{
    uint64_t tid;
    size_t len;
    const char *proc = argus_get_text(r, ARGUS_K_PROC, &len);
    if (!argus_get_uint(r, ARGUS_K_TID, &tid) || !proc)
        return;
    bool created;
    if (name_n_in_list(proc, len, l->server_names, l->nserver_names))
        argus_table_put(&l->servers, tid, &created);
    else
        argus_table_remove(&l->servers, tid);
}

static void on_event(const argus_record *r, void *ctx)
{
    finder *f = ctx;
    if (f->loops.limit) {
        if (r->type == ARGUS_T_RUNLOOP_INVOKE || r->type == ARGUS_T_RUNLOOP_PHASE)
            on_loop_event(&f->loops, r);
        else if (r->type == ARGUS_T_WAKEUP && argus_table_get(&f->loops.threads, r->tid))
            on_loop_event(&f->loops, r);
        else if (r->type == ARGUS_T_THREAD)
            note_server(&f->loops, r);
        else if (r->type == ARGUS_T_UI_EVENT) {
            bool created;
            argus_table_put(&f->loops.ui_pids, r->pid, &created);
            if (argus_table_get(&f->loops.threads, r->tid))
                on_loop_event(&f->loops, r);
        }
    }
    if (r->type == ARGUS_T_BACKTRACE) {
        argus_text frames[64];
        int n = argus_get_text_array(r, ARGUS_K_FRAMES, frames, 64);
        for (int s = 0; s < f->nsymbols; s++)
            for (int i = 0; i < n; i++)
                if (holds(frames[i].s, frames[i].len, f->symbols[s])) {
                    add_indicator(f, r, f->symbols[s]);
                    return;
                }
    } else if (r->type == ARGUS_T_FLAG_WRITE) {
        uint64_t v;
        if (!argus_get_uint(r, ARGUS_K_VALUE, &v) || v == 0)
            return;
        size_t len;
        const char *name = argus_get_text(r, ARGUS_K_NAME, &len);
        if (!name)
            return;
        for (int s = 0; s < f->nsymbols; s++)
            if (strlen(f->symbols[s]) == len && !memcmp(name, f->symbols[s], len)) {
                if (strcmp(f->symbols[s], spinning_flag) != 0 || v == 1)
                    add_indicator(f, r, f->symbols[s]);
                return;
            }
    }
}

/* ---- hang nodes ------------------------------------------------------------- */
typedef struct hang {
    uint32_t seg;
    uint32_t first;             /* the first segment of a retried wait */
    uint32_t waits;             /* waits in it (1 for a single one) */
    uint64_t duration;          /* for the order of --hang nodes */
    uint64_t at, event;         /* event: UINT64_MAX for --hang */
    const char *indicator;
    bool loop;                  /* SPIN-LOOP: the loop was away from its wait */
    uint64_t from, to;          /* ... then */
} hang;

typedef struct hangs {
    hang *v;
    uint32_t n;
    size_t cap;
    argus_table by_seg;         /* seg -> position in v, while hangs are
                                 * found (a look-up, not a pass per hang) */
} hangs;

/* Adds X unless a hang of its node was found already. */
static bool add_hang(hangs *h, hang x)
{
    if (!h->by_seg.value_size)
        argus_table_init(&h->by_seg, sizeof(uint32_t));
    bool created;
    uint32_t *at = argus_table_put(&h->by_seg, x.seg, &created);
    if (!created)
        return false;
    *at = h->n;
    *ARGUS_PUSH(h->v, h->n, h->cap) = x;
    return true;
}

/* Removes the --hang node found at SEG, if any (the last one takes its
 * place). */
static void remove_hang_node(hangs *h, uint32_t seg)
{
    uint32_t *at = h->by_seg.value_size ? argus_table_get(&h->by_seg, seg) : NULL;
    if (!at || h->v[*at].event != UINT64_MAX)
        return;
    uint32_t j = *at;
    argus_table_remove(&h->by_seg, seg);
    h->v[j] = h->v[--h->n];
    if (j < h->n)
        *(uint32_t *)argus_table_get(&h->by_seg, h->v[j].seg) = j;
}

static uint32_t main_thread_of(const argus_graph *g, uint64_t pid)
{
    uint32_t by_tid = ARGUS_NONE;
    for (uint32_t i = 0; i < g->nthreads; i++) {
        const argus_gthread *t = &g->threads[i];
        if (t->pid != pid)
            continue;
        if (t->main)
            return i;
        if (t->tid == pid)
            by_tid = i;
    }
    return by_tid;
}

/* SPIN-INDICATOR: the main thread's segment ongoing at T, else its latest
 * one that began within 1.5 s before T. */
static uint32_t spinning_node(const argus_graph *g, uint32_t thread, uint64_t t)
{
    uint32_t s = argus_graph_seg_before(g, thread, t);
    if (s == ARGUS_NONE)
        return ARGUS_NONE;
    const argus_seg *x = &g->segs[s];
    return t <= argus_seg_until(g, x) || x->begin + SEARCH_BACK >= t ? s : ARGUS_NONE;
}

static uint64_t blocked_for(const argus_graph *g, const argus_seg *s)
{
    return s->wait_id == UINT64_MAX ? 0 : argus_seg_until(g, s) - s->end;
}

/* How much of A..B lies within FROM..TO (ns). */
static uint64_t overlap(uint64_t a, uint64_t b, uint64_t from, uint64_t to)
{
    uint64_t lo = a > from ? a : from, hi = b < to ? b : to;
    return hi > lo ? hi - lo : 0;
}

/* The part of segment S's final wait within FROM..TO (0: none). */
static uint64_t final_blocked(const argus_graph *g, const argus_seg *s, uint64_t from,
                              uint64_t to)
{
    return s->wait_id == UINT64_MAX ? 0 : overlap(s->end, argus_seg_until(g, s), from, to);
}

/* The time segment S's thread was blocked within FROM..TO: in the waits
 * inside it (a callout's) and in its final wait (a window that began
 * inside the callout ends segments at its waits). */
static uint64_t inner_blocked(const argus_graph *g, const argus_seg *s, uint64_t from,
                              uint64_t to)
{
    uint64_t sum = final_blocked(g, s, from, to);
    uint32_t n;
    const argus_inner_wait *iw = argus_seg_inner_waits(g, (uint32_t)(s - g->segs), &n);
    for (uint32_t k = 0; k < n; k++)
        sum += overlap(iw[k].from, iw[k].to, from, to);
    return sum;
}

/* SPIN-CLASS */
static const char *class_of(const argus_graph *g, const hang *h)
{
    const argus_seg *s = &g->segs[h->seg];
    if (argus_yield_loop(s))
        return "yield";
    if (h->loop) /* blocked inside its handler most of the time, or not */
        return 2 * inner_blocked(g, s, h->from, h->to) >= h->to - h->from ? "wait" : "busy";
    if (h->event == UINT64_MAX) /* --hang: it ran, or it waited */
        return h->waits == 0 ? "busy" : "wait";
    if (s->wait_id != UINT64_MAX &&
        (blocked_for(g, s) >= LONG_WAIT || s->ntimeouts >= 2))
        return "wait";
    if (s->end - s->begin >= LONG_RUN)
        return "busy";
    return s->wait_id != UINT64_MAX ? "wait" : "busy";
}

/* --proc: the process's name, or its first 15 bytes (Linux's comm), or
 * its program or script (argus_proc_named). */
static bool proc_is(const argus_graph *g, uint32_t thread, const char *proc)
{
    const argus_gthread *t = &g->threads[thread];
    return !proc ||
           argus_proc_named(proc, argus_graph_str(g, t->proc), argus_graph_cmdline(g, t->pid));
}

/* ---- SPIN-HANG: the threads watched, and waits that are no hang ------------ */

/* Display servers: a wake-up from one of them brings input (SPIN-IDLE). */
const char *const argus_input_servers[] = {
    "Xorg", "Xvfb", "Xwayland", "X", "Xephyr", "Xnest", "Xvnc", "gnome-shell",
    "mutter", "kwin_wayland", "kwin_x11", "weston", "sway", "Hyprland", "labwc",
    "wayfire", "river", "cage", "gamescope",
};
const size_t argus_n_input_servers = sizeof argus_input_servers / sizeof *argus_input_servers;

typedef struct watch {
    bool no_idle;               /* --no-idle: SPIN-IDLE off */
    const char *proc;
    const char **input_servers;
    int ninput_servers;
    uint64_t limit;
    uint64_t launched;          /* the header's "launched": the recorded
                                   command's pid, 0 if none */
    uint64_t focus[ARGUS_MAX_FOCUS]; /* the header's "focus": the running
                                   processes the recording focused on */
    int nfocus;
    argus_table parents;        /* pid -> the pid that forked it */
} watch;

/* SPIN-HANG watches the main threads of programs: not kernel threads, not
 * the idle task, not the recorder itself. */
static bool watched(const argus_graph *g, uint32_t t, const watch *w)
{
    const argus_gthread *th = &g->threads[t];
    return th->main && !th->kernel && th->tid != 0 &&
           strcmp(argus_graph_str(g, th->proc), "argus-record") != 0 && proc_is(g, t, w->proc);
}

/* A GUI program: one of its threads had a ui_event, a display server woke
 * one of them (input, replies), or one of them woke a display server (a
 * client's requests: a program that draws with its own timer, as SDL's
 * loops do, is never woken by the server). */
static bool gui_process(const loops *l, uint64_t pid)
{
    return argus_table_get(&l->ui_pids, pid) != NULL;
}

static bool input_server(const argus_graph *g, uint32_t thread, const watch *w)
{
    return name_in_list(argus_graph_str(g, g->threads[thread].proc), w->input_servers,
                        w->ninput_servers);
}

/* Adds to L's ui_pids the processes that a display server woke or that
 * woke one: one pass over the wait edges. */
static void find_gui_processes(const argus_graph *g, loops *l, const watch *w)
{
    for (uint32_t i = 0; i < g->nsegs; i++) {
        const argus_seg *x = &g->segs[i];
        for (uint32_t k = 0; k < x->out_len; k++) {
            const argus_gedge *e = &g->edges[g->out_edges[x->out_off + k]];
            if (e->to_seg == ARGUS_NONE || strcmp(argus_graph_str(g, e->kind), "wait") != 0)
                continue;
            uint32_t waiter = x->thread, waker = g->segs[e->to_seg].thread;
            const argus_gthread *a = &g->threads[waiter], *b = &g->threads[waker];
            if (a->pid == b->pid || a->kernel || b->kernel)
                continue;
            bool created;
            if (input_server(g, waker, w) && !input_server(g, waiter, w))
                argus_table_put(&l->ui_pids, a->pid, &created);
            else if (input_server(g, waiter, w) && !input_server(g, waker, w))
                argus_table_put(&l->ui_pids, b->pid, &created);
        }
    }
}

/* SPIN-LOOP watches the main thread of a GUI program whose main loop the
 * trace shows (runloop events): one flag per thread. */
static bool *loop_watched_threads(const argus_graph *g, const loops *l, const watch *w)
{
    bool *v = argus_xcalloc(g->nthreads + 1, sizeof *v, "loop threads");
    for (uint32_t t = 0; t < g->nthreads; t++)
        v[t] = l->limit && g->threads[t].main && argus_table_get(&l->threads, g->threads[t].tid) &&
               proc_is(g, t, w->proc) && gui_process(l, g->threads[t].pid);
    return v;
}

/* SPIN-LOOP: a watched loop away from its wait for the limit is a hang; its
 * node is the segment most of that stretch was in (the handler's callout). */
static void loop_hangs(const argus_graph *g, const loops *l, const bool *watched_loop,
                       hangs *found)
{
    for (uint32_t i = 0; i < l->n; i++) {
        const away *a = &l->v[i];
        uint32_t t = argus_graph_thread(g, a->tid);
        if (t == ARGUS_NONE || !watched_loop[t]) {
            argus_count("loops away from their wait, not a GUI program's main thread", 1);
            continue;
        }
        uint32_t best = ARGUS_NONE;
        uint64_t best_len = 0;
        const uint32_t *segs = g->thread_segs + g->seg_first[t];
        for (uint32_t k = 0; k < g->seg_first[t + 1] - g->seg_first[t]; k++) {
            const argus_seg *x = &g->segs[segs[k]];
            /* a segment holds its final wait too, to its resume (a window
             * that began inside the callout splits it at its waits) */
            uint64_t until = argus_seg_until(g, x);
            if (x->ctx || until < a->from || x->begin > a->to)
                continue;
            uint64_t len = overlap(x->begin, until, a->from, a->to);
            if (best == ARGUS_NONE || len > best_len) {
                best = segs[k];
                best_len = len;
            }
        }
        if (best == ARGUS_NONE)
            continue;
        /* SPIN-ANR: a Looper's input not handled within 5 s is Android's
         * ANR: the same stretch, named for it and timed from the input */
        bool anr = a->input != UINT64_MAX && a->to - a->input >= ANR_MS * MS;
        if (anr)
            argus_count("inputs not handled within 5 s (SPIN-ANR)", 1);
        add_hang(found, (hang){.seg = best, .first = best, .waits = 0,
                               .at = anr ? a->input + ANR_MS * MS : a->from + l->limit,
                               .event = UINT64_MAX, .indicator = anr ? "anr" : "loop",
                               .duration = a->to - a->from, .loop = true, .from = a->from,
                               .to = a->to});
    }
}

static bool event_loop_wait(const argus_graph *g, const argus_seg *s)
{
    static const char *const loops[] = {"poll", "ppoll", "select", "pselect6", "epoll_wait",
                                        "epoll_pwait", "epoll_pwait2"};
    return name_in_list(argus_graph_str(g, s->wait_reason), loops,
                        (int)(sizeof loops / sizeof *loops));
}

/* Shells and programs that run a command and wait for it: their wait for
 * their child is the child's (SPIN-IDLE), even when the recorder launched
 * them; the command they run is then the launched one (SPIN-ORDER). */
static const char *const wrappers[] = {
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "tcsh", "csh", "busybox",
    "timeout", "env", "nice", "nohup", "ionice", "chrt", "taskset", "stdbuf",
    "setsid", "sudo", "su", "doas", "runuser", "time", "xargs", "flock", "unshare",
    "nsenter", "script",
};

static bool is_wrapper(const argus_graph *g, uint32_t thread)
{
    return name_in_list(argus_graph_str(g, g->threads[thread].proc), wrappers,
                        (int)(sizeof wrappers / sizeof *wrappers));
}

/* The pid -> parent table of the graph's threads (decode's DEC-PARENT). */
static void index_parents(const argus_graph *g, argus_table *parents)
{
    for (uint32_t t = 0; t < g->nthreads; t++)
        if (g->threads[t].parent && g->threads[t].parent != g->threads[t].pid) {
            bool created;
            *(uint64_t *)argus_table_put(parents, g->threads[t].pid, &created) =
                g->threads[t].parent;
        }
}

/* Whether PID is the launched command or a focused process (the header's
 * "focus": argus-record --pid, --proc), or was forked, however deep, by
 * one (a bound on the walk: pids are reused). */
static bool asked_about(const watch *w, uint64_t pid)
{
    if (w->launched && pid == w->launched)
        return true;
    for (int i = 0; i < w->nfocus; i++)
        if (pid == w->focus[i])
            return true;
    return false;
}

static bool in_launched_tree(const watch *w, uint64_t pid)
{
    for (int depth = 0; (w->launched || w->nfocus) && depth < 64; depth++) {
        if (asked_about(w, pid))
            return true;
        const uint64_t *up = argus_table_get(&w->parents, pid);
        if (!up)
            return false;
        pid = *up;
    }
    return false;
}

/* A parent waiting for its child: in wait4 or waitid, or in a wait the
 * trace names no system call for (sigsuspend, pause) that a thread of a
 * process it forked ended. */
static bool waits_for_child(const argus_graph *g, uint32_t last)
{
    const char *reason = argus_graph_str(g, g->segs[last].wait_reason);
    if (strcmp(reason, "wait4") == 0 || strcmp(reason, "waitid") == 0)
        return true;
    if (strcmp(reason, "sleeping") != 0)
        return false;
    uint32_t waker = argus_graph_waker(g, last);
    return waker != ARGUS_NONE &&
           g->threads[g->segs[waker].thread].parent == g->threads[g->segs[last].thread].pid;
}

/* SPIN-IDLE: the wait ending segment S was the program waiting for
 * input, not a hang: a display server woke it (directly, or through a
 * thread of the program it woke just before: Tk's notifier, GLib's
 * workers). idle_wait adds: a loop's poll that only timed out, a parent
 * waiting for its child, a wait still open when the trace ends that asked
 * nothing of anyone before. */
static bool waited_for_input(const argus_graph *g, uint32_t s, const watch *w)
{
    for (int hop = 0; hop < 3 && s != ARGUS_NONE; hop++) {
        const argus_seg *x = &g->segs[s];
        uint32_t waker = argus_graph_waker(g, s);
        if (waker == ARGUS_NONE)
            return false;
        const argus_gthread *wt = &g->threads[g->segs[waker].thread];
        if (input_server(g, g->segs[waker].thread, w))
            return true;
        if (wt->pid != g->threads[x->thread].pid)
            return false;
        /* a thread of the program woke it: what had woken that thread */
        uint32_t p = g->segs[waker].prev;
        while (p != ARGUS_NONE && g->segs[p].ctx)
            p = g->segs[p].prev;
        if (p == ARGUS_NONE || g->segs[p].wait_id == UINT64_MAX)
            return false;
        s = p;
    }
    return false;
}

/* Whether segment S woke another thread (asked it for something) before
 * the wait that ends it. */
static bool woke_another(const argus_graph *g, uint32_t s)
{
    const argus_seg *x = &g->segs[s];
    for (uint32_t k = 0; k < x->out_len; k++) {
        const argus_gedge *e = &g->edges[g->out_edges[x->out_off + k]];
        if (e->to_seg != ARGUS_NONE && g->segs[e->to_seg].thread != x->thread &&
            strcmp(argus_graph_str(g, e->kind), "wait") != 0)
            return true;
    }
    return x->send_id != UINT64_MAX;
}

static bool idle_wait(const argus_graph *g, uint32_t first, uint32_t last, const watch *w)
{
    if (w->no_idle)
        return false;
    if (waited_for_input(g, last, w))
        return true;
    /* a display server in its loop waits for its clients and for input */
    if (event_loop_wait(g, &g->segs[last]) && input_server(g, g->segs[last].thread, w))
        return true;
    /* a parent waiting for its child: the child's own time is what to
     * look at, unless --proc names the parent, or the recorder launched
     * it (a program, not a shell or wrapper): then its wait is the hang
     * asked about (the chain goes on to the child). A wait before the
     * thread's latest exec was the program it ran then (a shell that
     * execs the program later), not the one its name says. */
    uint32_t t = g->segs[last].thread;
    bool named_then = g->segs[last].begin >= g->threads[t].exec_ts;
    if (waits_for_child(g, last) &&
        !(named_then && w->proc && proc_is(g, t, w->proc)) &&
        !(named_then && in_launched_tree(w, g->threads[t].pid) && !is_wrapper(g, t)))
        return true;
    /* still waiting when the trace ends, having asked nothing of anyone
     * before it: idle (a server's loop, a shell at its prompt) */
    if (g->segs[last].resume == UINT64_MAX && !woke_another(g, first))
        return true;
    if (!event_loop_wait(g, &g->segs[last]))
        return false;
    for (uint32_t i = first;; i = argus_next_own(g, i)) {
        if (g->segs[i].wake != ARGUS_WAKE_TIMED_OUT)
            return false;
        if (i == last)
            return true;
    }
}

/* SPIN-HANG on thread T: a segment that ran for the limit or more (busy),
 * and a wait of the limit or more, its retries taken as one
 * (argus_wait_retried), unless it was the program waiting for input
 * (SPIN-IDLE). */
static void hangs_of_thread(const argus_graph *g, uint32_t t, const watch *w, hangs *found)
{
    const uint32_t *segs = g->thread_segs + g->seg_first[t];
    uint32_t n = g->seg_first[t + 1] - g->seg_first[t];
    uint32_t skip_to = ARGUS_NONE;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = segs[k];
        const argus_seg *s = &g->segs[i];
        if (s->ctx)
            continue;
        if (skip_to != ARGUS_NONE) {   /* inside a retried wait already taken */
            if (i == skip_to)
                skip_to = ARGUS_NONE;
            continue;
        }
        if (s->end - s->begin >= w->limit)
            add_hang(found, (hang){.seg = i, .first = i, .waits = 0, .at = s->begin + w->limit,
                                   .event = UINT64_MAX, .indicator = "hang",
                                   .duration = s->end - s->begin});
        if (s->wait_id == UINT64_MAX)
            continue;
        uint32_t last = i, waits = 1, nx;
        while ((nx = argus_next_own(g, last)) != ARGUS_NONE && argus_wait_retried(g, last, nx)) {
            last = nx;
            waits++;
        }
        uint64_t until = argus_seg_until(g, &g->segs[last]);
        if (until - s->end < w->limit)
            continue;
        if (last != i)
            skip_to = last;
        if (idle_wait(g, i, last, w)) {
            argus_count("waits for input or a loop's timer, not hangs (SPIN-IDLE)", 1);
            continue;
        }
        remove_hang_node(found, i); /* the wait after a long run: one hang */
        add_hang(found, (hang){.seg = last, .first = i, .waits = waits,
                               .at = s->end + w->limit, .event = UINT64_MAX,
                               .indicator = "hang", .duration = until - s->begin});
    }
}

/* SPIN-ORDER: by tier (enum tier), then --hang nodes worst (longest)
 * first, but hangs held up by the same thread (their wait chains end at
 * it) stay together, the longest chain first (the farther the cause, the
 * more it needs telling: a lock's waiter before the lock holder's own
 * client), and a hang whose thread is a link of another's chain (the
 * holder waiting itself) after the hangs it holds up. Indicator nodes keep
 * their place before them. */
/* SPIN-ORDER's tiers. A window that does not answer is what a user sees
 * (an indicator, a loop away from its input, a GUI program's main thread);
 * then the command the recorder launched and what it forked; then the
 * others; last, a single sleep its own timer ended that no other hang
 * waits on (a program sleeping as it was told: `sleep 3` as a recording's
 * timer), and a wait still open at the end on nothing known, unless
 * launched. */
enum tier { TIER_GUI, TIER_LAUNCHED, TIER_OTHER, TIER_ASIDE };

typedef struct ordered {
    hang h;
    argus_chain c;
    uint32_t group;             /* position of its group's first hang */
    bool cause;
    uint8_t tier;
    uint32_t pos;
} ordered;

static uint32_t root_thread(const argus_graph *g, const ordered *o)
{
    return o->c.len ? g->segs[o->c.segs[o->c.len - 1]].thread : g->segs[o->h.seg].thread;
}

static int by_order(const void *a, const void *b)
{
    const ordered *x = a, *y = b;
    if (x->tier != y->tier)
        return x->tier < y->tier ? -1 : 1;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    if (x->cause != y->cause)
        return x->cause ? 1 : -1;
    if (x->c.len != y->c.len)
        return x->c.len > y->c.len ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* The tier of hang H (its chain C) before SPIN-ORDER's causes are known:
 * TIER_ASIDE for a timer's sleep is given by order_hangs. */
static uint8_t tier_of(const argus_graph *g, const hang *h, const argus_chain *c,
                       const loops *l, const watch *w)
{
    const argus_gthread *th = &g->threads[g->segs[h->seg].thread];
    if (h->event != UINT64_MAX || h->loop || (th->main && gui_process(l, th->pid)))
        return TIER_GUI;
    if (in_launched_tree(w, th->pid))
        return TIER_LAUNCHED;
    const argus_seg *s = &g->segs[h->seg];
    bool unexplained = s->wait_id != UINT64_MAX && s->resume == UINT64_MAX && c->end &&
                       (strcmp(c->end, "not_woken") == 0 || strcmp(c->end, "io") == 0);
    return unexplained ? TIER_ASIDE : TIER_OTHER;
}

/* One sleep its own timer ended (not a loop's stretch, not an indicator;
 * sleeps retried are a poll, waiting on something: a hang). */
static bool timer_sleep(const argus_graph *g, const hang *h)
{
    argus_wait_info hw;
    if (h->event != UINT64_MAX || h->loop || h->waits != 1 || !argus_final_wait(g, h->seg, &hw))
        return false;
    const char *reason = argus_graph_str(g, hw.reason);
    return hw.wake == ARGUS_WAKE_TIMED_OUT &&
           (strcmp(reason, "nanosleep") == 0 || strcmp(reason, "clock_nanosleep") == 0);
}

static void order_hangs(const argus_graph *g, hangs *found, argus_chain *chains,
                        const loops *l, const watch *w)
{
    uint32_t n = found->n, nt = g->nthreads;
    ordered *o = argus_xcalloc(n + 1, sizeof *o, "hang order");
    /* per thread, so that each question is a look-up, not a pass over
     * the hangs (linear in hangs, not quadratic: a trace where every
     * thread hangs has as many hangs as threads): the first hang whose
     * chain ends at it, the first chain it is a link of and whether a
     * second one has it too, whether it is a GUI program's hung thread */
    uint32_t *group_of_root = argus_xmalloc((nt + 1) * sizeof *group_of_root, "hang order");
    uint32_t *first_chain = argus_xmalloc((nt + 1) * sizeof *first_chain, "hang order");
    uint8_t *chains_with = argus_xcalloc(nt + 1, 1, "hang order");
    bool *gui_hung = argus_xcalloc(nt + 1, sizeof *gui_hung, "hang order");
    for (uint32_t t = 0; t < nt; t++)
        group_of_root[t] = ARGUS_NONE;
    for (uint32_t j = 0; j < n; j++)
        for (uint32_t k = 1; k < chains[j].len; k++) {
            uint32_t t = g->segs[chains[j].segs[k]].thread;
            if (chains_with[t] == 0) {
                first_chain[t] = j;
                chains_with[t] = 1;
            } else if (chains_with[t] == 1 && first_chain[t] != j) {
                chains_with[t] = 2;     /* two chains or more */
            }
        }
    for (uint32_t i = 0; i < n; i++) {
        o[i] = (ordered){.h = found->v[i], .c = chains[i], .pos = i, .group = i};
        o[i].tier = tier_of(g, &found->v[i], &chains[i], l, w);
        if (found->v[i].event != UINT64_MAX)
            continue;           /* indicators: as found */
        uint32_t root = root_thread(g, &o[i]);
        if (group_of_root[root] == ARGUS_NONE)
            group_of_root[root] = i;
        else
            o[i].group = o[group_of_root[root]].group;
        /* a link of another hang's chain */
        uint32_t t = g->segs[found->v[i].seg].thread;
        o[i].cause = chains_with[t] == 2 || (chains_with[t] == 1 && first_chain[t] != i);
        if (o[i].tier != TIER_GUI && !o[i].cause && timer_sleep(g, &found->v[i]))
            o[i].tier = TIER_ASIDE;
    }
    /* a hang whose chain runs into a GUI program's hung thread is that
     * hang seen from outside (a key driver, a service waiting on the app):
     * told in that hang's place, not again */
    for (uint32_t j = 0; j < n; j++)
        if (o[j].tier == TIER_GUI && found->v[j].event == UINT64_MAX)
            gui_hung[g->segs[found->v[j].seg].thread] = true;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        bool victim = false;
        for (uint32_t k = 1; k < chains[i].len && !victim && o[i].tier != TIER_GUI; k++)
            victim = gui_hung[g->segs[chains[i].segs[k]].thread];
        if (victim)
            argus_count("hangs waiting on a GUI program's hang, told in its place (SPIN-ORDER)", 1);
        else
            o[kept++] = o[i];
    }
    free(group_of_root);
    free(first_chain);
    free(chains_with);
    free(gui_hung);
    argus_sort(o, kept, sizeof *o, by_order);
    for (uint32_t i = 0; i < kept; i++) {
        found->v[i] = o[i].h;
        chains[i] = o[i].c;
    }
    found->n = kept;
    free(o);
}

/* A Linux trace (no spinning cursor there): SPIN-HANG applies by default. */
static bool linux_trace(const argus_record *header)
{
    const argus_field *f = argus_get_named(header, "source");
    return f && f->kind == ARGUS_V_TEXT && f->slen == 6 && memcmp(f->s, "ftrace", 6) == 0;
}

bool argus_spin_no_hang_note(const argus_spin_options *o, const argus_record *header,
                             uint64_t loops, char *buf, size_t size)
{
    buf[0] = 0;
    bool hang_given = o->hang_ms != HANG_LINUX_DEFAULT;
    if (!hang_given && loops)
        snprintf(buf, size, "Linux trace: no GUI program's main loop (of %llu seen) stayed away "
                            "from its wait %d ms or more (--hang MS sets how long, and looks at "
                            "every program's main thread).",
                 (unsigned long long)loops, LOOP_HANG_MS);
    else if (linux_trace(header))
        snprintf(buf, size, "Linux trace: no main thread%s%s blocked or ran %llu ms or more "
                            "(--hang MS sets how long, --proc NAME which program).",
                 o->proc ? " of " : "", o->proc ? o->proc : "",
                 (unsigned long long)(hang_given ? o->hang_ms : LINUX_HANG_MS));
    return buf[0] != 0;
}

static int by_severity(const void *a, const void *b)
{
    const hang *x = a, *y = b;
    if (x->event != UINT64_MAX || y->event != UINT64_MAX) /* indicators first, in order */
        return (x->event == UINT64_MAX) - (y->event == UINT64_MAX);
    if (x->duration != y->duration)
        return x->duration > y->duration ? -1 : 1;
    return x->seg < y->seg ? -1 : x->seg > y->seg;
}

/* ---- writing ------------------------------------------------------------------ */
static const char *wake_name(uint8_t w)
{
    switch (w) {
    case ARGUS_WAKE_AWAKENED: return "awakened";
    case ARGUS_WAKE_TIMED_OUT: return "timed_out";
    case ARGUS_WAKE_INTERRUPTED: return "interrupted";
    case ARGUS_WAKE_RESTART: return "restart";
    case ARGUS_WAKE_OTHER: return "other";
    default: return NULL;
    }
}

/* What a wait hang waited on: its final wait, or (SPIN-LOOP) the longest
 * wait inside its handler. */
static bool wait_of(const argus_graph *g, const hang *h, argus_wait_info *out)
{
    if (!h->loop)
        return argus_final_wait(g, h->seg, out);
    /* the longest wait within the stretch: inside the segment, or its
     * final one */
    const argus_seg *s = &g->segs[h->seg];
    uint64_t final = final_blocked(g, s, h->from, h->to);
    if (argus_longest_inner_wait(g, h->seg, h->from, h->to, out)) {
        uint64_t inner = overlap(out->from, out->to, h->from, h->to);
        if (inner > 0 && inner >= final)
            return true;
    }
    return final > 0 && argus_final_wait(g, h->seg, out);
}

static void put_hang(argus_writer *w, const argus_graph *g, uint32_t n,
                     const hang *h, const char *cls)
{
    const argus_seg *s = &g->segs[h->seg], *first = &g->segs[h->first];
    const argus_gthread *th = &g->threads[s->thread];
    argus_wait_info hw;
    bool is_wait = strcmp(cls, "wait") == 0 && wait_of(g, h, &hw);
    /* a busy node lasts while it runs; a wait until it ends, from the
     * first of its retries; a loop's stretch away from its wait */
    uint64_t until = h->loop ? h->to : h->waits == 0 ? s->end : argus_seg_until(g, s);
    uint64_t begin = h->loop ? h->from : first->begin;
    bool retried = h->waits > 1;
    argus_hang_finding f = {
        .hang = n, .seg = s->seg,
        .first_seg = retried ? first->seg : ARGUS_ABSENT,
        .waits = retried ? h->waits : ARGUS_ABSENT,
        .tid = th->tid, .pid = th->pid,
        .proc = argus_graph_opt_str(g, th->proc),
        .thread = argus_graph_opt_str(g, th->name),
        .begin = begin, .end = until, .duration = until - begin,
        .cls = cls, .indicator = h->indicator, .at = h->at,
        .event = h->event,
        .open = h->loop && h->to == g->t_last, /* the loop not back at its wait at the end */
        .events = s->nevents, .yields = s->nyields,
        .blocked = h->loop ? inner_blocked(g, s, h->from, h->to)
                   : h->waits == 0 ? 0
                   : first->wait_id != UINT64_MAX ? until - first->end : blocked_for(g, s),
        .timeouts = s->ntimeouts,
        .wait = ARGUS_ABSENT, .resource = ARGUS_ABSENT, .runnable = ARGUS_ABSENT,
    };
    if (is_wait) {
        f.wait = hw.id;
        f.resource = hw.resource;
        f.reason = argus_graph_opt_str(g, hw.reason);
        f.result = wake_name(hw.wake);
        if (hw.runnable >= MS)  /* then waited for a CPU */
            f.runnable = hw.runnable;
    }
    argus_write_hang(w, &f);
}

static void put_path(argus_writer *w, const argus_graph *g, uint32_t n,
                     int rank, const argus_path *p)
{
    const argus_seg *cause = &g->segs[p->steps[p->len - 1].seg];
    uint32_t nedges = p->len - 1;
    uint64_t *segs = argus_xmalloc((p->len + 2 * (size_t)nedges) * sizeof *segs, "a causal path");
    const char **kinds = argus_xmalloc(((size_t)nedges + 1) * sizeof *kinds, "a causal path");
    uint64_t *from = segs + p->len, *to = from + nedges;
    for (uint32_t i = p->len, k = 0; i-- > 0; k++)
        segs[k] = g->segs[p->steps[i].seg].seg;
    /* edges in cause-first order: step i's edge leads to step i-1 */
    for (uint32_t i = p->len - 1, k = 0; i >= 1; i--, k++) {
        uint32_t ei = p->steps[i].edge;
        if (ei == ARGUS_EDGE_THREAD) {
            /* program order: the earlier segment's end to the next */
            from[k] = g->segs[p->steps[i].seg].last_id;
            to[k] = g->segs[p->steps[i - 1].seg].first_id;
            kinds[k] = "thread";
        } else {
            const argus_gedge *e = &g->edges[ei];
            from[k] = e->from;
            to[k] = e->to;
            kinds[k] = argus_graph_str(g, e->kind);
        }
    }
    argus_path_finding f = {
        .hang = n, .rank = (uint64_t)rank, .score = p->score, .complete = p->complete,
        .nsegs = (int)p->len, .nfrom = (int)nedges, .nto = (int)nedges, .nkinds = (int)nedges,
        .segs = segs, .from = from, .to = to, .kinds = kinds,
        .ui = p->complete ? cause->ui_id : ARGUS_ABSENT,
        .ui_kind = p->complete ? argus_graph_str(g, cause->ui_kind) : NULL,
    };
    argus_write_path(w, &f);
    free(segs);
    free(kinds);
}

/* Where a hang's window begins: its wait's start (the first retry's), a
 * loop's stretch's start, a busy segment's begin. */
static uint64_t hang_from(const argus_graph *g, const hang *h)
{
    if (h->loop)
        return h->from;
    const argus_seg *first = &g->segs[h->first];
    return strcmp(class_of(g, h), "wait") == 0 ? first->end : first->begin;
}

static const char *const link_states[] = {"blocked", "running", "runnable", "unknown"};

static void put_chain(argus_writer *w, const argus_graph *g, uint32_t n,
                      const argus_chain *c)
{
    const argus_seg *last = &g->segs[c->segs[c->len - 1]];
    /* what the last thread waited on, when it was waiting then */
    bool waits = last->wait_id != UINT64_MAX && c->state[c->len - 1] == ARGUS_LINK_BLOCKED;
    uint64_t *u = argus_xmalloc(5 * (size_t)c->len * sizeof *u, "a wait chain");
    const char **texts = argus_xmalloc(2 * (size_t)c->len * sizeof *texts, "a wait chain");
    uint32_t len = c->len;
    argus_chain_finding f = {
        .hang = n, .nsegs = (int)len, .ntids = (int)len, .nvia = (int)len - 1,
        .nstates = (int)len, .nsince = (int)len, .nuntil = (int)len, .nwaits = (int)len,
        .segs = u, .tids = u + len, .since = u + 2 * len, .until = u + 3 * len,
        .waits = u + 4 * len, .states = texts, .via = texts + len, .end = c->end,
        .resource = waits ? last->wait_resource : ARGUS_ABSENT,
        .reason = waits && last->wait_reason ? argus_graph_str(g, last->wait_reason) : NULL,
    };
    for (uint32_t i = 0; i < len; i++) {
        f.segs[i] = g->segs[c->segs[i]].seg;
        f.tids[i] = g->threads[g->segs[c->segs[i]].thread].tid;
        f.since[i] = c->since[i];
        f.until[i] = c->until[i];
        f.waits[i] = c->waits[i];
        f.states[i] = link_states[c->state[i]];
        if (i + 1 < len)
            f.via[i] = c->via[i];
    }
    argus_write_chain(w, &f);
    free(u);
    free(texts);
}

/* The hang's critical path (argus_critical_path): its steps in time
 * order, each a map {tid, from, to, state}. */
static void put_critical_path(argus_writer *w, const argus_graph *g, uint32_t n,
                              const argus_cpath *cp)
{
    uint64_t *u = argus_xmalloc(3 * ((size_t)cp->len + 1) * sizeof *u, "a critical path");
    const char **state = argus_xmalloc(((size_t)cp->len + 1) * sizeof *state, "a critical path");
    argus_cpath_finding f = {.hang = n, .n = (int)cp->len, .tid = u,
                             .from = u + cp->len + 1, .to = u + 2 * (cp->len + 1),
                             .state = state};
    for (uint32_t i = 0; i < cp->len; i++) {
        const argus_cp_step *st = &cp->steps[i];
        f.tid[i] = g->threads[st->thread].tid;
        f.from[i] = st->from;
        f.to[i] = st->to;
        f.state[i] = st->state;
    }
    argus_write_cpath(w, &f);
    free(u);
    free(state);
}

/* ---- the stage: options, the events as the graph loads, the hangs -------- */

void argus_spin_defaults(argus_spin_options *o)
{
    memset(o, 0, sizeof *o);
    for (size_t i = 0; i < sizeof default_symbols / sizeof *default_symbols; i++)
        o->symbols[o->nsymbols++] = default_symbols[i];
    o->symbols[o->nsymbols++] = spinning_flag;
    for (size_t i = 0; i < argus_n_input_servers; i++)
        o->servers[o->nservers++] = argus_input_servers[i];
    o->hang_ms = ARGUS_SPIN_HANG_DEFAULT;
    o->paths = (argus_path_options){5, 64, true};
    o->wait_chain = true;
}

bool argus_spin_option(argus_spin_options *o, int c, const char *arg)
{
    switch (c) {
    case ARGUS_SPIN_OPT_INDICATOR:
        if (o->nsymbols == 64)
            argus_usage_error("too many --indicator symbols (at most 61)");
        if (!*arg)
            argus_usage_error("--indicator needs a symbol");
        o->symbols[o->nsymbols++] = arg;
        return true;
    case ARGUS_SPIN_OPT_HANG:
        o->hang_ms = argus_parse_uint_option("--hang", arg, 0, ARGUS_SPIN_MAX_HANG_MS,
                                             " ms (0: off)");
        return true;
    case ARGUS_SPIN_OPT_PROC: o->proc = arg; return true;
    case ARGUS_SPIN_OPT_INPUT_SERVER:
        if (o->nservers == 64)
            argus_usage_error("too many --input-server names (at most %d)",
                              64 - (int)argus_n_input_servers);
        o->servers[o->nservers++] = arg;
        return true;
    case ARGUS_SPIN_OPT_NO_IDLE: o->no_idle = true; return true;
    case ARGUS_SPIN_OPT_BEAM:
        o->paths.beam = (int)argus_parse_uint_option("--beam", arg, 1, 1000, NULL);
        return true;
    case ARGUS_SPIN_OPT_MAX_STEPS:
        o->paths.max_depth = (int)argus_parse_uint_option("--max-steps", arg, 1, 100000, NULL);
        return true;
    case ARGUS_SPIN_OPT_NO_THREAD_ORDER: o->paths.thread_order = false; return true;
    case ARGUS_SPIN_OPT_NO_WAIT_CHAIN: o->wait_chain = false; return true;
    default:
        return false;
    }
}

struct argus_spin {
    argus_spin_options o;
    finder f;
    watch w;
    bool linux_source;
};

argus_spin *argus_spin_start(const argus_spin_options *o, const argus_record *header)
{
    argus_spin *sp = argus_xcalloc(1, sizeof *sp, "find-spinning");
    sp->o = *o;
    sp->f.symbols = sp->o.symbols;
    sp->f.nsymbols = sp->o.nsymbols;
    sp->w = (watch){.no_idle = sp->o.no_idle, .proc = sp->o.proc,
                    .input_servers = sp->o.servers,
                    .ninput_servers = sp->o.nservers};
    /* SPIN-LOOP by default on Linux traces (the loops argus-record's
     * uprobes show); with --hang on any */
    sp->linux_source = linux_trace(header);
    const argus_field *lf = argus_get_named(header, "launched");
    if (lf && lf->kind == ARGUS_V_UINT)
        sp->w.launched = lf->u;
    int nfocus = argus_get_named_uint_array(header, "focus", sp->w.focus, ARGUS_MAX_FOCUS);
    sp->w.nfocus = nfocus > 0 ? nfocus : 0;
    argus_table_init(&sp->w.parents, sizeof(uint64_t));
    uint64_t hang_ms = sp->o.hang_ms;
    uint64_t loop_ms = hang_ms != HANG_LINUX_DEFAULT ? hang_ms
                       : sp->linux_source ? LOOP_HANG_MS : 0;
    sp->f.loops.limit = loop_ms * MS;
    argus_table_init(&sp->f.loops.threads, sizeof(loop_state));
    argus_table_init(&sp->f.loops.ui_pids, 1);
    argus_table_init(&sp->f.loops.servers, 1);
    sp->f.loops.server_names = sp->o.servers;
    sp->f.loops.nserver_names = sp->o.nservers;
    return sp;
}

void argus_spin_on_event(const argus_record *r, void *spin)
{
    on_event(r, &((argus_spin *)spin)->f);
}

void argus_spin_finish(argus_spin *sp, const argus_graph *g, argus_writer *out)
{
    finder *fp = &sp->f;
    watch *wp = &sp->w;
    uint64_t hang_ms = sp->o.hang_ms;
    bool linux_source = sp->linux_source;
    argus_path_options popt = sp->o.paths;
    bool wait_chain = sp->o.wait_chain;

    hangs found = {0};
    index_parents(g, &wp->parents);
    argus_count("indicators", fp->nfound);
    for (uint32_t i = 0; i < fp->nfound; i++) {
        const indicator *in = &fp->found[i];
        uint32_t t = main_thread_of(g, in->pid);
        uint32_t s = t == ARGUS_NONE ? ARGUS_NONE : spinning_node(g, t, in->ts);
        if (s == ARGUS_NONE) {
            argus_count("indicators with no main-thread segment", 1);
            continue;
        }
        if (!proc_is(g, t, wp->proc))
            continue;
        if (!add_hang(&found, (hang){.seg = s, .first = s, .waits = 1, .at = in->ts,
                                     .event = in->id, .indicator = in->what}))
            argus_count("indicators on a hang already found", 1);
    }
    /* loops still away from their wait when the trace ends */
    size_t pos = 0;
    uint64_t tid;
    void *val;
    while (argus_table_next(&fp->loops.threads, &pos, &tid, &val))
        loop_back(&fp->loops, tid, val, g->t_last);
    find_gui_processes(g, &fp->loops, wp);
    bool *loop_watched = loop_watched_threads(g, &fp->loops, wp);
    uint64_t nloops = 0;
    for (uint32_t t = 0; t < g->nthreads; t++)
        nloops += loop_watched[t];
    bool gui_loops = nloops > 0;
    if (gui_loops)
        argus_count(ARGUS_SPIN_COUNT_LOOPS, nloops);
    loop_hangs(g, &fp->loops, loop_watched, &found);
    /* SPIN-HANG by default on Linux: where a GUI program's loop is seen,
     * on the other GUI programs only, with SPIN-LOOP's limit; else on
     * every program, 500 ms. A watched loop is SPIN-LOOP's alone, but
     * with --hang (every wait or run of MS). */
    bool gui_only = false, explicit_hang = hang_ms != HANG_LINUX_DEFAULT;
    if (!explicit_hang) {
        hang_ms = !linux_source ? 0 : gui_loops ? LOOP_HANG_MS : LINUX_HANG_MS;
        gui_only = gui_loops;
    }
    if (hang_ms) {
        wp->limit = hang_ms * MS;
        for (uint32_t t = 0; t < g->nthreads; t++)
            if (watched(g, t, wp) && (explicit_hang || !loop_watched[t]) &&
                (!gui_only || gui_process(&fp->loops, g->threads[t].pid) ||
                 in_launched_tree(wp, g->threads[t].pid)))
                hangs_of_thread(g, t, wp, &found);
    }
    free(loop_watched);
    if (found.by_seg.value_size)
        argus_table_free(&found.by_seg); /* positions change from here */
    argus_sort(found.v, found.n, sizeof *found.v, by_severity);
    argus_chain *chains = argus_xcalloc(found.n + 1, sizeof *chains, "wait chains");
    for (uint32_t n = 0; n < found.n; n++) {
        const hang *h = &found.v[n];
        const char *cls = class_of(g, h);
        if (strcmp(cls, "wait") == 0 || strcmp(cls, "yield") == 0)
            argus_wait_chain(g, h->seg, hang_from(g, h), ARGUS_CHAIN_MAX, &chains[n]);
        if (strcmp(cls, "yield") == 0 && chains[n].len < 2)
            chains[n].len = 0;  /* a yield loop's chain: whom it yielded to (SPIN-YIELD) */
    }
    argus_cpath cp = {0};
    order_hangs(g, &found, chains, &fp->loops, wp);
    argus_count(ARGUS_SPIN_COUNT_HANGS, found.n);
    for (uint32_t n = 0; n < found.n; n++) {
        const hang *h = &found.v[n];
        const char *cls = class_of(g, h);
        put_hang(out, g, n, h, cls);
        argus_path *paths;
        int np = argus_path_search(g, h->seg, &popt, &paths);
        for (int i = 0; i < np; i++)
            put_path(out, g, n, i + 1, &paths[i]);
        if (np && !paths[0].complete)
            argus_count("hang nodes with no path to a ui_event", 1);
        argus_paths_free(paths, np);
        if (wait_chain && chains[n].len)
            put_chain(out, g, n, &chains[n]);
        if (wait_chain) {
            argus_critical_path(g, h->seg, hang_from(g, h), &cp);
            if (cp.len)
                put_critical_path(out, g, n, &cp);
        }
    }
    free(cp.steps);
    free(chains);
    free(found.v);
    free(fp->found);
    free(fp->loops.v);
    argus_table_free(&fp->loops.threads);
    argus_table_free(&fp->loops.ui_pids);
    argus_table_free(&fp->loops.servers);
    argus_table_free(&wp->parents);
    free(sp);
}
