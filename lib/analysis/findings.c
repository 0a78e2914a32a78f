/* The findings: one writer and one reader per analysis record kind
 * (include/argus/analysis/findings.h; docs/stream-format.md, "Analysis
 * records"). Each kind is a table of its fields (key, type, place in the
 * struct, whether needed or optional) that one generic writer and one
 * generic reader walk: a field is added to the struct and to its table,
 * and the round trip (tests/findings.bats) checks the two agree. */
#include "argus/analysis/findings.h"
#include "argus/stream/cbor.h"
#include "argus/stream/cli.h"

#include <stdarg.h>
#include <stddef.h>
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


/* ---- the kinds' fields ------------------------------------------------------- */

enum field_type {
    FT_UINT, FT_INT, FT_BOOL, FT_TEXT,
    FT_UINTS, FT_TEXTS,         /* arrays, their count an int beside them */
    FT_STEPS,                   /* a critical path's steps */
};
enum {
    NEEDED = 1,                 /* read: refused when missing */
    OPTIONAL = 2,               /* written only when present */
    TRUE_ONLY = 4,              /* a bool written only when true */
    LENIENT = 8,                /* an array of the wrong shape is read as none */
};
typedef struct field_def {
    const char *key;
    unsigned char type, flags;
    unsigned short off, count;  /* the value's place in the struct; an array's count's */
} field_def;

#define F(T, key, type, member, flags) {key, type, flags, offsetof(T, member), 0}
#define A(T, key, type, member, count, flags) \
    {key, type, flags, offsetof(T, member), offsetof(T, count)}

