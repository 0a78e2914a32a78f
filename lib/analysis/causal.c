/* Backward causal searches (include/argus/analysis/causal.h). */
#include "argus/analysis/causal.h"

#include "argus/stream/cli.h"

#include <stdlib.h>
#include <string.h>

typedef struct state {
    uint32_t seg, edge, parent; /* parent: state index, ARGUS_NONE */
    int score;
    uint32_t depth;
} state;

typedef struct pool {
    state *v;
    uint32_t n;
    size_t cap;
} pool;

static uint32_t pool_add(pool *p, state s)
{
    *ARGUS_PUSH(p->v, p->n, p->cap) = s;
    return p->n - 1;
}

static bool on_path(const pool *p, uint32_t st, uint32_t seg)
{
    for (; st != ARGUS_NONE; st = p->v[st].parent)
        if (p->v[st].seg == seg)
            return true;
    return false;
}

static const pool *sort_pool;

/* Best first: lower score, then shorter, then the later cause. */
static int by_score(const void *a, const void *b)
{
    const state *x = &sort_pool->v[*(const uint32_t *)a];
    const state *y = &sort_pool->v[*(const uint32_t *)b];
    if (x->score != y->score)
        return x->score < y->score ? -1 : 1;
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    return x->seg < y->seg ? 1 : x->seg > y->seg ? -1 : 0;
}

typedef struct idlist {
    uint32_t *v;
    uint32_t n;
    size_t cap;
} idlist;

static void idlist_add(idlist *l, uint32_t x)
{
    *ARGUS_PUSH(l->v, l->n, l->cap) = x;
}

static void sort_states(const pool *p, idlist *l)
{
    if (l->n == 0)
        return;
    sort_pool = p;
    argus_sort(l->v, l->n, sizeof *l->v, by_score);
}

/* The path ending in state ST (the cause), hang first. Each step keeps
 * the edge its state was reached over. */
static argus_path make_path(const pool *p, uint32_t st, bool complete)
{
    argus_path path = {0};
    path.len = p->v[st].depth + 1;
    path.score = p->v[st].score;
    path.complete = complete;
    path.steps = argus_xmalloc(path.len * sizeof *path.steps, "path search");
    for (uint32_t i = path.len; i-- > 0; st = p->v[st].parent)
        path.steps[i] = (argus_step){p->v[st].seg, p->v[st].edge};
    return path;
}

int argus_path_search(const argus_graph *g, uint32_t start,
                      const argus_path_options *opt, argus_path **out)
{
    pool p = {0};
    idlist frontier = {0}, next = {0}, done = {0}, dead = {0};
    idlist_add(&frontier, pool_add(&p, (state){start, ARGUS_NONE, ARGUS_NONE, 0, 0}));
    int beam = opt->beam > 0 ? opt->beam : 1;
    for (int depth = 0; frontier.n; depth++) {
        next.n = 0;
        for (uint32_t i = 0; i < frontier.n; i++) {
            uint32_t st = frontier.v[i];
            const state cur = p.v[st];
            const argus_seg *s = &g->segs[cur.seg];
            if (s->ui_id != UINT64_MAX) {
                idlist_add(&done, st);
                continue;
            }
            if (depth >= opt->max_depth) {
                idlist_add(&dead, st);
                continue;
            }
            uint32_t before = next.n;
            for (uint32_t k = 0; k < s->in_len; k++) {
                uint32_t ei = g->in_edges[s->in_off + k];
                const argus_gedge *e = &g->edges[ei];
                if (e->from_seg == cur.seg || on_path(&p, st, e->from_seg))
                    continue;
                int cost = e->weak ? 1 : -1;
                idlist_add(&next, pool_add(&p, (state){e->from_seg, ei, st,
                                                       cur.score + cost,
                                                       cur.depth + 1}));
            }
            /* program order: where no edge leads in, and where the
             * thread ran straight on from its previous segment (no wait
             * between: a loop's next callout, a source a handler queued
             * dispatched right after it) */
            uint32_t prev = s->prev;
            while (prev != ARGUS_NONE && g->segs[prev].ctx)
                prev = g->segs[prev].prev;
            bool ran_on = prev != ARGUS_NONE && g->segs[prev].wait_id == UINT64_MAX;
            for (uint32_t k = before; ran_on && k < next.n; k++)
                if (p.v[next.v[k]].seg == prev)
                    ran_on = false;     /* an edge leads there already */
            if ((next.n == before || ran_on) && opt->thread_order) {
                if (prev != ARGUS_NONE && !on_path(&p, st, prev))
                    idlist_add(&next, pool_add(&p, (state){prev, ARGUS_EDGE_THREAD,
                                                           st, cur.score + 2,
                                                           cur.depth + 1}));
            }
            if (next.n == before)
                idlist_add(&dead, st);
        }
        sort_states(&p, &next);
        if (next.n > (uint32_t)beam)
            next.n = (uint32_t)beam;
        idlist t = frontier;
        frontier = next;
        next = t;
    }
    bool complete = done.n > 0;
    idlist *pick = complete ? &done : &dead;
    sort_states(&p, pick);
    int n = pick->n < (uint32_t)beam ? (int)pick->n : beam;
    argus_path *paths = argus_xcalloc((size_t)n + 1, sizeof *paths, "path search");
    for (int i = 0; i < n; i++) {
        uint32_t st = pick->v[i];
        paths[i] = make_path(&p, st, complete);
    }
    free(p.v);
    free(frontier.v);
    free(next.v);
    free(done.v);
    free(dead.v);
    *out = paths;
    return n;
}

