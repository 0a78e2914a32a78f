/* JSON lines to an argus stream (include/argus/decode/jsonl.h).
 *
 * YAJL parses each line as a stream of callbacks (numbers arrive as text,
 * so 64-bit integers stay exact); the callbacks encode values straight to
 * CBOR in a scratch buffer, typed by the key they belong to. At the end of
 * the line the record is assembled in the order its use asks (a rendered
 * stream as it is; a hand-written trace with id, pid and DEC-WOKEN added),
 * checked with the stream reader's own record parser, and written. */
#include "argus/decode/jsonl.h"
#include "argus/stream/cbor.h"
#include "argus/stream/cli.h"
#include "argus/stream/table.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#define MAX_NEST 64
#define MAX_KEYS 4096

typedef struct pair {
    uint32_t key_off, key_len;  /* in keys */
    uint32_t val_off, val_len;  /* encoded value, in vals */
    int key_id;
} pair;

typedef struct thread_state {
    uint64_t pid;
    bool has_pid;
    bool waiting;              /* a wait not yet followed by its woken */
    char result[16];           /* what a wakeup said of the wait, or "" */
} thread_state;

enum mode { MODE_FIRST, MODE_RENDERED, MODE_HANDWRITTEN };

struct argus_jsonl {
    argus_writer *w;
    char *command;
    yajl_handle yajl;
    uint64_t line;
    int depth;                 /* JSON depth; 1 = inside the record */
    int records_on_line;
    char err[512];

    argus_buf keys, vals, out;
    pair *pairs;
    unsigned npairs, pairs_cap;
    int key_class;             /* class of the current top-level key */
    struct { uint32_t start; uint64_t count; bool map; } nest[MAX_NEST];
    int nnest;

    enum mode mode;
    uint64_t next_id;
    bool have_ts, have_id;
    uint64_t last_ts, last_ts_line, last_ts_id, last_id;
    argus_id_set ids;          /* the events so far: an edge joins two */
    argus_table threads;
    argus_parser *check;
};

static int fail(argus_jsonl *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int fail(argus_jsonl *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->err, sizeof d->err, fmt, ap);
    va_end(ap);
    return 0; /* stops YAJL */
}

static const char *cur_key(argus_jsonl *d, int *len)
{
    pair *p = &d->pairs[d->npairs - 1];
    *len = (int)p->key_len;
    return (const char *)d->keys.p + p->key_off;
}

/* The class that applies to a value at the current position. */
static int value_class(argus_jsonl *d)
{
    if (d->depth == 1)
        return d->key_class;
    if (d->nnest == 1 && !d->nest[0].map) {
        if (d->key_class == ARGUS_C_UINT_ARRAY)
            return ARGUS_C_UINT;
        if (d->key_class == ARGUS_C_TEXT_ARRAY)
            return ARGUS_C_TEXT;
    }
    return ARGUS_C_ANY;
}

static const char *class_wants(int cls)
{
    switch (cls) {
    case ARGUS_C_UINT:
    case ARGUS_C_ADDR: return "an unsigned integer (a number or a \"0x...\" string)";
    case ARGUS_C_INT: return "an integer (a number or a \"0x...\" string)";
    case ARGUS_C_TEXT: return "a string";
    case ARGUS_C_BOOL: return "true or false";
    case ARGUS_C_UINT_ARRAY: return "an array of unsigned integers";
    case ARGUS_C_TEXT_ARRAY: return "an array of strings";
    default: return "a JSON value";
    }
}

static int wrong_kind(argus_jsonl *d, int cls)
{
    if (d->depth == 1) {
        int len;
        const char *k = cur_key(d, &len);
        return fail(d, "\"%.*s\" must be %s", len, k, class_wants(cls));
    }
    int len;
    const char *k = cur_key(d, &len);
    return fail(d, "elements of \"%.*s\" must be %s", len, k,
                cls == ARGUS_C_UINT ? "unsigned integers" : "strings");
}

/* A value is about to be added at the current position: count it in its
 * array, or make it the value of the top-level key. */
static int value_begin(argus_jsonl *d)
{
    if (d->depth == 0)
        return fail(d, "a record must be a JSON object");
    if (d->nnest > 0 && !d->nest[d->nnest - 1].map)
        d->nest[d->nnest - 1].count++;
    if (d->depth == 1)
        d->pairs[d->npairs - 1].val_off = (uint32_t)d->vals.len;
    return 1;
}

