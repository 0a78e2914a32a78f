/* argus-export --output-format perfetto: Chrome trace-event JSON, a
 * slice per segment and a flow per edge, streamed as segments end. */
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

#define KEEP_KEYS 6             /* first and last key events kept per slice */
typedef struct key_line {
    char text[120];
    uint32_t count;
} key_line;

/* An edge's flow: its "s" and "f" events, written together, "s" first,
 * once both ends' slices are written (DevTools pairs them in file order). */
typedef struct flow_pair {
    uint64_t id;
    uint32_t kind;              /* into kinds */
    bool weak;
    struct {
        uint64_t ts, tid, pid, seg;
    } end[2];                   /* from, to */
} flow_pair;

typedef struct open_seg {
    uint64_t seg, begin, last_ts, first_id, nevents;
    uint64_t tid, pid;
    bool last_wait, exported;
    char wait_desc[160];
    export_namer nm;
    key_line first[KEEP_KEYS], last[KEEP_KEYS];
    uint32_t nfirst, nlast_total;   /* nlast_total: lines past the first */
    flow_pair *flows;           /* flows waiting for this slice */
    size_t nflows, cap_flows;
} open_seg;

#define STACK_MAX 8
typedef struct thread_state {
    open_seg *stack[STACK_MAX]; /* open segments, innermost last */
    uint32_t depth;
} thread_state;


/* ---- where each event was, for the edges that name it later ------------------------------ */
/* An edge comes after both its events (right after the later one), but
 * its earlier end may be any distance back: a wait's edge to the wakeup
 * that ended it seconds later. So each event's place (time, thread,
 * segment) is kept by id: the latest ones in memory, the older ones in an
 * unlinked temporary file (in TMPDIR) read back by pread, in id order as
 * the stream has them (ids strictly increase), found by a binary search.
 * Memory stays the same whatever the trace's length. */
typedef struct event_place {
    uint64_t id, ts, seg;
    uint64_t begin;             /* its segment's slice's start */
    uint32_t thr;               /* into places' threads */
    uint32_t unused;
} event_place;

#define PLACE_BLOCK 32768       /* events written to the file at a time */
typedef struct event_places {
    event_place recent[2 * PLACE_BLOCK];    /* the latest, by id */
    size_t nrecent;
    int fd;                     /* the file, -1 until the first block */
    char path[4096];
    uint64_t nfile, file_first;             /* entries in it, the first's id */
    struct thr {
        uint64_t tid, pid;
    } *thr;                     /* the threads events were on, by index */
    size_t nthr, cap_thr;
    argus_table thr_of;         /* tid -> its latest index */
} event_places;

/* One Perfetto export: its threads and events, over the export's
 * findings (x). */
typedef struct perfetto {
    export_state *x;
    argus_table threads;        /* tid -> thread_state */
    argus_table keep_segs;      /* --around, --window: seg -> 1 */
    argus_table keep_tids;      /* --around, --window: tid -> 1 */
    char **kinds;
    size_t nkinds, cap_kinds;
    uint64_t last_ts;
    event_places places;
} perfetto;

static uint32_t place_thread(perfetto *P, uint64_t tid, uint64_t pid)
{
    bool created;
    uint32_t *t = argus_table_put(&P->places.thr_of, tid, &created);
    if (created || P->places.thr[*t].pid != pid) {   /* a tid used again */
        struct thr *th = ARGUS_PUSH(P->places.thr, P->places.nthr, P->places.cap_thr);
        th->tid = tid;
        th->pid = pid;
        *t = (uint32_t)(P->places.nthr - 1);
    }
    return *t;
}

