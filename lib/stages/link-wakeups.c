/* link-wakeups: links a wakeup to the woken it causes, the wait it ends
 * to its waker, and a thread's own wait to its woken when no thread
 * caused it (docs/stages/link-wakeups.md; the command line is
 * filters/link-wakeups.c). */
#include "argus/stages/builtin.h"
#include "argus/stream/table.h"
#include "argus/stream/cli.h"

#include <stdlib.h>

enum run_state {
    STATE_UNKNOWN,   /* no event of the thread yet: it may be in a wait */
    STATE_RUNNING,
    STATE_WAITING,   /* its latest own event is a wait */
};

typedef struct thread_state {
    uint64_t wait_id;              /* the wait, in STATE_WAITING */
    uint64_t held_wakeup, held_woken;  /* WAKE-WORKQ: edge held until the
                                        * thread's next event */
    uint8_t state;
    bool main, kernel;             /* from its thread record */
    bool after_dispatch_end;       /* latest own event ends a dispatch_invoke */
    bool holding;
} thread_state;

/* A pending wakeup, in the argus_fifo keyed by target tid: aux is the
 * waker's pid, aux2 these bits. */
enum {
    WAKER_CTX = 1,          /* made inside an interrupt/maintenance window */
    WAKER_TIMED_OUT = 2,    /* the wakeup's own result is timed_out */
    WAKER_DONE_ITEM = 4,    /* by a worker whose latest event ends an item */
};

static bool is_worker(const thread_state *t) { return !t->main && !t->kernel; }

/* Events that ran inside an interrupt or maintenance window are not the
 * thread's own: they neither change its wait state nor count as its
 * latest or next event. */
static bool is_own_event(const argus_record *r)
{
    return argus_get(r, ARGUS_K_CTX) == NULL;
}

typedef argus_link_wakeups_options options;

/* The edges of a woken on thread TID (state T). */
static void link_woken(argus_writer *out, argus_fifo *pending, options o,
                       thread_state *t, const argus_record *r)
{
    bool has_wait = t->state == STATE_WAITING;
    if (!has_wait)
        argus_count("woken without wait", 1);
    argus_fifo_item waker;
    bool has_waker = argus_fifo_take(pending, r->tid, NULL, NULL, &waker);
    if (!has_waker)
        argus_count("woken without wakeup", 1);

    bool timed_out = argus_get(r, ARGUS_K_RESULT)
                         ? argus_text_is(r, ARGUS_K_RESULT, "timed_out")
                         : has_waker && (waker.aux2 & WAKER_TIMED_OUT);
    bool external = o.external &&
                    (!has_waker || timed_out || (waker.aux2 & WAKER_CTX));
    if (external) {
        if (has_waker)
            argus_count("wakeups left out (WAKE-EXTERNAL)", 1);
        if (has_wait) {
            argus_put_edge(out, "resume", t->wait_id, r->id, false);
            argus_count("resume edges", 1);
        }
        return;
    }
    if (!has_waker)
        return;
    if (has_wait && o.weak) {
        argus_put_edge(out, "wait", t->wait_id, waker.id, true);
        argus_count("wait edges", 1);
    }
    if (o.workq && (waker.aux2 & WAKER_DONE_ITEM) && is_worker(t) &&
        waker.aux == r->pid) {
        /* whether the target goes on to invoke an item is known at its
         * next event */
        t->holding = true;
        t->held_wakeup = waker.id;
        t->held_woken = r->id;
        return;
    }
    argus_put_edge(out, "wakeup", waker.id, r->id, false);
    argus_count("wakeup edges", 1);
}

static void release_held(argus_writer *out, thread_state *t, bool weak)
{
    argus_put_edge(out, "wakeup", t->held_wakeup, t->held_woken, weak);
    argus_count(weak ? "wakeup edges made weak (WAKE-WORKQ)" : "wakeup edges", 1);
    t->holding = false;
}

static int by_held_woken(const void *a, const void *b)
{
    uint64_t x = (*(thread_state *const *)a)->held_woken;
    uint64_t y = (*(thread_state *const *)b)->held_woken;
    return x < y ? -1 : x > y;
}

/* At the end of the stream, held edges whose target did nothing more are
 * written strong, in the order of their woken. */
static void release_all_held(argus_writer *out, argus_table *threads)
{
    size_t n = 0, cap = 0, pos = 0;
    thread_state **held = NULL;
    uint64_t tid;
    void *v;
    while (argus_table_next(threads, &pos, &tid, &v)) {
        thread_state *t = v;
        if (!t->holding)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            held = argus_xrealloc(held, cap * sizeof *held, "held wakeups");
        }
        held[n++] = t;
    }
    argus_sort(held, n, sizeof *held, by_held_woken);
    for (size_t i = 0; i < n; i++)
        release_held(out, held[i], false);
    free(held);
}

