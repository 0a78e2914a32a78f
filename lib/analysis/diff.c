/* diff: the assisted graph diff (the original system's AssistedGraphDiff):
 * for each hang node, walk its similar node's causal path in a baseline
 * graph and name the threads that acted there but were blocked or busy
 * here (docs/stages/diff.md; the command line is filters/diff.c). */
#include "argus/analysis/diff.h"
#include "argus/analysis/findings.h"
#include "argus/analysis/causal.h"
#include "argus/stages/stage.h"
#include "argus/stream/cli.h"
#include "argus/stream/table.h"
#include "argus/stream/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000ull
#define SECOND (1000 * MS)
#define LONG_RUN (1500 * MS)
#define MAX_WALK 64
#define MAX_CANDIDATES 16

/* ---- choices (DIFF-ASK) --------------------------------------------------- */
typedef struct chooser {
    uint32_t *list;             /* --choose values */
    uint32_t n, next;
    size_t cap;
    FILE *tty;                  /* --interactive */
} chooser;

typedef struct ctx {
    argus_graph *g, *base;
    const argus_sim_index *ix;
    argus_writer *out;
    chooser ch;
    int depth, max_branches;
    uint32_t hang_thread;       /* never its own culprit (but when busy) */
    uint32_t asked[64];         /* branch points met for this hang ... */
    uint32_t answer[64];        /* ... and the cause segment taken there
                                   (ARGUS_NONE: all) */
    argus_table matched;        /* hang number -> baseline node matched by
                                   argus-similar (rank 1), uint32 */
    uint32_t lonely[64];        /* baseline threads with no counterpart,
                                   counted once per hang */
    uint32_t nlonely;
    uint32_t nasked;
    argus_table connected;      /* threads on this hang's causal paths and
                                   wait chain (DIFF-CONNECTED) */
    argus_table asked_pids;     /* processes those threads sent a request
                                   to (an unanswered one included) */
    argus_role_index roles;     /* g's threads by process name */
    argus_table first_path;     /* hang number -> its first path record
                                   (an index into g's extras), uint32 */
    uint32_t *next_path;        /* the next path record of the same hang,
                                   by extra index; ARGUS_NONE: the last */
} ctx;

/* DIFF-CONNECTED: on this hang's chain or causal path, in a process one
 * of those threads sent a request to, or in the hang's own process (its
 * threads share memory: flags and locks the trace does not show). */
static bool connected(const ctx *c, uint32_t thread)
{
    uint64_t pid = c->g->threads[thread].pid;
    return argus_table_get(&c->connected, thread) != NULL ||
           argus_table_get(&c->asked_pids, pid) != NULL ||
           pid == c->g->threads[c->hang_thread].pid;
}

/* ---- the baseline walk ------------------------------------------------------- */
typedef struct walk_node {
    uint32_t seg;               /* baseline segment */
    uint32_t edge;              /* the edge from it toward the hang, or NONE */
    uint32_t dist;              /* steps from the start */
} walk_node;

typedef struct walk {
    walk_node nodes[MAX_WALK];
    uint32_t n;
} walk;

typedef struct walks {
    walk *v;
    uint32_t n;
    size_t cap;
} walks;

static void walks_add(walks *w, const walk *x)
{
    *ARGUS_PUSH(w->v, w->n, w->cap) = *x;
}

static bool walk_has(const walk *w, uint32_t seg)
{
    for (uint32_t i = 0; i < w->n; i++)
        if (w->nodes[i].seg == seg)
            return true;
    return false;
}

/* A thread's name in evidence: "main" for a main thread named as its
 * process (a Linux comm), as argus report shows it. */
static const char *thread_label_name(const argus_graph *g, const argus_gthread *th)
{
    const char *name = th->name ? argus_graph_str(g, th->name) : "";
    if (th->main && th->proc && strcmp(name, argus_graph_str(g, th->proc)) == 0)
        return "main";
    return name;
}

static void put_thread_label(FILE *f, const argus_graph *g, uint32_t t)
{
    const argus_gthread *th = &g->threads[t];
    fprintf(f, "%s %s [%llu]", th->proc ? argus_graph_str(g, th->proc) : "?",
            thread_label_name(g, th), (unsigned long long)th->tid);
}

static bool describe_event(const argus_graph *g, const argus_seg *s,
                           uint64_t id, char *buf, size_t len);

/* Asks which candidate to follow: returns 0 for all, else 1..n. */
static uint32_t ask(ctx *c, uint32_t at, const uint32_t *cand, uint32_t n)
{
    const argus_graph *b = c->base;
    FILE *t = c->ch.tty;
    fprintf(t, "\nargus-diff: the baseline path branches at seg %llu (",
            (unsigned long long)b->segs[at].seg);
    put_thread_label(t, b, b->segs[at].thread);
    fprintf(t, "). Which cause to follow?\n");
    for (uint32_t i = 0; i < n; i++) {
        const argus_gedge *e = &b->edges[cand[i]];
        const argus_seg *s = &b->segs[e->from_seg];
        fprintf(t, "  %u) seg %llu ", i + 1, (unsigned long long)s->seg);
        put_thread_label(t, b, s->thread);
        fprintf(t, " via %s%s\n", argus_graph_str(b, e->kind), e->weak ? " (weak)" : "");
        uint32_t nkeys;
        const argus_key_event *keys = argus_graph_seg_keys(b, e->from_seg, &nkeys);
        for (uint32_t k = 0; k < nkeys && k < 6; k++) {
            const argus_key_event *ke = &keys[k];
            char what[160];
            describe_event(b, s, ke->id, what, sizeof what);
            fprintf(t, "       %s%s\n", what, ke->extra > 1 ? " (repeated)" : "");
        }
    }
    fprintf(t, "  0) all of them\n> ");
    fflush(t);
    char line[64];
    while (fgets(line, sizeof line, t)) {
        char *end;
        unsigned long v = strtoul(line, &end, 10);
        if (end != line && v <= n)
            return (uint32_t)v;
        fprintf(t, "a number from 0 to %u, please\n> ", n);
        fflush(t);
    }
    return 0;
}

