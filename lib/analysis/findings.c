/* The findings: one writer and one reader per analysis record kind
 * (include/argus/analysis/findings.h; docs/stream-format.md, "Analysis
 * records"). The writers put a struct's present fields in its order; the
 * readers take them back, so that a field is added here once and the
 * round trip (tests/findings.bats) checks the two against each other. */
#include "argus/analysis/findings.h"
#include "argus/stream/cbor.h"
#include "argus/stream/cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ABSENT ARGUS_ABSENT

static const char *const kind_names[ARGUS_F_KINDS] = {
    [ARGUS_F_HANG] = "hang",           [ARGUS_F_PATH] = "path",
    [ARGUS_F_WAIT_CHAIN] = "wait_chain", [ARGUS_F_CRITICAL_PATH] = "critical_path",
    [ARGUS_F_MATCH] = "match",         [ARGUS_F_NO_MATCH] = "no_match",
    [ARGUS_F_CULPRIT] = "culprit",     [ARGUS_F_BRANCH] = "branch",
    [ARGUS_F_LOSS] = "loss",
};

argus_finding_kind argus_finding_kind_of(const char *type, size_t len)
{
    for (int k = 0; k < ARGUS_F_KINDS; k++)
        if (strlen(kind_names[k]) == len && memcmp(kind_names[k], type, len) == 0)
            return (argus_finding_kind)k;
    return ARGUS_F_NONE;
}

const char *argus_finding_kind_name(argus_finding_kind k)
{
    return k >= 0 && k < ARGUS_F_KINDS ? kind_names[k] : NULL;
}

/* ---- writing ------------------------------------------------------------- */

/* Each kind's fields are put by one function, run twice: first into a
 * sink that only counts the pairs (the map's head comes first), then
 * into the writer; so no count is kept by hand beside the fields. */
typedef struct sink {
    argus_writer *w;            /* NULL: counting */
    unsigned pairs;
} sink;

static bool put_key(sink *o, const char *key)
{
    o->pairs++;
    if (o->w)
        argus_put_key(o->w, key);
    return o->w != NULL;
}

static void put_u(sink *o, const char *key, uint64_t v)
{
    if (put_key(o, key))
        argus_put_uint(o->w, v);
}

static void put_s(sink *o, const char *key, const char *s)
{
    if (put_key(o, key))
        argus_put_cstr(o->w, s);
}

static void put_b(sink *o, const char *key, bool v)
{
    if (put_key(o, key))
        argus_put_bool(o->w, v);
}

static void put_uints(sink *o, const char *key, const uint64_t *v, int n)
{
    if (!v || !put_key(o, key))
        return;
    argus_put_array(o->w, (uint64_t)n);
    for (int i = 0; i < n; i++)
        argus_put_uint(o->w, v[i]);
}

static void put_texts(sink *o, const char *key, const char *const *v, int n)
{
    if (!v || !put_key(o, key))
        return;
    argus_put_array(o->w, (uint64_t)n);
    for (int i = 0; i < n; i++)
        argus_put_cstr(o->w, v[i]);
}

/* One record of kind K: FIELDS(sink, F) puts its fields after "type". */
#define WRITE_RECORD(w, k, fields, f)                                          \
    do {                                                                       \
        sink count_ = {NULL, 1};                                               \
        fields(&count_, f);                                                    \
        argus_put_map(w, count_.pairs);                                        \
        argus_put_key(w, "type");                                              \
        argus_put_cstr(w, kind_names[k]);                                      \
        fields(&(sink){w, 0}, f);                                              \
        argus_end_record(w);                                                   \
    } while (0)

#define HAS(v) ((v) != ABSENT)

static void hang_fields(sink *o, const argus_hang_finding *f)
{
    put_u(o, "hang", f->hang);
    put_u(o, "seg", f->seg);
    if (HAS(f->first_seg))
        put_u(o, "first_seg", f->first_seg);
    if (HAS(f->waits))
        put_u(o, "waits", f->waits);
    put_u(o, "tid", f->tid);
    put_u(o, "pid", f->pid);
    if (f->proc)
        put_s(o, "proc", f->proc);
    if (f->thread)
        put_s(o, "thread", f->thread);
    put_u(o, "begin", f->begin);
    put_u(o, "end", f->end);
    put_u(o, "duration", f->duration);
    put_s(o, "class", f->cls);
    put_s(o, "indicator", f->indicator);
    put_u(o, "at", f->at);
    if (HAS(f->event))
        put_u(o, "event", f->event);
    if (f->open)
        put_b(o, "open", true);
    put_u(o, "events", f->events);
    put_u(o, "yields", f->yields);
    put_u(o, "blocked", f->blocked);
    put_u(o, "timeouts", f->timeouts);
    if (HAS(f->wait))
        put_u(o, "wait", f->wait);
    if (HAS(f->resource))
        put_u(o, "resource", f->resource);
    if (f->reason)
        put_s(o, "reason", f->reason);
    if (f->result)
        put_s(o, "result", f->result);
    if (HAS(f->runnable))
        put_u(o, "runnable", f->runnable);
}

