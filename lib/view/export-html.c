/* argus-export --output-format html: one self-contained page (argus
 * diagnose --html): the verdict, the report, and a timeline of the hang's
 * threads that the page's own script draws as SVG from a JSON data
 * island. The template is share/export-page.html, compiled into the
 * library (build/gen/export-page.c), so the program needs no file at run
 * time and the page no network. */
#include "argus/view/export.h"

#include "argus/stream/cli.h"
#include "argus/stream/text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern const char argus_export_page[];

#define HTML_EVENTS_MAX 400     /* events listed per segment */
#define HTML_SEGS_MAX 5000      /* segments drawn per timeline */

typedef struct html_event {
    uint64_t id, ts;
    uint32_t seg;               /* index into the panel's shown[] */
    uint32_t text;              /* offset into the panel's text pool */
} html_event;

/* A trace's clock, as the report prints times (argus_moment_text): the
 * header's origin (ts + origin is the trace's own clock) and t0 (the wall
 * clock of ts 0, Unix epoch ns), where it has them. */
typedef struct page_clock {
    bool have_origin, have_t0;
    uint64_t origin, t0;
} page_clock;

static page_clock clock_of(const argus_record *hdr)
{
    page_clock c = {0};
    const argus_field *f = argus_get_named(hdr, "origin");
    if (f && f->kind == ARGUS_V_UINT) {
        c.have_origin = true;
        c.origin = f->u;
    }
    f = argus_get_named(hdr, "t0");
    if (f && f->kind == ARGUS_V_UINT) {
        c.have_t0 = true;
        c.t0 = f->u;
    }
    return c;
}

/* A timeline: some threads of one graph, between lo and hi. */
typedef struct panel {
    argus_graph *g;
    uint32_t *threads;          /* thread indices, in row order */
    size_t nthreads, cap_threads;
    uint32_t *shown;            /* segment indices drawn */
    size_t nshown, cap_shown;
    uint32_t *row_of_seg;       /* seg index -> index into shown, or NONE32 */
    uint64_t lo, hi;
    size_t left_out;            /* segments past HTML_SEGS_MAX */
    size_t *left_of;            /* of them, per thread (as threads[]) */
    size_t ncore;               /* core segments drawn (first) */
    html_event *ev;
    size_t nev, cap_ev;
    uint32_t *listed, *more;    /* per shown segment: events listed, not */
    char *pool;
    size_t pool_used, pool_cap;
    argus_table ts_of;          /* event id -> ts (edge ends) */
    page_clock clock;           /* its trace's clock, from its header */
} panel;

typedef struct html_page {
    const char *report;         /* file of the report text, or NULL */
    const export_hang_info *hang;      /* the hang drawn, or NULL */
    panel trace, base;
    bool have_base;
    const char *base_name;
    uint64_t *chain;            /* the wait chain's links, pairs */
    size_t nchain;
} html_page;

/* Match and culprit records of the hang drawn, for the verdict and the
 * baseline's timeline. */
typedef struct html_culprit {
    uint64_t rank, seg, tid, duration, baseline_seg;
    char who[160], state[32], reason[96];
} html_culprit;
/* One page: its timelines, and what it says of the hang drawn; over the
 * export's findings (x). */
typedef struct html {
    export_state *x;
    html_page page;
    html_culprit *culprits;
    size_t nculprits, cap_culprits;
    uint64_t match_seg, match_distance, match_percent, hang_at;  /* NONE64: none */
    char match_name[256];
    char hang_who[160], hang_reason[96], hang_indicator[64];
    uint64_t note_hang;         /* the hang drawn */
    const char *note_base;      /* what the page calls the baseline */
} html;

/* "proc/name [tid]", as the report names a thread: a main thread named
 * as its process (Linux: both the comm) is "main". */
static void thread_label(const argus_graph *g, uint32_t t, char *dst, size_t size)
{
    const argus_gthread *th = &g->threads[t];
    const char *proc = th->proc ? argus_graph_str(g, th->proc) : "";
    const char *name = th->name ? argus_graph_str(g, th->name) : th->main ? "main" : "";
    if (th->main && *proc && strcmp(proc, name) == 0)
        name = "main";
    snprintf(dst, size, "%s/%s [%llu]", *proc ? proc : "?", *name ? name : "?",
             (unsigned long long)th->tid);
}

/* The thread TID of G as thread_label names it, else as the finding
 * does (PROC, THREAD: NULL where it has none). */
static void who(const argus_graph *g, uint64_t tid, const char *proc, const char *thread,
                char *dst, size_t size)
{
    uint32_t t = argus_graph_thread(g, tid);
    if (t != ARGUS_NONE) {
        thread_label(g, t, dst, size);
        return;
    }
    char p[64], th[64];
    argus_export_copy_finding_text(p, sizeof p, proc);
    argus_export_copy_finding_text(th, sizeof th, thread);
    snprintf(dst, size, "%s/%s [%llu]", *p ? p : "?", *th ? th : "?",
             (unsigned long long)tid);
}

/* What the page says of hang HANG: the hang, its best match, its
 * culprits (records that do not read are left to take_finding). */