static uint32_t choose(ctx *c, uint32_t at, const uint32_t *cand, uint32_t n)
{
    if (c->ch.next < c->ch.n) {
        uint32_t v = c->ch.list[c->ch.next++];
        if (v > n)
            argus_die(ARGUS_EX_USAGE, "--choose: choice %u at branch point %u "
                      "(seg %llu) has only %u candidates", v, c->ch.next,
                      (unsigned long long)c->base->segs[at].seg, n);
        return v;
    }
    if (c->ch.tty)
        return ask(c, at, cand, n);
    return 0;
}

static void put_branch(ctx *c, uint32_t hang, uint32_t at, const uint32_t *cand,
                       uint32_t n, uint32_t chosen)
{
    const argus_graph *b = c->base;
    argus_writer *w = c->out;
    if (c->nasked < 64) {
        c->asked[c->nasked] = at;
        c->answer[c->nasked++] = chosen ? b->edges[cand[chosen - 1]].from_seg
                                        : ARGUS_NONE;
    }
    uint64_t *choices = argus_xmalloc(((size_t)n + 1) * sizeof *choices, "a branch point");
    for (uint32_t i = 0; i < n; i++)
        choices[i] = b->segs[b->edges[cand[i]].from_seg].seg;
    argus_write_branch(w, &(argus_branch_finding){
        .hang = hang, .at = b->segs[at].seg, .nchoices = (int)n, .choices = choices,
        .chosen = chosen ? b->segs[b->edges[cand[chosen - 1]].from_seg].seg : ARGUS_ABSENT});
    free(choices);
    argus_count("branch points", 1);
}

/* Candidates: strong edges if any, else weak ones; the latest cause
 * first (it acted closest to the node). */
static const argus_graph *cand_graph;
static int by_latest(const void *a, const void *b)
{
    const argus_gedge *x = &cand_graph->edges[*(const uint32_t *)a];
    const argus_gedge *y = &cand_graph->edges[*(const uint32_t *)b];
    return x->from < y->from ? 1 : x->from > y->from ? -1 : 0;
}

static void walk_from(ctx *c, uint32_t hang, walk *cur, walks *out)
{
    const argus_graph *b = c->base;
    for (;;) {
        walk_node *last = &cur->nodes[cur->n - 1];
        const argus_seg *s = &b->segs[last->seg];
        if ((s->ui_id != UINT64_MAX && cur->n > 1) || cur->n == MAX_WALK)
            break;
        uint32_t strong[MAX_CANDIDATES], weak[MAX_CANDIDATES], ns = 0, nw = 0;
        for (uint32_t k = 0; k < s->in_len; k++) {
            uint32_t ei = b->in_edges[s->in_off + k];
            const argus_gedge *e = &b->edges[ei];
            if (walk_has(cur, e->from_seg))
                continue;
            /* one candidate per cause segment (an ipc and its wakeup) */
            bool seen = false;
            for (uint32_t j = 0; j < ns && !seen; j++)
                seen = b->edges[strong[j]].from_seg == e->from_seg;
            for (uint32_t j = 0; j < nw && !seen; j++)
                seen = b->edges[weak[j]].from_seg == e->from_seg;
            if (seen)
                continue;
            if (!e->weak && ns < MAX_CANDIDATES)
                strong[ns++] = ei;
            else if (e->weak && nw < MAX_CANDIDATES)
                weak[nw++] = ei;
        }
        uint32_t *cand = ns ? strong : weak, n = ns ? ns : nw;
        if (n == 0)
            break;
        cand_graph = b;
        argus_sort(cand, n, sizeof *cand, by_latest);
        if (n == 1 && ns == 1) {
            cur->nodes[cur->n++] = (walk_node){b->edges[cand[0]].from_seg, cand[0],
                                               last->dist + 1};
            continue;
        }
        /* DIFF-ASK: several strong causes, or only weak ones; a point met
         * again on another branch keeps the choice made there */
        uint32_t chosen = 0, k;
        for (k = 0; k < c->nasked && c->asked[k] != last->seg; k++)
            ;
        if (k < c->nasked) {
            /* the same cause segment; all when it is no cause here (it is
             * on this walk already) */
            for (uint32_t i = 0; i < n; i++)
                if (b->edges[cand[i]].from_seg == c->answer[k])
                    chosen = i + 1;
        } else {
            chosen = choose(c, last->seg, cand, n);
            put_branch(c, hang, last->seg, cand, n, chosen);
        }
        if (chosen) {
            cur->nodes[cur->n++] = (walk_node){b->edges[cand[chosen - 1]].from_seg,
                                               cand[chosen - 1], last->dist + 1};
            continue;
        }
        for (uint32_t i = 0; i < n && out->n < (uint32_t)c->max_branches; i++) {
            walk fork = *cur;
            fork.nodes[fork.n++] = (walk_node){b->edges[cand[i]].from_seg, cand[i],
                                               last->dist + 1};
            walk_from(c, hang, &fork, out);
        }
        return;
    }
    if (out->n < (uint32_t)c->max_branches)
        walks_add(out, cur);
}