void argus_paths_free(argus_path *paths, int n)
{
    for (int i = 0; i < n; i++)
        free(paths[i].steps);
    free(paths);
}

/* ---- the wait chain --------------------------------------------------------- */
bool argus_final_wait(const argus_graph *g, uint32_t s, argus_wait_info *out)
{
    const argus_seg *x = &g->segs[s];
    if (x->wait_id == UINT64_MAX)
        return false;
    /* the final wait is the segment's last event */
    *out = (argus_wait_info){x->wait_id, x->end, x->resume, x->wait_resource, x->runnable,
                             x->wait_reason, x->wake};
    return true;
}

static void inner_wait_info(const argus_inner_wait *w, argus_wait_info *out)
{
    *out = (argus_wait_info){w->wait_id, w->from, w->to, w->resource, w->runnable, w->reason,
                             w->wake};
}

bool argus_wait_at(const argus_graph *g, uint32_t s, uint64_t t, argus_wait_info *out)
{
    uint32_t n;
    const argus_inner_wait *iw = argus_seg_inner_waits(g, s, &n);
    for (uint32_t k = 0; k < n; k++) {
        const argus_inner_wait *w = &iw[k];
        if (w->from <= t && t < w->to) {
            inner_wait_info(w, out);
            return true;
        }
    }
    return argus_final_wait(g, s, out) && out->from <= t && (out->to == UINT64_MAX || out->to > t);
}

bool argus_longest_inner_wait(const argus_graph *g, uint32_t s, uint64_t from, uint64_t to,
                              argus_wait_info *out)
{
    uint32_t n;
    const argus_inner_wait *iw = argus_seg_inner_waits(g, s, &n);
    const argus_inner_wait *best = NULL;
    uint64_t best_len = 0;
    for (uint32_t k = 0; k < n; k++) {
        const argus_inner_wait *w = &iw[k];
        uint64_t a = w->from > from ? w->from : from, b = w->to < to ? w->to : to;
        if (b > a && (!best || b - a > best_len)) {
            best = w;
            best_len = b - a;
        }
    }
    if (best)
        inner_wait_info(best, out);
    return best != NULL;
}

static const argus_gedge *out_edge(const argus_graph *g, const argus_seg *s,
                                   uint64_t from_id, const char *kind)
{
    for (uint32_t k = 0; k < s->out_len; k++) {
        const argus_gedge *e = &g->edges[g->out_edges[s->out_off + k]];
        if (e->from == from_id && e->to_seg != ARGUS_NONE &&
            strcmp(argus_graph_str(g, e->kind), kind) == 0)
            return e;
    }
    return NULL;
}

/* A thread's time, taken apart backward from an instant: what it was
 * doing in each stretch. */
enum piece_kind {
    P_RUN,          /* it ran (its own work) */
    P_RUNNABLE,     /* woken, waiting for a CPU */
    P_WOKEN,        /* blocked until another thread woke it (next, wake) */
    P_TIMEOUT,      /* blocked until its own timer expired */
    P_IO,           /* blocked until an interrupt ended the wait */
    P_UNKNOWN,      /* blocked; nothing in the trace woke it */
    P_BEFORE,       /* before its first event in the trace */
};

typedef struct piece {
    uint8_t kind;
    uint32_t seg;           /* the segment that ran, or ends in the wait */
    uint32_t next;          /* P_WOKEN: the waker's segment holding the wakeup */
    uint64_t from, to;
    uint32_t waits;         /* waits merged into it (a retried wait) */
    uint32_t first;         /* the segment of the first of them */
    uint32_t longest;       /* ... and of the longest (what the link shows) */
    uint64_t holder;        /* P_RUNNABLE: the tid that held the CPU, 0 */
    uint64_t wait_id;       /* a wait inside a segment (0: its final one) */
} piece;

#define MAX_PIECES 512
#define RETRY_GAP (50 * 1000000ull)  /* a run between retries, at most */

static uint32_t prev_own(const argus_graph *g, uint32_t s)
{
    uint32_t p = g->segs[s].prev;
    while (p != ARGUS_NONE && g->segs[p].ctx)
        p = g->segs[p].prev;
    return p;
}

uint32_t argus_next_own(const argus_graph *g, uint32_t s)
{
    uint32_t n = g->segs[s].next;
    while (n != ARGUS_NONE && g->segs[n].ctx)
        n = g->segs[n].next;
    return n;
}

/* How wait WAIT_ID of segment P ended (WAKE), and the waker's segment in
 * *NEXT: the final wait's stretches, blocked then runnable (when the woken
 * says how long), and an inner wait's. */
static uint8_t wait_end_kind(const argus_graph *g, const argus_seg *p, uint64_t wait_id,
                             uint8_t wake, uint32_t *next)
{
    const argus_gedge *e = out_edge(g, p, wait_id, "wait");
    *next = ARGUS_NONE;
    if (wake == ARGUS_WAKE_TIMED_OUT)
        return P_TIMEOUT;
    if (e) {
        *next = e->to_seg;
        return P_WOKEN;
    }
    if (wait_id == p->wait_id)
        return p->woken_external ? P_IO : P_UNKNOWN;
    return out_edge(g, p, wait_id, "resume") ? P_IO : P_UNKNOWN;
}

static void add_piece(piece *v, int *n, piece x, uint64_t lo)
{
    if (x.to <= lo || x.to <= x.from || *n == MAX_PIECES)
        return;
    if (x.from < lo)
        x.from = lo;
    if (x.kind == P_RUN && *n && v[*n - 1].kind == P_RUN) {
        v[*n - 1].from = x.from;    /* one stretch of running */
        return;
    }
    x.waits = x.kind == P_RUN || x.kind == P_RUNNABLE ? 0 : 1;
    x.first = x.longest = x.seg;
    v[(*n)++] = x;
}