static void html_findings(html *H, argus_graph *g, uint64_t hang)
{
    argus_findings_mem mem = {0};
    for (uint32_t i = 0; i < g->nextras; i++) {
        const argus_extra *x = &g->extras[i];
        argus_finding_kind k = argus_finding_kind_of(x->type, strlen(x->type));
        if (k != ARGUS_F_HANG && k != ARGUS_F_MATCH && k != ARGUS_F_CULPRIT)
            continue;
        const argus_record *r = argus_graph_parse_extra(g, i);
        if (!r)
            continue;
        if (k == ARGUS_F_HANG) {
            argus_hang_finding h;
            if (!argus_read_hang(r, &mem, &h) || h.hang != hang)
                continue;
            H->hang_at = h.at;
            who(g, argus_export_value_or(h.tid, 0), h.proc, h.thread, H->hang_who, sizeof H->hang_who);
            argus_export_copy_finding_text(H->hang_reason, sizeof H->hang_reason, h.reason);
            argus_export_copy_finding_text(H->hang_indicator, sizeof H->hang_indicator, h.indicator);
        } else if (k == ARGUS_F_MATCH) {
            argus_match_finding m;
            if (!argus_read_match(r, &mem, &m) || m.hang != hang || argus_export_value_or(m.rank, 1) != 1)
                continue;
            H->match_seg = m.baseline_seg;
            H->match_distance = argus_export_value_or(m.distance, 0);
            H->match_percent = argus_export_value_or(m.percent, 0);
            argus_export_copy_finding_text(H->match_name, sizeof H->match_name, m.baseline);
        } else {
            argus_culprit_finding f;
            if (!argus_read_culprit(r, &mem, &f) || f.hang != hang)
                continue;
            html_culprit *c = ARGUS_PUSH(H->culprits, H->nculprits, H->cap_culprits);
            c->rank = argus_export_value_or(f.rank, 1);
            c->seg = f.seg;
            c->tid = f.tid;
            c->duration = argus_export_value_or(f.duration, 0);
            c->baseline_seg = f.baseline_seg;
            who(g, c->tid, f.proc, f.thread, c->who, sizeof c->who);
            argus_export_copy_finding_text(c->state, sizeof c->state, f.state);
            argus_export_copy_finding_text(c->reason, sizeof c->reason, f.reason);
        }
    }
    argus_findings_mem_free(&mem);
}

static void panel_add_thread(panel *p, uint32_t t)
{
    for (size_t i = 0; i < p->nthreads; i++)
        if (p->threads[i] == t)
            return;
    *ARGUS_PUSH(p->threads, p->nthreads, p->cap_threads) = t;
}

/* The threads of the core segments SEGS (in their order: the hang's
 * first), and every segment of theirs that overlaps the span from the
 * earliest core segment's start to the latest one's end. */
static void panel_plan(panel *p, argus_graph *g, const uint64_t *segs, size_t nsegs)
{
    page_clock clock = p->clock;       /* set from the header before */
    memset(p, 0, sizeof *p);
    p->clock = clock;
    p->g = g;
    p->lo = NONE64;
    argus_table_init(&p->ts_of, sizeof(uint64_t));
    p->row_of_seg =
        argus_xmalloc((g->nsegs ? g->nsegs : 1) * sizeof *p->row_of_seg, "a timeline's rows");
    memset(p->row_of_seg, 0xff, (g->nsegs ? g->nsegs : 1) * sizeof *p->row_of_seg);
    for (size_t i = 0; i < nsegs; i++) {
        uint32_t si = argus_graph_find_seg(g, segs[i]);
        if (si == ARGUS_NONE)
            continue;
        const argus_seg *s = &g->segs[si];
        panel_add_thread(p, s->thread);
        if (s->begin < p->lo)
            p->lo = s->begin;
        uint64_t until = argus_seg_until(g, s);
        if (until > p->hi)
            p->hi = until;
    }
    /* the core segments are drawn whatever their number, so that a
       timeline with more segments than HTML_SEGS_MAX still draws the hang,
       its path, chain and culprits; the others fill what is left, thread
       by thread in row order; all in that order (rows, then time) */
#define CORE (NONE32 - 1)       /* in row_of_seg: a core segment, not placed yet */
    for (size_t i = 0; i < nsegs && p->ncore < HTML_SEGS_MAX; i++) {
        uint32_t si = argus_graph_find_seg(g, segs[i]);
        if (si == ARGUS_NONE || p->row_of_seg[si] != NONE32)
            continue;
        p->row_of_seg[si] = CORE;
        p->ncore++;
    }
    p->left_of =
        argus_xcalloc(p->nthreads ? p->nthreads : 1, sizeof *p->left_of, "a timeline's threads");
    size_t others = 0;
    for (size_t ti = 0; ti < p->nthreads; ti++) {
        uint32_t t = p->threads[ti];
        for (uint32_t k = g->seg_first[t]; k < g->seg_first[t + 1]; k++) {
            uint32_t si = g->thread_segs[k];
            const argus_seg *s = &g->segs[si];
            if (s->begin > p->hi || argus_seg_until(g, s) < p->lo)
                continue;
            if (p->row_of_seg[si] != CORE) {
                if (others == HTML_SEGS_MAX - p->ncore) {
                    p->left_out++;
                    p->left_of[ti]++;
                    continue;
                }
                others++;
            }
            p->row_of_seg[si] = (uint32_t)p->nshown;
            *ARGUS_PUSH(p->shown, p->nshown, p->cap_shown) = si;
        }
    }
#undef CORE
    p->more = argus_xcalloc(p->nshown, sizeof *p->more, "the panel's rows");
    p->listed = argus_xcalloc(p->nshown, sizeof *p->listed, "the panel's rows");
}