/* ---- culprits ------------------------------------------------------------------ */
typedef struct culprit {
    uint32_t thread, seg;       /* in the buggy graph */
    bool busy;
    bool blocked;               /* in WAIT (its segment's final wait, or one inside it) */
    argus_wait_info wait;
    bool runnable;              /* woken, it waited for a CPU */
    bool unknown;               /* before its first event in the trace */
    uint64_t since, until;
    uint32_t depth, branch, order;
    uint32_t base_seg;          /* baseline node, or NONE */
    uint32_t base_edge;         /* baseline edge it acted over, or NONE */
    uint32_t waits_on;          /* thread, or NONE */
    uint64_t cp_time;           /* its time on the hang's critical path */
    char evidence[512];
} culprit;

typedef struct culprits {
    culprit *v;
    uint32_t n;
    size_t cap;
} culprits;

static bool has_thread(const culprits *cs, uint32_t thread)
{
    for (uint32_t i = 0; i < cs->n; i++)
        if (cs->v[i].thread == thread)
            return true;
    return false;
}

static culprit *culprit_add(culprits *cs)
{
    culprit *c = ARGUS_PUSH(cs->v, cs->n, cs->cap);
    c->base_seg = c->base_edge = c->waits_on = ARGUS_NONE;
    return c;
}

/* A moment as the report prints it (argus_moment_text), as a value that
 * lives through the printf it is an argument of. */
typedef struct { char s[24]; } moment;
static moment at_time(const argus_graph *g, uint64_t ts)
{
    moment m;
    argus_moment_text(m.s, sizeof m.s, ts, g->origin != 0, g->origin);
    return m;
}

/* Where thread T of the buggy graph was at time AT: blocked (in *WAIT)
 * since, or running since; false when it was doing neither for long. */
static bool state_at(const argus_graph *g, uint32_t t, uint64_t at, uint32_t *seg, bool *busy,
                     argus_wait_info *wait, uint64_t *since, uint64_t *until)
{
    /* its segment ongoing at AT, or else its latest one before */
    uint32_t s = argus_graph_seg_before(g, t, at);
    if (s == ARGUS_NONE)
        return false;
    const argus_seg *x = &g->segs[s];
    *seg = s;
    if (argus_wait_at(g, s, at, wait)) {
        *busy = false;
        *since = wait->from;
        *until = wait->to != UINT64_MAX ? wait->to : g->t_last;
        return true;
    }
    if (x->begin <= at && at <= x->end) {
        *busy = true;
        *since = x->begin;
        *until = x->end;
        return true;
    }
    return false;
}

/* What baseline event ID of segment S was, as "TYPE TEXT" (a key event
 * of S: argus_graph_key_event); false when it is not known. */
static bool describe_event(const argus_graph *g, const argus_seg *s,
                           uint64_t id, char *buf, size_t len)
{
    argus_key_event ke;
    char text[256];
    if (!argus_graph_key_event(g, (uint32_t)(s - g->segs), id, &ke, text, sizeof text))
        return false;
    uint32_t t = ke.type == ARGUS_T_WAKEUP ? argus_graph_thread(g, ke.aux) : ARGUS_NONE;
    if (t != ARGUS_NONE)
        snprintf(buf, len, "wakeup of %s %s [%llu]", argus_graph_str(g, g->threads[t].proc),
                 thread_label_name(g, &g->threads[t]), (unsigned long long)ke.aux);
    else if (ke.type == ARGUS_T_WAKEUP)
        snprintf(buf, len, "wakeup of tid %llu", (unsigned long long)ke.aux);
    else {
        int n = snprintf(buf, len, "%s%s", argus_type_name(ke.type), *text ? " " : "");
        if (n >= 0 && (size_t)n < len) { /* the text cut to what is left */
            size_t tl = argus_utf8_cut(text, strlen(text), len - (size_t)n - 1);
            memcpy(buf + n, text, tl);
            buf[(size_t)n + tl] = 0;
        }
    }
    return true;
}

static void describe_state(char *buf, size_t len, const argus_graph *g,
                           const culprit *c)
{
    if (c->unknown)
        snprintf(buf, len, "was not yet in the trace: its first event, at %s s, is the wakeup",
                 at_time(g, c->until).s);
    else if (c->runnable)
        snprintf(buf, len, "was runnable %.3f s from %s s, waiting for a CPU",
                 (double)(c->until - c->since) / 1e9, at_time(g, c->since).s);
    else if (c->busy)
        snprintf(buf, len, "was running %.3f s without blocking from %s s",
                 (double)(c->until - c->since) / 1e9, at_time(g, c->since).s);
    else
        snprintf(buf, len, "was blocked %.3f s in %s from %s s",
                 (double)(c->until - c->since) / 1e9,
                 c->blocked && c->wait.reason ? argus_graph_str(g, c->wait.reason) : "a wait",
                 at_time(g, c->since).s);
}

static void diff_node(ctx *c, uint32_t hang, uint32_t h, uint64_t at,
                      uint32_t base_node, uint32_t depth, culprits *cs,
                      uint32_t first_branch);

/* Whether thread T has, in this trace, an edge to a thread playing
 * baseline thread BT's role (SAME_KIND: of baseline kind KIND, from T;
 * else either way, any kind), touching a segment ongoing from a second
 * before the hang began up to AT. */