#define T argus_hang_finding
static const field_def hang_fields[] = {
    F(T, "hang", FT_UINT, hang, NEEDED), F(T, "seg", FT_UINT, seg, NEEDED),
    F(T, "first_seg", FT_UINT, first_seg, OPTIONAL), F(T, "waits", FT_UINT, waits, OPTIONAL),
    F(T, "tid", FT_UINT, tid, 0), F(T, "pid", FT_UINT, pid, 0),
    F(T, "proc", FT_TEXT, proc, OPTIONAL), F(T, "thread", FT_TEXT, thread, OPTIONAL),
    F(T, "begin", FT_UINT, begin, 0), F(T, "end", FT_UINT, end, 0),
    F(T, "duration", FT_UINT, duration, 0), F(T, "class", FT_TEXT, cls, 0),
    F(T, "indicator", FT_TEXT, indicator, 0), F(T, "at", FT_UINT, at, 0),
    F(T, "event", FT_UINT, event, OPTIONAL), F(T, "open", FT_BOOL, open, TRUE_ONLY),
    F(T, "events", FT_UINT, events, 0), F(T, "yields", FT_UINT, yields, 0),
    F(T, "blocked", FT_UINT, blocked, 0), F(T, "timeouts", FT_UINT, timeouts, 0),
    F(T, "wait", FT_UINT, wait, OPTIONAL), F(T, "resource", FT_UINT, resource, OPTIONAL),
    F(T, "reason", FT_TEXT, reason, OPTIONAL), F(T, "result", FT_TEXT, result, OPTIONAL),
    F(T, "runnable", FT_UINT, runnable, OPTIONAL),
};
#undef T
#define T argus_path_finding
static const field_def path_fields[] = {
    F(T, "hang", FT_UINT, hang, NEEDED), F(T, "rank", FT_UINT, rank, 0),
    F(T, "score", FT_INT, score, 0), F(T, "complete", FT_BOOL, complete, 0),
    A(T, "segs", FT_UINTS, segs, nsegs, 0), A(T, "edge_from", FT_UINTS, from, nfrom, 0),
    A(T, "edge_to", FT_UINTS, to, nto, 0), A(T, "edge_kinds", FT_TEXTS, kinds, nkinds, 0),
    F(T, "ui", FT_UINT, ui, OPTIONAL), F(T, "ui_kind", FT_TEXT, ui_kind, OPTIONAL),
};
#undef T
#define T argus_chain_finding
static const field_def chain_fields[] = {
    F(T, "hang", FT_UINT, hang, NEEDED),
    A(T, "segs", FT_UINTS, segs, nsegs, 0), A(T, "tids", FT_UINTS, tids, ntids, 0),
    /* the links' kinds are words for the report: a bad one is left out */
    A(T, "links", FT_TEXTS, via, nvia, LENIENT),
    A(T, "states", FT_TEXTS, states, nstates, 0), A(T, "since", FT_UINTS, since, nsince, 0),
    A(T, "until", FT_UINTS, until, nuntil, 0), A(T, "waits", FT_UINTS, waits, nwaits, 0),
    F(T, "end", FT_TEXT, end, 0), F(T, "resource", FT_UINT, resource, OPTIONAL),
    F(T, "reason", FT_TEXT, reason, OPTIONAL),
};
#undef T
#define T argus_cpath_finding
static const field_def cpath_fields[] = {
    F(T, "hang", FT_UINT, hang, NEEDED), F(T, "steps", FT_STEPS, n, NEEDED),
};
#undef T
#define T argus_match_finding
static const field_def match_fields[] = {
    F(T, "hang", FT_UINT, hang, OPTIONAL), F(T, "seg", FT_UINT, seg, 0),
    F(T, "rank", FT_UINT, rank, 0), F(T, "baseline_seg", FT_UINT, baseline_seg, NEEDED),
    F(T, "distance", FT_UINT, distance, 0), F(T, "percent", FT_UINT, percent, 0),
    F(T, "size", FT_UINT, size, 0), F(T, "baseline_size", FT_UINT, baseline_size, 0),
    F(T, "baseline", FT_TEXT, baseline, 0), F(T, "by", FT_TEXT, by, OPTIONAL),
};
#undef T
#define T argus_no_match_finding
static const field_def no_match_fields[] = {
    F(T, "hang", FT_UINT, hang, OPTIONAL), F(T, "seg", FT_UINT, seg, 0),
    F(T, "why", FT_TEXT, why, 0), F(T, "size", FT_UINT, size, 0),
    F(T, "nearest", FT_UINT, nearest, OPTIONAL), F(T, "distance", FT_UINT, distance, OPTIONAL),
    F(T, "percent", FT_UINT, percent, OPTIONAL),
    F(T, "baseline_size", FT_UINT, baseline_size, OPTIONAL),
    F(T, "baseline", FT_TEXT, baseline, 0),
};
#undef T
#define T argus_culprit_finding
static const field_def culprit_fields[] = {
    F(T, "hang", FT_UINT, hang, NEEDED), F(T, "rank", FT_UINT, rank, 0),
    F(T, "root", FT_BOOL, root, 0), F(T, "depth", FT_UINT, depth, 0),
    F(T, "branch", FT_UINT, branch, 0), F(T, "tid", FT_UINT, tid, NEEDED),
    F(T, "pid", FT_UINT, pid, 0), F(T, "proc", FT_TEXT, proc, OPTIONAL),
    F(T, "thread", FT_TEXT, thread, OPTIONAL), F(T, "seg", FT_UINT, seg, 0),
    F(T, "state", FT_TEXT, state, 0), F(T, "since", FT_UINT, since, 0),
    F(T, "until", FT_UINT, until, 0), F(T, "duration", FT_UINT, duration, 0),
    F(T, "wait", FT_UINT, wait, OPTIONAL), F(T, "resource", FT_UINT, resource, OPTIONAL),
    F(T, "reason", FT_TEXT, reason, OPTIONAL), F(T, "waits_on", FT_UINT, waits_on, OPTIONAL),
    F(T, "baseline_seg", FT_UINT, baseline_seg, OPTIONAL),
    F(T, "missing", FT_TEXT, missing, OPTIONAL), F(T, "evidence", FT_TEXT, evidence, 0),
};
#undef T
#define T argus_branch_finding
static const field_def branch_fields[] = {
    F(T, "hang", FT_UINT, hang, NEEDED), F(T, "at", FT_UINT, at, NEEDED),
    A(T, "choices", FT_UINTS, choices, nchoices, 0), F(T, "chosen", FT_UINT, chosen, OPTIONAL),
};
#undef T
#define T argus_loss_finding
static const field_def loss_fields[] = {
    F(T, "kind", FT_TEXT, kind, NEEDED), F(T, "cpu", FT_UINT, cpu, OPTIONAL),
    F(T, "events", FT_UINT, events, OPTIONAL), F(T, "written", FT_UINT, written, OPTIONAL),
    F(T, "since", FT_UINT, since, OPTIONAL), F(T, "from", FT_UINT, from, OPTIONAL),
    F(T, "to", FT_UINT, to, OPTIONAL), F(T, "line", FT_UINT, line, OPTIONAL),
    F(T, "chunks", FT_UINT, chunks, OPTIONAL),
};
#undef T
#undef F
#undef A

typedef struct kind_def {
    const field_def *fields;
    size_t nfields, size, number;  /* the struct's size, where its number is */
} kind_def;
#define KIND(k, fields, T)                                                                         \
    [k] = {fields, sizeof fields / sizeof *fields, sizeof(T), offsetof(T, number)}