/* A value ended; at the top level that closes the pair. */
static void value_end(argus_jsonl *d)
{
    if (d->depth == 1) {
        pair *p = &d->pairs[d->npairs - 1];
        p->val_len = (uint32_t)(d->vals.len - p->val_off);
    }
}

static bool parse_hex(const char *s, size_t len, uint64_t *out)
{
    if (len < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || len > 18)
        return false;
    uint64_t v = 0;
    for (size_t i = 2; i < len; i++) {
        char c = s[i];
        int digit = c >= '0' && c <= '9' ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (digit < 0)
            return false;
        v = v << 4 | (uint64_t)digit;
    }
    *out = v;
    return true;
}

/* Decimal integer text to CBOR major 0 or 1; false when out of range. */
static bool parse_integer(const char *s, size_t len, unsigned *major,
                          uint64_t *arg)
{
    bool neg = len > 0 && s[0] == '-';
    unsigned __int128 v = 0;
    for (size_t i = neg; i < len; i++) {
        v = v * 10 + (unsigned)(s[i] - '0');
        if (v > ((unsigned __int128)1 << 64))
            return false;
    }
    if (!neg) {
        if (v > UINT64_MAX)
            return false;
        *major = CBOR_UINT;
        *arg = (uint64_t)v;
    } else {
        if (v == 0) { /* -0 is 0 */
            *major = CBOR_UINT;
            *arg = 0;
            return true;
        }
        *major = CBOR_NEGINT;
        *arg = (uint64_t)(v - 1);
    }
    return true;
}

static int on_number(void *ctx, const char *s, size_t len)
{
    argus_jsonl *d = ctx;
    if (!value_begin(d))
        return 0;
    int cls = value_class(d);
    bool integer = !memchr(s, '.', len) && !memchr(s, 'e', len) &&
                   !memchr(s, 'E', len);
    if (cls == ARGUS_C_TEXT || cls == ARGUS_C_BOOL ||
        cls == ARGUS_C_UINT_ARRAY || cls == ARGUS_C_TEXT_ARRAY)
        return wrong_kind(d, cls);
    if (integer) {
        unsigned major;
        uint64_t arg;
        if (!parse_integer(s, len, &major, &arg))
            return fail(d, "integer %.*s is out of range", (int)len, s);
        if (major == CBOR_NEGINT && (cls == ARGUS_C_UINT || cls == ARGUS_C_ADDR))
            return wrong_kind(d, cls);
        argus_cbor_head(&d->vals, major, arg);
    } else {
        if (cls != ARGUS_C_ANY)
            return wrong_kind(d, cls);
        char tmp[64];
        if (len >= sizeof tmp)
            return fail(d, "number %.20s... is too long", s);
        memcpy(tmp, s, len);
        tmp[len] = 0;
        errno = 0;
        double v = strtod(tmp, NULL);
        if (errno == ERANGE && (v > 1 || v < -1))
            return fail(d, "number %s is out of range", tmp);
        argus_cbor_double(&d->vals, v);
    }
    value_end(d);
    return 1;
}

