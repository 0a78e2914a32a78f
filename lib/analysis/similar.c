/* SIM-MATCH over an index of segments by role and signature size
 * (include/argus/analysis/graph.h). */
#include "argus/analysis/graph.h"

#include "argus/stream/cli.h"
#include "argus/stream/table.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

typedef struct role_list {
    uint32_t *segs;             /* segment indices, by signature length */
    uint32_t n;
    size_t cap;
} role_list;

struct argus_sim_index {
    const argus_graph *g;
    argus_table roles;          /* XXH3 of the role -> index into lists */
    role_list *lists;
    uint32_t nlists;
    size_t cap_lists;
};

/* A thread's role key (SIM-MATCH): its process name with "main" for a
 * main thread, else with its thread name. */
static uint64_t role_key(const argus_graph *g, uint32_t t, bool as_main)
{
    const argus_gthread *th = &g->threads[t];
    const char *proc = argus_graph_str(g, th->proc);
    const char *name = as_main ? "\001main" : argus_graph_str(g, th->name);
    XXH3_state_t *st = XXH3_createState();
    XXH3_64bits_reset(st);
    XXH3_64bits_update(st, proc, strlen(proc) + 1);
    XXH3_64bits_update(st, name, strlen(name) + 1);
    uint64_t h = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    return h;
}

static void list_add(argus_sim_index *ix, uint64_t key, uint32_t seg)
{
    bool created;
    uint32_t *li = argus_table_put(&ix->roles, key, &created);
    if (created) {
        ARGUS_PUSH(ix->lists, ix->nlists, ix->cap_lists);
        *li = ix->nlists - 1;
    }
    role_list *l = &ix->lists[*li];
    *ARGUS_PUSH(l->segs, l->n, l->cap) = seg;
}

static const argus_graph *sort_graph;

static int by_sig_len(const void *a, const void *b)
{
    const argus_seg *x = &sort_graph->segs[*(const uint32_t *)a];
    const argus_seg *y = &sort_graph->segs[*(const uint32_t *)b];
    if (x->sig_len != y->sig_len)
        return x->sig_len < y->sig_len ? -1 : 1;
    return x->begin < y->begin ? -1 : x->begin > y->begin;
}

argus_sim_index *argus_sim_index_new(const argus_graph *base)
{
    argus_sim_index *ix = calloc(1, sizeof *ix);
    if (!ix)
        argus_die(ARGUS_EX_IOERR, "out of memory (similar index)");
    ix->g = base;
    argus_table_init(&ix->roles, sizeof(uint32_t));
    /* a thread's role keys once, then its segments (threads are few) */
    for (uint32_t t = 0; t < base->nthreads; t++) {
        bool main = base->threads[t].main;
        uint64_t by_name = role_key(base, t, false);
        uint64_t by_main = main ? role_key(base, t, true) : 0;
        for (uint32_t k = base->seg_first[t]; k < base->seg_first[t + 1]; k++) {
            uint32_t i = base->thread_segs[k];
            if (base->segs[i].ctx)
                continue;
            list_add(ix, by_name, i);
            if (main)
                list_add(ix, by_main, i);
        }
    }
    sort_graph = base;
    for (uint32_t i = 0; i < ix->nlists; i++)
        qsort(ix->lists[i].segs, ix->lists[i].n, sizeof(uint32_t), by_sig_len);
    return ix;
}

void argus_sim_index_free(argus_sim_index *ix)
{
    if (!ix)
        return;
    for (uint32_t i = 0; i < ix->nlists; i++)
        free(ix->lists[i].segs);
    free(ix->lists);
    argus_table_free(&ix->roles);
    free(ix);
}

static const argus_graph *rank_graph;
static uint32_t rank_events;

static uint32_t absdiff(uint32_t a, uint32_t b) { return a > b ? a - b : b - a; }

static int by_rank(const void *a, const void *b)
{
    const argus_match *x = a, *y = b;
    if (x->distance != y->distance)
        return x->distance < y->distance ? -1 : 1;
    uint32_t dx = absdiff(rank_graph->segs[x->seg].nevents, rank_events);
    uint32_t dy = absdiff(rank_graph->segs[y->seg].nevents, rank_events);
    if (dx != dy)
        return dx < dy ? -1 : 1;
    return x->seg < y->seg ? -1 : x->seg > y->seg;
}

int argus_sim_find(const argus_sim_index *ix, const argus_graph *g,
                   uint32_t seg, argus_match *out, int max)
{
    const argus_seg *q = &g->segs[seg];
    const argus_gthread *th = &g->threads[q->thread];
    uint32_t *li = argus_table_get(&ix->roles, role_key(g, q->thread, th->main));
    if (!li || max <= 0)
        return 0;
    const role_list *l = &ix->lists[*li];
    const argus_graph *b = ix->g;
    /* sizes within 20% of each other: m in [0.8 n, n / 0.8] */
    uint32_t n = q->sig_len;
    bool cut = q->next == ARGUS_NONE && q->wait_id == UINT64_MAX;
    uint32_t lo = (n * 4 + 4) / 5, hi = cut ? UINT32_MAX : n * 5 / 4;
    uint32_t first = 0, last = l->n;
    while (first < last) {      /* the first candidate of length >= lo */
        uint32_t mid = (first + last) / 2;
        if (b->segs[l->segs[mid]].sig_len < lo)
            first = mid + 1;
        else
            last = mid;
    }
    argus_match *found = NULL;
    uint32_t nfound = 0;
    size_t cap = 0;
    for (uint32_t i = first; i < l->n; i++) {
        const argus_seg *c = &b->segs[l->segs[i]];
        if (c->sig_len > hi)
            break;
        uint32_t m = cut && c->sig_len > n ? n : c->sig_len;
        uint32_t longer = m > n ? m : n;
        /* under 40% edits: distance * 100 < 40 * longer */
        uint32_t limit = longer ? (40 * longer - 1) / 100 : 0;
        uint32_t d = argus_sig_distance_n(g, q, n, b, c, m, limit);
        if (d > limit)
            continue;
        *ARGUS_PUSH(found, nfound, cap) = (argus_match){l->segs[i], d,
                                                        longer ? d * 100 / longer : 0};
    }
    if (nfound == 0)
        return 0;
    rank_graph = b;
    rank_events = q->nevents;
    qsort(found, nfound, sizeof *found, by_rank);
    int k = nfound < (uint32_t)max ? (int)nfound : max;
    memcpy(out, found, (size_t)k * sizeof *out);
    free(found);
    return k;
}