void argus_write_hang(argus_writer *w, const argus_hang_finding *f)
{
    WRITE_RECORD(w, ARGUS_F_HANG, hang_fields, f);
}

static void path_fields(sink *o, const argus_path_finding *f)
{
    bool ui = HAS(f->ui);
    put_u(o, "hang", f->hang);
    put_u(o, "rank", f->rank);
    if (put_key(o, "score"))
        argus_put_int(o->w, f->score);
    put_b(o, "complete", f->complete);
    put_uints(o, "segs", f->segs, f->nsegs);
    put_uints(o, "edge_from", f->from, f->nfrom);
    put_uints(o, "edge_to", f->to, f->nto);
    put_texts(o, "edge_kinds", f->kinds, f->nkinds);
    if (ui) {
        put_u(o, "ui", f->ui);
        put_s(o, "ui_kind", f->ui_kind ? f->ui_kind : "");
    }
}

void argus_write_path(argus_writer *w, const argus_path_finding *f)
{
    WRITE_RECORD(w, ARGUS_F_PATH, path_fields, f);
}

static void chain_fields(sink *o, const argus_chain_finding *f)
{
    put_u(o, "hang", f->hang);
    put_uints(o, "segs", f->segs, f->nsegs);
    put_uints(o, "tids", f->tids, f->ntids);
    put_texts(o, "links", f->via, f->nvia);
    put_texts(o, "states", f->states, f->nstates);
    put_uints(o, "since", f->since, f->nsince);
    put_uints(o, "until", f->until, f->nuntil);
    put_uints(o, "waits", f->waits, f->nwaits);
    put_s(o, "end", f->end ? f->end : "");
    if (HAS(f->resource))
        put_u(o, "resource", f->resource);
    if (f->reason)
        put_s(o, "reason", f->reason);
}

void argus_write_chain(argus_writer *w, const argus_chain_finding *f)
{
    WRITE_RECORD(w, ARGUS_F_WAIT_CHAIN, chain_fields, f);
}

static void cpath_fields(sink *o, const argus_cpath_finding *f)
{
    put_u(o, "hang", f->hang);
    if (!put_key(o, "steps"))
        return;
    argus_put_array(o->w, (uint64_t)f->n);
    for (int i = 0; i < f->n; i++) {
        sink step = {o->w, 0};
        argus_put_map(o->w, 4);
        put_u(&step, "tid", f->tid[i]);
        put_u(&step, "from", f->from[i]);
        put_u(&step, "to", f->to[i]);
        put_s(&step, "state", f->state[i]);
    }
}

void argus_write_cpath(argus_writer *w, const argus_cpath_finding *f)
{
    WRITE_RECORD(w, ARGUS_F_CRITICAL_PATH, cpath_fields, f);
}

static void match_fields(sink *o, const argus_match_finding *f)
{
    if (HAS(f->hang))
        put_u(o, "hang", f->hang);
    put_u(o, "seg", f->seg);
    put_u(o, "rank", f->rank);
    put_u(o, "baseline_seg", f->baseline_seg);
    put_u(o, "distance", f->distance);
    put_u(o, "percent", f->percent);
    put_u(o, "size", f->size);
    put_u(o, "baseline_size", f->baseline_size);
    put_s(o, "baseline", f->baseline);
    if (f->by)
        put_s(o, "by", f->by);
}

void argus_write_match(argus_writer *w, const argus_match_finding *f)
{
    WRITE_RECORD(w, ARGUS_F_MATCH, match_fields, f);
}