static const kind_def kinds[ARGUS_F_KINDS] = {
    KIND(ARGUS_F_HANG, hang_fields, argus_hang_finding),
    KIND(ARGUS_F_PATH, path_fields, argus_path_finding),
    KIND(ARGUS_F_WAIT_CHAIN, chain_fields, argus_chain_finding),
    KIND(ARGUS_F_CRITICAL_PATH, cpath_fields, argus_cpath_finding),
    KIND(ARGUS_F_MATCH, match_fields, argus_match_finding),
    KIND(ARGUS_F_NO_MATCH, no_match_fields, argus_no_match_finding),
    KIND(ARGUS_F_CULPRIT, culprit_fields, argus_culprit_finding),
    KIND(ARGUS_F_BRANCH, branch_fields, argus_branch_finding),
    KIND(ARGUS_F_LOSS, loss_fields, argus_loss_finding),
};
#undef KIND

/* Field D of the struct at F, as TYPE (a one-word type: text, texts). */
typedef const char *text;
typedef const char **texts;
#define AT(f, d, type) ((type *)((char *)(f) + (d)->off))
#define CAT(f, d, type) ((const type *)((const char *)(f) + (d)->off))

/* ---- writing ------------------------------------------------------------- */

/* Whether field D of F is written: an optional one only when present. */
static bool written(const void *f, const field_def *d)
{
    switch (d->type) {
    case FT_UINT: return !(d->flags & OPTIONAL) || *CAT(f, d, uint64_t) != ARGUS_ABSENT;
    case FT_TEXT: return !(d->flags & OPTIONAL) || *CAT(f, d, text) != NULL;
    case FT_BOOL: return !(d->flags & TRUE_ONLY) || *CAT(f, d, bool);
    case FT_UINTS: return *CAT(f, d, uint64_t *) != NULL;
    case FT_TEXTS: return *CAT(f, d, texts) != NULL;
    default: return true;
    }
}

static void put_value(argus_writer *w, const void *f, const field_def *d)
{
    int n =
        d->type == FT_UINTS || d->type == FT_TEXTS ? *(const int *)((const char *)f + d->count) : 0;
    switch (d->type) {
    case FT_UINT: argus_put_uint(w, *CAT(f, d, uint64_t)); break;
    case FT_INT: argus_put_int(w, *CAT(f, d, int64_t)); break;
    case FT_BOOL: argus_put_bool(w, *CAT(f, d, bool)); break;
    case FT_TEXT: {
        const char *s = *CAT(f, d, text);
        argus_put_cstr(w, s ? s : "");
        break;
    }
    case FT_UINTS:
        argus_put_array(w, (uint64_t)n);
        for (int i = 0; i < n; i++)
            argus_put_uint(w, (*CAT(f, d, uint64_t *))[i]);
        break;
    case FT_TEXTS:
        argus_put_array(w, (uint64_t)n);
        for (int i = 0; i < n; i++)
            argus_put_cstr(w, (*CAT(f, d, texts))[i]);
        break;
    case FT_STEPS: {
        const argus_cpath_finding *c = f;
        argus_put_array(w, (uint64_t)c->n);
        for (int i = 0; i < c->n; i++) {
            argus_put_map(w, 4);
            argus_put_key(w, "tid");
            argus_put_uint(w, c->tid[i]);
            argus_put_key(w, "from");
            argus_put_uint(w, c->from[i]);
            argus_put_key(w, "to");
            argus_put_uint(w, c->to[i]);
            argus_put_key(w, "state");
            argus_put_cstr(w, c->state[i]);
        }
        break;
    }
    }
}