static bool edge_with_role(const ctx *c, uint32_t t, uint32_t bt, bool same_kind,
                           uint32_t kind, uint64_t hang_begin, uint64_t at)
{
    const argus_graph *g = c->g;
    const char *want = same_kind ? argus_graph_str(c->base, kind) : NULL;
    uint32_t peers[MAX_CANDIDATES];
    int np = argus_role_index_peers(&c->roles, c->base, bt, peers, MAX_CANDIDATES);
    uint64_t from = hang_begin > g->t_first + SECOND ? hang_begin - SECOND : g->t_first;
    const uint32_t *segs = g->thread_segs + g->seg_first[t];
    uint32_t n = g->seg_first[t + 1] - g->seg_first[t];
    for (uint32_t i = 0; i < n; i++) {
        const argus_seg *s = &g->segs[segs[i]];
        if (argus_seg_until(g, s) < from || s->begin > at)
            continue;
        for (int dir = 0; dir < 1 + !same_kind; dir++) {
            uint32_t len = dir ? s->in_len : s->out_len, off = dir ? s->in_off : s->out_off;
            for (uint32_t k = 0; k < len; k++) {
                const argus_gedge *e = &g->edges[dir ? g->in_edges[off + k] : g->out_edges[off + k]];
                const argus_seg *o = &g->segs[dir ? e->from_seg : e->to_seg];
                if ((want && strcmp(argus_graph_str(g, e->kind), want) != 0) || o->begin > at ||
                    argus_seg_until(g, o) < from)
                    continue;
                for (int p = 0; p < np; p++)
                    if (o->thread == peers[p])
                        return true;
            }
        }
    }
    return false;
}

/* DIFF-CULPRIT for one baseline walk. */
static void check_walk(ctx *c, uint32_t hang, uint32_t h, uint64_t at,
                       uint32_t base_node, const walk *w, uint32_t branch,
                       uint32_t depth, culprits *cs)
{
    const argus_graph *g = c->g, *b = c->base;
    const argus_seg *hs = &g->segs[h], *n0 = &b->segs[base_node];
    uint32_t start = cs->n;
    for (uint32_t i = 0; i < w->n; i++) {
        const walk_node *wn = &w->nodes[i];
        const argus_seg *p = &b->segs[wn->seg];
        if (p->thread == n0->thread || p->ctx)
            continue;
        /* when it acted in the baseline (the event of its edge toward the
         * hang), aligned to the similar node */
        uint64_t acted = p->begin;
        argus_key_event ke;
        char text[256];
        if (wn->edge != ARGUS_NONE &&
            argus_graph_key_event(b, wn->seg, b->edges[wn->edge].from, &ke, text, sizeof text))
            acted = ke.ts;
        /* a = the hang node's begin moved by (acted - the similar node's
         * begin), kept within [t_first, at]; in unsigned arithmetic, as
         * either trace's ts may be anywhere in 0..2^64-1 */
        double offset = acted >= n0->begin ? (double)(acted - n0->begin)
                                            : -(double)(n0->begin - acted);
        uint64_t a;
        if (acted >= n0->begin)
            a = acted - n0->begin > UINT64_MAX - hs->begin ? UINT64_MAX
                                                           : hs->begin + (acted - n0->begin);
        else
            a = n0->begin - acted > hs->begin - g->t_first ? g->t_first
                                                           : hs->begin - (n0->begin - acted);
        if (a > at)
            a = at;
        uint32_t peers[MAX_CANDIDATES];
        int np = argus_role_index_peers(&c->roles, b, p->thread, peers, MAX_CANDIDATES);
        if (np == 0) {
            uint32_t j = 0;
            while (j < c->nlonely && c->lonely[j] != p->thread)
                j++;
            if (j == c->nlonely && c->nlonely < 64) {
                c->lonely[c->nlonely++] = p->thread;
                argus_count("baseline threads with no counterpart", 1);
            }
        }
        for (int k = 0; k < np; k++) {
            uint32_t t = peers[k];
            if (t == c->hang_thread || has_thread(cs, t))
                continue;
            uint32_t seg;
            bool busy;
            argus_wait_info wait;
            uint64_t since, until;
            if (!state_at(g, t, at, &seg, &busy, &wait, &since, &until))
                continue;
            /* blocked or busy for at least the later half of [a, at] */
            if (since > a + (at - a) / 2)
                continue;
            if (busy && until - since < LONG_RUN && since > a)
                continue;
            /* DIFF-WAITER: blocked until the hang's own thread woke it
             * after the hang, it waited on the hang (a parent for its
             * child's exit, a client for an answer), it did not cause it;
             * unless the hang asked its process (they waited on each
             * other: a deadlock a timeout broke) */
            uint32_t waker = busy ? ARGUS_NONE : argus_graph_waker(g, seg);
            if (waker != ARGUS_NONE && g->segs[waker].thread == c->hang_thread &&
                g->segs[waker].begin >= argus_seg_until(g, hs) &&
                hs->send_peer != g->threads[t].pid) {
                argus_count("baseline threads that waited on the hang (DIFF-WAITER)", 1);
                continue;
            }
            /* DIFF-CONNECTED: a thread tied to this hang in this trace
             * (on its chain or causal path, or acting in the baseline on
             * one that is), not one that only shares a name with a
             * baseline thread */
            uint32_t toward = i > 0 ? b->segs[w->nodes[i - 1].seg].thread : ARGUS_NONE;
            if (!connected(c, t) &&
                (toward == ARGUS_NONE || !edge_with_role(c, t, toward, false, 0, hs->begin, at))) {
                argus_count("baseline threads not tied to this hang (DIFF-CONNECTED)", 1);
                continue;
            }
            /* DIFF-MISSING: its baseline edge into the hang's thread is
             * missing here, not made here too (the X server delivered
             * this key press too, the recorder started it too) */
            if (wn->edge != ARGUS_NONE && toward == n0->thread &&
                edge_with_role(c, t, toward, true, b->edges[wn->edge].kind, hs->begin, at)) {
                argus_count("baseline threads that acted here too (DIFF-MISSING)", 1);
                continue;
            }
            culprit *x = culprit_add(cs);
            x->thread = t;
            x->seg = seg;
            x->busy = busy;
            x->blocked = !busy;
            x->wait = wait;
            x->since = since;
            x->until = until;
            x->depth = depth;
            x->branch = branch;
            x->order = wn->dist;
            x->base_seg = wn->seg;
            x->base_edge = wn->edge;
            char state[160];
            describe_state(state, sizeof state, g, x);
            const char *kind = wn->edge != ARGUS_NONE
                                   ? argus_graph_str(b, b->edges[wn->edge].kind) : "";
            char what[160];
            if (wn->edge != ARGUS_NONE &&
                describe_event(b, p, b->edges[wn->edge].from, what, sizeof what))
                snprintf(x->evidence, sizeof x->evidence,
                         "in the baseline it acted at %+.3f s (%s, %s edge, "
                         "baseline seg %llu); here it %s, up to the hang at %s s",
                         offset / 1e9, what, kind,
                         (unsigned long long)p->seg, state, at_time(g, at).s);
            else
                snprintf(x->evidence, sizeof x->evidence,
                         "in the baseline it acted at %+.3f s (%s edge, baseline "
                         "seg %llu); here it %s, up to the hang at %s s",
                         offset / 1e9, *kind ? kind : "no",
                         (unsigned long long)p->seg, state, at_time(g, at).s);
            break;
        }
    }
    /* recurse on each culprit's own blocking node */
    uint32_t end = cs->n;
    for (uint32_t i = start; i < end && depth < (uint32_t)c->depth; i++) {
        if (cs->v[i].busy)
            continue;
        argus_match m;
        if (argus_sim_find(c->ix, g, cs->v[i].seg, &m, 1) == 1)
            diff_node(c, hang, cs->v[i].seg, at, m.seg, depth + 1, cs, branch);
    }
}

