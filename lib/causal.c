/* Backward causal searches (include/argus/causal.h). */
#include "argus/causal.h"

#include "argus/cli.h"

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
    qsort(l->v, l->n, sizeof *l->v, by_score);
}

/* The path ending in state ST (the cause), hang first. Each step keeps
 * the edge its state was reached over. */
static argus_path make_path(const pool *p, uint32_t st, bool complete)
{
    argus_path path = {0};
    path.len = p->v[st].depth + 1;
    path.score = p->v[st].score;
    path.complete = complete;
    path.steps = malloc(path.len * sizeof *path.steps);
    if (!path.steps)
        argus_die(ARGUS_EX_IOERR, "out of memory (path search)");
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
            if (next.n == before && opt->thread_order) {
                uint32_t prev = s->prev;
                while (prev != ARGUS_NONE && g->segs[prev].ctx)
                    prev = g->segs[prev].prev;
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
    argus_path *paths = calloc((size_t)n + 1, sizeof *paths);
    if (!paths)
        argus_die(ARGUS_EX_IOERR, "out of memory (path search)");
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
bool argus_seg_blocked_at(const argus_graph *g, const argus_seg *s, uint64_t t)
{
    (void)g;
    if (s->wait_id == UINT64_MAX)
        return false;
    uint64_t wait_ts = s->end;  /* the final wait is the last event */
    return wait_ts <= t && (s->resume == UINT64_MAX || s->resume > t);
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

/* Where thread T was at time AT, looking no later than BEFORE (the time it
 * acted for the waiter): its segment then, preferring one blocked. */
static uint32_t thread_state(const argus_graph *g, uint32_t t, uint64_t at,
                             uint32_t fallback)
{
    uint32_t s = argus_graph_seg_at(g, t, at);
    return s != ARGUS_NONE ? s : fallback;
}

void argus_wait_chain(const argus_graph *g, uint32_t start, uint64_t at,
                      int max_depth, argus_chain *out)
{
    memset(out, 0, sizeof *out);
    out->segs[0] = start;
    out->len = 1;
    uint32_t cur = start;
    for (;;) {
        const argus_seg *s = &g->segs[cur];
        /* a thread of the chain that was not blocked at AT (it blocked
         * later, or not at all) was running then */
        if (s->wait_id == UINT64_MAX ||
            (cur != start && !argus_seg_blocked_at(g, s, at))) {
            out->end = "running";
            return;
        }
        if ((int)out->len > max_depth || out->len == ARGUS_CHAIN_MAX) {
            out->end = "depth";
            return;
        }
        uint32_t next = ARGUS_NONE;
        const char *via = NULL;
        const argus_gedge *e = out_edge(g, s, s->wait_id, "wait");
        if (e) {
            /* the thread that woke it: where it was at AT, even when it
             * went through other short waits between AT and the wakeup
             * (a mutex taken after its own wait on a condition) */
            const argus_seg *w = &g->segs[e->to_seg];
            uint32_t prev = w->prev;
            next = thread_state(g, w->thread, at, prev);
            if (next == ARGUS_NONE)
                next = e->to_seg;
            via = "wakeup";
        } else if (s->send_id != UINT64_MAX &&
                   (e = out_edge(g, s, s->send_id, "ipc"))) {
            const argus_seg *r = &g->segs[e->to_seg];
            next = thread_state(g, r->thread, at, e->to_seg);
            via = "ipc";
        } else {
            if (s->wake == ARGUS_WAKE_TIMED_OUT)
                out->end = "timeout";
            else if (s->woken_external)
                out->end = "io";
            else if (s->send_id != UINT64_MAX)
                out->end = "no_reply";
            else
                out->end = "not_woken";
            return;
        }
        for (uint32_t i = 0; i < out->len; i++)
            if (g->segs[out->segs[i]].thread == g->segs[next].thread) {
                out->end = "cycle";
                return;
            }
        out->via[out->len - 1] = via;
        out->segs[out->len++] = next;
        cur = next;
    }
}