static uint32_t pool_add(panel *p, const char *s)
{
    size_t n = strlen(s) + 1;
    p->pool = argus_grow(p->pool, &p->pool_cap, p->pool_used + n, 1);
    memcpy(p->pool + p->pool_used, s, n);
    p->pool_used += n;
    return (uint32_t)(p->pool_used - n);
}

/* An event as the page lists it: what the report says of it, else its
 * type (and a system call's name and phase). */
static void event_words(const argus_record *r, char *dst, size_t size)
{
    char text[160];
    uint64_t aux = NONE64;
    if (argus_key_event_text(r, text, sizeof text, &aux) >= 0) {
        argus_export_describe(dst, size, r->type, text, aux, true);
        return;
    }
    size_t nlen = 0, plen = 0;
    const char *name = argus_get_text(r, ARGUS_K_NAME, &nlen);
    const char *phase = argus_get_text(r, ARGUS_K_PHASE, &plen);
    snprintf(dst, size, "%.*s%s%.*s%s%.*s", (int)r->type_len, r->type_name, name ? " " : "",
             (int)nlen, name ? name : "", phase ? " " : "", (int)plen, phase ? phase : "");
}

/* The events of the panel's segments, read from INPUT again (the graph
 * keeps only a few per segment): their words, and every one's time for
 * the edges' arrows. */
static void panel_events(panel *p, const char *input)
{
    argus_export_rewind_input(input);
    argus_reader *rd = argus_reader_open(input);
    const argus_record *r;
    while ((r = argus_read(rd))) {
        uint64_t seg;
        if (!r->is_event || !argus_get_uint(r, ARGUS_K_SEG, &seg))
            continue;
        uint32_t si = argus_graph_find_seg(p->g, seg);
        if (si == ARGUS_NONE || p->row_of_seg[si] == NONE32)
            continue;
        uint32_t k = p->row_of_seg[si];
        *(uint64_t *)argus_table_put(&p->ts_of, r->id, NULL) = r->ts;
        if (p->listed[k] == HTML_EVENTS_MAX) {
            p->more[k]++;
            continue;
        }
        p->listed[k]++;
        char words[200];
        event_words(r, words, sizeof words);
        html_event *e = ARGUS_PUSH(p->ev, p->nev, p->cap_ev);
        e->id = r->id;
        e->ts = r->ts;
        e->seg = k;
        e->text = pool_add(p, words);
    }
    argus_reader_close(rd);
}