static void diff_node(ctx *c, uint32_t hang, uint32_t h, uint64_t at,
                      uint32_t base_node, uint32_t depth, culprits *cs,
                      uint32_t first_branch)
{
    const argus_graph *b = c->base;
    /* the path that ended the baseline node's wait starts where its
     * thread went on */
    uint32_t start = base_node;
    const argus_seg *n0 = &b->segs[base_node];
    if (n0->wait_id != UINT64_MAX) {
        uint32_t nx = n0->next;
        while (nx != ARGUS_NONE && b->segs[nx].ctx)
            nx = b->segs[nx].next;
        if (nx != ARGUS_NONE)
            start = nx;
    }
    walks ws = {0};
    walk first = {.n = 1};
    first.nodes[0] = (walk_node){start, ARGUS_NONE, 0};
    walk_from(c, hang, &first, &ws);
    for (uint32_t i = 0; i < ws.n; i++)
        check_walk(c, hang, h, at, base_node, &ws.v[i],
                   depth ? first_branch : i + 1, depth, cs);
    free(ws.v);
}

/* DIFF-CULPRIT without a baseline (and the culprits a baseline confirms
 * or adds to): the threads of the wait chain that held the hang up,
 * ranked by their time on its critical path (argus_critical_path), the
 * deepest first on a tie. A link that held it up less than a tenth of
 * the window only relayed (a bus daemon forwarding a message, a worker
 * handing on): it stays on the chain and the path, not among the
 * culprits, unless it is the chain's last; the thread that held the CPU
 * of a runnable link counts that link's time. The hang's own thread is a
 * culprit here only when it slept by itself (SPIN-SLEEP; a busy hang's
 * thread is named by diff_hang). */
static int by_cp_time(const void *a, const void *b)
{
    const culprit *x = a, *y = b;
    if (x->cp_time != y->cp_time)
        return x->cp_time > y->cp_time ? -1 : 1;
    return x->order > y->order ? -1 : x->order < y->order;
}