/* Wait WAIT_ID of segment S (ended WAKE, for REASON), followed by another
 * for the same reason on the SAME resource or not: taken up again when it
 * timed out (or was interrupted) on the same resource, or a thread of its
 * own process woke it. */
static bool taken_up_again(const argus_graph *g, const argus_seg *s, uint64_t wait_id,
                           uint8_t wake, uint32_t reason, bool same)
{
    if (wake == ARGUS_WAKE_TIMED_OUT || wake == ARGUS_WAKE_INTERRUPTED ||
        wake == ARGUS_WAKE_RESTART)
        return same;
    /* woken by a thread of its own process: a worker's progress, not what
     * it waited for; on futexes the word changes from one wait to the next
     * (a condition variable's two groups, its mutex), so any futex */
    const argus_gedge *e = out_edge(g, s, wait_id, "wait");
    return e && g->threads[g->segs[e->to_seg].thread].pid == g->threads[s->thread].pid &&
           (same || strcmp(argus_graph_str(g, reason), "futex") == 0);
}

bool argus_wait_retried(const argus_graph *g, uint32_t a, uint32_t b)
{
    const argus_seg *x = &g->segs[a], *y = &g->segs[b];
    if (b != argus_next_own(g, a) || x->wait_id == UINT64_MAX || x->resume == UINT64_MAX ||
        y->wait_id == UINT64_MAX || x->wait_reason != y->wait_reason ||
        y->end - x->resume > RETRY_GAP)
        return false;
    /* uninterruptible waits outside any system call the trace names: page
     * faults reading the disk one after another, whoever completed each */
    if (strcmp(argus_graph_str(g, x->wait_reason), "disk") == 0)
        return true;
    return taken_up_again(g, x, x->wait_id, x->wake, x->wait_reason,
                          x->wait_resource == y->wait_resource);
}

/* The wait inside segment S that began at FROM. */
static const argus_inner_wait *inner_wait_from(const argus_graph *g, uint32_t s, uint64_t from)
{
    uint32_t n;
    const argus_inner_wait *iw = argus_seg_inner_waits(g, s, &n);
    for (uint32_t k = 0; k < n; k++)
        if (iw[k].from == from)
            return &iw[k];
    return NULL;
}

/* Whether wait piece X is taken up again by the later one Y: two
 * segments' final waits (argus_wait_retried; Y's first), or two waits
 * inside one segment, told alike (a nested loop's poll its own timer
 * ended: GTK's clipboard wait retries every second). */
static bool pieces_retried(const argus_graph *g, const piece *x, const piece *y)
{
    if (x->wait_id == 0)
        return argus_wait_retried(g, x->seg, y->first);
    if (y->wait_id == 0 || y->seg != x->seg)
        return false;
    const argus_inner_wait *a = inner_wait_from(g, x->seg, x->from);
    const argus_inner_wait *b = inner_wait_from(g, y->seg, y->from); /* its first */
    return a && b && a->reason == b->reason && b->from >= a->to &&
           b->from - a->to <= RETRY_GAP &&
           taken_up_again(g, &g->segs[x->seg], a->wait_id, a->wake, a->reason,
                          a->resource == b->resource);
}

/* A wait taken up again (pieces_retried): one wait with the later one's
 * ending. V[N-1] is the earlier wait just added, V[N-2] the run after it
 * (runnable time folded in), V[N-3] the later wait. */
static void merge_retry(const argus_graph *g, piece *v, int *n)
{
    int k = *n - 1, r = k - 1;
    if (k < 2 || v[k].kind == P_RUN || v[k].kind == P_RUNNABLE || v[k].kind == P_BEFORE)
        return;
    while (r >= 0 && (v[r].kind == P_RUN || v[r].kind == P_RUNNABLE))
        r--;
    if (r < 0 || v[r].kind == P_BEFORE || !pieces_retried(g, &v[k], &v[r]))
        return;
    const argus_seg *a = &g->segs[v[k].longest], *b = &g->segs[v[r].longest];
    if (argus_seg_until(g, a) - a->end > argus_seg_until(g, b) - b->end)
        v[r].longest = v[k].longest;
    v[r].from = v[k].from;
    v[r].waits += v[k].waits;
    v[r].first = v[k].first;
    *n = r + 1;
}

/* The stretches of CUR's thread from HI back to LO, latest first, after
 * the *N in V: CUR is the segment it was in at HI. Returns the new *N. */