static void place_flush(perfetto *P)
{
    if (P->places.fd < 0) {
        const char *dir = getenv("TMPDIR");
        snprintf(P->places.path, sizeof P->places.path, "%s/argus-export-places.XXXXXX",
                 dir && *dir ? dir : "/tmp");
        P->places.fd = mkstemp(P->places.path);
        if (P->places.fd < 0)
            argus_die(ARGUS_EX_IOERR, "%s: %s", P->places.path, strerror(errno));
        unlink(P->places.path);
        P->places.file_first = P->places.recent[0].id;
    }
    const char *p = (const char *)P->places.recent;
    size_t left = PLACE_BLOCK * sizeof *P->places.recent;
    while (left) {
        ssize_t w = write(P->places.fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            argus_die(ARGUS_EX_IOERR, "%s: write error: %s", P->places.path, strerror(errno));
        p += w;
        left -= (size_t)w;
    }
    P->places.nfile += PLACE_BLOCK;
    memmove(P->places.recent, P->places.recent + PLACE_BLOCK,
            PLACE_BLOCK * sizeof *P->places.recent);
    P->places.nrecent -= PLACE_BLOCK;
}

static void place_add(perfetto *P, uint64_t id, uint64_t ts, uint64_t seg, uint64_t begin,
                      uint64_t tid, uint64_t pid)
{
    if (P->places.nrecent == 2 * PLACE_BLOCK)
        place_flush(P);
    event_place *e = &P->places.recent[P->places.nrecent++];
    e->id = id;
    e->ts = ts;
    e->seg = seg;
    e->begin = begin;
    e->thr = place_thread(P, tid, pid);
    e->unused = 0;
}

static void place_read(perfetto *P, uint64_t i, event_place *e)
{
    off_t at = (off_t)(i * sizeof *e);
    for (size_t got = 0; got < sizeof *e;) {
        ssize_t n = pread(P->places.fd, (char *)e + got, sizeof *e - got, at + (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            argus_die(ARGUS_EX_IOERR, "%s: read error: %s", P->places.path,
                      n < 0 ? strerror(errno) : "short file");
        got += (size_t)n;
    }
}

/* The place of event ID, or false when the stream had no such event. */
static bool place_find(perfetto *P, uint64_t id, event_place *out)
{
    if (P->places.nrecent && id >= P->places.recent[0].id) {
        size_t lo = 0, hi = P->places.nrecent;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (P->places.recent[mid].id < id)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == P->places.nrecent || P->places.recent[lo].id != id)
            return false;
        *out = P->places.recent[lo];
        return true;
    }
    if (!P->places.nfile || id < P->places.file_first)
        return false;
    /* ids strictly increase: entry I's id is at least file_first + I, so ID
       is at index id - file_first or before, there when ids are dense */
    uint64_t lo = 0, hi = P->places.nfile;
    if (id - P->places.file_first < hi)
        hi = id - P->places.file_first + 1;
    place_read(P, hi - 1, out);
    if (out->id == id)
        return true;
    if (out->id < id)
        return false;
    hi--;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        place_read(P, mid, out);
        if (out->id == id)
            return true;
        if (out->id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* ---- slices and flows ------------------------------------------------------------------- */
static uint32_t kind_index(perfetto *P, const char *s, size_t len)
{
    for (size_t i = 0; i < P->nkinds; i++)
        if (strlen(P->kinds[i]) == len && memcmp(P->kinds[i], s, len) == 0)
            return (uint32_t)i;
    char **k = ARGUS_PUSH(P->kinds, P->nkinds, P->cap_kinds);
    *k = argus_xstrndup(s, len, "slice kinds");
    return (uint32_t)(P->nkinds - 1);
}

/* A flow's two events, "s" then "f" (bound to the enclosing slice, bp e).
 * Their category is the slices' ("segment"): DevTools binds a flow event
 * to the slice of its thread that starts at its ts in its category, and
 * pairs "s" with "f" by category, name and id; Perfetto pairs them by id,
 * category and name too. A weak edge says so in its name. */
static void write_flow_pair(perfetto *P, const flow_pair *p)
{
    for (int e = 0; e < 2; e++) {
        argus_export_begin_event(P->x);
        printf("{\"ph\":\"%s\",\"id\":%llu,\"pid\":%llu,\"tid\":%llu,\"ts\":", e ? "f" : "s",
               (unsigned long long)p->id, (unsigned long long)p->end[e].pid,
               (unsigned long long)p->end[e].tid);
        argus_export_put_us(p->end[e].ts);
        argus_export_out(",\"name\":\"");
        argus_export_put_escaped(P->x, P->kinds[p->kind], strlen(P->kinds[p->kind]), false);
        printf("%s\",\"cat\":\"segment\"%s}", p->weak ? " (weak)" : "", e ? ",\"bp\":\"e\"" : "");
    }
}

static open_seg *open_seg_of(perfetto *P, uint64_t tid, uint64_t seg);

/* A flow waits with a slice of its not written yet (it is written after
 * it: Perfetto binds a flow event to the slice open at its ts, which a
 * viewer reading in file order must have read), else is written. */
static void hold_or_write(perfetto *P, const flow_pair *p)
{
    for (int e = 0; e < 2; e++) {
        open_seg *o = open_seg_of(P, p->end[e].tid, p->end[e].seg);
        if (o) {
            *ARGUS_PUSH(o->flows, o->nflows, o->cap_flows) = *p;
            return;
        }
    }
    write_flow_pair(P, p);
}

static void put_key_line(perfetto *P, const key_line *k, bool *first)
{
    argus_export_out(*first ? "" : ",");
    *first = false;
    putchar('"');
    argus_export_put_escaped(P->x, k->text, strlen(k->text), false);
    if (k->count > 1)
        printf(" x%u", (unsigned)k->count);
    putchar('"');
}

/* A segment ends: its slice, then the flows that waited for it (those
 * whose other slice is written too; the others wait for that one). */
/* The causal path's and the culprits' segments marked by an instant
 * event each at the slice's start, in a category of its own ("path",
 * "culprit"), as the hang is (write_hang_instants): the slices share
 * one category for DevTools' flows, so the marks in their args alone
 * would not show on the timeline. */
/* An instant on thread TID's track at TS, named NAME, in category CAT,
 * with its args opened by "seg": the caller adds any more and closes
 * them and the event ("}}"). */
static void open_instant(perfetto *P, uint64_t pid, uint64_t tid, uint64_t ts, const char *name,
                         const char *cat, uint64_t seg)
{
    argus_export_begin_event(P->x);
    printf("{\"ph\":\"i\",\"s\":\"t\",\"pid\":%llu,\"tid\":%llu,\"ts\":",
           (unsigned long long)pid, (unsigned long long)tid);
    argus_export_put_us(ts);
    argus_export_out(",\"name\":");
    argus_export_put_str(P->x, name);
    printf(",\"cat\":\"%s\",\"args\":{\"seg\":%llu", cat, (unsigned long long)seg);
}

/* An instant at segment O's start, in category CAT, named NAME. */
static void put_seg_instant(perfetto *P, const open_seg *o, const char *cat, const char *name)
{
    open_instant(P, o->pid, o->tid, o->begin, name, cat, o->seg);
    argus_export_out("}}");
}

static void write_mark_instants(perfetto *P, const open_seg *o, const export_mark *m)
{
    if (m->bits & M_PATH)
        put_seg_instant(P, o, "path", "path");
    if (m->bits & M_CULPRIT) {
        char name[32];
        snprintf(name, sizeof name, "culprit %u", (unsigned)m->culprit_rank);
        put_seg_instant(P, o, "culprit", name);
    }
}

static void close_seg(perfetto *P, open_seg *o, uint64_t end)
{
    if (!o)
        return;
    if (o->exported) {
        if (o->last_wait)
            argus_export_namer_final_wait(&o->nm, o->wait_desc);
        if (end < o->last_ts)
            end = o->last_ts;
        export_mark *m = argus_table_get(&P->x->marks, o->seg);
        argus_export_begin_event(P->x);
        printf("{\"ph\":\"X\",\"pid\":%llu,\"tid\":%llu,\"ts\":", (unsigned long long)o->pid,
               (unsigned long long)o->tid);
        argus_export_put_us(o->begin);
        argus_export_out(",\"dur\":");
        argus_export_put_us(end - o->begin);
        argus_export_out(",\"name\":");
        argus_export_put_str(P->x, o->nm.rank ? o->nm.text : "segment");
        /* one category for every slice: a flow binds in DevTools only
         * where its two slices have the same (write_flow_pair) */
        printf(",\"cat\":\"segment\",\"args\":{\"seg\":%llu", (unsigned long long)o->seg);
        if (m && (m->bits & (M_HANG | M_PATH | M_CHAIN | M_CULPRIT))) {
            const char *sep = "";
            argus_export_out(",\"marks\":\"");
            if (m->bits & M_HANG)
                printf("%shang", sep), sep = ",";
            if (m->bits & M_PATH)
                printf("%spath", sep), sep = ",";
            if (m->bits & M_CHAIN)
                printf("%schain", sep), sep = ",";
            if (m->bits & M_CULPRIT)
                printf("%sculprit", sep);
            argus_export_out("\"");
        }
        printf(",\"events\":%llu,\"first_id\":%llu", (unsigned long long)o->nevents,
               (unsigned long long)o->first_id);
        if (m && (m->bits & M_HANG))
            printf(",\"hang\":%u", (unsigned)m->hang);
        if (m && (m->bits & M_CULPRIT))
            printf(",\"culprit_rank\":%u", (unsigned)m->culprit_rank);
        argus_export_out(",\"key_events\":[");
        bool first = true;
        for (uint32_t k = 0; k < o->nfirst; k++)
            put_key_line(P, &o->first[k], &first);
        uint32_t nl = o->nlast_total < KEEP_KEYS ? o->nlast_total : KEEP_KEYS;
        if (o->nlast_total > KEEP_KEYS) {
            key_line gap = {"...", 1};
            put_key_line(P, &gap, &first);
        }
        for (uint32_t k = 0; k < nl; k++)
            put_key_line(P, &o->last[(o->nlast_total - nl + k) % KEEP_KEYS], &first);
        argus_export_out("]}}");
        if (m)
            write_mark_instants(P, o, m);
        for (size_t k = 0; k < o->nflows; k++)
            hold_or_write(P, &o->flows[k]);
    }
    free(o->flows);
    free(o);
}

static void add_key_line(open_seg *o, const char *desc)
{
    key_line *prev = NULL;
    if (o->nlast_total)
        prev = &o->last[(o->nlast_total - 1) % KEEP_KEYS];
    else if (o->nfirst)
        prev = &o->first[o->nfirst - 1];
    if (prev && strcmp(prev->text, desc) == 0) {
        prev->count++;
        return;
    }
    key_line *k = o->nfirst < KEEP_KEYS ? &o->first[o->nfirst++]
                                        : &o->last[o->nlast_total++ % KEEP_KEYS];
    argus_export_copy_text(k->text, sizeof k->text, desc);
    k->count = 1;
}

static bool seg_exported(perfetto *P, uint64_t seg)
{
    return (P->x->around < 0 && !P->x->windowed) || argus_table_get(&P->keep_segs, seg);
}

static void take_event(perfetto *P, const argus_reader *rd, const argus_record *r)
{
    uint64_t seg;
    if (!argus_get_uint(r, ARGUS_K_SEG, &seg))
        argus_record_fail(rd, r, "event %llu has no seg: run argus-segment "
                          "(argus graph) first", (unsigned long long)r->id);
    bool created;
    thread_state *ts = argus_table_put(&P->threads, r->tid, &created);
    open_seg *o = NULL;
    for (uint32_t d = ts->depth; d-- > 0;)
        if (ts->stack[d]->seg == seg) {
            while (ts->depth > d + 1)
                close_seg(P, ts->stack[--ts->depth], r->ts);
            o = ts->stack[d];
            break;
        }
    if (!o) {
        bool window = argus_get(r, ARGUS_K_CTX) != NULL;
        if (!window || ts->depth == STACK_MAX)
            while (ts->depth)
                close_seg(P, ts->stack[--ts->depth], r->ts);
        o = argus_xcalloc(1, sizeof *o, "an open segment");
        o->seg = seg;
        o->begin = r->ts;
        o->first_id = r->id;
        o->tid = r->tid;
        o->pid = r->pid;
        o->exported = seg_exported(P, seg);
        ts->stack[ts->depth++] = o;
    }
    o->nevents++;
    o->last_ts = r->ts;
    o->last_wait = false;
    place_add(P, r->id, r->ts, seg, o->begin, r->tid, r->pid);
    if (r->ts > P->last_ts)
        P->last_ts = r->ts;
    if (!o->exported)
        return;
    char text[256], desc[200];
    uint64_t aux = 0;
    if (argus_key_event_text(r, text, sizeof text, &aux) < 0)
        return;
    argus_export_describe(desc, sizeof desc, r->type, text, aux, false);
    add_key_line(o, desc);
    argus_export_namer_add(&o->nm, r->type, desc);
    if (r->type == ARGUS_T_WAIT) {
        o->last_wait = true;
        argus_export_copy_text(o->wait_desc, sizeof o->wait_desc, desc);
    }
}

/* The open segment SEG of thread TID, or NULL once it has ended. */
static open_seg *open_seg_of(perfetto *P, uint64_t tid, uint64_t seg)
{
    thread_state *ts = argus_table_get(&P->threads, tid);
    for (uint32_t d = 0; ts && d < ts->depth; d++)
        if (ts->stack[d]->seg == seg)
            return ts->stack[d];
    return NULL;
}

static void take_edge(perfetto *P, const argus_record *r)
{
    uint64_t from, to;
    argus_get_uint(r, ARGUS_K_FROM, &from);
    argus_get_uint(r, ARGUS_K_TO, &to);
    event_place at[2];
    if (!place_find(P, from, &at[0]) || !place_find(P, to, &at[1]) || !seg_exported(P, at[0].seg) ||
        !seg_exported(P, at[1].seg))
        return;
    size_t len;
    const char *k = argus_get_text(r, ARGUS_K_KIND, &len);
    bool weak = false;
    argus_get_bool(r, ARGUS_K_WEAK, &weak);
    static uint64_t next_flow;
    flow_pair p = {++next_flow, kind_index(P, k ? k : "edge", k ? len : 4), weak, {{0}}};
    /* At its slices' starts, where both viewers bind it, when the "to"
     * slice starts later than the "from" one; else (the same start, or an
     * edge into a slice that began earlier) at its two events, where
     * Perfetto still binds it and reads its "s" first. */
    bool at_starts = at[0].begin < at[1].begin;
    for (int e = 0; e < 2; e++) {
        p.end[e].ts = at_starts ? at[e].begin : at[e].ts;
        p.end[e].tid = P->places.thr[at[e].thr].tid;
        p.end[e].pid = P->places.thr[at[e].thr].pid;
        p.end[e].seg = at[e].seg;
    }
    hold_or_write(P, &p);
}

static void take_thread(perfetto *P, const argus_record *r)
{
    uint64_t tid = 0, pid = 0;
    argus_get_uint(r, ARGUS_K_TID, &tid);
    argus_get_uint(r, ARGUS_K_PID, &pid);
    if ((P->x->around >= 0 || P->x->windowed) && !argus_table_get(&P->keep_tids, tid))
        return;
    size_t plen = 0, nlen = 0;
    const char *proc = argus_get_text(r, ARGUS_K_PROC, &plen);
    const char *name = argus_get_text(r, ARGUS_K_NAME, &nlen);
    bool main_thread = false;
    argus_get_bool(r, ARGUS_K_MAIN, &main_thread);
    if (proc) {
        argus_export_begin_event(P->x);
        printf("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%llu,\"tid\":%llu,"
               "\"args\":{\"name\":\"",
               (unsigned long long)pid, (unsigned long long)tid);
        argus_export_put_escaped(P->x, proc, plen, false);
        argus_export_out("\"}}");
    }
    argus_export_begin_event(P->x);
    printf("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%llu,\"tid\":%llu,\"args\":{\"name\":\"",
           (unsigned long long)pid, (unsigned long long)tid);
    if (name && nlen)
        argus_export_put_escaped(P->x, name, nlen, false);
    else if (main_thread)
        argus_export_out("main");
    else
        printf("%llu", (unsigned long long)tid);
    argus_export_out("\"}}");
    if (main_thread) {          /* the main thread first in its process */
        argus_export_begin_event(P->x);
        printf("{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%llu,\"tid\":%llu,"
               "\"args\":{\"sort_index\":-1}}",
               (unsigned long long)pid, (unsigned long long)tid);
    }
}

static void write_hang_instants(perfetto *P)
{
    for (size_t i = 0; i < P->x->nhangs; i++) {
        const export_hang_info *h = &P->x->hangs[i];
        if (!argus_export_want_hang(P->x, h->hang))
            continue;
        char name[32];
        snprintf(name, sizeof name, "hang %llu", (unsigned long long)h->hang);
        open_instant(P, h->pid, h->tid, h->begin, name, "hang", h->seg);
        argus_export_out(",\"class\":");
        argus_export_put_str(P->x, h->cls);
        argus_export_out(",\"indicator\":");
        argus_export_put_str(P->x, h->indicator);
        argus_export_out(",\"duration_us\":");
        argus_export_put_us(h->duration);
        argus_export_out("}}");
    }
}

/* --around: every segment of the core segments' threads that overlaps
 * their time span. */
static void plan_around(perfetto *P, argus_graph *g)
{
    uint64_t lo = NONE64, hi = 0;
    for (size_t i = 0; i < P->x->ncores; i++) {
        uint32_t si = argus_graph_find_seg(g, P->x->cores[i]);
        if (si == ARGUS_NONE)
            continue;
        const argus_seg *s = &g->segs[si];
        bool created;
        argus_table_put(&P->keep_tids, g->threads[s->thread].tid, &created);
        if (s->begin < lo)
            lo = s->begin;
        uint64_t until = argus_seg_until(g, s);
        if (until > hi)
            hi = until;
    }
    for (uint32_t si = 0; si < g->nsegs; si++) {
        const argus_seg *s = &g->segs[si];
        if (!argus_table_get(&P->keep_tids, g->threads[s->thread].tid))
            continue;
        if (s->begin <= hi && argus_seg_until(g, s) >= lo) {
            bool created;
            argus_table_put(&P->keep_segs, s->seg, &created);
        }
    }
}

/* --window: every segment ongoing in it (from its start to its resume),
 * and the threads of those. */
static void plan_window(perfetto *P, argus_graph *g)
{
    if (P->x->window_to < g->origin)
        return;                 /* all of it before the trace */
    uint64_t lo = P->x->window_from > g->origin ? P->x->window_from - g->origin : 0;
    uint64_t hi = P->x->window_to - g->origin;
    for (uint32_t si = 0; si < g->nsegs; si++) {
        const argus_seg *s = &g->segs[si];
        if (s->begin > hi || argus_seg_until(g, s) < lo)
            continue;
        bool created;
        argus_table_put(&P->keep_segs, s->seg, &created);
        argus_table_put(&P->keep_tids, g->threads[s->thread].tid, &created);
    }
}

void argus_export_perfetto(export_state *x, const char *input)
{
    /* on the heap: the recent events' places are 2.6 MB */
    perfetto *P = argus_xcalloc(1, sizeof *P, "the Perfetto export");
    P->x = x;
    P->places.fd = -1;
    argus_table_init(&P->threads, sizeof(thread_state));
    argus_table_init(&P->places.thr_of, sizeof(uint32_t));
    argus_table_init(&P->keep_segs, 1);
    argus_table_init(&P->keep_tids, 1);
    /* pass 1: the findings (at the stream's end) */
    argus_reader *rd = argus_reader_open(input);
    if (P->x->around >= 0 || P->x->windowed) {
        argus_graph g;
        argus_graph_load(&g, rd, NULL);
        argus_export_findings_from_graph(P->x, &g, rd);
        if (P->x->windowed) {
            plan_window(P, &g);
        } else {
            argus_export_check_around(P->x);
            plan_around(P, &g);
        }
        argus_graph_free(&g);
    } else {
        const argus_record *r;
        uint64_t seg;
        while ((r = argus_read(rd)))
            if (r->is_event && !argus_get_uint(r, ARGUS_K_SEG, &seg))
                argus_record_fail(rd, r, "event %llu has no seg: run argus-segment "
                                  "(argus graph) first", (unsigned long long)r->id);
            else if (!r->is_event && r->type == ARGUS_T_OTHER)
                argus_export_take_finding(P->x, rd, r);
    }
    argus_reader_close(rd);

    /* pass 2: slices as their segments end, flows with their slices */
    argus_export_rewind_input(input);
    rd = argus_reader_open(input);
    const argus_record *hdr = argus_reader_header(rd);
    argus_export_out("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"exported_by\":\"argus-export\"");
    size_t len;
    const char *src = argus_get_text(hdr, ARGUS_K_SOURCE, &len);
    if (src) {
        argus_export_out(",\"source\":\"");
        argus_export_put_escaped(P->x, src, len, false);
        argus_export_out("\"");
    }
    argus_export_out("},\"traceEvents\":[");
    const argus_record *r;
    while ((r = argus_read(rd))) {
        if (r->is_event)
            take_event(P, rd, r);
        else if (r->type == ARGUS_T_EDGE)
            take_edge(P, r);
        else if (r->type == ARGUS_T_THREAD)
            take_thread(P, r);
    }
    size_t pos = 0;
    uint64_t key;
    void *val;
    while (argus_table_next(&P->threads, &pos, &key, &val)) {
        thread_state *ts = val;
        while (ts->depth) {
            open_seg *o = ts->stack[--ts->depth];
            /* a segment still in its final wait lasts to the trace's end */
            close_seg(P, o, o->last_wait ? P->last_ts : o->last_ts);
        }
    }
    write_hang_instants(P);
    argus_export_out("\n]}\n");
    argus_reader_close(rd);
    argus_table_free(&P->threads);
    argus_table_free(&P->keep_segs);
    argus_table_free(&P->keep_tids);
    argus_table_free(&P->places.thr_of);
    free(P->places.thr);
    if (P->places.fd >= 0)
        close(P->places.fd);
    for (size_t i = 0; i < P->nkinds; i++)
        free(P->kinds[i]);
    free(P->kinds);
    free(P);
}