static const char *chain_culprits(const argus_graph *g, uint32_t h, uint64_t from,
                                  culprits *cs, culprits *relays)
{
    argus_chain chain;
    argus_wait_chain(g, h, from, ARGUS_CHAIN_MAX, &chain);
    argus_cpath cp = {0};
    argus_critical_path(g, h, from, &cp);
    uint64_t window = 0;
    for (uint32_t i = 0; i < cp.len; i++)
        window += cp.steps[i].to - cp.steps[i].from;
    argus_wait_info hw;
    /* the hang's own doing: its sleep, or its page faults (uninterruptible
     * waits outside any system call, ended by the disk's interrupt) */
    bool alone = chain.len == 1 && chain.end && chain.state[0] == ARGUS_LINK_BLOCKED;
    bool own = alone &&
               ((strcmp(chain.end, "timeout") == 0 &&
                 argus_wait_at(g, chain.segs[0], chain.since[0], &hw) &&
                 argus_sleep_reason(argus_graph_opt_str(g, hw.reason))) ||
                (strcmp(chain.end, "io") == 0 && argus_final_wait(g, chain.segs[0], &hw) &&
                 hw.reason && strcmp(argus_graph_str(g, hw.reason), "disk") == 0));
    for (uint32_t i = chain.len; i-- > (own ? 0 : 1);) {    /* deepest first */
        const argus_seg *s = &g->segs[chain.segs[i]];
        if (has_thread(cs, s->thread))
            continue;
        uint64_t held = argus_cp_thread_time(&cp, s->thread);
        /* the CPU holder held up the runnable link before it all along
         * (the critical path keeps that time on the runnable thread) */
        const char *via = i > 0 && chain.via[i - 1] ? chain.via[i - 1] : "?";
        if (i > 0 && strcmp(via, "cpu") == 0) {
            uint64_t before = argus_cp_thread_time(&cp, g->segs[chain.segs[i - 1]].thread);
            if (before > held)
                held = before;
        }
        if (i + 1 < chain.len && held * 10 < window) {
            argus_count("chain links that only relayed, not culprits", 1);
            culprit_add(relays)->thread = s->thread;
            continue;
        }
        culprit *x = culprit_add(cs);
        x->thread = s->thread;
        x->seg = chain.segs[i];
        x->busy = chain.state[i] == ARGUS_LINK_RUNNING;
        x->runnable = chain.state[i] == ARGUS_LINK_RUNNABLE;
        x->unknown = chain.state[i] == ARGUS_LINK_UNKNOWN;
        x->since = chain.since[i];
        x->until = chain.until[i];
        x->blocked = chain.state[i] == ARGUS_LINK_BLOCKED &&
                     argus_wait_at(g, chain.segs[i], x->since, &x->wait);
        x->depth = i ? i - 1 : 0;
        x->branch = 1;
        x->order = i;
        x->cp_time = held;
        char state[160];
        describe_state(state, sizeof state, g, x);
        if (i == 0)
            snprintf(x->evidence, sizeof x->evidence,
                     "the hang's own thread, where its wait chain ends (%s); it %s",
                     chain.end, state);
        else
            snprintf(x->evidence, sizeof x->evidence,
                     "link %u of the wait chain (via %s; the chain ends: %s); it %s",
                     i, via, chain.end, state);
    }
    argus_sort(cs->v, cs->n, sizeof *cs->v, by_cp_time);
    free(cp.steps);
    return chain.end;
}

/* DIFF-CHAIN: the wait chain and the baseline's culprits, one list. A
 * chain that ends at a thread that held the hang up by itself (it slept,
 * ran, or held the CPU) gives the order, deepest first: the baseline
 * cannot see a cause it never had (a lock holder the normal run did not
 * meet), and its own order (farthest back on the normal run's path)
 * puts a thread that only waited on the culprit before it. A thread the
 * baseline names too is told with the baseline's evidence (its missing
 * edge); the baseline's other culprits follow. Otherwise the baseline's
 * culprits stand (they name what the buggy run is missing where the
 * chain stops: an interrupt, a request nobody answered), and the chain's
 * only when the baseline names none. After a conclusive chain, a thread
 * of it that only relayed (DIFF-RELAY) is no culprit, whatever the
 * baseline says. */
static void merge_culprits(culprits *out, const culprits *chain, const culprits *base,
                           const culprits *relays, const char *end)
{
    bool conclusive = chain->n && end &&
                      (strcmp(end, "timeout") == 0 || strcmp(end, "running") == 0 ||
                       strcmp(end, "runnable") == 0);
    if (!conclusive) {
        const culprits *list = base->n ? base : chain;
        for (uint32_t i = 0; i < list->n; i++)
            *culprit_add(out) = list->v[i];
        return;
    }
    for (uint32_t i = 0; i < chain->n; i++) {
        const culprit *x = &chain->v[i];
        for (uint32_t k = 0; k < base->n; k++)
            if (base->v[k].thread == x->thread) {
                x = &base->v[k];
                break;
            }
        *culprit_add(out) = *x;
        out->v[out->n - 1].branch = 1;
    }
    for (uint32_t k = 0; k < base->n; k++)
        if (!has_thread(out, base->v[k].thread) && !has_thread(relays, base->v[k].thread))
            *culprit_add(out) = base->v[k];
}

static int by_rank(const void *a, const void *b)
{
    const culprit *x = a, *y = b;
    if (x->branch != y->branch)
        return x->branch < y->branch ? -1 : 1;
    uint32_t kx = x->depth * 1000 + x->order, ky = y->depth * 1000 + y->order;
    return kx > ky ? -1 : kx < ky ? 1 : 0;
}

static void put_culprit(ctx *c, uint32_t hang, uint32_t rank, bool root,
                        const culprit *x)
{
    const argus_graph *g = c->g;
    const argus_seg *s = &g->segs[x->seg];
    bool blocked = !x->busy && x->blocked;
    argus_chain chain;
    uint32_t waits_on = ARGUS_NONE;
    if (blocked) {
        argus_wait_chain(g, x->seg, x->since, 2, &chain);
        for (uint32_t i = 1; i < chain.len && waits_on == ARGUS_NONE; i++)
            if (g->segs[chain.segs[i]].thread != x->thread)
                waits_on = g->segs[chain.segs[i]].thread;
    }
    const char *missing = x->base_edge != ARGUS_NONE
                              ? argus_graph_str(c->base, c->base->edges[x->base_edge].kind)
                              : NULL;
    const argus_gthread *th = &g->threads[x->thread];
    argus_culprit_finding f = {
        .hang = hang, .rank = rank, .root = root, .depth = x->depth, .branch = x->branch,
        .tid = th->tid, .pid = th->pid,
        .proc = argus_graph_opt_str(g, th->proc),
        .thread = argus_graph_opt_str(g, th->name),
        .seg = s->seg,
        .state = x->busy ? "busy" : x->runnable ? "runnable" : x->unknown ? "unknown" : "blocked",
        .since = x->since, .until = x->until, .duration = x->until - x->since,
        .wait = blocked ? x->wait.id : ARGUS_ABSENT,
        .resource = blocked ? x->wait.resource : ARGUS_ABSENT,
        .reason = blocked && x->wait.reason ? argus_graph_str(g, x->wait.reason) : NULL,
        .waits_on = waits_on != ARGUS_NONE ? g->threads[waits_on].tid : ARGUS_ABSENT,
        .baseline_seg = x->base_seg != ARGUS_NONE ? c->base->segs[x->base_seg].seg
                                                  : ARGUS_ABSENT,
        .missing = missing, .evidence = x->evidence,
    };
    argus_write_culprit(c->out, &f);
}