/* ev[] by segment, then id (the stream's order within a thread). */
static int cmp_event(const void *a, const void *b)
{
    const html_event *x = a, *y = b;
    if (x->seg != y->seg)
        return x->seg < y->seg ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static void panel_free(panel *p)
{
    free(p->threads);
    free(p->shown);
    free(p->row_of_seg);
    free(p->ev);
    free(p->more);
    free(p->listed);
    free(p->left_of);
    free(p->pool);
    argus_table_free(&p->ts_of);
}

/* ns relative to the panel's start (the page adds "off" back for labels) */
static void put_rel(const panel *p, uint64_t t)
{
    printf("%lld", (long long)(t - p->lo));
}


/* CLS(SEG): the page's classes of a segment beyond "seg" ("hang path"...) */
typedef void (*seg_classes)(html *H, uint64_t seg, char *dst, size_t size, uint32_t *rank);

static void trace_classes(html *H, uint64_t seg, char *dst, size_t size, uint32_t *rank)
{
    const export_mark *m = argus_table_get(&H->x->marks, seg);
    snprintf(dst, size, "%s%s%s%s", m && (m->bits & M_HANG) ? " hang" : "",
             m && (m->bits & M_PATH) ? " path" : "", m && (m->bits & M_CHAIN) ? " chain" : "",
             m && (m->bits & M_CULPRIT) ? " culprit" : "");
    *rank = m && (m->bits & M_CULPRIT) ? m->culprit_rank : 0;
}

static void baseline_classes(html *H, uint64_t seg, char *dst, size_t size, uint32_t *rank)
{
    *rank = 0;
    for (size_t i = 0; i < H->nculprits; i++)
        if (H->culprits[i].baseline_seg == seg && (!*rank || H->culprits[i].rank < *rank))
            *rank = (uint32_t)H->culprits[i].rank;
    snprintf(dst, size, "%s%s", seg == H->match_seg ? " similar" : "", *rank ? " counterpart" : "");
}

/* What a timeline past HTML_SEGS_MAX leaves out, and how to see it all,
 * as the page says it above the timeline. */
static void put_left_note(html *H, const panel *p, bool trace)
{
    char text[4096], who[256];
    size_t n = 0, nthr = 0;
#define SAY(...)                                                                                   \
    (n += (size_t)snprintf(text + n, n < sizeof text ? sizeof text - n : 0, __VA_ARGS__))
    for (size_t i = 0; i < p->nthreads; i++)
        nthr += p->left_of[i] > 0;
    SAY("Not all drawn: these threads have %zu segments in this time, and a page draws "
        "at most %d. Drawn: %s (%zu), then the others thread by thread. Left out: %zu "
        "segments of %zu thread%s, with their arrows: ",
        p->nshown + p->left_out, HTML_SEGS_MAX,
        trace ? "the segments of the hang, its causal path, wait chain and culprits"
              : "the similar node and the culprits' counterparts",
        p->ncore, p->left_out, nthr, nthr == 1 ? "" : "s");
    size_t listed = 0;
    for (size_t i = 0; i < p->nthreads && listed < 5; i++) {
        if (!p->left_of[i])
            continue;
        thread_label(p->g, p->threads[i], who, sizeof who);
        SAY("%s%s (%zu)", listed ? ", " : "", who, p->left_of[i]);
        listed++;
    }
    if (nthr > listed)
        SAY(" and %zu more thread%s", nthr - listed, nthr - listed == 1 ? "" : "s");
    if (trace) {
        SAY(". To see every segment, open the Perfetto export of this hang in "
            "ui.perfetto.dev: argus export --output-format perfetto --around %llu FINDINGS "
            "> hang.json, FINDINGS being the findings stream (argus diagnose --keep FILE "
            "keeps it).", (unsigned long long)H->note_hang);
    } else {
        /* the panel's time as the report prints times (--window),
           widened to whole microseconds */
        uint64_t from = p->lo + p->g->origin, to = p->hi + p->g->origin;
        from /= 1000;
        to = (to + 999) / 1000;
        if (to <= from)
            to = from + 1;
        SAY(". To see every segment, open the Perfetto export of this stretch of the "
            "baseline in ui.perfetto.dev: argus export --output-format perfetto --window "
            "%llu.%06llu..%llu.%06llu BASELINE > baseline.json, BASELINE being the graph "
            "of %s (argus graph).",
            (unsigned long long)(from / 1000000), (unsigned long long)(from % 1000000),
            (unsigned long long)(to / 1000000), (unsigned long long)(to % 1000000),
            H->note_base ? H->note_base : "the baseline");
    }
#undef SAY
    argus_export_put_str(H->x, text);
}

static void put_panel(html *H, panel *p, const char *id, const char *title, seg_classes classes,
                      const uint64_t *chain, size_t nchain)
{
    const argus_graph *g = p->g;
    char buf[256];
    argus_sort(p->ev, p->nev, sizeof *p->ev, cmp_event);
    argus_export_out("{\"id\":");
    argus_export_put_str(H->x, id);
    argus_export_out(",\"title\":");
    argus_export_put_str(H->x, title);
    printf(",\"off\":%llu,\"span\":%llu,\"left_out\":%zu",
           (unsigned long long)p->lo, (unsigned long long)(p->hi - p->lo), p->left_out);
    /* the clock split where a double would round it (an origin or t0 past
       2^53 ns): whole seconds (ms) and the ns beyond */
    if (p->clock.have_origin)
        printf(",\"clock\":{\"s\":%llu,\"ns\":%llu}",
               (unsigned long long)(p->clock.origin / 1000000000u),
               (unsigned long long)(p->clock.origin % 1000000000u));
    if (p->clock.have_t0)
        printf(",\"wall\":{\"ms\":%llu,\"ns\":%llu}",
               (unsigned long long)(p->clock.t0 / 1000000u),
               (unsigned long long)(p->clock.t0 % 1000000u));
    if (p->left_out) {
        argus_export_out(",\"left_note\":");
        put_left_note(H, p, classes == trace_classes);
    }
    argus_export_out(",\"threads\":[");
    for (size_t i = 0; i < p->nthreads; i++) {
        thread_label(g, p->threads[i], buf, sizeof buf);
        printf("%s{\"tid\":%llu,\"label\":", i ? "," : "",
               (unsigned long long)g->threads[p->threads[i]].tid);
        argus_export_put_str(H->x, buf);
        argus_export_out("}");
    }
    argus_export_out("],\n\"segs\":[");
    size_t e = 0;
    for (size_t k = 0; k < p->nshown; k++) {
        const argus_seg *s = &g->segs[p->shown[k]];
        size_t row = 0;
        while (p->threads[row] != s->thread)
            row++;
        uint32_t rank;
        classes(H, s->seg, buf, sizeof buf, &rank);
        printf("%s{\"seg\":%llu,\"row\":%zu,\"cls\":", k ? ",\n" : "",
               (unsigned long long)s->seg, row);
        argus_export_put_str(H->x, buf);
        if (rank)
            printf(",\"rank\":%u", rank);
        argus_export_out(",\"b\":");
        put_rel(p, s->begin < p->lo ? p->lo : s->begin);
        argus_export_out(",\"e\":");
        put_rel(p, s->end < p->lo ? p->lo : s->end);
        uint64_t until = argus_seg_until(g, s);
        argus_export_out(",\"u\":");
        put_rel(p, until < p->lo ? p->lo : until);
        /* a final wait: blocked from it to the wakeup, then runnable (waiting
           for a CPU) until the thread ran */
        if (s->wait_id != NONE64) {
            uint64_t run_from = until;
            if (s->resume != NONE64 && s->runnable && s->runnable <= s->resume - s->end)
                run_from = s->resume - s->runnable;
            argus_export_out(",\"r\":");
            put_rel(p, run_from < p->lo ? p->lo : run_from);
            printf(",\"open\":%s", s->resume == NONE64 ? "true" : "false");
        }
        argus_export_seg_name(g, s, buf, sizeof buf, true);
        argus_export_out(",\"name\":");
        argus_export_put_str(H->x, buf);
        printf(",\"n\":%u,\"more\":%u", s->nevents, p->more[k]);
        /* runnable stretches inside it (preempted), and waits inside it */
        argus_export_out(",\"pre\":[");
        uint32_t npre, niw;
        const argus_preempt *pres = argus_seg_preempts(g, (uint32_t)(s - g->segs), &npre);
        const argus_inner_wait *iws = argus_seg_inner_waits(g, (uint32_t)(s - g->segs), &niw);
        for (uint32_t i = 0; i < npre; i++) {
            const argus_preempt *pr = &pres[i];
            printf("%s[", i ? "," : "");
            put_rel(p, pr->from < p->lo ? p->lo : pr->from);
            argus_export_out(",");
            put_rel(p, pr->to < p->lo ? p->lo : pr->to);
            argus_export_out("]");
        }
        argus_export_out("],\"iw\":[");
        for (uint32_t i = 0; i < niw; i++) {
            const argus_inner_wait *w = &iws[i];
            uint64_t run_from = w->runnable <= w->to - w->from ? w->to - w->runnable : w->to;
            printf("%s[", i ? "," : "");
            put_rel(p, w->from < p->lo ? p->lo : w->from);
            argus_export_out(",");
            put_rel(p, run_from < p->lo ? p->lo : run_from);
            argus_export_out(",");
            put_rel(p, w->to < p->lo ? p->lo : w->to);
            argus_export_out("]");
        }
        argus_export_out("],\"ev\":[");
        for (bool first = true; e < p->nev && p->ev[e].seg == k; e++, first = false) {
            printf("%s[%llu,", first ? "" : ",", (unsigned long long)p->ev[e].id);
            put_rel(p, p->ev[e].ts < p->lo ? p->lo : p->ev[e].ts);
            argus_export_out(",");
            argus_export_put_str(H->x, p->pool + p->ev[e].text);
            argus_export_out("]");
        }
        argus_export_out("]}");
    }
    argus_export_out("],\n\"edges\":[");
    bool first = true;
    for (uint32_t i = 0; i < g->nedges; i++) {
        const argus_gedge *ed = &g->edges[i];
        if (ed->from_seg == ARGUS_NONE || ed->to_seg == ARGUS_NONE || ed->from_seg == ed->to_seg ||
            p->row_of_seg[ed->from_seg] == NONE32 || p->row_of_seg[ed->to_seg] == NONE32)
            continue;
        const uint64_t *ft = argus_table_get(&p->ts_of, ed->from);
        const uint64_t *tt = argus_table_get(&p->ts_of, ed->to);
        if (!ft || !tt)
            continue;
        printf("%s{\"from\":%llu,\"to\":%llu,\"fid\":%llu,\"tid\":%llu,\"ft\":",
               first ? "" : ",\n", (unsigned long long)g->segs[ed->from_seg].seg,
               (unsigned long long)g->segs[ed->to_seg].seg, (unsigned long long)ed->from,
               (unsigned long long)ed->to);
        put_rel(p, *ft < p->lo ? p->lo : *ft);
        argus_export_out(",\"tt\":");
        put_rel(p, *tt < p->lo ? p->lo : *tt);
        argus_export_out(",\"kind\":");
        argus_export_put_str(H->x, ed->kind ? argus_graph_str(g, ed->kind) : "edge");
        printf(",\"weak\":%s}", ed->weak ? "true" : "false");
        first = false;
    }
    argus_export_out("],\n\"links\":[");
    first = true;
    for (size_t i = 0; i + 1 < nchain; i += 2) {
        uint32_t a = argus_graph_find_seg(g, chain[i]), b = argus_graph_find_seg(g, chain[i + 1]);
        if (a == ARGUS_NONE || b == ARGUS_NONE || p->row_of_seg[a] == NONE32 ||
            p->row_of_seg[b] == NONE32)
            continue;
        printf("%s[%llu,%llu]", first ? "" : ",", (unsigned long long)chain[i],
               (unsigned long long)chain[i + 1]);
        first = false;
    }
    argus_export_out("]");
    /* one HANG tag per hang: on its hang node's segment (a hang of retried
       waits marks each of them hang) */
    if (classes == trace_classes) {
        argus_export_out(",\"hang_tags\":[");
        bool any = false;
        for (size_t i = 0; i < H->x->nhangs; i++) {
            if (!argus_export_want_hang(H->x, H->x->hangs[i].hang))
                continue;
            printf("%s%llu", any ? "," : "", (unsigned long long)H->x->hangs[i].seg);
            any = true;
        }
        argus_export_out("]");
    }
    if (classes == trace_classes && H->hang_at != NONE64 && H->hang_at >= p->lo &&
        H->hang_at <= p->hi) {
        const char *ind = H->hang_indicator;
        argus_export_out(",\"marker\":{\"t\":");
        put_rel(p, H->hang_at);
        /* the threshold the hang crossed there: a loop's at is its
           begin + the limit */
        uint64_t after = H->hang_at > H->page.hang->begin ? H->hang_at - H->page.hang->begin : 0;
        char label[96];
        if (strcmp(ind, "loop") == 0)
            snprintf(label, sizeof label, "main loop not back in %llu ms",
                     (unsigned long long)(after / 1000000u));
        else if (strcmp(ind, "anr") == 0)
            snprintf(label, sizeof label, "input not handled in time (ANR)");
        else if (strcmp(ind, "hang") == 0) /* retried waits: begin is the first's */
            snprintf(label, sizeof label, "blocked or busy past the threshold");
        else
            snprintf(label, sizeof label, "spinning cursor");
        argus_export_out(",\"label\":");
        argus_export_put_str(H->x, label);
        argus_export_out("}");
    }
    argus_export_out("}");
}

/* Text in HTML: & < > " escaped, bytes that are not UTF-8 as U+FFFD. */
static void put_html(const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        size_t len = c < 0x80 ? 1 : argus_utf8_char((const uint8_t *)s + i, n - i);
        if (c == '&')
            argus_export_out("&amp;");
        else if (c == '<')
            argus_export_out("&lt;");
        else if (c == '>')
            argus_export_out("&gt;");
        else if (c == '"')
            argus_export_out("&quot;");
        else if (c < 0x80)
            putchar(c);
        else if (len)
            fwrite(s + i, 1, len, stdout);
        else
            argus_export_out("\xef\xbf\xbd");
        i += len ? len : 1;
    }
}