static int take_apart_after(const argus_graph *g, uint32_t cur, uint64_t hi, uint64_t lo,
                            piece *v, int n)
{
    uint64_t t = hi;
    while (cur != ARGUS_NONE && n < MAX_PIECES) {
        const argus_seg *s = &g->segs[cur];
        /* it ran, but for the stretches it was preempted and the waits
         * inside it (a callout's), latest first */
        uint32_t kp, kw;
        const argus_preempt *pres = argus_seg_preempts(g, cur, &kp);
        const argus_inner_wait *iws = argus_seg_inner_waits(g, cur, &kw);
        while (kp > 0 || kw > 0) {
            const argus_preempt *pr = kp ? &pres[kp - 1] : NULL;
            const argus_inner_wait *iw = kw ? &iws[kw - 1] : NULL;
            if (iw && (!pr || iw->to > pr->to)) {
                kw--;
                if (iw->to > t || iw->from < s->begin)
                    continue;
                uint64_t woke = iw->to - iw->runnable;
                uint32_t next;
                uint8_t kind = wait_end_kind(g, s, iw->wait_id, iw->wake, &next);
                add_piece(v, &n, (piece){P_RUN, cur, ARGUS_NONE, iw->to, t, 0, cur, cur, 0, 0}, lo);
                add_piece(v, &n, (piece){P_RUNNABLE, cur, ARGUS_NONE, woke, iw->to, 0, cur, cur,
                                         iw->cpu_holder, 0}, lo);
                add_piece(v, &n, (piece){kind, cur, next, iw->from, woke, 0, cur, cur, 0,
                                         iw->wait_id}, lo);
                merge_retry(g, v, &n);
                t = iw->from;
                continue;
            }
            kp--;
            if (pr->to > t || pr->from < s->begin)
                continue;
            add_piece(v, &n, (piece){P_RUN, cur, ARGUS_NONE, pr->to, t, 0, cur, cur, 0, 0}, lo);
            add_piece(v, &n, (piece){P_RUNNABLE, cur, ARGUS_NONE, pr->from, pr->to, 0, cur, cur,
                                     pr->holder, 0}, lo);
            t = pr->from;
        }
        add_piece(v, &n, (piece){P_RUN, cur, ARGUS_NONE, s->begin, t, 0, cur, cur, 0, 0}, lo);
        if (s->begin <= lo)
            break;
        uint32_t p = prev_own(g, cur);
        if (p == ARGUS_NONE) {
            add_piece(v, &n, (piece){P_BEFORE, cur, ARGUS_NONE, lo, s->begin, 0, cur, cur, 0, 0}, lo);
            break;
        }
        const argus_seg *ps = &g->segs[p];
        if (ps->wait_id != UINT64_MAX && ps->resume != UINT64_MAX) {
            uint64_t resume = ps->resume;
            uint64_t woke = resume - ps->runnable;
            if (woke < ps->end)
                woke = ps->end;
            add_piece(v, &n, (piece){P_RUNNABLE, p, ARGUS_NONE, woke, resume, 0, p, p,
                                     ps->cpu_holder, 0}, lo);
            uint32_t next;
            uint8_t kind = wait_end_kind(g, ps, ps->wait_id, ps->wake, &next);
            add_piece(v, &n, (piece){kind, p, next, ps->end, woke, 0, p, p, 0, 0}, lo);
            merge_retry(g, v, &n);
            t = ps->end;
        } else {
            t = s->begin;       /* split without a wait: it ran on */
        }
        cur = p;
    }
    return n;
}

/* SPIN-SUM: the stretch that held the thread up most (ties go to the
 * latest). Its time on the CPU or waiting for one counts as one stretch,
 * the sum of its running and runnable pieces; each blocked stretch counts
 * alone (each leads to its own waker). When the CPU time wins, the link
 * is running if the thread ran a tenth of the window or more (its own
 * work, slowed or not by others), else runnable (held off the CPU: its
 * holder is the one that held the CPU longest over those pieces, when it
 * held it half that time: SPIN-HOLDER). A busy
 * worker preempted a thousand times ran; a thread that needed 30 ms and
 * waited 2 s for a CPU was held off it. *OUT spans the pieces of the
 * state it reads as. */
typedef struct dominant_t {
    const piece *p;             /* the piece standing for it (the latest) */
    uint64_t from, to, sum;
    uint64_t holder;
} dominant_t;

static uint64_t holder_time(const piece *v, int n, uint64_t holder)
{
    uint64_t t = 0;
    for (int i = 0; i < n; i++)
        if (v[i].kind == P_RUNNABLE && v[i].holder == holder)
            t += v[i].to - v[i].from;
    return t;
}

/* SPIN-HOLDER: the tid that held the CPU over the runnable pieces of V
 * longest, their holders' times summed, when it held it half of their
 * time or more; 0 when no one thread did. */
static uint64_t runnable_holder(const piece *v, int n)
{
    uint64_t runnable = 0, best = 0, holder = 0;
    for (int i = 0; i < n; i++) {
        if (v[i].kind != P_RUNNABLE)
            continue;
        runnable += v[i].to - v[i].from;
        uint64_t t = v[i].holder ? holder_time(v, n, v[i].holder) : 0;
        if (t > best) {
            best = t;
            holder = v[i].holder;
        }
    }
    return best * 2 < runnable ? 0 : holder;
}

static bool dominant(const piece *v, int n, dominant_t *out)
{
    uint64_t run = 0, runnable = 0, window = 0;
    int latest_run = -1, latest_runnable = -1, latest_cpu = -1;
    for (int i = 0; i < n; i++) {
        uint64_t len = v[i].to - v[i].from;
        window += len;
        if (v[i].kind == P_RUN) {
            run += len;
            if (latest_run < 0)
                latest_run = i;
        } else if (v[i].kind == P_RUNNABLE) {
            runnable += len;
            if (latest_runnable < 0)
                latest_runnable = i;
        }
        if ((v[i].kind == P_RUN || v[i].kind == P_RUNNABLE) && latest_cpu < 0)
            latest_cpu = i;
    }
    *out = (dominant_t){0};
    for (int i = 0; i < n; i++) {
        bool cpu = v[i].kind == P_RUN || v[i].kind == P_RUNNABLE;
        if (v[i].kind == P_BEFORE || (cpu && i != latest_cpu))
            continue;
        uint64_t len = cpu ? run + runnable : v[i].to - v[i].from;
        if (out->p && len <= out->sum)
            continue;
        *out = (dominant_t){&v[i], v[i].from, v[i].to, len, 0};
        if (!cpu)
            continue;
        bool ran = run > 0 && (run * 10 >= window || runnable == 0);
        out->p = &v[ran ? latest_run : latest_runnable];
        out->to = out->p->to;
        out->from = out->p->from;
        for (int j = 0; j < n; j++)     /* the span of the pieces of its state */
            if (v[j].kind == out->p->kind && v[j].from < out->from)
                out->from = v[j].from;
        if (!ran)
            out->holder = runnable_holder(v, n);
    }
    return out->p != NULL;
}