/* The baseline nodes matched to the hangs by argus-similar, if it ran:
 * one pass over the match records, the first rank-1 match of a hang. */
static void index_matches(ctx *c)
{
    argus_findings_mem mem = {0};
    argus_table_init(&c->matched, sizeof(uint32_t));
    for (uint32_t i = 0; i < c->g->nextras; i++) {
        if (!argus_extra_is(&c->g->extras[i], "match"))
            continue;
        const argus_record *r = argus_graph_parse_extra(c->g, i);
        argus_match_finding m;
        if (!r || !argus_read_match(r, &mem, &m) || m.rank != 1 || m.hang == ARGUS_ABSENT)
            continue;
        bool created;
        uint32_t *v = argus_table_put(&c->matched, m.hang, &created);
        if (created)
            *v = argus_graph_find_seg(c->base, m.baseline_seg);
    }
    argus_findings_mem_free(&mem);
}

static uint32_t matched_node(const ctx *c, uint32_t n)
{
    const uint32_t *v = argus_table_get(&c->matched, n);
    return v ? *v : ARGUS_NONE;
}

typedef struct hang_rec {
    uint32_t n, seg;
    uint64_t from;              /* where its wait began (its first retry's) */
    uint64_t at;
    bool busy;
} hang_rec;

/* DIFF-CONNECTED: the threads of this hang's causal paths (its path
 * records) and of its wait chain. */
static void tie_seg(ctx *c, uint32_t si)
{
    const argus_seg *s = &c->g->segs[si];
    *(uint8_t *)argus_table_put(&c->connected, s->thread, NULL) = 1;
    if (s->send_peer != UINT64_MAX)
        *(uint8_t *)argus_table_put(&c->asked_pids, s->send_peer, NULL) = 1;
}

/* Each hang's path records, once for all hangs: a pass over every
 * record for each hang was quadratic in hangs. */
static void index_paths(ctx *c)
{
    argus_table_init(&c->first_path, sizeof(uint32_t));
    c->next_path =
        argus_xmalloc(((size_t)c->g->nextras + 1) * sizeof *c->next_path, "path records");
    /* from the last record down: each hang's list in stream order */
    for (uint32_t i = c->g->nextras; i-- > 0;) {
        c->next_path[i] = ARGUS_NONE;
        if (!argus_extra_is(&c->g->extras[i], "path"))
            continue;
        const argus_record *r = argus_graph_parse_extra(c->g, i);
        const argus_field *f = r ? argus_get_named(r, "hang") : NULL;
        if (!f || f->kind != ARGUS_V_UINT)
            continue;
        uint64_t hang = f->u;
        bool created;
        uint32_t *head = argus_table_put(&c->first_path, hang, &created);
        c->next_path[i] = created ? ARGUS_NONE : *head;
        *head = i;
    }
}

static void index_connected(ctx *c, const hang_rec *hr, const culprits *cs)
{
    argus_table_free(&c->connected);
    argus_table_free(&c->asked_pids);
    argus_table_init(&c->connected, sizeof(uint8_t));
    argus_table_init(&c->asked_pids, sizeof(uint8_t));
    argus_findings_mem mem = {0};
    tie_seg(c, hr->seg);
    for (uint32_t i = 0; i < cs->n; i++)
        tie_seg(c, cs->v[i].seg);
    const uint32_t *first = argus_table_get(&c->first_path, hr->n);
    for (uint32_t i = first ? *first : ARGUS_NONE; i != ARGUS_NONE; i = c->next_path[i]) {
        const argus_record *r = argus_graph_parse_extra(c->g, i);
        argus_path_finding p;
        if (!r || !argus_read_path(r, &mem, &p) || p.hang != hr->n)
            continue;
        for (int k = 0; k < p.nsegs; k++) {
            uint32_t si = argus_graph_find_seg(c->g, p.segs[k]);
            if (si != ARGUS_NONE)
                tie_seg(c, si);
        }
    }
    argus_findings_mem_free(&mem);
}

