/* SIM-MATCH over an index of segments by role and signature size, and
 * the similar stage's match records (include/argus/analysis/graph.h;
 * argus-similar's command line is filters/similar.c). */
#include "argus/analysis/findings.h"
#include "argus/analysis/graph.h"

#include "argus/stages/stage.h"
#include "argus/stream/cli.h"
#include "argus/stream/table.h"

#include <limits.h>
#include <stdio.h>
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
    argus_table procs;          /* XXH3 of a process name ("": none) -> a
                                 * thread of it: whether the baseline has
                                 * the program, a look-up per hang */
    role_list *lists;
    uint32_t nlists;
    size_t cap_lists;
};

static const char *proc_name(const argus_graph *g, uint32_t t)
{
    return g->threads[t].proc ? argus_graph_str(g, g->threads[t].proc) : "";
}

static uint64_t proc_key(const argus_graph *g, uint32_t t)
{
    const char *p = proc_name(g, t);
    return XXH3_64bits(p, strlen(p));
}

/* Whether the indexed baseline has a thread in a process named NAME ("":
 * a thread with no process name). */
static bool has_process(const argus_sim_index *ix, const char *name)
{
    const uint32_t *t = argus_table_get(&ix->procs, XXH3_64bits(name, strlen(name)));
    return t && strcmp(proc_name(ix->g, *t), name) == 0;
}

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

/* A list's entry while it is sorted: its keys copied beside it, so that
 * the sort does not reach into segs[] at every comparison. */
typedef struct sort_entry {
    uint64_t begin;
    uint32_t pos;               /* its place in the list: equal keys keep
                                   their order */
    uint32_t sig_len;
} sort_entry;