/* The index of the first of OPS (N of them, in ts order) at TS or
 * after; N when there is none. */
static uint32_t first_op_from(const argus_lock_op *ops, uint32_t n, uint64_t ts)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ops[mid].ts < ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A wait retried after timeouts, around failed file-lock tries: the
 * thread that released the lock, by its successful lock call after the
 * last failed try and before the waiter's own success (the trace names no
 * file: the latest such call of another process). Its segment, and the
 * release's time in *AT; ARGUS_NONE when there is none. */
static uint32_t lock_releaser(const argus_graph *g, const piece *d, uint64_t *at)
{
    uint64_t failed = 0;
    for (uint32_t s = d->first; s != ARGUS_NONE; s = argus_next_own(g, s)) {
        uint64_t ts = argus_seg_lock_failed(g, s);
        if (ts > failed)
            failed = ts;
        if (s == d->seg)
            break;
    }
    if (!failed)
        return ARGUS_NONE;
    /* the first lock op after the failed try */
    uint32_t lo = first_op_from(g->locks, g->nlocks, failed + 1);
    uint64_t pid = g->threads[g->segs[d->seg].thread].pid;
    uint32_t best = ARGUS_NONE;
    for (uint32_t i = lo; i < g->nlocks; i++) {
        const argus_gthread *t = &g->threads[g->segs[g->locks[i].seg].thread];
        if (t->pid == pid)
            break;              /* the waiter got it */
        best = i;
    }
    if (best == ARGUS_NONE)
        return ARGUS_NONE;
    *at = g->locks[best].ts;
    return g->locks[best].seg;
}

#define ACCEPT_GAP (100 * 1000000ull)   /* a connection taken, after its connect */

/* SPIN-ACCEPT: a wait D for a connection (a blocking connect, or waits
 * after a connect that returned EINPROGRESS) that no thread ended: the
 * first accept by another process within 100 ms of D's end took that
 * connection: the local server, whose not accepting held D up. Its
 * segment, the accept's end in *AT; ARGUS_NONE when there is none. */
static uint32_t connect_acceptor(const argus_graph *g, const piece *d, const char *reason,
                                 uint64_t *at)
{
    bool connecting = reason && strcmp(reason, "connect") == 0;
    for (uint32_t s = d->first; !connecting && s != ARGUS_NONE; s = argus_next_own(g, s)) {
        connecting = argus_seg_connect_started(g, s) != 0;
        if (s == d->seg)
            break;
    }
    if (!connecting)
        return ARGUS_NONE;
    uint32_t lo = first_op_from(g->accepts, g->naccepts, d->to);
    uint64_t pid = g->threads[g->segs[d->seg].thread].pid;
    for (uint32_t i = lo; i < g->naccepts && g->accepts[i].ts <= d->to + ACCEPT_GAP; i++) {
        if (g->threads[g->segs[g->accepts[i].seg].thread].pid == pid)
            continue;
        *at = g->accepts[i].ts;
        return g->accepts[i].seg;
    }
    return ARGUS_NONE;
}

/* A wait on a lock (a futex, macOS's psynch mutex), by its reason. */
static bool lock_reason(const char *reason)
{
    return reason && (strcmp(reason, "futex") == 0 || strncmp(reason, "psynch_mutex", 12) == 0);
}

/* SPIN-DEADLOCK: a lock wait D its own timer ended, after which its
 * thread, before it waited again, woke a thread of its own process that
 * had been blocked on a lock since the first half of D at the latest: that
 * thread waited on D's thread while D's thread waited (each held what the
 * other asked for: a deadlock the timeout broke). That thread's waiting
 * segment, or ARGUS_NONE. */
static uint32_t deadlock_partner(const argus_graph *g, const piece *d, const char *reason)
{
    if (!lock_reason(reason))
        return ARGUS_NONE;
    uint32_t r = d->wait_id ? d->seg : argus_next_own(g, d->seg);
    if (r == ARGUS_NONE)
        return ARGUS_NONE;
    const argus_gthread *t = &g->threads[g->segs[d->seg].thread];
    uint64_t mid = d->from + (d->to - d->from) / 2;
    const argus_seg *rs = &g->segs[r];
    for (uint32_t k = 0; k < rs->in_len; k++) {
        const argus_gedge *e = &g->edges[g->in_edges[rs->in_off + k]];
        if (e->from_seg == ARGUS_NONE || strcmp(argus_graph_str(g, e->kind), "wait") != 0)
            continue;
        const argus_seg *w = &g->segs[e->from_seg];
        const argus_gthread *l = &g->threads[w->thread];
        if (w->thread == g->segs[d->seg].thread || l->pid != t->pid ||
            e->from != w->wait_id || w->end > mid || w->resume == UINT64_MAX ||
            w->resume < d->to || !lock_reason(w->wait_reason ? argus_graph_str(g, w->wait_reason)
                                                               : NULL))
            continue;
        return e->from_seg;
    }
    return ARGUS_NONE;
}

static bool chain_has_thread(const argus_graph *g, const argus_chain *c, uint32_t seg)
{
    for (uint32_t i = 0; i < c->len; i++)
        if (g->segs[c->segs[i]].thread == g->segs[seg].thread)
            return true;
    return false;
}