static void put_html_str(const char *s) { put_html(s, strlen(s)); }


static void put_seconds(uint64_t ns) { printf("%.3f s", (double)ns / 1e9); }

/* A moment of the hang's trace as the report prints it (argus_moment_text):
 * on the trace's own clock, and with WALL its wall clock in brackets
 * where the header's t0 says it. */
static void put_moment(html *H, uint64_t ts, bool wall)
{
    const page_clock *c = &H->page.trace.clock;
    char m[24];
    argus_moment_text(m, sizeof m, ts, c->have_origin, c->origin);
    printf("%s s", m);
    if (!wall || !c->have_t0)
        return;
    uint64_t t = c->t0 + ts;
    time_t sec = (time_t)(t / 1000000000u);
    struct tm tm;
    if (gmtime_r(&sec, &tm))
        printf(" (%04d-%02d-%02d %02d:%02d:%02d.%03u UTC)", tm.tm_year + 1900, tm.tm_mon + 1,
               tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
               (unsigned)(t % 1000000000u / 1000000u));
}

/* The report's own verdict and baseline paragraphs (its first lines,
 * "Verdict: ..." and "Baseline: ...", markdown's bold marks dropped), each
 * as one paragraph, so that the page says what the report says. */
static void put_report_verdict(html *H)
{
    if (!H->page.report)
        return;
    FILE *f = fopen(H->page.report, "r");
    if (!f)
        return;
    char *ln = NULL;
    size_t cap = 0;
    ssize_t n;
    bool open = false;
    while ((n = getline(&ln, &cap, f)) > 0) {
        while (n > 0 && (ln[n - 1] == '\n' || ln[n - 1] == '\r'))
            ln[--n] = 0;
        const char *p = ln;
        bool bold = strncmp(p, "**", 2) == 0;
        if (bold)
            p += 2;
        bool verdict = strncmp(p, "Verdict", 7) == 0, base = strncmp(p, "Baseline:", 9) == 0;
        if (verdict || base) {
            if (open)
                argus_export_out("</p>\n");
            printf("<p class=\"verdict words\" id=\"verdict-%s\">", verdict ? "words" : "baseline");
            open = true;
        } else if (!*p || strncmp(p, "Trace:", 6) == 0 || strncmp(p, "# ", 2) == 0) {
            if (open)
                break;
            continue;
        } else if (!open) {
            break;
        } else {
            argus_export_out(" ");
        }
        /* markdown's marks: ** and the backslash escapes */
        for (const char *q = p; *q; q++) {
            if (q[0] == '*' && q[1] == '*') {
                q++;
                continue;
            }
            if (q[0] == '`')
                continue;
            if (q[0] == '\\' && q[1])
                q++;
            put_html(q, 1);
        }
    }
    if (open)
        argus_export_out("</p>\n");
    free(ln);
    fclose(f);
}