static int on_string(void *ctx, const unsigned char *s, size_t len)
{
    argus_jsonl *d = ctx;
    if (!value_begin(d))
        return 0;
    int cls = value_class(d);
    const char *t = (const char *)s;
    if (cls == ARGUS_C_UINT || cls == ARGUS_C_ADDR || cls == ARGUS_C_INT) {
        uint64_t v;
        if (!parse_hex(t, len, &v)) {
            if (len >= 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X'))
                return fail(d, "bad hex \"%.*s\"", (int)(len > 40 ? 40 : len), t);
            return wrong_kind(d, cls);
        }
        argus_cbor_head(&d->vals, CBOR_UINT, v);
    } else if (cls == ARGUS_C_ANY || cls == ARGUS_C_TEXT) {
        argus_cbor_text(&d->vals, t, len);
    } else {
        return wrong_kind(d, cls);
    }
    value_end(d);
    return 1;
}

static int on_bool(void *ctx, int v)
{
    argus_jsonl *d = ctx;
    if (!value_begin(d))
        return 0;
    int cls = value_class(d);
    if (cls != ARGUS_C_ANY && cls != ARGUS_C_BOOL)
        return wrong_kind(d, cls);
    argus_cbor_bool(&d->vals, v != 0);
    value_end(d);
    return 1;
}

static int on_null(void *ctx)
{
    argus_jsonl *d = ctx;
    if (!value_begin(d))
        return 0;
    int cls = value_class(d);
    if (cls != ARGUS_C_ANY)
        return wrong_kind(d, cls);
    argus_cbor_null(&d->vals);
    value_end(d);
    return 1;
}

static int container_start(argus_jsonl *d, bool map)
{
    if (d->depth == 0) {
        if (!map)
            return fail(d, "a record must be a JSON object");
        if (d->records_on_line)
            return fail(d, "more than one JSON value on the line");
        d->depth = 1;
        d->npairs = 0;
        d->keys.len = d->vals.len = 0;
        return 1;
    }
    if (!value_begin(d))
        return 0;
    int cls = value_class(d);
    bool ok = cls == ARGUS_C_ANY ||
              (!map && (cls == ARGUS_C_UINT_ARRAY || cls == ARGUS_C_TEXT_ARRAY));
    if (!ok)
        return wrong_kind(d, cls);
    if (d->nnest == MAX_NEST)
        return fail(d, "values nested more than %d deep", MAX_NEST);
    d->nest[d->nnest].start = (uint32_t)d->vals.len;
    d->nest[d->nnest].count = 0;
    d->nest[d->nnest].map = map;
    d->nnest++;
    d->depth++;
    return 1;
}

static int on_start_map(void *ctx) { return container_start(ctx, true); }
static int on_start_array(void *ctx) { return container_start(ctx, false); }

static int record_end(argus_jsonl *d);

/* Closes a nested container: its head goes in front of its content now
 * that the count is known (shortest form, as every stage writes it). */
static int container_end(void *ctx)
{
    argus_jsonl *d = ctx;
    if (d->depth == 1) {
        d->depth = 0;
        d->records_on_line++;
        return record_end(d);
    }
    d->nnest--;
    d->depth--;
    uint32_t start = d->nest[d->nnest].start;
    argus_buf head = {0};
    uint8_t tmp[9];
    head.p = tmp;
    head.cap = sizeof tmp;
    argus_cbor_head(&head, d->nest[d->nnest].map ? CBOR_MAP : CBOR_ARRAY,
                    d->nest[d->nnest].count);
    argus_buf_reserve(&d->vals, head.len);
    memmove(d->vals.p + start + head.len, d->vals.p + start, d->vals.len - start);
    memcpy(d->vals.p + start, tmp, head.len);
    d->vals.len += head.len;
    value_end(d);
    return 1;
}

static int on_map_key(void *ctx, const unsigned char *s, size_t len)
{
    argus_jsonl *d = ctx;
    if (d->depth > 1) { /* key of a nested object */
        d->nest[d->nnest - 1].count++;
        argus_cbor_text(&d->vals, (const char *)s, len);
        return 1;
    }
    int id = argus_key_lookup((const char *)s, len);
    for (unsigned i = 0; i < d->npairs; i++) {
        pair *p = &d->pairs[i];
        if (p->key_len == len && (len == 0 || memcmp(d->keys.p + p->key_off, s, len) == 0))
            return fail(d, "key \"%.*s\" appears twice", (int)len, s);
    }
    if (d->npairs == MAX_KEYS) /* also bounds the duplicate-key check */
        return fail(d, "more than %d keys in one record", MAX_KEYS);
    if (d->npairs == d->pairs_cap) {
        d->pairs_cap = d->pairs_cap ? d->pairs_cap * 2 : 32;
        d->pairs = argus_xrealloc(d->pairs, d->pairs_cap * sizeof *d->pairs, "a record's keys");
    }
    pair *p = &d->pairs[d->npairs++];
    p->key_off = (uint32_t)d->keys.len;
    p->key_len = (uint32_t)len;
    p->key_id = id;
    p->val_off = p->val_len = 0;
    argus_buf_add(&d->keys, s, len);
    d->key_class = argus_key_class(id);
    return 1;
}

static const yajl_callbacks callbacks = {
    .yajl_null = on_null,
    .yajl_boolean = on_bool,
    .yajl_number = on_number,
    .yajl_string = on_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = on_map_key,
    .yajl_end_map = container_end,
    .yajl_start_array = on_start_array,
    .yajl_end_array = container_end,
};

/* ---- assembling records ------------------------------------------------- */

static pair *find(argus_jsonl *d, int key)
{
    for (unsigned i = 0; i < d->npairs; i++)
        if (d->pairs[i].key_id == key)
            return &d->pairs[i];
    return NULL;
}

static bool pair_uint(argus_jsonl *d, const pair *p, uint64_t *v)
{
    argus_cbor_head_info h;
    if (!p || !argus_cbor_read_head(d->vals.p + p->val_off, p->val_len, &h) ||
        h.major != CBOR_UINT)
        return false;
    *v = h.arg;
    return true;
}

/* The text of a pair's value, when it is one. */
static const char *pair_text(argus_jsonl *d, const pair *p, size_t *len)
{
    argus_cbor_head_info h;
    if (!p || !argus_cbor_read_head(d->vals.p + p->val_off, p->val_len, &h) ||
        h.major != CBOR_TEXT)
        return NULL;
    *len = h.arg;
    return (const char *)d->vals.p + p->val_off + h.len;
}

static void out_pair(argus_jsonl *d, const pair *p)
{
    argus_cbor_text(&d->out, (const char *)d->keys.p + p->key_off, p->key_len);
    argus_buf_add(&d->out, d->vals.p + p->val_off, p->val_len);
}

static void out_key(argus_jsonl *d, const char *k) { argus_cbor_text(&d->out, k, strlen(k)); }

/* Checks the assembled record as every stage will read it, then writes it. */
static int emit(argus_jsonl *d)
{
    argus_record *r;
    char err[256];
    long n = argus_parse_record(d->check, d->out.p, d->out.len, &r, err, sizeof err);
    if (n <= 0) {
        snprintf(d->err, sizeof d->err, "%s", n < 0 ? err : "incomplete record");
        return 0;
    }
    if (r->type == ARGUS_T_STREAM && d->mode != MODE_FIRST)
        return fail(d, "a second stream header");
    if (r->has_ts) {
        if (d->have_ts && r->ts < d->last_ts && r->is_event && d->last_ts_id)
            return fail(d, "ts goes backwards: event %llu has ts %llu, before ts %llu of event %llu on line %llu",
                        (unsigned long long)r->id, (unsigned long long)r->ts,
                        (unsigned long long)d->last_ts, (unsigned long long)d->last_ts_id,
                        (unsigned long long)d->last_ts_line);
        if (d->have_ts && r->ts < d->last_ts)
            return fail(d, "ts %llu is before ts %llu of line %llu: input must be in ts order",
                        (unsigned long long)r->ts, (unsigned long long)d->last_ts,
                        (unsigned long long)d->last_ts_line);
        d->last_ts_id = r->is_event ? r->id : 0;
        d->have_ts = true;
        d->last_ts = r->ts;
        d->last_ts_line = d->line;
    }
    if (r->is_event) {
        if (d->have_id && r->id <= d->last_id)
            return fail(d, "event id %llu is not above the previous event id %llu",
                        (unsigned long long)r->id, (unsigned long long)d->last_id);
        d->have_id = true;
        d->last_id = r->id;
        argus_id_set_add(&d->ids, r->id);
    } else if (r->type == ARGUS_T_EDGE &&
               argus_edge_unknown_end(&d->ids, r, err, sizeof err)) {
        return fail(d, "%s", err);
    }
    argus_put_raw(d->w, d->out.p, d->out.len);
    argus_end_record(d->w);
    d->out.len = 0;
    return 1;
}

static int emit_as_is(argus_jsonl *d)
{
    d->out.len = 0;
    argus_cbor_head(&d->out, CBOR_MAP, d->npairs);
    for (unsigned i = 0; i < d->npairs; i++)
        out_pair(d, &d->pairs[i]);
    return emit(d);
}

static int check_header(argus_jsonl *d)
{
    size_t len;
    const char *format = pair_text(d, find(d, ARGUS_K_FORMAT), &len);
    if (!format)
        return fail(d, "stream header has no \"format\"");
    if (len != 5 || memcmp(format, "argus", 5) != 0)
        return fail(d, "unknown format \"%.*s\" (expected \"argus\")", (int)len, format);
    uint64_t version;
    if (!pair_uint(d, find(d, ARGUS_K_VERSION), &version))
        return fail(d, "stream header has no unsigned \"version\"");
    if (version != 1)
        return fail(d, "unsupported version %llu (this program reads version 1)",
                    (unsigned long long)version);
    return 1;
}

static void write_new_header(argus_jsonl *d)
{
    d->out.len = 0;
    argus_cbor_head(&d->out, CBOR_MAP, 5);
    out_key(d, "type");
    argus_cbor_text(&d->out, "stream", 6);
    out_key(d, "format");
    argus_cbor_text(&d->out, "argus", 5);
    out_key(d, "version");
    argus_cbor_head(&d->out, CBOR_UINT, 1);
    out_key(d, "source");
    argus_cbor_text(&d->out, "jsonl", 5);
    out_key(d, "stages");
    argus_cbor_head(&d->out, CBOR_ARRAY, 1);
    argus_cbor_text(&d->out, d->command, strlen(d->command));
    argus_put_raw(d->w, d->out.p, d->out.len);
    argus_end_record(d->w);
    d->out.len = 0;
}

/* DEC-WOKEN: the woken that ends THREAD's wait, at the ts of its next event. */
static int emit_synth_woken(argus_jsonl *d, uint64_t tid, uint64_t pid,
                            uint64_t ts, thread_state *st)
{
    d->out.len = 0;
    argus_cbor_head(&d->out, CBOR_MAP, st->result[0] ? 7 : 6);
    out_key(d, "type");
    argus_cbor_text(&d->out, "woken", 5);
    out_key(d, "id");
    argus_cbor_head(&d->out, CBOR_UINT, d->next_id++);
    out_key(d, "ts");
    argus_cbor_head(&d->out, CBOR_UINT, ts);
    out_key(d, "tid");
    argus_cbor_head(&d->out, CBOR_UINT, tid);
    out_key(d, "pid");
    argus_cbor_head(&d->out, CBOR_UINT, pid);
    if (st->result[0]) {
        out_key(d, "result");
        argus_cbor_text(&d->out, st->result, strlen(st->result));
    }
    out_key(d, "synth");
    argus_cbor_bool(&d->out, true);
    st->waiting = false;
    return emit(d);
}

static int handwritten_event(argus_jsonl *d, int type, const pair *typ)
{
    uint64_t ts, tid, pid;
    const pair *pts = find(d, ARGUS_K_TS), *ptid = find(d, ARGUS_K_TID),
               *ppid = find(d, ARGUS_K_PID);
    if (!pair_uint(d, pts, &ts))
        return fail(d, "event has no \"ts\"");
    if (!pair_uint(d, ptid, &tid))
        return fail(d, "event has no \"tid\"");
    thread_state *st = argus_table_put(&d->threads, tid, NULL);
    if (!pair_uint(d, ppid, &pid)) {
        if (!st->has_pid)
            return fail(d, "event has no \"pid\" and no thread record gives tid %llu one",
                        (unsigned long long)tid);
        pid = st->pid;
    }
    if (d->have_ts && ts < d->last_ts) /* before a synthetic woken is made */
        return fail(d, "ts %llu is before ts %llu of line %llu: input must be in ts order",
                    (unsigned long long)ts, (unsigned long long)d->last_ts,
                    (unsigned long long)d->last_ts_line);
    if (st->waiting && type != ARGUS_T_WOKEN && !emit_synth_woken(d, tid, pid, ts, st))
        return 0;
    st = argus_table_put(&d->threads, tid, NULL);
    st->waiting = type == ARGUS_T_WAIT;
    if (type == ARGUS_T_WAIT)
        st->result[0] = 0;

    d->out.len = 0;
    unsigned rest = 0;
    for (unsigned i = 0; i < d->npairs; i++) {
        int k = d->pairs[i].key_id;
        if (k != ARGUS_K_TYPE && k != ARGUS_K_ID && k != ARGUS_K_TS &&
            k != ARGUS_K_TID && k != ARGUS_K_PID)
            rest++;
    }
    argus_cbor_head(&d->out, CBOR_MAP, 5 + rest);
    out_pair(d, typ);
    out_key(d, "id");
    argus_cbor_head(&d->out, CBOR_UINT, d->next_id++);
    out_pair(d, pts);
    out_pair(d, ptid);
    if (ppid) {
        out_pair(d, ppid);
    } else {
        out_key(d, "pid");
        argus_cbor_head(&d->out, CBOR_UINT, pid);
    }
    for (unsigned i = 0; i < d->npairs; i++) {
        int k = d->pairs[i].key_id;
        if (k != ARGUS_K_TYPE && k != ARGUS_K_ID && k != ARGUS_K_TS &&
            k != ARGUS_K_TID && k != ARGUS_K_PID)
            out_pair(d, &d->pairs[i]);
    }
    if (!emit(d))
        return 0;

    /* a wakeup tells how the target's pending wait ends */
    uint64_t target;
    if (type == ARGUS_T_WAKEUP && pair_uint(d, find(d, ARGUS_K_TARGET), &target)) {
        thread_state *ts_target = argus_table_get(&d->threads, target);
        if (ts_target && ts_target->waiting) {
            size_t len;
            const char *res = pair_text(d, find(d, ARGUS_K_RESULT), &len);
            if (!res || len >= sizeof ts_target->result)
                res = "awakened", len = 8;
            memcpy(ts_target->result, res, len);
            ts_target->result[len] = 0;
        }
    }
    return 1;
}

static int record_end(argus_jsonl *d)
{
    const pair *typ = find(d, ARGUS_K_TYPE);
    size_t tlen;
    const char *tname = pair_text(d, typ, &tlen);
    if (!tname)
        return fail(d, "record has no \"type\"");
    int type = argus_type_lookup(tname, tlen);

    if (d->mode == MODE_FIRST) {
        if (type == ARGUS_T_STREAM) {
            if (!check_header(d) || !emit_as_is(d))
                return 0;
            d->mode = MODE_RENDERED;
            return 1;
        }
        d->mode = MODE_HANDWRITTEN;
        write_new_header(d);
    }
    if (d->mode == MODE_RENDERED || type == ARGUS_T_STREAM)
        return emit_as_is(d);

    if (type == ARGUS_T_THREAD) {
        uint64_t tid, pid;
        if (pair_uint(d, find(d, ARGUS_K_TID), &tid) &&
            pair_uint(d, find(d, ARGUS_K_PID), &pid)) {
            thread_state *st = argus_table_put(&d->threads, tid, NULL);
            st->pid = pid;
            st->has_pid = true;
        }
        return emit_as_is(d);
    }
    bool event = argus_type_is_event(type) ||
                 (type == ARGUS_T_OTHER && find(d, ARGUS_K_TS));
    if (!event)
        return emit_as_is(d);
    return handwritten_event(d, type, typ);
}

/* ---- lines -------------------------------------------------------------- */

argus_jsonl *argus_jsonl_new(argus_writer *w, const char *command)
{
    argus_jsonl *d = argus_xcalloc(1, sizeof *d, "JSON lines reader");
    d->w = w;
    d->command = argus_xstrdup(command, "command line");
    d->yajl = yajl_alloc(&callbacks, NULL, d);
    d->check = argus_parser_new();
    d->next_id = 1;
    if (!d->yajl)
        argus_die(ARGUS_EX_IOERR, "out of memory (JSON parser)");
    yajl_config(d->yajl, yajl_allow_multiple_values, 1);
    argus_table_init(&d->threads, sizeof(thread_state));
    return d;
}

int argus_jsonl_line(argus_jsonl *d, const char *line, size_t len)
{
    d->line++;
    size_t i = 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
        i++;
    if (i == len || line[i] == '#')
        return 0;
    d->records_on_line = 0;
    d->err[0] = 0;
    yajl_status st = yajl_parse(d->yajl, (const unsigned char *)line, len);
    if (st == yajl_status_ok)
        st = yajl_parse(d->yajl, (const unsigned char *)"\n", 1);
    if (st == yajl_status_client_canceled)
        return -1;
    if (st != yajl_status_ok) {
        unsigned char *msg = yajl_get_error(d->yajl, 0, NULL, 0);
        char *m = (char *)msg;
        if (strncmp(m, "parse error: ", 13) == 0)
            m += 13;
        else if (strncmp(m, "lexical error: ", 15) == 0)
            m += 15;
        size_t mlen = strlen(m);
        while (mlen && (m[mlen - 1] == '\n' || m[mlen - 1] == ' ' || m[mlen - 1] == '.'))
            mlen--;
        snprintf(d->err, sizeof d->err, "bad JSON: %.*s", (int)mlen, m);
        yajl_free_error(d->yajl, msg);
        return -1;
    }
    if (d->depth != 0) {
        snprintf(d->err, sizeof d->err,
                 "unterminated JSON object (a record must be on one line)");
        return -1;
    }
    return 0;
}

int argus_jsonl_finish(argus_jsonl *d)
{
    if (d->mode == MODE_FIRST) {
        d->mode = MODE_HANDWRITTEN;
        write_new_header(d);
    }
    return 0;
}

const char *argus_jsonl_error(const argus_jsonl *d) { return d->err; }

void argus_jsonl_free(argus_jsonl *d)
{
    if (!d)
        return;
    yajl_free(d->yajl);
    argus_parser_free(d->check);
    argus_table_free(&d->threads);
    argus_id_set_free(&d->ids);
    argus_buf_free(&d->keys);
    argus_buf_free(&d->vals);
    argus_buf_free(&d->out);
    free(d->pairs);
    free(d->command);
    free(d);
}