static void no_match_fields(sink *o, const argus_no_match_finding *f)
{
    bool near = HAS(f->nearest);
    if (HAS(f->hang))
        put_u(o, "hang", f->hang);
    put_u(o, "seg", f->seg);
    put_s(o, "why", f->why);
    put_u(o, "size", f->size);
    if (near) {
        put_u(o, "nearest", f->nearest);
        put_u(o, "distance", f->distance);
        put_u(o, "percent", f->percent);
        put_u(o, "baseline_size", f->baseline_size);
    }
    put_s(o, "baseline", f->baseline);
}

void argus_write_no_match(argus_writer *w, const argus_no_match_finding *f)
{
    WRITE_RECORD(w, ARGUS_F_NO_MATCH, no_match_fields, f);
}

static void culprit_fields(sink *o, const argus_culprit_finding *f)
{
    put_u(o, "hang", f->hang);
    put_u(o, "rank", f->rank);
    put_b(o, "root", f->root);
    put_u(o, "depth", f->depth);
    put_u(o, "branch", f->branch);
    put_u(o, "tid", f->tid);
    put_u(o, "pid", f->pid);
    if (f->proc)
        put_s(o, "proc", f->proc);
    if (f->thread)
        put_s(o, "thread", f->thread);
    put_u(o, "seg", f->seg);
    put_s(o, "state", f->state);
    put_u(o, "since", f->since);
    put_u(o, "until", f->until);
    put_u(o, "duration", f->duration);
    if (HAS(f->wait))
        put_u(o, "wait", f->wait);
    if (HAS(f->resource))
        put_u(o, "resource", f->resource);
    if (f->reason)
        put_s(o, "reason", f->reason);
    if (HAS(f->waits_on))
        put_u(o, "waits_on", f->waits_on);
    if (HAS(f->baseline_seg))
        put_u(o, "baseline_seg", f->baseline_seg);
    if (f->missing)
        put_s(o, "missing", f->missing);
    put_s(o, "evidence", f->evidence);
}

void argus_write_culprit(argus_writer *w, const argus_culprit_finding *f)
{
    WRITE_RECORD(w, ARGUS_F_CULPRIT, culprit_fields, f);
}

static void branch_fields(sink *o, const argus_branch_finding *f)
{
    put_u(o, "hang", f->hang);
    put_u(o, "at", f->at);
    put_uints(o, "choices", f->choices, f->nchoices);
    if (HAS(f->chosen))
        put_u(o, "chosen", f->chosen);
}

void argus_write_branch(argus_writer *w, const argus_branch_finding *f)
{
    WRITE_RECORD(w, ARGUS_F_BRANCH, branch_fields, f);
}

/* ---- reading ------------------------------------------------------------- */

/* The memory the readers keep texts and arrays in: blocks, each used up
 * from its start, freed together. */
typedef struct argus_findings_block {
    struct argus_findings_block *next;
    size_t used, size;
    _Alignas(max_align_t) unsigned char data[];
} block;

static void *mem_get(argus_findings_mem *m, size_t n)
{
    n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    block *b = m->blocks;
    if (!b || b->size - b->used < n) {
        size_t size = n > 16384 ? n : 16384;
        b = malloc(sizeof *b + size);
        if (!b)
            argus_die(ARGUS_EX_IOERR, "out of memory (%zu bytes of findings)", size);
        b->size = size;
        b->used = 0;
        /* a block made for one big item goes behind the current one,
         * which keeps its room */
        if (m->blocks && size == n) {
            b->next = m->blocks->next;
            m->blocks->next = b;
        } else {
            b->next = m->blocks;
            m->blocks = b;
        }
    }
    void *p = b->data + b->used;
    b->used += n;
    return p;
}