static void chain_add(argus_chain *c, uint32_t seg, uint8_t state, uint64_t since,
                      uint64_t until, uint32_t waits, const char *via)
{
    if (c->len > 0)
        c->via[c->len - 1] = via;
    c->segs[c->len] = seg;
    c->state[c->len] = state;
    c->since[c->len] = since;
    c->until[c->len] = until;
    c->waits[c->len] = waits;
    c->len++;
}

/* The segment that shows thread T holding a CPU at time AT: the one
 * ongoing then, else its latest before, else any of its (a spinner whose
 * only events are interrupts it took has interrupt windows alone). */
static uint32_t holder_seg(const argus_graph *g, uint32_t t, uint64_t at)
{
    uint32_t s = argus_graph_seg_at(g, t, at);
    if (s == ARGUS_NONE)
        s = argus_graph_seg_before(g, t, at);
    if (s == ARGUS_NONE)
        s = g->threads[t].last_seg;
    return s;
}

/* The stretches of CUR's thread from HI back to LO, latest first: CUR is
 * the segment it was in at HI. */
static int take_apart(const argus_graph *g, uint32_t cur, uint64_t hi, uint64_t lo,
                      piece *v)
{
    return take_apart_after(g, cur, hi, lo, v, 0);
}

/* The same for the thread of S, its latest segment, from the end of the
 * trace: a final wait still open then is a stretch nothing ended. */
static int take_apart_to_end(const argus_graph *g, uint32_t s, uint64_t lo, piece *v)
{
    const argus_seg *x = &g->segs[s];
    if (x->wait_id == UINT64_MAX || x->resume != UINT64_MAX)
        return take_apart(g, s, g->t_last, lo, v);
    int n = 0;
    add_piece(v, &n, (piece){P_UNKNOWN, s, ARGUS_NONE, x->end, g->t_last, 0, s, s, 0, 0}, lo);
    return take_apart_after(g, s, x->end, lo, v, n);
}

/* The same for thread T from time AT, wherever it was then: running, or
 * in a wait (how that wait ended, later, says on what). */
static int take_apart_at(const argus_graph *g, uint32_t t, uint64_t at, uint64_t lo, piece *v)
{
    uint32_t s = argus_graph_seg_before(g, t, at);
    if (s == ARGUS_NONE)
        return 0;
    const argus_seg *x = &g->segs[s];
    if (x->wait_id == UINT64_MAX || x->end > at || (x->resume != UINT64_MAX && x->resume <= at))
        return take_apart(g, s, at, lo, v);
    int n = 0;
    uint32_t next = ARGUS_NONE;
    uint8_t kind = x->resume == UINT64_MAX ? P_UNKNOWN
                                                : wait_end_kind(g, x, x->wait_id, x->wake, &next);
    add_piece(v, &n, (piece){kind, s, next, x->end, at, 0, s, s, 0, 0}, lo);
    return take_apart_after(g, s, x->end, lo, v, n);
}

bool argus_sleep_reason(const char *reason)
{
    return reason && (strstr(reason, "sleep") || strcmp(reason, "pause") == 0);
}

/* The reason of the wait blocked piece D stands for, or NULL. */
static const char *piece_reason(const argus_graph *g, const piece *d)
{
    const argus_seg *s = &g->segs[d->seg];
    uint32_t reason = s->wait_reason;
    if (d->wait_id) {
        uint32_t n;
        const argus_inner_wait *iw = argus_seg_inner_waits(g, d->seg, &n);
        for (uint32_t k = 0; k < n; k++)
            if (iw[k].wait_id == d->wait_id)
                reason = iw[k].reason;
    }
    return reason ? argus_graph_str(g, reason) : NULL;
}

/* The threads already on the line being followed (the chain's links, or
 * the critical path's threads from the hang down). */
typedef struct line {
    uint32_t thread[ARGUS_CHAIN_MAX + 1];
    uint32_t n;
} line;

static bool line_has(const argus_graph *g, const line *l, uint32_t seg)
{
    for (uint32_t i = 0; i < l->n; i++)
        if (l->thread[i] == g->segs[seg].thread)
            return true;
    return false;
}

/* SPIN-PATH: after the blocked stretch D, the thread that held it up:
 * its stretches over D's window in V (returns how many), how it was
 * reached in *VIA and until when its stretches stand for D's in *UNTIL
 * (D's end but for a lock released earlier); 0 when the line ends at D,
 * why in *END. */