static void put_verdict(html *H)
{
    put_report_verdict(H);
    const export_hang_info *h = H->page.hang;
    if (!h) {
        argus_export_out("<p class=\"verdict none\" id=\"verdict\">No hang found");
        if (!H->x->have_findings && !H->page.report) /* not from argus diagnose */
            argus_export_out(" (the stream has no findings: argus diagnose, or argus-find-spinning, "
                "writes them)");
        argus_export_out(".</p>\n");
        return;
    }
    printf("<p class=\"verdict\" id=\"verdict\"><span class=\"tag hang\">Hang %llu</span> <b>",
           (unsigned long long)h->hang);
    put_html_str(H->hang_who);
    argus_export_out("</b> hung <b>");
    put_seconds(h->duration);
    argus_export_out("</b> (");
    put_html_str(h->cls);
    if (*H->hang_reason) {
        argus_export_out(": ");
        put_html_str(strcmp(h->cls, "wait") == 0 ? "blocked in " : "");
        put_html_str(H->hang_reason);
    }
    argus_export_out("), from ");
    put_moment(H, h->begin, true);
    argus_export_out(" to ");
    put_moment(H, h->end, false);
    if (*h->indicator) {
        argus_export_out("; found by ");
        put_html_str(strcmp(h->indicator, "loop") == 0
                         ? "its main loop not back to waiting for events in time"
                     : strcmp(h->indicator, "anr") == 0
                         ? "input not handled within 5 s (Android's ANR)"
                     : strcmp(h->indicator, "hang") == 0 ? "a main thread blocked or busy too long"
                                                         : "the spinning cursor, ");
        if (strcmp(h->indicator, "loop") != 0 && strcmp(h->indicator, "hang") != 0 &&
            strcmp(h->indicator, "anr") != 0)
            put_html_str(h->indicator);
    }
    argus_export_out(".");
    if (H->x->nhangs > 1)
        printf(" (%zu hangs in the trace; argus export --format html --around N draws hang N.)",
               H->x->nhangs);
    argus_export_out("</p>\n");
    const html_culprit *best = NULL;
    for (size_t i = 0; i < H->nculprits; i++)
        if (!best || H->culprits[i].rank < best->rank)
            best = &H->culprits[i];
    if (best) {
        printf("<p class=\"verdict\" id=\"verdict-culprit\"><span class=\"tag culprit\">Culprit"
               "</span> <b>");
        put_html_str(best->who);
        argus_export_out("</b>");
        if (*best->state) {
            argus_export_out(": ");
            put_html_str(best->state);
            argus_export_out(" ");
            put_seconds(best->duration);
            if (*best->reason) {
                argus_export_out(" in ");
                put_html_str(best->reason);
            }
        }
        argus_export_out(".");
        if (H->nculprits > 1)
            printf(" %zu culprits in all, ranked in the report.", H->nculprits);
        argus_export_out("</p>\n");
    } else {
        argus_export_out("<p class=\"verdict\" id=\"verdict-culprit\">No culprit named.</p>\n");
    }
    if (H->match_seg != NONE64) {
        printf("<p class=\"verdict\" id=\"verdict-similar\"><span class=\"tag similar\">"
               "Baseline</span> the stretch of work most like the hang's in ");
        put_html_str(*H->match_name ? H->match_name : "the baseline");
        printf(": %llu events apart (%llu%%).</p>\n",
               (unsigned long long)H->match_distance, (unsigned long long)H->match_percent);
    }
}