static int by_sig_len(const void *a, const void *b)
{
    const sort_entry *x = a, *y = b;
    if (x->sig_len != y->sig_len)
        return x->sig_len < y->sig_len ? -1 : 1;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Sorts list L by signature length, then start (then its order). */
static void sort_list(const argus_graph *g, role_list *l, sort_entry **tmp, size_t *cap)
{
    *tmp = argus_grow(*tmp, cap, l->n, sizeof **tmp);
    sort_entry *e = *tmp;
    for (uint32_t i = 0; i < l->n; i++) {
        const argus_seg *s = &g->segs[l->segs[i]];
        e[i] = (sort_entry){s->begin, i, s->sig_len};
    }
    argus_sort(e, l->n, sizeof *e, by_sig_len);
    for (uint32_t i = 0; i < l->n; i++)     /* the segs in the new order */
        e[i].pos = l->segs[e[i].pos];
    for (uint32_t i = 0; i < l->n; i++)
        l->segs[i] = e[i].pos;
}

argus_sim_index *argus_sim_index_new(const argus_graph *base)
{
    argus_sim_index *ix = argus_xcalloc(1, sizeof *ix, "similar index");
    ix->g = base;
    argus_table_init(&ix->roles, sizeof(uint32_t));
    argus_table_init(&ix->procs, sizeof(uint32_t));
    /* a thread's role keys once, then its segments (threads are few) */
    for (uint32_t t = 0; t < base->nthreads; t++) {
        bool created;
        uint32_t *of_proc = argus_table_put(&ix->procs, proc_key(base, t), &created);
        if (created)
            *of_proc = t;
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
    sort_entry *tmp = NULL;
    size_t cap = 0;
    for (uint32_t i = 0; i < ix->nlists; i++)
        sort_list(base, &ix->lists[i], &tmp, &cap);
    free(tmp);
    return ix;
}

void argus_sim_index_hook(argus_graph *base, void *out)
{
    *(argus_sim_index **)out = argus_sim_index_new(base);
}

void argus_sim_index_free(argus_sim_index *ix)
{
    if (!ix)
        return;
    for (uint32_t i = 0; i < ix->nlists; i++)
        free(ix->lists[i].segs);
    free(ix->lists);
    argus_table_free(&ix->roles);
    argus_table_free(&ix->procs);
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

/* The part of candidate C (of BASE) a node of size N is compared with
 * (SIM-MATCH): the whole signature, or, for a node cut short by the end of
 * its trace, its first N elements, or, for a node the trace began in, its
 * last N. Sets *LEN. */
static const uint32_t *window(const argus_graph *b, const argus_seg *c, uint32_t n,
                              bool cut_end, bool cut_start, uint32_t *len)
{
    const uint32_t *y = b->sig_pool + c->sig_off;
    uint32_t m = c->sig_len;
    if ((cut_end || cut_start) && m > n) {
        if (!cut_end)
            y += m - n;
        m = n;
    }
    *len = m;
    return y;
}

/* A node's role list, or NULL; *CUT_END and *CUT_START say how it was
 * cut (SIM-MATCH). */
static const role_list *role_of(const argus_sim_index *ix, const argus_graph *g,
                                const argus_seg *q, bool *cut_end, bool *cut_start)
{
    const argus_gthread *th = &g->threads[q->thread];
    *cut_end = q->next == ARGUS_NONE && q->wait_id == UINT64_MAX;
    *cut_start = q->cut_start && !*cut_end;
    uint32_t *li = argus_table_get(&ix->roles, role_key(g, q->thread, th->main));
    return li ? &ix->lists[*li] : NULL;
}

static int ranked(argus_match *found, uint32_t nfound, const argus_graph *b,
                  const argus_seg *q, argus_match *out, int max)
{
    if (nfound == 0)
        return 0;
    rank_graph = b;
    rank_events = q->nevents;
    argus_sort(found, nfound, sizeof *found, by_rank);
    int k = nfound < (uint32_t)max ? (int)nfound : max;
    memcpy(out, found, (size_t)k * sizeof *out);
    free(found);
    return k;
}

int argus_sim_find(const argus_sim_index *ix, const argus_graph *g,
                   uint32_t seg, argus_match *out, int max)
{
    const argus_seg *q = &g->segs[seg];
    bool cut, cut_start;
    const role_list *l = role_of(ix, g, q, &cut, &cut_start);
    if (!l || max <= 0)
        return 0;
    const argus_graph *b = ix->g;
    /* sizes within 20% of each other: m in [0.8 n, n / 0.8] */
    uint32_t n = q->sig_len;
    const uint32_t *x = g->sig_pool + q->sig_off;
    uint32_t lo = (n * 4 + 4) / 5, hi = cut || cut_start ? UINT32_MAX : n * 5 / 4;
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
        uint32_t m;
        const uint32_t *y = window(b, c, n, cut, cut_start, &m);
        uint32_t longer = m > n ? m : n;
        /* under 40% edits: distance * 100 < 40 * longer */
        uint32_t limit = longer ? (40 * longer - 1) / 100 : 0;
        uint32_t d = argus_sig_edits(x, n, y, m, limit);
        if (d > limit)
            continue;
        *ARGUS_PUSH(found, nfound, cap) = (argus_match){l->segs[i], d,
                                                        longer ? d * 100 / longer : 0};
    }
    return ranked(found, nfound, b, q, out, max);
}

/* ---- SIM-KINDS ------------------------------------------------------------ */

static int by_element(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The distinct elements of X's N, sorted, into OUT (room for N); returns
 * how many. */
static uint32_t kinds_of(const uint32_t *x, uint32_t n, uint32_t *out)
{
    memcpy(out, x, (size_t)n * sizeof *out);
    argus_sort(out, n, sizeof *out, by_element);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (k == 0 || out[k - 1] != out[i])
            out[k++] = out[i];
    return k;
}

/* Kinds of two sorted sets: in both, and in either. */
static void kinds_cmp(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb,
                      uint32_t *shared, uint32_t *both)
{
    uint32_t i = 0, j = 0, s = 0;
    while (i < na && j < nb) {
        if (a[i] == b[j]) {
            s++;
            i++;
            j++;
        } else if (a[i] < b[j]) {
            i++;
        } else {
            j++;
        }
    }
    *shared = s;
    *both = na + nb - s;
}

/* The kind of the segment's UI event, "" when it has none. */
static const char *ui_kind(const argus_graph *g, const argus_seg *s)
{
    if (s->ui_id == UINT64_MAX || !s->ui_kind)
        return "";
    return argus_graph_str(g, s->ui_kind);
}

/* SIM-KINDS over the candidates of the node's role: with SAME_UI, only
 * those of its UI event kind; every one's kinds distance into FOUND (all
 * when ALL, else only those at least half shared). */
static uint32_t kinds_scan(const argus_sim_index *ix, const argus_graph *g, uint32_t seg,
                           bool same_ui, bool all, argus_match **found)
{
    const argus_seg *q = &g->segs[seg];
    bool cut, cut_start;
    const role_list *l = role_of(ix, g, q, &cut, &cut_start);
    *found = NULL;
    if (!l)
        return 0;
    const argus_graph *b = ix->g;
    uint32_t n = q->sig_len;
    uint32_t mine[ARGUS_SIG_MAX], theirs[ARGUS_SIG_MAX];
    uint32_t nk = kinds_of(g->sig_pool + q->sig_off, n, mine);
    const char *ui = ui_kind(g, q);
    uint32_t nfound = 0;
    size_t cap = 0;
    for (uint32_t i = 0; i < l->n; i++) {
        const argus_seg *c = &b->segs[l->segs[i]];
        if (same_ui && strcmp(ui, ui_kind(b, c)) != 0)
            continue;
        uint32_t m;
        const uint32_t *y = window(b, c, n, cut, cut_start, &m);
        uint32_t ck = kinds_of(y, m, theirs), shared, both;
        kinds_cmp(mine, nk, theirs, ck, &shared, &both);
        if (!all && (shared == 0 || 2 * shared < both))
            continue;
        uint32_t d = both - shared;
        *ARGUS_PUSH(*found, nfound, cap) = (argus_match){l->segs[i], d,
                                                         both ? d * 100 / both : 0};
    }
    return nfound;
}

int argus_sim_find_kinds(const argus_sim_index *ix, const argus_graph *g,
                         uint32_t seg, argus_match *out, int max)
{
    if (max <= 0)
        return 0;
    argus_match *found;
    uint32_t nfound = kinds_scan(ix, g, seg, true, false, &found);
    return ranked(found, nfound, ix->g, &g->segs[seg], out, max);
}

static int by_percent(const void *a, const void *b)
{
    const argus_match *x = a, *y = b;
    if (x->percent != y->percent)
        return x->percent < y->percent ? -1 : 1;
    return by_rank(a, b);
}

int argus_sim_nearest(const argus_sim_index *ix, const argus_graph *g, uint32_t seg,
                      argus_match *nearest)
{
    const argus_seg *q = &g->segs[seg];
    argus_match *found;
    uint32_t nfound = kinds_scan(ix, g, seg, false, true, &found);
    if (nfound == 0) {
        return has_process(ix, proc_name(g, q->thread)) ? ARGUS_SIM_NO_ROLE
                                                        : ARGUS_SIM_NO_PROGRAM;
    }
    rank_graph = ix->g;
    rank_events = q->nevents;
    argus_sort(found, nfound, sizeof *found, by_percent);
    *nearest = found[0];
    free(found);
    return ARGUS_SIM_UNLIKE;
}

/* ---- the similar stage ------------------------------------------------- */

/* A node to match: a segment of the stream, and the hang it comes from. */
typedef struct query {
    uint64_t seg;
    uint64_t hang;
    uint64_t first_seg;         /* a retried wait's first segment, or seg */
    bool has_hang;
} query;

typedef struct query_list {
    query *q;
    size_t n, cap;
} query_list;

static void query_add(query_list *l, query q)
{
    *ARGUS_PUSH(l->q, l->n, l->cap) = q;
}

/* The hang records of the stream, in stream order. */
static void hang_queries(argus_graph *g, query_list *l)
{
    argus_findings_mem mem = {0};
    for (uint32_t i = 0; i < g->nextras; i++) {
        if (!argus_extra_is(&g->extras[i], "hang"))
            continue;
        const argus_record *r = argus_graph_parse_extra(g, i);
        unsigned long long number = g->extras[i].number;
        argus_hang_finding h;
        if (!r || !argus_read_hang(r, &mem, &h))
            argus_die(ARGUS_EX_DATAERR, "%s: record %llu: hang record: %s", g->name, number,
                      r ? mem.error : "cannot be parsed again");
        query q = {.seg = h.seg, .hang = h.hang, .first_seg = h.seg, .has_hang = true};
        if (argus_graph_find_seg(g, q.seg) == ARGUS_NONE)
            argus_die(ARGUS_EX_DATAERR, "%s: record %llu: hang %llu names seg %llu, which "
                      "is not a segment of the stream", g->name, number,
                      (unsigned long long)q.hang, (unsigned long long)q.seg);
        /* SIM-FIRST: a wait retried after timeouts, and its first segment */
        if (h.first_seg != ARGUS_ABSENT && argus_graph_find_seg(g, h.first_seg) != ARGUS_NONE)
            q.first_seg = h.first_seg;
        query_add(l, q);
    }
    argus_findings_mem_free(&mem);
}

static void put_match(argus_writer *w, const query *q, uint32_t rank,
                      const argus_seg *s, const argus_graph *base,
                      const argus_match *m, const char *base_name, bool by_kinds)
{
    const argus_seg *b = &base->segs[m->seg];
    argus_write_match(w, &(argus_match_finding){
        .hang = q->has_hang ? q->hang : ARGUS_ABSENT, .seg = s->seg, .rank = rank,
        .baseline_seg = b->seg, .distance = m->distance, .percent = m->percent,
        .size = s->sig_len, .baseline_size = b->sig_len, .baseline = base_name,
        .by = by_kinds ? "kinds" : NULL});
}

/* SIM-NONE: a node with no match, why, and the nearest candidate. */
static void put_no_match(argus_writer *w, const query *q, const argus_seg *s,
                         const argus_graph *base, int why, const argus_match *m,
                         const char *base_name)
{
    static const char *const whys[] = {"program", "role", "unlike"};
    bool near = why == ARGUS_SIM_UNLIKE;
    argus_no_match_finding f = {
        .hang = q->has_hang ? q->hang : ARGUS_ABSENT, .seg = s->seg, .why = whys[why],
        .size = s->sig_len, .nearest = ARGUS_ABSENT, .distance = ARGUS_ABSENT,
        .percent = ARGUS_ABSENT, .baseline_size = ARGUS_ABSENT, .baseline = base_name};
    if (near) {
        f.nearest = base->segs[m->seg].seg;
        f.distance = m->distance;
        f.percent = m->percent;
        f.baseline_size = base->segs[m->seg].sig_len;
    }
    argus_write_no_match(w, &f);
}


/* SIM-BASELINE: a baseline is a run of the program that hung. One with no
 * segment, or with no thread in a process of the name of any hung
 * thread's, is not one: exit 65, saying what it holds instead. */
static void check_baseline(const argus_graph *g, const query_list *hangs,
                           const argus_graph *base, const argus_sim_index *ix,
                           const char *name)
{
    if (base->nsegs == 0)
        argus_die(ARGUS_EX_DATAERR, "%s: an empty baseline: no thread ran in it "
                  "(%llu events)", name, (unsigned long long)base->nevents);
    const char *want = NULL;
    for (size_t i = 0; i < hangs->n; i++) {
        const argus_gthread *t = &g->threads[g->segs[argus_graph_find_seg(g, hangs->q[i].seg)].thread];
        if (!t->proc)
            return;             /* a hang with no process name: nothing to check */
        want = argus_graph_str(g, t->proc);
        if (*want && has_process(ix, want))
            return;
    }
    if (!want)
        return;
    char seen[400] = "";
    size_t len = 0;
    unsigned shown = 0, more = 0;
    const char *names[6];       /* those in seen: a name once, whole */
    for (uint32_t k = 0; k < base->nthreads; k++) {
        const argus_gthread *t = &base->threads[k];
        if (!t->proc || t->kernel || !t->main)
            continue;
        const char *p = argus_graph_str(base, t->proc);
        unsigned i = 0;
        while (i < shown && strcmp(names[i], p) != 0)
            i++;
        if (i < shown)
            continue;
        if (shown == 6 || len + strlen(p) + 3 >= sizeof seen) {
            more++;
            continue;
        }
        len += (size_t)snprintf(seen + len, sizeof seen - len, "%s%s", shown ? ", " : "", p);
        names[shown++] = p;
    }
    argus_die(ARGUS_EX_DATAERR, "%s: a baseline of another program: no thread of it is in a "
              "process named %s, as the hung thread is (its programs: %s%s)", name, want,
              shown ? seen : "none named", more ? ", ..." : "");
}

void argus_similar_write(argus_graph *g, const uint64_t *segs, size_t nsegs,
                         uint64_t max, const argus_graph *base,
                         const argus_sim_index *ix, const char *base_name,
                         argus_writer *out)
{
    query_list asked = {0}, hangs = {0};
    for (size_t i = 0; i < nsegs; i++)
        query_add(&asked, (query){segs[i], 0, segs[i], false});
    const query_list *nodes = &asked;
    if (nsegs == 0) {
        hang_queries(g, &hangs);
        nodes = &hangs;
        check_baseline(g, &hangs, base, ix, base_name ? base_name : base->name);
    }
    /* never more matches than baseline nodes */
    uint64_t most = max < base->nsegs ? max : base->nsegs;
    int nmax = most == 0 ? 1 : most > INT_MAX ? INT_MAX : (int)most;
    argus_match *found = argus_xmalloc((size_t)nmax * sizeof *found, "similar nodes");
    for (size_t i = 0; i < nodes->n; i++) {
        const query *q = &nodes->q[i];
        uint32_t si = argus_graph_find_seg(g, q->seg);
        /* SIM-MATCH, then SIM-KINDS; each on the node, then (SIM-FIRST)
         * on a retried wait's first segment */
        uint32_t nodes2[2] = {si, argus_graph_find_seg(g, q->first_seg)};
        int nn = nodes2[1] != si ? 2 : 1, k = 0;
        bool by_kinds = false;
        uint32_t at = si;
        for (int tier = 0; tier < 2 && k == 0; tier++)
            for (int j = 0; j < nn && k == 0; j++) {
                at = nodes2[j];
                k = tier == 0 ? argus_sim_find(ix, g, at, found, nmax)
                              : argus_sim_find_kinds(ix, g, at, found, nmax);
                by_kinds = tier == 1;
            }
        argus_count("nodes", 1);
        if (k && by_kinds)
            argus_count("nodes matched by kinds", 1);
        if (k && at != si)
            argus_count("nodes matched by their first segment", 1);
        if (k == 0) {
            argus_count("nodes without a match", 1);
            argus_match near;
            int why = argus_sim_nearest(ix, g, si, &near);
            put_no_match(out, q, &g->segs[si], base, why, &near, base_name);
        }
        for (int j = 0; j < k; j++)
            put_match(out, q, (uint32_t)j + 1, &g->segs[at], base, &found[j],
                      base_name, by_kinds);
        if (k)
            argus_count("matches", (uint64_t)k);
    }
    free(found);
    free(asked.q);
    free(hangs.q);
}

uint64_t argus_similar_max(const char *arg)
{
    return argus_parse_uint_option("--max", arg, 1, UINT64_MAX, NULL);
}