static void diff_hang(ctx *c, const hang_rec *hr)
{
    argus_graph *g = c->g;
    culprits cs = {0};
    const argus_seg *hs = &g->segs[hr->seg];
    uint32_t n0 = ARGUS_NONE;
    c->hang_thread = hs->thread;
    c->nasked = 0;
    c->nlonely = 0;
    if (c->base) {
        n0 = matched_node(c, hr->n);
        if (n0 == ARGUS_NONE) {
            argus_match m;
            if (argus_sim_find(c->ix, g, hr->seg, &m, 1) == 1)
                n0 = m.seg;
        }
        if (n0 == ARGUS_NONE)
            argus_count("hang nodes with no similar baseline node", 1);
    }
    if (hr->busy) {
        culprit *x = culprit_add(&cs);
        x->thread = hs->thread;
        x->seg = hr->seg;
        x->busy = true;
        x->since = hs->begin;
        x->until = hs->end;
        x->branch = 1;
        x->base_seg = n0;
        char state[160];
        describe_state(state, sizeof state, g, x);
        if (n0 != ARGUS_NONE)
            snprintf(x->evidence, sizeof x->evidence,
                     "the hang's own thread %s; its baseline node (seg %llu) ran "
                     "%.3f s", state, (unsigned long long)c->base->segs[n0].seg,
                     (double)(c->base->segs[n0].end - c->base->segs[n0].begin) / 1e9);
        else
            snprintf(x->evidence, sizeof x->evidence, "the hang's own thread %s", state);
    } else {
        culprits chain = {0}, base = {0};
        culprits relays = {0};
        const char *end = chain_culprits(g, hr->seg, hr->from, &chain, &relays);
        if (n0 != ARGUS_NONE) {
            index_connected(c, hr, &chain);
            diff_node(c, hr->n, hr->seg, hr->at, n0, 0, &base, 1);
            argus_sort(base.v, base.n, sizeof *base.v, by_rank);
        }
        merge_culprits(&cs, &chain, &base, &relays, end);
        free(relays.v);
        free(chain.v);
        free(base.v);
    }
    uint32_t last_branch = UINT32_MAX;
    for (uint32_t i = 0; i < cs.n; i++) {
        bool root = cs.v[i].branch != last_branch;
        last_branch = cs.v[i].branch;
        put_culprit(c, hr->n, i + 1, root, &cs.v[i]);
    }
    if (cs.n == 0)
        argus_count("hang nodes with no culprit", 1);
    argus_count("culprits", cs.n);
    free(cs.v);
}


void argus_diff_write(argus_graph *g, argus_graph *base, const argus_sim_index *ix,
                      const argus_diff_options *o, argus_writer *out)
{
    ctx c = {.depth = o->depth, .max_branches = o->max_branches};
    c.ch.list = o->choose;
    c.ch.n = o->nchoose;
    c.ch.tty = o->tty;
    argus_table_init(&c.connected, sizeof(uint8_t));
    argus_table_init(&c.asked_pids, sizeof(uint8_t));
    c.g = g;
    argus_role_index_init(&c.roles, g);
    index_paths(&c);
    if (base) {
        c.base = base;
        c.ix = ix;
    }
    c.out = out;
    if (c.base)
        index_matches(&c);

    argus_findings_mem mem = {0};
    for (uint32_t i = 0; i < g->nextras; i++) {
        if (!argus_extra_is(&g->extras[i], "hang"))
            continue;
        const argus_record *r = argus_graph_parse_extra(g, i);
        argus_hang_finding h;
        hang_rec hr;
        hr.seg = r && argus_read_hang(r, &mem, &h) ? argus_graph_find_seg(g, h.seg) : ARGUS_NONE;
        if (hr.seg == ARGUS_NONE) {
            argus_count("hang records naming no segment", 1);
            continue;
        }
        hr.n = (uint32_t)h.hang;
        hr.at = h.at == ARGUS_ABSENT ? g->segs[hr.seg].begin : h.at;
        uint32_t fs = h.first_seg == ARGUS_ABSENT ? hr.seg : argus_graph_find_seg(g, h.first_seg);
        /* a wait hang from its (first) final wait; a hang with none (a
         * loop's handler, whose waits are inside it) from its begin */
        const argus_seg *from_seg = &g->segs[fs == ARGUS_NONE ? hr.seg : fs];
        hr.from = from_seg->wait_id != UINT64_MAX || h.begin == ARGUS_ABSENT ? from_seg->end
                                                                             : h.begin;
        hr.busy = h.cls && strcmp(h.cls, "busy") == 0;
        diff_hang(&c, &hr);
    }
    argus_findings_mem_free(&mem);
    argus_table_free(&c.connected);
    argus_table_free(&c.asked_pids);
    argus_role_index_free(&c.roles);
    argus_table_free(&c.first_path);
    free(c.next_path);
    if (c.base)
        argus_table_free(&c.matched);
}

bool argus_diff_option(argus_diff_options *o, int c, char *arg)
{
    switch (c) {
    case ARGUS_DIFF_OPT_DEPTH:
        o->depth = (int)argus_parse_uint_option("--depth", arg, 0, 32, NULL);
        return true;
    case ARGUS_DIFF_OPT_CHOOSE:
        for (char *tok = strtok(arg, ","); tok; tok = strtok(NULL, ","))
            *ARGUS_PUSH(o->choose, o->nchoose, o->choose_cap) =
                (uint32_t)argus_parse_uint_option("--choose", tok, 0, UINT32_MAX, NULL);
        return true;
    case ARGUS_DIFF_OPT_INTERACTIVE:
        o->interactive = true;
        return true;
    case ARGUS_DIFF_OPT_MAX_BRANCHES:
        o->max_branches = (int)argus_parse_uint_option("--max-branches", arg, 1, 1000, NULL);
        return true;
    default:
        return false;
    }
}

void argus_diff_options_ready(argus_diff_options *o)
{
    if (o->interactive && o->nchoose)
        argus_usage_error("--choose and --interactive exclude each other");
    if (o->interactive) {
        o->tty = fopen("/dev/tty", "r+");
        if (!o->tty)
            argus_usage_error("--interactive needs a terminal (/dev/tty)");
    }
}

void argus_diff_options_free(argus_diff_options *o)
{
    if (o->tty)
        fclose(o->tty);
    free(o->choose);
    o->tty = NULL;
    o->choose = NULL;
}