void argus_findings_mem_free(argus_findings_mem *m)
{
    for (block *b = m->blocks, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    m->blocks = NULL;
}

/* A text kept in M, up to its first NUL as the C strings that print it. */
static const char *mem_text(argus_findings_mem *m, const char *s, size_t n)
{
    const char *nul = memchr(s, 0, n);
    if (nul)
        n = (size_t)(nul - s);
    char *p = mem_get(m, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

__attribute__((format(printf, 2, 3)))
static bool fail(argus_findings_mem *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->error, sizeof m->error, fmt, ap);
    va_end(ap);
    return false;
}

static uint64_t get_u(const argus_record *r, const char *key)
{
    const argus_field *f = argus_get_named(r, key);
    return f && f->kind == ARGUS_V_UINT ? f->u : ABSENT;
}

static bool need_u(const argus_record *r, argus_findings_mem *m, const char *key,
                   uint64_t *out)
{
    *out = get_u(r, key);
    return *out != ABSENT ||
           fail(m, "\"%s\" is missing or not an unsigned integer", key);
}

static bool get_b(const argus_record *r, const char *key)
{
    const argus_field *f = argus_get_named(r, key);
    return f && f->kind == ARGUS_V_BOOL && f->u;
}

static const char *get_s(const argus_record *r, argus_findings_mem *m, const char *key)
{
    const argus_field *f = argus_get_named(r, key);
    return f && f->kind == ARGUS_V_TEXT && f->s ? mem_text(m, f->s, f->slen) : NULL;
}

/* Field KEY, an array of uints (MAJOR CBOR_UINT, into *U) or of texts
 * (CBOR_TEXT, into *T): its length, 0 when absent; -1 when it is not such
 * an array. */
static int get_array(const argus_record *r, argus_findings_mem *m, const char *key,
                     unsigned major, uint64_t **u, const char ***t)
{
    const argus_field *f = argus_get_named(r, key);
    if (!f)
        return 0;
    if (f->kind != ARGUS_V_ARRAY)
        return -1;
    const uint8_t *p = r->raw + f->val_off, *end = r->raw + f->end_off;
    argus_cbor_head_info h;
    if (!argus_cbor_read_head(p, (size_t)(end - p), &h))
        return -1;
    bool indef = h.info == 31;
    p += h.len;
    /* no more elements than bytes: the count sizes the array */
    size_t max = (size_t)(end - p), n = 0;
    if (!indef && h.arg < max)
        max = h.arg;
    if (max > INT32_MAX)
        return -1;
    uint64_t *uv = major == CBOR_UINT ? mem_get(m, (max + 1) * sizeof *uv) : NULL;
    const char **tv = major == CBOR_UINT ? NULL : mem_get(m, (max + 1) * sizeof *tv);
    for (uint64_t i = 0; indef ? (p < end && *p != 0xff) : i < h.arg; i++) {
        argus_cbor_head_info e;
        size_t len = argus_cbor_item_len(p, (size_t)(end - p));
        if (!len || n == max || !argus_cbor_read_head(p, (size_t)(end - p), &e) ||
            e.major != major || e.info == 31)
            return -1;
        if (major == CBOR_UINT)
            uv[n++] = e.arg;
        else
            tv[n++] = mem_text(m, (const char *)p + e.len, e.arg);
        p += len;
    }
    /* present, even empty: not NULL, so that it is written again */
    if (u)
        *u = uv;
    if (t)
        *t = tv;
    return (int)n;
}

static bool need_array(const argus_record *r, argus_findings_mem *m, const char *key,
                       unsigned major, uint64_t **u, const char ***t, int *n)
{
    *n = get_array(r, m, key, major, u, t);
    return *n >= 0 || fail(m, "\"%s\" is not an array of %s", key,
                           major == CBOR_UINT ? "unsigned integers" : "texts");
}

bool argus_read_hang(const argus_record *r, argus_findings_mem *m, argus_hang_finding *f)
{
    memset(f, 0, sizeof *f);
    f->number = r->number;
    if (!need_u(r, m, "hang", &f->hang) || !need_u(r, m, "seg", &f->seg))
        return false;
    f->first_seg = get_u(r, "first_seg");
    f->waits = get_u(r, "waits");
    f->tid = get_u(r, "tid");
    f->pid = get_u(r, "pid");
    f->proc = get_s(r, m, "proc");
    f->thread = get_s(r, m, "thread");
    f->begin = get_u(r, "begin");
    f->end = get_u(r, "end");
    f->duration = get_u(r, "duration");
    f->cls = get_s(r, m, "class");
    f->indicator = get_s(r, m, "indicator");
    f->at = get_u(r, "at");
    f->event = get_u(r, "event");
    f->open = get_b(r, "open");
    f->events = get_u(r, "events");
    f->yields = get_u(r, "yields");
    f->blocked = get_u(r, "blocked");
    f->timeouts = get_u(r, "timeouts");
    f->wait = get_u(r, "wait");
    f->resource = get_u(r, "resource");
    f->reason = get_s(r, m, "reason");
    f->result = get_s(r, m, "result");
    f->runnable = get_u(r, "runnable");
    return true;
}

bool argus_read_path(const argus_record *r, argus_findings_mem *m, argus_path_finding *f)
{
    memset(f, 0, sizeof *f);
    f->number = r->number;
    if (!need_u(r, m, "hang", &f->hang))
        return false;
    f->rank = get_u(r, "rank");
    const argus_field *score = argus_get_named(r, "score");
    if (score && score->kind == ARGUS_V_UINT && score->u <= INT64_MAX)
        f->score = (int64_t)score->u;
    else if (score && score->kind == ARGUS_V_NEGINT && score->u < INT64_MAX)
        f->score = -1 - (int64_t)score->u;
    f->complete = get_b(r, "complete");
    f->ui = get_u(r, "ui");
    f->ui_kind = get_s(r, m, "ui_kind");
    return need_array(r, m, "segs", CBOR_UINT, &f->segs, NULL, &f->nsegs) &&
           need_array(r, m, "edge_from", CBOR_UINT, &f->from, NULL, &f->nfrom) &&
           need_array(r, m, "edge_to", CBOR_UINT, &f->to, NULL, &f->nto) &&
           need_array(r, m, "edge_kinds", CBOR_TEXT, NULL, &f->kinds, &f->nkinds);
}

bool argus_read_chain(const argus_record *r, argus_findings_mem *m, argus_chain_finding *f)
{
    memset(f, 0, sizeof *f);
    f->number = r->number;
    if (!need_u(r, m, "hang", &f->hang))
        return false;
    f->end = get_s(r, m, "end");
    f->resource = get_u(r, "resource");
    f->reason = get_s(r, m, "reason");
    /* the links' kinds are words for the report: a bad one is left out */
    f->nvia = get_array(r, m, "links", CBOR_TEXT, NULL, &f->via);
    if (f->nvia < 0)
        f->nvia = 0;
    return need_array(r, m, "segs", CBOR_UINT, &f->segs, NULL, &f->nsegs) &&
           need_array(r, m, "tids", CBOR_UINT, &f->tids, NULL, &f->ntids) &&
           need_array(r, m, "states", CBOR_TEXT, NULL, &f->states, &f->nstates) &&
           need_array(r, m, "since", CBOR_UINT, &f->since, NULL, &f->nsince) &&
           need_array(r, m, "until", CBOR_UINT, &f->until, NULL, &f->nuntil) &&
           need_array(r, m, "waits", CBOR_UINT, &f->waits, NULL, &f->nwaits);
}

/* "steps": an array of maps {tid, from, to, state}, each a uint but
 * state (a text); other keys are left. */
bool argus_read_cpath(const argus_record *r, argus_findings_mem *m, argus_cpath_finding *f)
{
    memset(f, 0, sizeof *f);
    f->number = r->number;
    if (!need_u(r, m, "hang", &f->hang))
        return false;
    const argus_field *steps = argus_get_named(r, "steps");
    if (!steps || steps->kind != ARGUS_V_ARRAY)
        return fail(m, "\"steps\" is not an array");
    const uint8_t *p = r->raw + steps->val_off, *end = r->raw + steps->end_off;
    argus_cbor_head_info h;
    if (!argus_cbor_read_head(p, (size_t)(end - p), &h) || h.info == 31 || h.major != 4 ||
        h.arg > (size_t)(end - p))
        return fail(m, "\"steps\" is not an array of known length");
    p += h.len;
    int n = (int)h.arg;
    f->tid = mem_get(m, ((size_t)n + 1) * sizeof *f->tid);
    f->from = mem_get(m, ((size_t)n + 1) * sizeof *f->from);
    f->to = mem_get(m, ((size_t)n + 1) * sizeof *f->to);
    f->state = mem_get(m, ((size_t)n + 1) * sizeof *f->state);
    for (int i = 0; i < n; i++) {
        argus_cbor_head_info mh;
        if (!argus_cbor_read_head(p, (size_t)(end - p), &mh) || mh.major != 5 || mh.info == 31)
            return fail(m, "step %d is not a map", i);
        p += mh.len;
        f->tid[i] = f->from[i] = f->to[i] = ABSENT;
        f->state[i] = NULL;
        for (uint64_t k = 0; k < mh.arg; k++) {
            argus_cbor_head_info kh, vh;
            if (!argus_cbor_read_head(p, (size_t)(end - p), &kh) || kh.major != 3 ||
                kh.info == 31 || kh.arg > (size_t)(end - p) - kh.len)
                return fail(m, "step %d has a key that is not a text", i);
            const char *key = (const char *)p + kh.len;
            size_t klen = kh.arg;
            p += kh.len + kh.arg;
            size_t vlen = argus_cbor_item_len(p, (size_t)(end - p));
            if (!vlen || !argus_cbor_read_head(p, (size_t)(end - p), &vh))
                return fail(m, "step %d is cut short", i);
            uint64_t *u = klen == 3 && !memcmp(key, "tid", 3)    ? &f->tid[i]
                          : klen == 4 && !memcmp(key, "from", 4) ? &f->from[i]
                          : klen == 2 && !memcmp(key, "to", 2)   ? &f->to[i] : NULL;
            if (u && vh.major == 0)
                *u = vh.arg;
            else if (klen == 5 && !memcmp(key, "state", 5) && vh.major == 3 && vh.info != 31)
                f->state[i] = mem_text(m, (const char *)p + vh.len, vh.arg);
            p += vlen;
        }
        if (f->tid[i] == ABSENT || f->from[i] == ABSENT || f->to[i] == ABSENT ||
            !f->state[i] || f->to[i] < f->from[i])
            return fail(m, "step %d lacks tid, from, to or state", i);
    }
    f->n = n;
    return true;
}

bool argus_read_match(const argus_record *r, argus_findings_mem *m, argus_match_finding *f)
{
    memset(f, 0, sizeof *f);
    f->number = r->number;
    f->hang = get_u(r, "hang");
    f->seg = get_u(r, "seg");
    f->rank = get_u(r, "rank");
    f->distance = get_u(r, "distance");
    f->percent = get_u(r, "percent");
    f->size = get_u(r, "size");
    f->baseline_size = get_u(r, "baseline_size");
    f->baseline = get_s(r, m, "baseline");
    f->by = get_s(r, m, "by");
    return need_u(r, m, "baseline_seg", &f->baseline_seg);
}

bool argus_read_no_match(const argus_record *r, argus_findings_mem *m,
                         argus_no_match_finding *f)
{
    memset(f, 0, sizeof *f);
    f->number = r->number;
    f->hang = get_u(r, "hang");
    f->seg = get_u(r, "seg");
    f->why = get_s(r, m, "why");
    f->size = get_u(r, "size");
    f->nearest = get_u(r, "nearest");
    f->distance = get_u(r, "distance");
    f->percent = get_u(r, "percent");
    f->baseline_size = get_u(r, "baseline_size");
    f->baseline = get_s(r, m, "baseline");
    return true;
}

bool argus_read_culprit(const argus_record *r, argus_findings_mem *m,
                        argus_culprit_finding *f)
{
    memset(f, 0, sizeof *f);
    f->number = r->number;
    if (!need_u(r, m, "hang", &f->hang))
        return false;
    f->rank = get_u(r, "rank");
    f->root = get_b(r, "root");
    f->depth = get_u(r, "depth");
    f->branch = get_u(r, "branch");
    f->pid = get_u(r, "pid");
    f->proc = get_s(r, m, "proc");
    f->thread = get_s(r, m, "thread");
    f->seg = get_u(r, "seg");
    f->state = get_s(r, m, "state");
    f->since = get_u(r, "since");
    f->until = get_u(r, "until");
    f->duration = get_u(r, "duration");
    f->wait = get_u(r, "wait");
    f->resource = get_u(r, "resource");
    f->reason = get_s(r, m, "reason");
    f->waits_on = get_u(r, "waits_on");
    f->baseline_seg = get_u(r, "baseline_seg");
    f->missing = get_s(r, m, "missing");
    f->evidence = get_s(r, m, "evidence");
    return need_u(r, m, "tid", &f->tid);
}

bool argus_read_branch(const argus_record *r, argus_findings_mem *m, argus_branch_finding *f)
{
    memset(f, 0, sizeof *f);
    f->number = r->number;
    f->chosen = get_u(r, "chosen");
    return need_u(r, m, "hang", &f->hang) && need_u(r, m, "at", &f->at) &&
           need_array(r, m, "choices", CBOR_UINT, &f->choices, NULL, &f->nchoices);
}

bool argus_read_loss(const argus_record *r, argus_findings_mem *m, argus_loss_finding *f)
{
    memset(f, 0, sizeof *f);
    f->number = r->number;
    f->kind = get_s(r, m, "kind");
    f->cpu = get_u(r, "cpu");
    f->events = get_u(r, "events");
    f->written = get_u(r, "written");
    f->since = get_u(r, "since");
    f->from = get_u(r, "from");
    f->to = get_u(r, "to");
    f->line = get_u(r, "line");
    return f->kind || fail(m, "\"kind\" is missing or not a text");
}