static int blocked_next(const argus_graph *g, const piece *d, const line *seen, piece *v,
                        const char **via, const char **end, uint64_t *until)
{
    *until = d->to;
    if (d->kind == P_WOKEN) {   /* the waker, from its wakeup back */
        *via = "wakeup";
        return take_apart(g, d->next, d->to, d->from, v);
    }
    uint64_t released;
    uint32_t rel;
    if (d->kind == P_TIMEOUT && d->waits > 1 &&
        (rel = lock_releaser(g, d, &released)) != ARGUS_NONE && !line_has(g, seen, rel)) {
        *via = "lock";          /* polled a file lock: who released it */
        *until = released;
        return take_apart(g, rel, released, d->from, v);
    }
    /* SPIN-SLEEP: its own timer ended a sleep (not a lock's retries):
     * it held itself up, whatever it had asked of others before */
    const char *reason = piece_reason(g, d);
    if (d->kind == P_TIMEOUT && argus_sleep_reason(reason)) {
        *end = "timeout";
        return 0;
    }
    if (d->kind == P_TIMEOUT && (rel = deadlock_partner(g, d, reason)) != ARGUS_NONE) {
        if (line_has(g, seen, rel)) {
            *end = "cycle";
            return 0;
        }
        *via = "deadlock";      /* each waited on the other */
        return take_apart_at(g, g->segs[rel].thread, d->to, d->from, v);
    }
    if ((d->kind == P_IO || d->kind == P_UNKNOWN) &&
        (rel = connect_acceptor(g, d, reason, &released)) != ARGUS_NONE &&
        !line_has(g, seen, rel)) {
        *via = "accept";        /* the server that took the connection */
        return take_apart(g, rel, released, d->from, v);
    }
    /* a request unanswered: when the wait gave up (its timeout), or still
     * at the end of the trace; its peer then (it may wait on us: cycle) */
    const argus_seg *s = &g->segs[d->seg];
    /* a request sent before the wait (a send after a wait inside the
     * segment is no question that wait waited on) */
    bool asked = s->send_id != UINT64_MAX && (!d->wait_id || s->send_id < d->wait_id);
    const argus_gedge *e = !asked ? NULL : out_edge(g, s, s->send_id, "ipc");
    bool open = d->to == g->t_last && d->kind == P_UNKNOWN;
    *end = d->kind == P_TIMEOUT && !e ? "timeout"
           : d->kind == P_IO ? "io"
           : asked && (open || e) ? "no_reply"
           : "not_woken";
    if (!e || strcmp(*end, "no_reply") != 0)
        return 0;
    if (line_has(g, seen, e->to_seg)) {
        *end = "cycle";
        return 0;
    }
    *via = "ipc";
    return take_apart_at(g, g->segs[e->to_seg].thread, d->to, d->from, v);
}

/* After the blocked link D (the chain's last), the thread to go on to:
 * its stretches in V (returns how many) and how it was reached in *VIA;
 * 0 when the chain ends there (out->end set). */
static int go_on(const argus_graph *g, const piece *d, argus_chain *out, int max_depth,
                 piece *v, const char **via)
{
    if ((int)out->len > max_depth || out->len == ARGUS_CHAIN_MAX) {
        out->end = "depth";
        return 0;
    }
    line seen = {.n = 0};
    for (uint32_t i = 0; i < out->len; i++)
        seen.thread[seen.n++] = g->segs[out->segs[i]].thread;
    uint64_t until;
    return blocked_next(g, d, &seen, v, via, &out->end, &until);
}

/* The hang's own thread's stretches over its window (argus_wait_chain):
 * from where it went on after its wait (the wait that ended the hang)
 * back to FROM; a wait still open at the end of the trace is taken as it
 * was then; a segment with no final wait from its end (the waits inside
 * it, a callout's, are stretches of their own). *HI is the window's end. */
static int hang_window(const argus_graph *g, uint32_t start, uint64_t from, piece *v,
                       uint64_t *hi)
{
    const argus_seg *h = &g->segs[start];
    uint32_t cur = h->wait_id == UINT64_MAX ? start
                   : h->resume != UINT64_MAX ? argus_next_own(g, start) : ARGUS_NONE;
    *hi = h->wait_id == UINT64_MAX ? h->end : cur != ARGUS_NONE ? h->resume : g->t_last;
    int n;
    if (h->wait_id == UINT64_MAX) {
        n = take_apart(g, start, *hi, from, v);
    } else if (cur != ARGUS_NONE) {
        n = take_apart(g, cur, *hi, from, v);
        /* what ran after the resume is not the hang's */
        if (n && v[0].kind == P_RUN && v[0].seg == cur && g->segs[cur].begin >= h->resume)
            memmove(v, v + 1, (size_t)--n * sizeof *v);
    } else {
        n = take_apart_to_end(g, start, from, v);
    }
    return n;
}

/* SPIN-YIELD: the thread a yield loop START (from FROM) gave its CPU to:
 * the one that held it for half the loop's runnable time or more (as
 * SPIN-HOLDER), its segment then; ARGUS_NONE when no one thread did. V:
 * room for the loop's pieces. */
static uint32_t yielded_to(const argus_graph *g, uint32_t start, uint64_t from, piece *v)
{
    const argus_seg *h = &g->segs[start];
    uint64_t holder = runnable_holder(v, take_apart(g, start, h->end, from, v));
    uint32_t t = holder ? argus_graph_thread(g, holder) : ARGUS_NONE;
    return t == ARGUS_NONE || t == h->thread ? ARGUS_NONE : holder_seg(g, t, h->end);
}