static void put_report(html *H)
{
    if (!H->page.report) {
        argus_export_out("<p class=\"note\">No report given (argus export --report FILE puts the text of "
            "argus report here; argus diagnose --html does).</p>");
        return;
    }
    FILE *f = fopen(H->page.report, "r");
    if (!f)
        argus_die(ARGUS_EX_NOINPUT, "%s: %s", H->page.report, strerror(errno));
    argus_export_out("<pre id=\"report\">");
    char buf[1 << 14];
    size_t n, keep = 0;
    /* a UTF-8 character cut by the buffer's end is kept for the next read */
    while ((n = fread(buf + keep, 1, sizeof buf - keep, f)) > 0 || keep) {
        n += keep;
        size_t whole = n;
        if (!feof(f) || ferror(f))
            for (size_t back = 1; back < 4 && back <= n; back++) {
                unsigned char c = (unsigned char)buf[n - back];
                if ((c & 0xc0) == 0x80)
                    continue;
                if (c >= 0xc0 && !argus_utf8_char((const uint8_t *)buf + n - back, back))
                    whole = n - back;
                break;
            }
        put_html(buf, whole);
        keep = n - whole;
        memmove(buf, buf + whole, keep);
        if (feof(f) || ferror(f))
            break;
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad)
        argus_die(ARGUS_EX_IOERR, "%s: read error", H->page.report);
    argus_export_out("</pre>");
}

static void put_title(html *H)
{
    if (!H->page.hang) {
        argus_export_out("argus: no hang");
        return;
    }
    argus_export_out("argus: ");
    put_html_str(H->hang_who);
    argus_export_out(" hung ");
    put_seconds(H->page.hang->duration);
}