static void link_wakeup(argus_fifo *pending, argus_table *threads,
                        const thread_state *waker, const argus_record *r)
{
    uint64_t target;
    if (!argus_get_uint(r, ARGUS_K_TARGET, &target)) {
        argus_count("wakeups without target", 1);
        return;
    }
    if (target == r->tid) {
        argus_count("wakeups of the waker's own thread", 1);
        return;
    }
    const thread_state *t = argus_table_get(threads, target);
    if (!t) {
        /* kept: its woken may come later (a thread that waited since
         * before the trace began) */
        argus_count("wakeups of an unknown thread", 1);
    } else if (t->state == STATE_RUNNING) {
        argus_count("wakeups of a thread not waiting", 1);
        return;
    }
    argus_fifo_item earlier;
    if (argus_fifo_take(pending, target, NULL, NULL, &earlier))
        argus_count("wakeups replaced by a later one", 1);
    uint64_t bits = 0;
    if (!is_own_event(r))
        bits |= WAKER_CTX;
    else if (is_worker(waker) && waker->after_dispatch_end)
        bits |= WAKER_DONE_ITEM;
    if (argus_text_is(r, ARGUS_K_RESULT, "timed_out"))
        bits |= WAKER_TIMED_OUT;
    argus_fifo_push(pending, target, r->id, r->pid, bits);
}

typedef struct waker_linker {
    options o;
    argus_table threads;       /* tid -> thread_state */
    argus_fifo *pending;       /* wakeups by target tid */
} waker_linker;

static void *link_wakeups_start(const void *options, const argus_options *common)
{
    static const argus_link_wakeups_options defaults = ARGUS_LINK_WAKEUPS_DEFAULTS;
    waker_linker *k = argus_xcalloc(1, sizeof *k, "waker linker");
    k->o = options ? *(const argus_link_wakeups_options *)options : defaults;
    argus_table_init(&k->threads, sizeof(thread_state));
    k->pending = argus_fifo_new(common->max_pending, "pending wakeups dropped (max-pending)");
    return k;
}

static void link_wakeups_record(void *self, const argus_record *r, argus_writer *out)
{
    waker_linker *k = self;
    argus_write_record(out, r);
    if (r->type == ARGUS_T_THREAD) {
        uint64_t tid;
        if (argus_get_uint(r, ARGUS_K_TID, &tid)) {
            thread_state *t = argus_table_put(&k->threads, tid, NULL);
            bool flag;
            t->main = argus_get_bool(r, ARGUS_K_MAIN, &flag) && flag;
            t->kernel = argus_get_bool(r, ARGUS_K_KERNEL, &flag) && flag;
        }
        return;
    }
    if (!r->is_event)
        return;
    thread_state *t = argus_table_put(&k->threads, r->tid, NULL);
    bool own = is_own_event(r);
    if (own && t->holding)
        release_held(out, t,
                     r->type == ARGUS_T_DISPATCH_INVOKE &&
                         argus_text_is(r, ARGUS_K_PHASE, "begin"));
    if (own && t->state == STATE_WAITING && r->type != ARGUS_T_WOKEN) {
        /* a wait that ends with no woken (a stream decode did not
         * write): whatever woke it is stale now */
        argus_count("waits ended without woken", 1);
        argus_fifo_item stale;
        argus_fifo_take(k->pending, r->tid, NULL, NULL, &stale);
    }
    if (r->type == ARGUS_T_WAKEUP) {
        thread_state waker = *t;   /* the table may grow below */
        link_wakeup(k->pending, &k->threads, &waker, r);
        t = argus_table_get(&k->threads, r->tid);
    } else if (own && r->type == ARGUS_T_WOKEN) {
        link_woken(out, k->pending, k->o, t, r);
    }
    if (!own)
        return;
    if (r->type == ARGUS_T_WAIT) {
        t->state = STATE_WAITING;
        t->wait_id = r->id;
    } else {
        t->state = STATE_RUNNING;
    }
    t->after_dispatch_end = r->type == ARGUS_T_DISPATCH_INVOKE &&
                            argus_text_is(r, ARGUS_K_PHASE, "end");
}

static void link_wakeups_discard(void *self)
{
    waker_linker *k = self;
    argus_fifo_free(k->pending);
    argus_table_free(&k->threads);
    free(k);
}

static void link_wakeups_finish(void *self, argus_writer *out)
{
    waker_linker *k = self;
    release_all_held(out, &k->threads);
    if (argus_fifo_pending(k->pending))
        argus_count("wakeups left without woken", argus_fifo_pending(k->pending));
    link_wakeups_discard(k);
}

const argus_stage_def argus_link_wakeups_stage = {
    "link-wakeups", link_wakeups_start, link_wakeups_record, link_wakeups_finish,
    link_wakeups_discard,
};