/* Record F of kind K: "type", then its fields in the table's order. */
static void write_kind(argus_writer *w, argus_finding_kind k, const void *f)
{
    const kind_def *kd = &kinds[k];
    unsigned pairs = 1;
    for (size_t i = 0; i < kd->nfields; i++)
        pairs += written(f, &kd->fields[i]);
    argus_put_map(w, pairs);
    argus_put_key(w, "type");
    argus_put_cstr(w, kind_names[k]);
    for (size_t i = 0; i < kd->nfields; i++)
        if (written(f, &kd->fields[i])) {
            argus_put_key(w, kd->fields[i].key);
            put_value(w, f, &kd->fields[i]);
        }
    argus_end_record(w);
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
        b = argus_xmalloc(sizeof *b + size, "the findings read");
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

static const char *get_s(const argus_record *r, argus_findings_mem *m, const char *key)
{
    const argus_field *f = argus_get_named(r, key);
    return f && f->kind == ARGUS_V_TEXT && f->s ? mem_text(m, f->s, f->slen) : NULL;
}

/* Where get_array's elements go: uints, or texts copied into M. */
struct array_into {
    argus_findings_mem *m;
    uint64_t *u;
    const char **t;
};

static void store_element(void *ctx, int i, const uint8_t *p, const argus_cbor_head_info *h)
{
    struct array_into *into = ctx;
    if (into->u)
        into->u[i] = h->arg;
    else
        into->t[i] = mem_text(into->m, (const char *)p + h->len, h->arg);
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
    size_t max = (size_t)(end - p);
    if (!indef && h.arg < max)
        max = h.arg;
    if (max > INT32_MAX)
        return -1;
    struct array_into into = {m, NULL, NULL};
    if (major == CBOR_UINT)
        into.u = mem_get(m, (max + 1) * sizeof *into.u);
    else
        into.t = mem_get(m, (max + 1) * sizeof *into.t);
    int n = argus_array_walk(r, f, major, store_element, &into, (int)max);
    if (n < 0)
        return -1;
    /* present, even empty: not NULL, so that it is written again */
    if (u)
        *u = into.u;
    if (t)
        *t = into.t;
    return n;
}

/* A critical path's "steps": an array of maps {tid, from, to, state},
 * each a uint but state (a text); other keys are left. */
static bool read_steps(const argus_record *r, argus_findings_mem *m, argus_cpath_finding *f)
{
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


/* Record R into F of kind K: every field of the table, absent as
 * ARGUS_ABSENT, NULL or 0; false, M->error saying why, when a needed one
 * is missing or one has the wrong shape (the first, in the table's order). */
static bool read_kind(const argus_record *r, argus_findings_mem *m, argus_finding_kind k,
                      void *f)
{
    const kind_def *kd = &kinds[k];
    memset(f, 0, kd->size);
    *(uint64_t *)((char *)f + kd->number) = r->number;
    for (size_t i = 0; i < kd->nfields; i++) {
        const field_def *d = &kd->fields[i];
        const argus_field *v = argus_get_named(r, d->key);
        bool missing = false;
        switch (d->type) {
        case FT_UINT:
            *AT(f, d, uint64_t) = v && v->kind == ARGUS_V_UINT ? v->u : ARGUS_ABSENT;
            missing = *AT(f, d, uint64_t) == ARGUS_ABSENT;
            break;
        case FT_INT:
            if (v && v->kind == ARGUS_V_UINT && v->u <= INT64_MAX)
                *AT(f, d, int64_t) = (int64_t)v->u;
            else if (v && v->kind == ARGUS_V_NEGINT && v->u < INT64_MAX)
                *AT(f, d, int64_t) = -1 - (int64_t)v->u;
            break;
        case FT_BOOL:
            *AT(f, d, bool) = v && v->kind == ARGUS_V_BOOL && v->u;
            break;
        case FT_TEXT:
            *AT(f, d, text) = get_s(r, m, d->key);
            missing = !*AT(f, d, text);
            break;
        case FT_UINTS:
        case FT_TEXTS: {
            unsigned major = d->type == FT_UINTS ? CBOR_UINT : CBOR_TEXT;
            int *count = (int *)((char *)f + d->count);
            *count = get_array(r, m, d->key, major,
                               d->type == FT_UINTS ? AT(f, d, uint64_t *) : NULL,
                               d->type == FT_TEXTS ? AT(f, d, texts) : NULL);
            if (*count < 0 && (d->flags & LENIENT)) {
                *count = 0;
                *AT(f, d, void *) = NULL;
            } else if (*count < 0) {
                return fail(m, "\"%s\" is not an array of %s", d->key,
                            major == CBOR_UINT ? "unsigned integers" : "texts");
            }
            break;
        }
        case FT_STEPS:
            if (!read_steps(r, m, f))
                return false;
            break;
        }
        if (missing && (d->flags & NEEDED))
            return fail(m, d->type == FT_TEXT ? "\"%s\" is missing or not a text"
                                              : "\"%s\" is missing or not an unsigned integer",
                        d->key);
    }
    return true;
}

#define KIND_IO(name, T, k)                                                    \
    void argus_write_##name(argus_writer *w, const T *f) { write_kind(w, k, f); } \
    bool argus_read_##name(const argus_record *r, argus_findings_mem *m, T *f) \
    {                                                                          \
        return read_kind(r, m, k, f);                                          \
    }
KIND_IO(hang, argus_hang_finding, ARGUS_F_HANG)
KIND_IO(path, argus_path_finding, ARGUS_F_PATH)
KIND_IO(chain, argus_chain_finding, ARGUS_F_WAIT_CHAIN)
KIND_IO(cpath, argus_cpath_finding, ARGUS_F_CRITICAL_PATH)
KIND_IO(match, argus_match_finding, ARGUS_F_MATCH)
KIND_IO(no_match, argus_no_match_finding, ARGUS_F_NO_MATCH)
KIND_IO(culprit, argus_culprit_finding, ARGUS_F_CULPRIT)
KIND_IO(branch, argus_branch_finding, ARGUS_F_BRANCH)
KIND_IO(loss, argus_loss_finding, ARGUS_F_LOSS)
#undef KIND_IO