static void put_data(html *H)
{
    H->x->in_script = true;
    argus_export_out("{\"panels\":[");
    if (H->page.hang) {
        char title[256];
        snprintf(title, sizeof title, "Hang %llu: its threads",
                 (unsigned long long)H->page.hang->hang);
        H->note_hang = H->page.hang->hang;
        H->note_base = H->page.base_name;
        put_panel(H, &H->page.trace, "trace", title, trace_classes, H->page.chain, H->page.nchain);
        if (H->page.have_base) {
            snprintf(title, sizeof title, "Baseline (%s): the similar node and the culprits' "
                     "counterparts", H->page.base_name);
            argus_export_out(",\n");
            put_panel(H, &H->page.base, "baseline", title, baseline_classes, NULL, 0);
        }
    }
    argus_export_out("]}");
    H->x->in_script = false;
}

/* The template with its {{NAME}} markers filled. */
static void put_page(html *H)
{
    const char *t = argus_export_page;
    const char *m;
    while ((m = strstr(t, "{{"))) {
        fwrite(t, 1, (size_t)(m - t), stdout);
        const char *e = strstr(m, "}}");
        if (!e)
            argus_die(ARGUS_EX_SOFTWARE, "page template: {{ without }}");
#define IS(name)                                                                                   \
    ((size_t)(e - m - 2) == sizeof name - 1 && memcmp(m + 2, name, sizeof name - 1) == 0)
        if (IS("TITLE"))
            put_title(H);
        else if (IS("VERDICT"))
            put_verdict(H);
        else if (IS("REPORT"))
            put_report(H);
        else if (IS("DATA"))
            put_data(H);
        else
            argus_die(ARGUS_EX_SOFTWARE, "page template: unknown marker %.*s", (int)(e - m + 2), m);
#undef IS
        t = e + 2;
    }
    argus_export_out(t);
}

int argus_export_html(export_state *x, const char *input, const char *report, const char *baseline,
                const char *base_name)
{
    html state = {.x = x, .match_seg = NONE64, .hang_at = NONE64}, *H = &state;
    argus_reader *rd = argus_reader_open(input);
    argus_graph g;
    argus_graph_load(&g, rd, &(argus_graph_options){.keep_key_events = true});
    H->page.trace.clock = clock_of(argus_reader_header(rd));
    argus_export_findings_from_graph(H->x, &g, rd);
    argus_export_check_around(H->x);
    if (H->x->around < 0 && H->x->nhangs) {
        /* the first hang, and the core segments of that hang only (cores[]
           holds every hang's without --around) */
        H->x->around = (long)H->x->hangs[0].hang;
        H->x->ncores = H->x->nlinks = H->x->nhangs = 0;
        argus_table_free(&H->x->marks);
        argus_table_init(&H->x->marks, sizeof(export_mark));
        argus_export_findings_from_graph(H->x, &g, rd);
    }
    for (size_t i = 0; i < H->x->nhangs && !H->page.hang; i++)
        if (H->x->hangs[i].hang == (uint64_t)H->x->around)
            H->page.hang = &H->x->hangs[i];
    if (H->page.hang)
        html_findings(H, &g, H->page.hang->hang);
    argus_reader_close(rd);
    H->page.report = report;
    if (report && access(report, R_OK) != 0)
        argus_die(ARGUS_EX_NOINPUT, "%s: %s", report, strerror(errno));
    argus_graph bg;
    if (H->page.hang) {
        H->page.chain = argus_xmalloc((H->x->nlinks ? H->x->nlinks : 1) * 2 * sizeof *H->page.chain,
                                      "the wait chain drawn");
        for (size_t i = 0; i < H->x->nlinks; i++) {
            H->page.chain[H->page.nchain++] = H->x->links[i].from;
            H->page.chain[H->page.nchain++] = H->x->links[i].to;
        }
        panel_plan(&H->page.trace, &g, H->x->cores, H->x->ncores);
        panel_events(&H->page.trace, input);
        if (baseline) {
            argus_graph_load_file(&bg, baseline, true);
            argus_reader *brd = argus_reader_open(baseline);
            H->page.base.clock = clock_of(argus_reader_header(brd));
            argus_reader_close(brd);
            uint64_t *bsegs = argus_xmalloc((H->nculprits + 1) * sizeof *bsegs,
                                            "baseline segments");
            size_t nb = 0;
            if (H->match_seg != NONE64)
                bsegs[nb++] = H->match_seg;
            for (size_t i = 0; i < H->nculprits; i++)
                if (H->culprits[i].baseline_seg != NONE64)
                    bsegs[nb++] = H->culprits[i].baseline_seg;
            if (nb) {
                H->page.base_name = base_name ? base_name : baseline;
                panel_plan(&H->page.base, &bg, bsegs, nb);
                H->page.have_base = H->page.base.nthreads > 0;
                if (H->page.have_base)
                    panel_events(&H->page.base, baseline);
                else            /* another run's graph than the findings' */
                    argus_warn("%s: none of the baseline segments the findings name "
                               "(seg %llu, ...): the baseline is not drawn",
                               baseline, (unsigned long long)bsegs[0]);
            }
            free(bsegs);
        }
    }
    put_page(H);
    if (H->page.hang) {
        panel_free(&H->page.trace);
        if (baseline) {
            if (H->page.base.row_of_seg)   /* planned */
                panel_free(&H->page.base);
            argus_graph_free(&bg);
        }
    }
    free(H->page.chain);
    free(H->culprits);
    argus_graph_free(&g);
    return 0;
}