void argus_wait_chain(const argus_graph *g, uint32_t start, uint64_t from,
                      int max_depth, argus_chain *out)
{
    memset(out, 0, sizeof *out);
    const argus_seg *h = &g->segs[start];
    piece v[MAX_PIECES];
    uint32_t n_inner;
    argus_seg_inner_waits(g, start, &n_inner);
    if (h->wait_id == UINT64_MAX && n_inner == 0) {
        chain_add(out, start, ARGUS_LINK_RUNNING, h->begin, h->end, 0, NULL);
        out->end = "running";
        uint32_t to = argus_yield_loop(h) ? yielded_to(g, start, from, v) : ARGUS_NONE;
        if (to != ARGUS_NONE && max_depth > 0)
            chain_add(out, to, ARGUS_LINK_RUNNING, from > h->begin ? from : h->begin, h->end,
                      0, "yield");
        return;
    }
    if (from > h->end)
        from = h->end;
    uint64_t hi;
    int n = hang_window(g, start, from, v, &hi);
    const char *via = NULL;
    for (;;) {
        dominant_t dom;
        bool found = dominant(v, n, &dom);
        const piece *d = dom.p;
        if (!found && out->len == 0) {
            chain_add(out, start, ARGUS_LINK_BLOCKED, from, hi, 1, NULL);
            out->end = "not_woken";
            return;
        }
        if (!found) {           /* a waker whose first event is its wakeup */
            if (n > 0 && !chain_has_thread(g, out, v[0].seg))
                chain_add(out, v[0].seg, ARGUS_LINK_UNKNOWN, v[n - 1].from, v[0].to, 0, via);
            out->end = "trace_start";
            return;
        }
        if (out->len > 0 && chain_has_thread(g, out, d->seg) &&
            g->segs[d->seg].thread != g->segs[out->segs[out->len - 1]].thread) {
            out->end = "cycle";
            return;
        }
        if (d->kind == P_RUN) {
            chain_add(out, d->seg, ARGUS_LINK_RUNNING, dom.from, dom.to, 0, via);
            out->end = "running";
            return;
        }
        if (d->kind == P_RUNNABLE) {
            chain_add(out, d->seg, ARGUS_LINK_RUNNABLE, dom.from, dom.to, 0, via);
            out->end = "runnable";
            /* the thread that held the CPU, one more link */
            uint32_t ht = dom.holder ? argus_graph_thread(g, dom.holder) : ARGUS_NONE;
            uint32_t hs = ht != ARGUS_NONE ? holder_seg(g, ht, dom.to) : ARGUS_NONE;
            if (hs != ARGUS_NONE && (int)out->len <= max_depth && out->len < ARGUS_CHAIN_MAX &&
                !chain_has_thread(g, out, hs))
                chain_add(out, hs, ARGUS_LINK_RUNNING, dom.from, dom.to, 0, "cpu");
            return;
        }
        chain_add(out, d->longest, ARGUS_LINK_BLOCKED, d->from, d->to, d->waits, via);
        piece link = *d;        /* V is about to be taken apart anew */
        if ((n = go_on(g, &link, out, max_depth, v, &via)) == 0) {
            if (!out->end)
                out->end = "not_woken";
            return;
        }
        out->end = NULL;
    }
}

/* ---- the critical path ------------------------------------------------------ */

/* A stretch's state on the critical path: P_WOKEN and P_UNKNOWN are
 * "blocked" (a woken one is replaced by its waker's stretches, unless that
 * thread is already on the way down). */
static const char *piece_state(const piece *p)
{
    switch (p->kind) {
    case P_RUN: return "running";
    case P_RUNNABLE: return "runnable";
    case P_TIMEOUT: return "timeout";
    case P_IO: return "io";
    case P_BEFORE: return "unknown";
    default: return "blocked";
    }
}

static void cp_add(argus_cpath *cp, uint32_t thread, uint64_t from, uint64_t to,
                   const char *state)
{
    /* no gap, no overlap: each step starts where the one before ended */
    if (cp->len && from != cp->steps[cp->len - 1].to)
        from = cp->steps[cp->len - 1].to;
    if (to <= from)
        return;
    argus_cp_step *last = cp->len ? &cp->steps[cp->len - 1] : NULL;
    if (last && last->thread == thread && strcmp(last->state, state) == 0) {
        last->to = to;
        return;
    }
    *ARGUS_PUSH(cp->steps, cp->len, cp->cap) = (argus_cp_step){thread, from, to, state};
}

/* The steps of the thread whose stretches over [lo, hi] are V (latest
 * first), in time order, following each blocked stretch to the thread
 * that held it up (SPIN-PATH) over that stretch. SEEN: the threads of
 * the line down to this one (a thread met again is not followed: a
 * cycle). */
static void cp_walk(const argus_graph *g, const piece *v, int n, line *seen,
                    argus_cpath *cp)
{
    for (int i = n; i-- > 0;) {
        const piece *p = &v[i];
        uint32_t thread = g->segs[p->seg].thread;
        bool blocked = p->kind == P_WOKEN || p->kind == P_TIMEOUT || p->kind == P_IO ||
                       p->kind == P_UNKNOWN;
        if (!blocked || seen->n >= ARGUS_CHAIN_MAX) {
            cp_add(cp, thread, p->from, p->to, piece_state(p));
            continue;
        }
        piece *sub = argus_xmalloc(MAX_PIECES * sizeof *sub, "critical path");
        const char *via = NULL, *end = NULL;
        uint64_t until = p->to;
        int k = blocked_next(g, p, seen, sub, &via, &end, &until);
        bool again = k && line_has(g, seen, sub[0].seg);
        if (k && !again) {
            seen->thread[seen->n++] = g->segs[sub[0].seg].thread;
            cp_walk(g, sub, k, seen, cp);
            seen->n--;
        }
        free(sub);
        /* what is left of the stretch: all of it when not followed */
        cp_add(cp, thread, k && !again ? until : p->from, p->to, piece_state(p));
    }
}

void argus_critical_path(const argus_graph *g, uint32_t start, uint64_t from,
                         argus_cpath *cp)
{
    cp->len = 0;
    const argus_seg *h = &g->segs[start];
    if (from > h->end)
        from = h->end;
    piece *v = argus_xmalloc(MAX_PIECES * sizeof *v, "critical path");
    uint64_t hi;
    int n = hang_window(g, start, from, v, &hi);
    line seen = {.thread = {h->thread}, .n = 1};
    cp_walk(g, v, n, &seen, cp);
    free(v);
}

uint64_t argus_cp_thread_time(const argus_cpath *cp, uint32_t thread)
{
    uint64_t t = 0;
    for (uint32_t i = 0; i < cp->len; i++)
        if (cp->steps[i].thread == thread)
            t += cp->steps[i].to - cp->steps[i].from;
    return t;
}
