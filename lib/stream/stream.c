/* Stream reader and writer (include/argus/stream/stream.h): one concern,
 * the stream's records in and out, at 1.9k lines because the reader's
 * fast path (the head pass, lazy fields) and the writer's byte-for-byte
 * copy and editing must agree on every record. */
#include "argus/stream/stream.h"
#include "argus/stream/cli.h"
#include "argus/stream/input.h"

#include <cbor.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- keys and types ------------------------------------------------------ */

static const struct { const char *name; int cls; } key_table[ARGUS_K_COUNT] = {
    [ARGUS_K_UNKNOWN] = {"", ARGUS_C_ANY},
    [ARGUS_K_TYPE] = {"type", ARGUS_C_TEXT},
    [ARGUS_K_ID] = {"id", ARGUS_C_UINT},
    [ARGUS_K_TS] = {"ts", ARGUS_C_UINT},
    [ARGUS_K_TID] = {"tid", ARGUS_C_UINT},
    [ARGUS_K_PID] = {"pid", ARGUS_C_UINT},
    [ARGUS_K_CPU] = {"cpu", ARGUS_C_UINT},
    [ARGUS_K_CTX] = {"ctx", ARGUS_C_TEXT},
    [ARGUS_K_SEG] = {"seg", ARGUS_C_UINT},
    [ARGUS_K_PHASE] = {"phase", ARGUS_C_TEXT},
    [ARGUS_K_NOTE] = {"note", ARGUS_C_ANY},
    [ARGUS_K_NAME] = {"name", ARGUS_C_TEXT},
    [ARGUS_K_ARGS] = {"args", ARGUS_C_UINT_ARRAY},
    [ARGUS_K_RET] = {"ret", ARGUS_C_INT},
    [ARGUS_K_FRAMES] = {"frames", ARGUS_C_TEXT_ARRAY},
    [ARGUS_K_KIND] = {"kind", ARGUS_C_TEXT},
    [ARGUS_K_RESOURCE] = {"resource", ARGUS_C_ADDR},
    [ARGUS_K_REASON] = {"reason", ARGUS_C_TEXT},
    [ARGUS_K_TIMEOUT] = {"timeout", ARGUS_C_UINT},
    [ARGUS_K_RESULT] = {"result", ARGUS_C_TEXT},
    [ARGUS_K_SYNTH] = {"synth", ARGUS_C_BOOL},
    [ARGUS_K_TARGET] = {"target", ARGUS_C_UINT},
    [ARGUS_K_IRQ] = {"irq", ARGUS_C_UINT},
    [ARGUS_K_QUEUE] = {"queue", ARGUS_C_ADDR},
    [ARGUS_K_ITEM] = {"item", ARGUS_C_ADDR},
    [ARGUS_K_FUNC] = {"func", ARGUS_C_ANY},
    [ARGUS_K_STAGE] = {"stage", ARGUS_C_TEXT},
    [ARGUS_K_DIR] = {"dir", ARGUS_C_TEXT},
    [ARGUS_K_PORT] = {"port", ARGUS_C_ADDR},
    [ARGUS_K_MSG] = {"msg", ARGUS_C_ADDR},
    [ARGUS_K_MSG_ID] = {"msg_id", ARGUS_C_UINT},
    [ARGUS_K_REPLY_PORT] = {"reply_port", ARGUS_C_ADDR},
    [ARGUS_K_PEER] = {"peer", ARGUS_C_UINT},
    [ARGUS_K_VOUCHER] = {"voucher", ARGUS_C_ADDR},
    [ARGUS_K_VOUCHER_PIDS] = {"voucher_pids", ARGUS_C_UINT_ARRAY},
    [ARGUS_K_VIA] = {"via", ARGUS_C_TEXT},
    [ARGUS_K_TIMER] = {"timer", ARGUS_C_ADDR},
    [ARGUS_K_DEADLINE] = {"deadline", ARGUS_C_UINT},
    [ARGUS_K_ADDR] = {"addr", ARGUS_C_ADDR},
    [ARGUS_K_VALUE] = {"value", ARGUS_C_ANY},
    [ARGUS_K_OBJ] = {"obj", ARGUS_C_ADDR},
    [ARGUS_K_FROM] = {"from", ARGUS_C_UINT},
    [ARGUS_K_TO] = {"to", ARGUS_C_UINT},
    [ARGUS_K_WEAK] = {"weak", ARGUS_C_BOOL},
    [ARGUS_K_PROC] = {"proc", ARGUS_C_TEXT},
    [ARGUS_K_MAIN] = {"main", ARGUS_C_BOOL},
    [ARGUS_K_KERNEL] = {"kernel", ARGUS_C_BOOL},
    [ARGUS_K_FORMAT] = {"format", ARGUS_C_TEXT},
    [ARGUS_K_VERSION] = {"version", ARGUS_C_UINT},
    [ARGUS_K_SOURCE] = {"source", ARGUS_C_TEXT},
    [ARGUS_K_T0] = {"t0", ARGUS_C_UINT},
    [ARGUS_K_STAGES] = {"stages", ARGUS_C_TEXT_ARRAY},
    [ARGUS_K_RUNNABLE] = {"runnable", ARGUS_C_UINT},
    [ARGUS_K_CPU_HOLDER] = {"cpu_holder", ARGUS_C_UINT},
};

static const char *const type_table[ARGUS_T_COUNT] = {
    [ARGUS_T_OTHER] = "",
    [ARGUS_T_STREAM] = "stream", [ARGUS_T_THREAD] = "thread",
    [ARGUS_T_EDGE] = "edge", [ARGUS_T_SYSCALL] = "syscall",
    [ARGUS_T_BACKTRACE] = "backtrace", [ARGUS_T_UI_EVENT] = "ui_event",
    [ARGUS_T_WAIT] = "wait", [ARGUS_T_WOKEN] = "woken",
    [ARGUS_T_WAKEUP] = "wakeup", [ARGUS_T_INTERRUPT] = "interrupt",
    [ARGUS_T_SCHED_MAINTENANCE] = "sched_maintenance",
    [ARGUS_T_DISPATCH_ENQUEUE] = "dispatch_enqueue",
    [ARGUS_T_DISPATCH_INVOKE] = "dispatch_invoke",
    [ARGUS_T_RUNLOOP_SUBMIT] = "runloop_submit",
    [ARGUS_T_RUNLOOP_INVOKE] = "runloop_invoke",
    [ARGUS_T_RUNLOOP_PHASE] = "runloop_phase", [ARGUS_T_IPC] = "ipc",
    [ARGUS_T_TIMER_ARM] = "timer_arm", [ARGUS_T_TIMER_FIRE] = "timer_fire",
    [ARGUS_T_TIMER_CANCEL] = "timer_cancel",
    [ARGUS_T_FLAG_WRITE] = "flag_write", [ARGUS_T_FLAG_READ] = "flag_read",
    [ARGUS_T_CA_SET] = "ca_set", [ARGUS_T_CA_DISPLAY] = "ca_display",
};

/* Name to id: candidates indexed by length and first letter, compared
 * in full. Every record looks up each of its keys, so this is hot. */
#define NAME_MAX_LEN 24
#define NAME_CANDIDATES 4
typedef struct name_index {
    uint8_t slot[NAME_MAX_LEN][32][NAME_CANDIDATES];
    const char *names[256];
} name_index;
static name_index key_index, type_index;
static uint8_t key_len[ARGUS_K_COUNT]; /* each known key's length */
/* made once, by whichever thread first looks a name up (argus-analyze
 * loads its two graphs in two threads); names_ready spares the lookups
 * of every field a call of pthread_once */
static pthread_once_t names_once = PTHREAD_ONCE_INIT;
static atomic_bool names_ready;

static void index_names(name_index *ix, int count, const char *(*name)(int))
{
    for (int i = 1; i < count; i++) {
        const char *n = name(i);
        size_t len = strlen(n);
        uint8_t *c = ix->slot[len][n[0] & 31];
        int k = 0;
        while (c[k])
            k++;
        if (len >= NAME_MAX_LEN || k == NAME_CANDIDATES)
            abort(); /* the tables above outgrew the index */
        c[k] = (uint8_t)i;
        ix->names[i] = n;
    }
}

const char *argus_key_name(int key) { return key_table[key].name; }
int argus_key_class(int key) { return key_table[key].cls; }
const char *argus_type_name(int type) { return type_table[type]; }
bool argus_type_is_event(int type) { return type >= ARGUS_T_SYSCALL; }

static void names_init(void)
{
    for (int k = 1; k < ARGUS_K_COUNT; k++)
        key_len[k] = (uint8_t)strlen(argus_key_name(k));
    index_names(&key_index, ARGUS_K_COUNT, argus_key_name);
    index_names(&type_index, ARGUS_T_COUNT, argus_type_name);
    atomic_store_explicit(&names_ready, true, memory_order_release);
}

/* The name indexes and key_len, made if they are not yet. */
static inline void names_need(void)
{
    if (!atomic_load_explicit(&names_ready, memory_order_acquire))
        pthread_once(&names_once, names_init);
}

static int name_lookup(const name_index *ix, const char *s, size_t len)
{
    names_need();
    if (len == 0 || len >= NAME_MAX_LEN)
        return 0;
    const uint8_t *c = ix->slot[len][s[0] & 31];
    for (int k = 0; k < NAME_CANDIDATES && c[k]; k++) {
        const char *n = ix->names[c[k]];
        size_t i = 1; /* the first letter chose the slot, up to case */
        while (i < len && n[i] == s[i])
            i++;
        if (i == len && n[0] == s[0])
            return c[k];
    }
    return 0;
}

int argus_key_lookup(const char *s, size_t len)
{
    return name_lookup(&key_index, s, len);
}

int argus_type_lookup(const char *s, size_t len)
{
    return name_lookup(&type_index, s, len);
}

/* ---- typed access -------------------------------------------------------- */

static const argus_field *sparse_get(argus_record *r, int key, const char *name,
                                     size_t len);
static bool parser_sparse(const argus_parser *p);

const argus_field *argus_get_named(const argus_record *r, const char *name)
{
    size_t len = strlen(name);
    if (r->fields_pending && parser_sparse(r->parser) && len > 0 && len < NAME_MAX_LEN)
        return sparse_get((argus_record *)r, argus_key_lookup(name, len), name, len);
    argus_record_load(r);
    for (unsigned i = 0; i < r->nfields; i++)
        if (r->fields[i].key_len == len && memcmp(r->fields[i].key, name, len) == 0)
            return &r->fields[i];
    return NULL;
}

bool argus_get_uint(const argus_record *r, int key, uint64_t *out)
{
    if (r->fields_pending && key == ARGUS_K_SEG && (r->scan_keys & ARGUS_SCAN_SEG_UINT) &&
        parser_sparse(r->parser)) {
        *out = r->scan_seg;
        return true;
    }
    const argus_field *f = argus_get(r, key);
    if (!f || f->kind != ARGUS_V_UINT)
        return false;
    *out = f->u;
    return true;
}

bool argus_get_int(const argus_record *r, int key, int64_t *out)
{
    const argus_field *f = argus_get(r, key);
    if (!f)
        return false;
    if (f->kind == ARGUS_V_UINT && f->u <= INT64_MAX)
        *out = (int64_t)f->u;
    else if (f->kind == ARGUS_V_NEGINT && f->u <= INT64_MAX)
        *out = -1 - (int64_t)f->u;
    else
        return false;
    return true;
}

bool argus_get_bool(const argus_record *r, int key, bool *out)
{
    const argus_field *f = argus_get(r, key);
    if (!f || f->kind != ARGUS_V_BOOL)
        return false;
    *out = f->u != 0;
    return true;
}

const char *argus_get_text(const argus_record *r, int key, size_t *len)
{
    const argus_field *f = argus_get(r, key);
    if (!f || f->kind != ARGUS_V_TEXT)
        return NULL;
    if (len)
        *len = f->slen;
    return f->s;
}

bool argus_text_is(const argus_record *r, int key, const char *want)
{
    size_t len;
    const char *s = argus_get_text(r, key, &len);
    return s && strlen(want) == len && memcmp(s, want, len) == 0;
}

int argus_array_walk(const argus_record *r, const argus_field *f, unsigned major,
                     argus_array_each each, void *ctx, int max)
{
    if (!f || f->kind != ARGUS_V_ARRAY)
        return -1;
    const uint8_t *p = r->raw + f->val_off, *end = r->raw + f->end_off;
    argus_cbor_head_info h;
    argus_cbor_read_head(p, (size_t)(end - p), &h);
    bool indef = h.info == 31;
    p += h.len;
    int n = 0;
    for (uint64_t i = 0; indef ? (p < end && *p != 0xff) : i < h.arg; i++) {
        argus_cbor_head_info e;
        size_t len = argus_cbor_item_len(p, (size_t)(end - p));
        if (!len || !argus_cbor_read_head(p, (size_t)(end - p), &e) ||
            e.major != major || e.info == 31)
            return -1;
        if (n < max)
            each(ctx, n, p, &e);
        n++;
        p += len;
    }
    return n < max ? n : max;
}

static void store_uint(void *ctx, int i, const uint8_t *p,
                       const argus_cbor_head_info *h)
{
    (void)p;
    ((uint64_t *)ctx)[i] = h->arg;
}

static void store_text(void *ctx, int i, const uint8_t *p,
                       const argus_cbor_head_info *h)
{
    argus_text *t = (argus_text *)ctx + i;
    t->s = (const char *)p + h->len;
    t->len = h->arg;
}

int argus_get_uint_array(const argus_record *r, int key, uint64_t *out, int max)
{
    return argus_array_walk(r, argus_get(r, key), CBOR_UINT, store_uint, out, max);
}

int argus_get_named_uint_array(const argus_record *r, const char *name, uint64_t *out,
                               int max)
{
    return argus_array_walk(r, argus_get_named(r, name), CBOR_UINT, store_uint, out, max);
}

int argus_get_text_array(const argus_record *r, int key, argus_text *out,
                         int max)
{
    return argus_array_walk(r, argus_get(r, key), CBOR_TEXT, store_text, out, max);
}

int argus_get_named_text_array(const argus_record *r, const char *name, argus_text *out,
                               int max)
{
    return argus_array_walk(r, argus_get_named(r, name), CBOR_TEXT, store_text, out, max);
}

/* ---- parsing one record with cbor_stream_decode ------------------------ */

enum ev_kind {
    EV_NONE, EV_UINT, EV_NEGINT, EV_BYTES, EV_TEXT, EV_BYTES_INDEF,
    EV_TEXT_INDEF, EV_ARRAY, EV_ARRAY_INDEF, EV_MAP, EV_MAP_INDEF, EV_TAG,
    EV_FLOAT, EV_BOOL, EV_NULL, EV_UNDEF, EV_BREAK,
};

enum frame_kind { FR_ARRAY, FR_MAP, FR_TAG, FR_TEXT_CHUNKS, FR_BYTES_CHUNKS };

#define MAX_DEPTH 64
#define MAX_KEYS 4096

/* Names of up to 8 letters and what they were found to be: a stream has
 * a few types and keys, met again and again. */
typedef struct name_cache {
    struct { uint64_t letters; uint32_t len; int id; } slot[32];
} name_cache;

struct argus_parser {
    /* what the last cbor_stream_decode call saw */
    struct {
        int kind;
        uint64_t u;
        double f;
        const uint8_t *s;
        size_t len;
    } ev;
    struct {
        uint8_t kind;
        bool indef;
        uint64_t remaining;
        uint32_t start;
    } stack[MAX_DEPTH];
    int depth;
    bool expect_key;
    argus_record rec;
    const struct argus_reader *rd; /* whose records these are (messages) */
    const char *name;   /* or, without a reader, the stream's name */
    unsigned cap;
    argus_buf chunks;   /* indefinite strings of top-level keys/values */
    size_t chunk_start;
    bool sparse;        /* argus_reader_sparse */
    size_t framed_len;  /* where scan_event's walk of the fields ended */
    /* the names of up to 8 letters met, types and keys (cached_lookup) */
    name_cache types, keys;
};

static bool parser_sparse(const argus_parser *p) { return p->sparse; }

#define P(ctx) ((struct argus_parser *)(ctx))
static void cb_u8(void *c, uint8_t v) { P(c)->ev.kind = EV_UINT; P(c)->ev.u = v; }
static void cb_u16(void *c, uint16_t v) { P(c)->ev.kind = EV_UINT; P(c)->ev.u = v; }
static void cb_u32(void *c, uint32_t v) { P(c)->ev.kind = EV_UINT; P(c)->ev.u = v; }
static void cb_u64(void *c, uint64_t v) { P(c)->ev.kind = EV_UINT; P(c)->ev.u = v; }
static void cb_n8(void *c, uint8_t v) { P(c)->ev.kind = EV_NEGINT; P(c)->ev.u = v; }
static void cb_n16(void *c, uint16_t v) { P(c)->ev.kind = EV_NEGINT; P(c)->ev.u = v; }
static void cb_n32(void *c, uint32_t v) { P(c)->ev.kind = EV_NEGINT; P(c)->ev.u = v; }
static void cb_n64(void *c, uint64_t v) { P(c)->ev.kind = EV_NEGINT; P(c)->ev.u = v; }
static void cb_bytes(void *c, cbor_data s, size_t n)
{
    P(c)->ev.kind = EV_BYTES; P(c)->ev.s = s; P(c)->ev.len = n;
}
static void cb_text(void *c, cbor_data s, size_t n)
{
    P(c)->ev.kind = EV_TEXT; P(c)->ev.s = s; P(c)->ev.len = n;
}
static void cb_bytes_indef(void *c) { P(c)->ev.kind = EV_BYTES_INDEF; }
static void cb_text_indef(void *c) { P(c)->ev.kind = EV_TEXT_INDEF; }
static void cb_array(void *c, size_t n) { P(c)->ev.kind = EV_ARRAY; P(c)->ev.u = n; }
static void cb_array_indef(void *c) { P(c)->ev.kind = EV_ARRAY_INDEF; }
static void cb_map(void *c, size_t n) { P(c)->ev.kind = EV_MAP; P(c)->ev.u = n; }
static void cb_map_indef(void *c) { P(c)->ev.kind = EV_MAP_INDEF; }
static void cb_tag(void *c, uint64_t v) { P(c)->ev.kind = EV_TAG; P(c)->ev.u = v; }
static void cb_float(void *c, float v) { P(c)->ev.kind = EV_FLOAT; P(c)->ev.f = v; }
static void cb_double(void *c, double v) { P(c)->ev.kind = EV_FLOAT; P(c)->ev.f = v; }
static void cb_undef(void *c) { P(c)->ev.kind = EV_UNDEF; }
static void cb_null(void *c) { P(c)->ev.kind = EV_NULL; }
static void cb_bool(void *c, bool v) { P(c)->ev.kind = EV_BOOL; P(c)->ev.u = v; }
static void cb_break(void *c) { P(c)->ev.kind = EV_BREAK; }
#undef P

static const struct cbor_callbacks callbacks = {
    .uint8 = cb_u8, .uint16 = cb_u16, .uint32 = cb_u32, .uint64 = cb_u64,
    .negint8 = cb_n8, .negint16 = cb_n16, .negint32 = cb_n32,
    .negint64 = cb_n64,
    /* libcbor names these two pairs the other way round from their use */
    .byte_string = cb_bytes, .byte_string_start = cb_bytes_indef,
    .string = cb_text, .string_start = cb_text_indef,
    .array_start = cb_array, .indef_array_start = cb_array_indef,
    .map_start = cb_map, .indef_map_start = cb_map_indef,
    .tag = cb_tag, .float2 = cb_float, .float4 = cb_float,
    .float8 = cb_double, .undefined = cb_undef, .null = cb_null,
    .boolean = cb_bool, .indef_break = cb_break,
};

argus_parser *argus_parser_new(void)
{
    argus_parser *p = argus_xcalloc(1, sizeof *p, "parser");
    p->cap = 32;
    p->rec.parser = p;
    p->rec.fields = argus_xmalloc(p->cap * sizeof *p->rec.fields, "a record's fields");
    return p;
}

void argus_parser_free(argus_parser *p)
{
    if (!p)
        return;
    free(p->rec.fields);
    argus_buf_free(&p->chunks);
    free(p);
}

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

static int vkind_of(int ev)
{
    switch (ev) {
    case EV_UINT: return ARGUS_V_UINT;
    case EV_NEGINT: return ARGUS_V_NEGINT;
    case EV_BYTES: case EV_BYTES_INDEF: return ARGUS_V_BYTES;
    case EV_TEXT: case EV_TEXT_INDEF: return ARGUS_V_TEXT;
    case EV_ARRAY: case EV_ARRAY_INDEF: return ARGUS_V_ARRAY;
    case EV_MAP: case EV_MAP_INDEF: return ARGUS_V_MAP;
    case EV_TAG: return ARGUS_V_TAG;
    case EV_FLOAT: return ARGUS_V_FLOAT;
    case EV_BOOL: return ARGUS_V_BOOL;
    case EV_NULL: return ARGUS_V_NULL;
    default: return ARGUS_V_UNDEF;
    }
}

/* Finishes the top-level key or value that just ended at END. The field
 * is built in place, in the slot after the last finished one. */
static int field_item_done(argus_parser *p, uint32_t end)
{
    argus_field *f = &p->rec.fields[p->rec.nfields];
    if (p->expect_key) {
        f->key_id = (uint16_t)argus_key_lookup(f->key, f->key_len);
        p->expect_key = false;
        return 0;
    }
    f->end_off = end;
    p->rec.nfields++;
    p->expect_key = true;
    return 0;
}

/* Sets up the field for an item starting at START directly in the top map. */
static int field_item_start(argus_parser *p, uint32_t start, char *err,
                            size_t errlen)
{
    if (p->expect_key && p->rec.nfields == p->cap) {
        if (p->cap >= MAX_KEYS) /* also bounds the duplicate-key check */
            FAIL("more than %d keys in one record", MAX_KEYS);
        p->cap *= 2;
        p->rec.fields =
            argus_xrealloc(p->rec.fields, p->cap * sizeof *p->rec.fields, "a record's fields");
    }
    argus_field *f = &p->rec.fields[p->rec.nfields];
    if (p->expect_key) {
        if (p->ev.kind != EV_TEXT && p->ev.kind != EV_TEXT_INDEF)
            FAIL("a key is not a text string");
        f->s = NULL;
        f->slen = 0;
        f->key_off = start;
        f->key = (const char *)p->ev.s;
        f->key_len = (uint32_t)p->ev.len;
        return 0;
    }
    f->val_off = start;
    f->kind = (uint8_t)vkind_of(p->ev.kind);
    f->u = p->ev.u;
    f->f = p->ev.kind == EV_FLOAT ? p->ev.f : 0;
    f->s = NULL; /* the key's chunks may have left their text here */
    f->slen = 0;
    if (p->ev.kind == EV_TEXT || p->ev.kind == EV_BYTES) {
        f->s = (const char *)p->ev.s;
        f->slen = (uint32_t)p->ev.len;
    }
    return 0;
}

static int record_done(argus_parser *p, char *err, size_t errlen)
{
    argus_record *r = &p->rec;
    memset(r->index, 0xff, sizeof r->index);
    for (unsigned i = 0; i < r->nfields; i++) {
        int k = r->fields[i].key_id;
        if (k == ARGUS_K_UNKNOWN) { /* few per record: compare them all */
            const argus_field *f = &r->fields[i];
            for (unsigned j = 0; j < i; j++)
                if (r->fields[j].key_id == ARGUS_K_UNKNOWN &&
                    r->fields[j].key_len == f->key_len &&
                    memcmp(r->fields[j].key, f->key, f->key_len) == 0)
                    FAIL("key \"%.*s\" appears twice", (int)f->key_len, f->key);
            continue;
        }
        if (r->index[k] >= 0)
            FAIL("key \"%s\" appears twice", argus_key_name(k));
        r->index[k] = (int16_t)(i < 32767 ? i : 32767);
    }
    size_t tlen;
    const char *t = argus_get_text(r, ARGUS_K_TYPE, &tlen);
    if (!t)
        FAIL(argus_get(r, ARGUS_K_TYPE) ? "\"type\" is not a text string"
                                        : "record has no \"type\"");
    r->type_name = t;
    r->type_len = (uint32_t)tlen;
    r->type = argus_type_lookup(t, tlen);
    r->is_event = argus_type_is_event(r->type) ||
                  (r->type == ARGUS_T_OTHER && argus_get(r, ARGUS_K_ID));

    static const int event_keys[] = {ARGUS_K_ID, ARGUS_K_TS, ARGUS_K_TID,
                                      ARGUS_K_PID};
    static const int thread_keys[] = {ARGUS_K_TID, ARGUS_K_PID};
    static const int edge_keys[] = {ARGUS_K_FROM, ARGUS_K_TO};
    const int *need = NULL;
    int nneed = 0;
    if (r->is_event)
        need = event_keys, nneed = 4;
    else if (r->type == ARGUS_T_THREAD)
        need = thread_keys, nneed = 2;
    else if (r->type == ARGUS_T_EDGE)
        need = edge_keys, nneed = 2;
    for (int i = 0; i < nneed; i++) {
        const argus_field *f = argus_get(r, need[i]);
        if (!f)
            FAIL("%.*s record has no \"%s\"", (int)tlen, t,
                 argus_key_name(need[i]));
        if (f->kind != ARGUS_V_UINT)
            FAIL("\"%s\" of %.*s record is not an unsigned integer",
                 argus_key_name(need[i]), (int)tlen, t);
    }
    if (r->type == ARGUS_T_EDGE && !argus_get_text(r, ARGUS_K_KIND, NULL))
        FAIL("edge record has no text \"kind\"");
    /* ts orders every record that has one. */
    const argus_field *ts = argus_get(r, ARGUS_K_TS);
    if (ts && ts->kind != ARGUS_V_UINT)
        FAIL("\"ts\" is not an unsigned integer");
    r->has_ts = ts != NULL;
    r->ts = ts ? ts->u : 0;
    r->id = 0;
    argus_get_uint(r, ARGUS_K_ID, &r->id);
    r->tid = r->pid = 0;
    argus_get_uint(r, ARGUS_K_TID, &r->tid);
    r->has_pid = argus_get_uint(r, ARGUS_K_PID, &r->pid);
    return 0;
}

long argus_parse_record(argus_parser *p, const uint8_t *buf, size_t len,
                        argus_record **out, char *err, size_t errlen)
{
    size_t pos = 0;
    p->depth = 0;
    p->expect_key = true;
    p->rec.nfields = 0;
    p->rec.fields_pending = false;
    p->rec.raw = buf;
    p->chunks.len = 0;
    for (;;) {
        if (pos >= len)
            return 0;
        p->ev.kind = EV_NONE;
        p->ev.u = 0; /* indefinite starts set no count */
        size_t read;
        unsigned major = buf[pos] >> 5, info = buf[pos] & 31;
        if ((major == CBOR_UINT || major == CBOR_TEXT) && info <= 27) {
            /* Unsigned integers and definite text strings are most of
             * every record (keys, ids, times, names): read their head
             * here, as libcbor would, without a call and a callback per
             * item; libcbor decodes every other item. */
            argus_cbor_head_info h;
            if (!argus_cbor_read_head(buf + pos, len - pos, &h))
                return 0;
            read = h.len;
            p->ev.kind = major == CBOR_UINT ? EV_UINT : EV_TEXT;
            p->ev.u = h.arg;
            if (major == CBOR_TEXT) {
                if (h.arg > len - pos - h.len)
                    return 0;
                p->ev.s = buf + pos + h.len;
                p->ev.len = h.arg;
                read += h.arg;
            }
        } else {
            struct cbor_decoder_result res =
                cbor_stream_decode(buf + pos, len - pos, &callbacks, p);
            if (res.status == CBOR_DECODER_NEDATA)
                return 0;
            if (res.status != CBOR_DECODER_FINISHED || p->ev.kind == EV_NONE)
                FAIL("malformed CBOR at byte %zu of the record", pos);
            read = res.read;
        }
        if (pos + read > UINT32_MAX)
            FAIL("record larger than 4 GiB");
        uint32_t start = (uint32_t)pos;
        pos += read;
        int ev = p->ev.kind;
        int d = p->depth;

        if (d == 0 && ev != EV_MAP && ev != EV_MAP_INDEF)
            FAIL("record is not a CBOR map");
        /* inside an indefinite string only its chunks may come */
        if (d > 0 && (p->stack[d - 1].kind == FR_TEXT_CHUNKS ||
                      p->stack[d - 1].kind == FR_BYTES_CHUNKS)) {
            int want = p->stack[d - 1].kind == FR_TEXT_CHUNKS ? EV_TEXT : EV_BYTES;
            if (ev == want) {
                if (d == 2) {
                    argus_buf_add(&p->chunks, p->ev.s, p->ev.len);
                }
                continue;
            }
            if (ev != EV_BREAK)
                FAIL("bad chunk in an indefinite-length string at byte %zu of the record",
                     (size_t)start);
        }
        if (ev == EV_BREAK) {
            if (d == 0 || !p->stack[d - 1].indef)
                FAIL("unexpected break at byte %zu of the record", (size_t)start);
            if (p->stack[d - 1].kind == FR_MAP && (p->stack[d - 1].remaining & 1))
                FAIL("indefinite map with a key and no value");
            if (d == 2 && (p->stack[1].kind == FR_TEXT_CHUNKS ||
                           p->stack[1].kind == FR_BYTES_CHUNKS)) {
                /* a top-level key or value made of chunks: point at the
                 * copy, which cannot move while this record is parsed
                 * because its room was reserved up front */
                argus_field *f = &p->rec.fields[p->rec.nfields];
                f->s = (const char *)p->chunks.p + p->chunk_start;
                f->slen = (uint32_t)(p->chunks.len - p->chunk_start);
                if (p->expect_key) {
                    f->key = f->s;
                    f->key_len = f->slen;
                }
            }
            p->depth--;
            goto item_done;
        }
        if (d == 1 && field_item_start(p, start, err, errlen) < 0)
            return -1;
        switch (ev) {
        case EV_ARRAY: case EV_ARRAY_INDEF: case EV_MAP: case EV_MAP_INDEF:
        case EV_TAG: case EV_TEXT_INDEF: case EV_BYTES_INDEF: {
            if (d == MAX_DEPTH)
                FAIL("values nested more than %d deep", MAX_DEPTH);
            bool indef = ev == EV_ARRAY_INDEF || ev == EV_MAP_INDEF ||
                         ev == EV_TEXT_INDEF || ev == EV_BYTES_INDEF;
            uint8_t kind = ev == EV_TAG ? FR_TAG
                         : ev == EV_TEXT_INDEF ? FR_TEXT_CHUNKS
                         : ev == EV_BYTES_INDEF ? FR_BYTES_CHUNKS
                         : (ev == EV_MAP || ev == EV_MAP_INDEF) ? FR_MAP
                         : FR_ARRAY;
            uint64_t n = ev == EV_TAG ? 1 : kind == FR_MAP ? p->ev.u * 2 : p->ev.u;
            if (kind == FR_MAP && !indef && p->ev.u > UINT64_MAX / 2)
                FAIL("map too large");
            p->stack[d].kind = kind;
            p->stack[d].indef = indef;
            p->stack[d].remaining = indef ? 0 : n;
            p->stack[d].start = start;
            p->depth++;
            if (d == 1 && (kind == FR_TEXT_CHUNKS || kind == FR_BYTES_CHUNKS)) {
                if (p->chunks.len == 0)
                    argus_buf_reserve(&p->chunks, len);
                p->chunk_start = p->chunks.len;
            }
            if (indef || n > 0)
                continue;
            p->depth--; /* empty container: it ends here */
            break;
        }
        default:
            break;
        }
    item_done:
        /* the item that ended at pos sits at depth p->depth; close every
         * container it completes */
        for (;;) {
            d = p->depth;
            if (d == 0) {
                p->rec.raw_len = pos;
                if (record_done(p, err, errlen) < 0)
                    return -1;
                *out = &p->rec;
                return (long)pos;
            }
            if (d == 1)
                field_item_done(p, (uint32_t)pos);
            if (p->stack[d - 1].indef) {
                if (p->stack[d - 1].kind == FR_MAP)
                    p->stack[d - 1].remaining ^= 1; /* parity of items */
                break;
            }
            if (--p->stack[d - 1].remaining > 0)
                break;
            p->depth--;
        }
    }
}
#undef FAIL

/* ---- reader ------------------------------------------------------------- */


struct argus_reader {
    argus_input in;
    uint64_t offset;        /* stream offset of buf[lo] */
    uint64_t records;
    argus_parser *parser;
    argus_parser *header_parser;
    uint8_t *header_raw;
    const argus_record *header;
    bool have_ts, have_id;
    uint64_t last_ts, last_ts_number, last_id;
    bool last_ts_is_event;
    uint64_t last_ts_id;
    bool opening;           /* reading the header: argus_reader_open has
                               returned nothing to close yet */
};

/* Exits 65 with MSG. An error while RD opens (its header) closes it
 * first: the caller has no reader to close when its argus_die flush
 * hook jumps back instead of exiting (the fuzz targets). */
static void reader_die(const argus_reader *rd, const char *msg)
    __attribute__((noreturn));
static void reader_die(const argus_reader *rd, const char *msg)
{
    if (rd->opening)
        argus_reader_close((argus_reader *)rd);
    argus_die(ARGUS_EX_DATAERR, "%s", msg);
}

static void reader_fail_at(const argus_reader *rd, uint64_t number,
                           uint64_t offset, const char *fmt, va_list ap)
    __attribute__((noreturn));
static void reader_fail_at(const argus_reader *rd, uint64_t number,
                           uint64_t offset, const char *fmt, va_list ap)
{
    char what[512];
    vsnprintf(what, sizeof what, fmt, ap);
    /* A stream starts with a CBOR map (0xa0..0xbf); a first byte that is
     * printable text is a trace or JSON lines given to a stage as they are */
    const char *hint = "";
    if (number == 1 && offset == 0 && rd->in.lo == 0 && rd->in.hi > 0) {
        uint8_t c = rd->in.buf[0];
        if (c == '{')
            hint = "; it looks like JSON lines: run 'argus decode' on it first";
        else if ((c >= 0x20 && c < 0x7f) || c == '\t' || c == '\n' || c == '\r')
            hint = "; it looks like text (a trace?): run 'argus decode' on it first";
    }
    char msg[8192];     /* a name of up to PATH_MAX, WHAT of 512 */
    snprintf(msg, sizeof msg, "%s: record %llu (byte %llu): %s%s", rd->in.name,
             (unsigned long long)number, (unsigned long long)offset, what, hint);
    reader_die(rd, msg);
}

void argus_record_fail(const argus_reader *rd, const argus_record *r,
                       const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    reader_fail_at(rd, r->number, r->offset, fmt, ap);
}

static void fail_at(const argus_reader *rd, uint64_t number, uint64_t offset,
                    const char *fmt, ...) __attribute__((noreturn, format(printf, 4, 5)));
static void fail_at(const argus_reader *rd, uint64_t number, uint64_t offset,
                    const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    reader_fail_at(rd, number, offset, fmt, ap);
}

static void refill(argus_reader *rd)
{
    if (!argus_input_fill(&rd->in))
        fail_at(rd, rd->records + 1, rd->offset, "record larger than %u MiB",
                ARGUS_MAX_RECORD >> 20);
}

/* Room for N fields. */
static void grow_fields(argus_parser *p, unsigned n)
{
    while (p->cap < n) {
        p->cap *= 2;
        p->rec.fields =
            argus_xrealloc(p->rec.fields, p->cap * sizeof *p->rec.fields, "a record's fields");
    }
}

/* A CBOR head at P (N bytes there) of definite length, argument read;
 * false when it is short, reserved (28..30) or indefinite (31). */
static inline bool scan_head(const uint8_t *p, size_t n, argus_cbor_head_info *h)
{
    if (n < 1)
        return false;
    unsigned info = p[0] & 31;
    h->major = p[0] >> 5;
    h->info = info;
    if (info < 24) {
        h->arg = info;
        h->len = 1;
        return true;
    }
    if (info > 27)
        return false;
    size_t extra = (size_t)1 << (info - 24);
    if (n < 1 + extra)
        return false;
    h->arg = argus_cbor_head_arg(p, info);
    h->len = 1 + extra;
    return true;
}

/* The length of the integer, string or simple value whose head is H (N
 * bytes from where it starts), from its head alone; 0 for anything else
 * (arrays, maps, tags), which argus_cbor_definite_len then walks. Most
 * values of an event are these. */
static inline size_t scalar_len_of(const argus_cbor_head_info *h, size_t n)
{
    switch (h->major) {
    case CBOR_UINT:
    case CBOR_NEGINT:
        return h->len;
    case CBOR_BYTES:
    case CBOR_TEXT:
        return h->arg <= n - h->len ? h->len + h->arg : 0;
    case 7:
        /* false, true, null, undefined and floats; other simple values
         * (libcbor refuses some) go the long way */
        return (h->info >= 20 && h->info <= 23) || (h->info >= 25 && h->info <= 27)
                   ? h->len : 0;
    default:
        return 0;
    }
}

/* The length of the array whose head is H at P (N bytes there) when its
 * items are all integers, strings or simple values (argus_put_event_head's
 * callers write their args so), from their heads alone; 0 otherwise. */
static size_t scalar_array_len(const uint8_t *p, size_t n, const argus_cbor_head_info *h)
{
    if (h->major != CBOR_ARRAY || h->arg > n - h->len)
        return 0;
    size_t at = h->len;
    for (uint64_t i = 0; i < h->arg; i++) {
        argus_cbor_head_info item;
        size_t item_len;
        if (!scan_head(p + at, n - at, &item) ||
            (item_len = scalar_len_of(&item, n - at)) == 0)
            return 0;
        at += item_len;
    }
    return at;
}

/* The length of the value at P (N bytes there), 0 when it is not well
 * formed within DEPTH levels: integers, strings, simple values and arrays
 * of them from their heads (most values), others by the general walk. Its
 * head in *V, *HAVE_V false when it has none of definite length. */
static size_t value_len(const uint8_t *p, size_t n, int depth, argus_cbor_head_info *v,
                        bool *have_v)
{
    size_t len = 0;
    *have_v = scan_head(p, n, v);
    if (*have_v)
        len = scalar_len_of(v, n);
    if (len == 0 && *have_v)
        len = scalar_array_len(p, n, v);
    if (len == 0)
        len = argus_cbor_definite_len(p, n, depth);
    return len;
}

/* The bit the head pass keeps for KEY in scan_keys (0: none kept). */
static inline uint8_t scan_bit(int key)
{
    return key == ARGUS_K_CTX ? ARGUS_SCAN_CTX : key == ARGUS_K_SEG ? ARGUS_SCAN_SEG : 0;
}

/* A field's key_id before decode_field: its key is still to be looked up
 * (scan_event sets the ids of the keys it tells apart). */
#define KEY_UNSCANNED UINT16_MAX

/* The 8 bytes at P as a little-endian word. */
static inline uint64_t load_le64(const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof w);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return w;
}

/* The first six fields of an event as argus_put_event_head writes them:
 * type, id, ts, tid, pid and cpu, in that order, each key compared as
 * its bytes, each value a text or an unsigned integer of definite length.
 * Their number (6), R's fields and HEAD set, *AT past them; 0 when the
 * record starts otherwise (scan_event then reads those fields one by
 * one). Most events come from a decoder of ours. */
static unsigned scan_written_head(argus_record *r, const uint8_t *buf, size_t len,
                                  size_t *at, const uint8_t **type, size_t *type_len,
                                  uint64_t head[4])
{
    /* each key's CBOR in the low bytes of a little-endian word, and the
     * mask of those bytes */
#define KEY_WORD(b0, b1, b2, b3, b4) \
    ((uint64_t)(b0) | (uint64_t)(b1) << 8 | (uint64_t)(b2) << 16 | \
     (uint64_t)(b3) << 24 | (uint64_t)(b4) << 32)
    static const struct { uint64_t word, mask; uint8_t n; uint16_t key; } keys[6] = {
        {KEY_WORD(0x64, 't', 'y', 'p', 'e'), 0xffffffffff, 5, ARGUS_K_TYPE},
        {KEY_WORD(0x62, 'i', 'd', 0, 0), 0xffffff, 3, ARGUS_K_ID},
        {KEY_WORD(0x62, 't', 's', 0, 0), 0xffffff, 3, ARGUS_K_TS},
        {KEY_WORD(0x63, 't', 'i', 'd', 0), 0xffffffff, 4, ARGUS_K_TID},
        {KEY_WORD(0x63, 'p', 'i', 'd', 0), 0xffffffff, 4, ARGUS_K_PID},
        {KEY_WORD(0x63, 'c', 'p', 'u', 0), 0xffffffff, 4, ARGUS_K_CPU},
    };
#undef KEY_WORD
    size_t pos = *at, tlen = 0;
    const uint8_t *t = NULL;
    for (unsigned i = 0; i < 6; i++) {
        /* 8 bytes at once: a key, and its value's head, at least */
        if (len - pos < 8 || (load_le64(buf + pos) & keys[i].mask) != keys[i].word)
            return 0;
        argus_field *f = &r->fields[i];
        f->key_off = (uint32_t)pos;
        f->key_id = keys[i].key;
        pos += keys[i].n;
        f->val_off = (uint32_t)pos;
        argus_cbor_head_info v;
        if (!scan_head(buf + pos, len - pos, &v))
            return 0;
        if (i == 0) {
            if (v.major != CBOR_TEXT || v.arg > len - pos - v.len)
                return 0;
            t = buf + pos + v.len;
            tlen = v.arg;
            pos += v.len + v.arg;
            continue;
        }
        if (v.major != CBOR_UINT)
            return 0;
        if (i <= 4)
            head[i - 1] = v.arg;
        pos += v.len;
    }
    *at = pos;
    *type = t;
    *type_len = tlen;
    return 6;
}

/* LOOKUP's answer for the LEN letters at S (AVAIL bytes readable there),
 * from C when it was asked before: names of up to 8 letters are found
 * there by their letters read as one word. */
static int cached_lookup(name_cache *c, const uint8_t *s, size_t len, size_t avail,
                         int (*lookup)(const char *, size_t))
{
    if (len == 0 || len > 8 || avail < 8)
        return lookup((const char *)s, len);
    uint64_t letters = load_le64(s) & (~UINT64_C(0) >> (64 - len * 8));
    unsigned i = (unsigned)(((letters ^ len) * UINT64_C(0x9E3779B97F4A7C15)) >> 59);
    if (c->slot[i].letters == letters && c->slot[i].len == len)
        return c->slot[i].id;
    int id = lookup((const char *)s, len);
    c->slot[i].letters = letters;
    c->slot[i].len = (uint32_t)len;
    c->slot[i].id = id;
    return id;
}

/* The head of an event at BUF: a map of definite length whose keys are
 * definite text strings and whose values are well formed, with type, id,
 * ts, tid and pid unsigned integers (type a text) read, and its other
 * fields left for argus_record_decode. The record's length; -1 for any
 * other record, or one that is not all in BUF (argus_parse_record then
 * reads it, and says what is wrong with it). */
static long scan_event(argus_parser *p, const uint8_t *buf, size_t len)
{
    argus_cbor_head_info h;
    p->framed_len = 0;
    if (!scan_head(buf, len, &h) || h.major != CBOR_MAP || h.arg > MAX_KEYS)
        return -1;
    argus_record *r = &p->rec;
    grow_fields(p, (unsigned)h.arg);
    const uint8_t *type = NULL;
    size_t type_len = 0, at = h.len;
    enum { HAVE_ID = 1, HAVE_TS = 2, HAVE_TID = 4, HAVE_PID = 8, HAVE_ALL = 15 };
    unsigned have = 0, keys = 0;
    uint64_t head[4] = {0}, seg = 0;
    uint64_t i = h.arg >= 6 ? scan_written_head(r, buf, len, &at, &type, &type_len, head) : 0;
    if (i > 0)
        have = HAVE_ALL;
    for (; i < h.arg; i++) {
        argus_cbor_head_info k, v = {0};
        if (!scan_head(buf + at, len - at, &k) || k.major != CBOR_TEXT ||
            k.arg > len - at - k.len)
            return -1;
        const char *key = (const char *)buf + at + k.len;
        size_t key_len = k.arg;
        argus_field *f = &r->fields[i];
        f->key_off = (uint32_t)at; /* kept for decode_scanned */
        at += k.len + key_len;
        f->val_off = (uint32_t)at;
        /* the value's head read once: its length, and the head fields' */
        bool have_v;
        size_t vlen = value_len(buf + at, len - at, MAX_DEPTH - 2, &v, &have_v);
        if (vlen == 0)
            return -1;
        /* the keys told apart here need no lookup when the fields are
         * decoded (decode_field) */
        f->key_id = KEY_UNSCANNED;
        int slot = -1;
        switch (key_len) {
        case 2:
            if (key[0] == 'i' && key[1] == 'd')
                slot = 0;
            else if (key[0] == 't' && key[1] == 's')
                slot = 1;
            break;
        case 3:
            if (key[1] == 'i' && key[2] == 'd' && (key[0] == 't' || key[0] == 'p')) {
                slot = key[0] == 't' ? 2 : 3;
            } else if (memcmp(key, "ctx", 3) == 0) {
                keys |= scan_bit(ARGUS_K_CTX);
                f->key_id = ARGUS_K_CTX;
            } else if (memcmp(key, "seg", 3) == 0) {
                if (!(keys & scan_bit(ARGUS_K_SEG)) && have_v && v.major == CBOR_UINT) {
                    keys |= ARGUS_SCAN_SEG_UINT;
                    seg = v.arg;
                } else {
                    keys &= ~(unsigned)ARGUS_SCAN_SEG_UINT; /* twice: decoding says so */
                }
                keys |= scan_bit(ARGUS_K_SEG);
                f->key_id = ARGUS_K_SEG;
            }
            break;
        case 4:
            if (memcmp(key, "type", 4) == 0) {
                f->key_id = ARGUS_K_TYPE;
                if (type || !have_v || v.major != CBOR_TEXT)
                    return -1;
                type = buf + at + v.len;
                type_len = v.arg;
            }
            break;
        }
        if (slot >= 0) {
            static const uint16_t slot_key[] = {ARGUS_K_ID, ARGUS_K_TS, ARGUS_K_TID,
                                                ARGUS_K_PID};
            f->key_id = slot_key[slot];
            if ((have & 1u << slot) || !have_v || v.major != CBOR_UINT)
                return -1;
            have |= 1u << slot;
            head[slot] = v.arg;
        }
        at += vlen;
    }
    p->framed_len = at; /* for decode_framed_edge */
    r->type_name = (const char *)type;
    r->type_len = (uint32_t)type_len;
    if (!type || have != HAVE_ALL || at > UINT32_MAX)
        return -1;
    int t = cached_lookup(&p->types, type, type_len, len - (size_t)(type - buf),
                          argus_type_lookup);
    if (!argus_type_is_event(t) && t != ARGUS_T_OTHER)
        return -1; /* headers, threads, edges: few, read whole */
    r->raw = buf;
    r->raw_len = at;
    r->type = t;
    r->is_event = true;
    r->id = head[0];
    r->ts = head[1];
    r->tid = head[2];
    r->pid = head[3];
    r->has_ts = r->has_pid = true;
    r->nfields = 0;
    r->scan_keys = (uint8_t)keys;
    r->scan_seg = seg;
    r->scan_nfields = (uint32_t)h.arg;
    r->fields_pending = true;
    return (long)at;
}

/* The field whose key starts at F->key_off and value at F->val_off in
 * BUF (LEN bytes), ending at END_OFF, read from its heads; false when
 * the value is not a plain value (a simple value other than false, true,
 * null, undefined or a float). */
static bool decode_field(argus_parser *p, argus_field *f, const uint8_t *buf, size_t len,
                         uint32_t end_off)
{
    argus_cbor_head_info k = {0}, v = {0};
    size_t at = f->key_off;
    scan_head(buf + at, len - at, &k);
    f->key = (const char *)buf + at + k.len;
    f->key_len = (uint32_t)k.arg;
    if (f->key_id == KEY_UNSCANNED)
        f->key_id = (uint16_t)cached_lookup(&p->keys, buf + at + k.len, f->key_len,
                                            len - at - k.len, argus_key_lookup);
    at = f->val_off;
    scan_head(buf + at, len - at, &v);
    f->u = v.arg;
    f->f = 0;
    f->s = NULL;
    f->slen = 0;
    switch (v.major) {
    case CBOR_UINT: f->kind = ARGUS_V_UINT; break;
    case CBOR_NEGINT: f->kind = ARGUS_V_NEGINT; break;
    case CBOR_TEXT:
    case CBOR_BYTES:
        f->kind = v.major == CBOR_TEXT ? ARGUS_V_TEXT : ARGUS_V_BYTES;
        f->s = (const char *)buf + at + v.len;
        f->slen = (uint32_t)v.arg;
        if (v.major == CBOR_BYTES)
            f->u = 0;
        break;
    case CBOR_ARRAY: f->kind = ARGUS_V_ARRAY; break;
    case CBOR_MAP: f->kind = ARGUS_V_MAP; break;
    case CBOR_TAG: f->kind = ARGUS_V_TAG; break;
    default:
        f->u = 0;
        if (v.info == 20 || v.info == 21) {
            f->kind = ARGUS_V_BOOL;
            f->u = v.info == 21;
        } else if (v.info == 22) {
            f->kind = ARGUS_V_NULL;
        } else if (v.info == 23) {
            f->kind = ARGUS_V_UNDEF;
        } else if (v.info >= 25 && v.info <= 27) {
            f->kind = ARGUS_V_FLOAT;
            f->f = argus_cbor_float_value(&v);
        } else {
            return false;
        }
    }
    f->end_off = end_off;
    return true;
}

/* The fields of a record scan_event took: each key and value read from
 * its head, as argus_parse_record would read them (the same field
 * list), without its general walk; false when one is not a plain value
 * (a simple value other than false, true, null, undefined or a float). */
static bool decode_scanned(argus_parser *p)
{
    argus_record *r = &p->rec;
    const uint8_t *buf = r->raw;
    size_t len = r->raw_len;
    argus_cbor_head_info h = {0};
    scan_head(buf, len, &h);
    for (uint64_t i = 0; i < h.arg; i++)
        if (!decode_field(p, &r->fields[i], buf, len,
                          i + 1 < h.arg ? r->fields[i + 1].key_off : (uint32_t)len))
            return false;
    r->nfields = (unsigned)h.arg;
    return true;
}

/* An edge at BUF whose fields scan_event framed before it found it no
 * event (a stage's argus_put_edge, or an edge in a stage's input):
 * decoded from that framing, as argus_record_decode decodes an event,
 * instead of walked again by the general parse. Its length; -1 for any
 * other record, or one the general parse must say what is wrong with. */
static long decode_framed_edge(argus_parser *p, const uint8_t *buf)
{
    argus_record *r = &p->rec;
    char err[256];
    if (p->framed_len == 0 || !r->type_name || r->type_len != 4 ||
        memcmp(r->type_name, "edge", 4) != 0)
        return -1;
    r->raw = buf;
    r->raw_len = p->framed_len;
    r->fields_pending = false;
    if (!decode_scanned(p) || record_done(p, err, sizeof err) != 0)
        return -1;
    return (long)p->framed_len;
}

long argus_scan_record(argus_parser *p, const uint8_t *buf, size_t len,
                       argus_record **out)
{
    long n = scan_event(p, buf, len);
    if (n < 0)
        n = decode_framed_edge(p, buf);
    if (n >= 0)
        *out = &p->rec;
    return n;
}

void argus_record_decode(argus_record *r)
{
    argus_parser *p = r->parser;
    uint64_t number = r->number, offset = r->offset;
    argus_record *out = r;
    char err[256];
    r->fields_pending = false;
    long n = decode_scanned(p) && record_done(p, err, sizeof err) == 0
                 ? (long)r->raw_len
                 : argus_parse_record(p, r->raw, r->raw_len, &out, err, sizeof err);
    if (n != (long)r->raw_len && !p->rd) /* a record a stage wrote in a chain */
        argus_die(ARGUS_EX_DATAERR, "%s: record %llu (byte %llu): %s", p->name,
                  (unsigned long long)number, (unsigned long long)offset,
                  n < 0 ? err : "malformed record");
    if (n != (long)r->raw_len)
        fail_at(p->rd, number, offset, "%s", n < 0 ? err : "malformed record");
    out->number = number;
    out->offset = offset;
}

/* The field named NAME (LEN bytes; KEY its enum argus_key, or
 * ARGUS_K_UNKNOWN) in R, found among the fields the head pass framed and
 * decoded alone (argus_reader_sparse); a key there twice, or a value that
 * is not a plain one, decodes the whole record, which says what is wrong
 * with it. */
static const argus_field *sparse_get(argus_record *r, int key, const char *name,
                                     size_t len)
{
    argus_field *found = NULL;
    uint32_t at = 0;
    /* a key's one-byte head and first letter, then the rest */
    const uint8_t head = (uint8_t)(CBOR_TEXT << 5 | len), first = (uint8_t)name[0];
    for (uint32_t i = 0; i < r->scan_nfields; i++) {
        argus_field *f = &r->fields[i];
        if (f->key_id == KEY_UNSCANNED || f->key_id == ARGUS_K_UNKNOWN) {
            argus_cbor_head_info k;
            const uint8_t *p = r->raw + f->key_off;
            if (p[0] == head) {
                if (p[1] != first || memcmp(p + 2, name + 1, len - 1) != 0)
                    continue;
            } else if (p[0] < (CBOR_TEXT << 5 | 24) ||
                       !scan_head(p, r->raw_len - f->key_off, &k) || k.arg != len ||
                       memcmp(p + k.len, name, len) != 0) {
                continue; /* another short key, or a long head of another */
            }
        } else if (f->key_id != key) {
            continue;
        }
        if (found)
            goto whole;
        found = f;
        at = i;
    }
    if (!found)
        return NULL;
    if (key != ARGUS_K_UNKNOWN)
        found->key_id = (uint16_t)key;
    if (decode_field(r->parser, found, r->raw, r->raw_len,
                     at + 1 < r->scan_nfields ? r->fields[at + 1].key_off
                                              : (uint32_t)r->raw_len))
        return found;
whole:
    argus_record_decode(r);
    return key != ARGUS_K_UNKNOWN ? argus_get(r, key) : argus_get_named(r, name);
}

const argus_field *argus_get_pending(const argus_record *r, int key)
{
    if (key == ARGUS_K_CTX && !(r->scan_keys & ARGUS_SCAN_CTX))
        return NULL;
    argus_record *rw = (argus_record *)r; /* the reader's own memory */
    if (r->parser->sparse && key > 0 && key < ARGUS_K_COUNT)
        return sparse_get(rw, key, argus_key_name(key), key_len[key]);
    argus_record_decode(rw);
    return r->index[key] < 0 ? NULL : &r->fields[r->index[key]];
}

void argus_parser_sparse(argus_parser *p) { p->sparse = true; }
void argus_reader_sparse(argus_reader *rd) { argus_parser_sparse(rd->parser); }

/* Next raw record, framing checked; NULL at a clean end. */
static argus_record *next_record(argus_reader *rd, argus_parser *p)
{
    char err[256];
    /* ARGUS_READ_WHOLE=1 decodes every record as it is read, as the reader
     * did before it left fields for later: the tests compare the two */
    static int whole = -1;
    if (whole < 0)
        whole = getenv("ARGUS_READ_WHOLE") != NULL;
    p->rd = rd;
    for (;;) {
        argus_record *r = &p->rec;
        long n = rd->in.hi > rd->in.lo
                     ? whole ? -1 : scan_event(p, rd->in.buf + rd->in.lo, rd->in.hi - rd->in.lo)
                     : 0;
        if (n < 0 && !whole)
            n = decode_framed_edge(p, rd->in.buf + rd->in.lo);
        if (n < 0)
            n = argus_parse_record(p, rd->in.buf + rd->in.lo, rd->in.hi - rd->in.lo,
                                   &r, err, sizeof err);
        if (n > 0) {
            r->number = ++rd->records;
            r->offset = rd->offset;
            rd->in.lo += (size_t)n;
            rd->offset += (uint64_t)n;
            return r;
        }
        if (n < 0)
            fail_at(rd, rd->records + 1, rd->offset, "%s", err);
        if (rd->in.eof) {
            if (rd->in.hi == rd->in.lo)
                return NULL;
            fail_at(rd, rd->records + 1, rd->offset,
                    "truncated: the stream ends %zu bytes into the record",
                    rd->in.hi - rd->in.lo);
        }
        refill(rd);
    }
}

int argus_reader_file(const argus_reader *rd)
{
    if (rd->in.fd == STDIN_FILENO)
        return -1;
    return argus_input_file_fd(&rd->in);
}

argus_reader *argus_reader_open(const char *path)
{
    argus_input in;
    argus_input_open(&in, path, ARGUS_MAX_RECORD);
    return argus_reader_from_input(&in);
}

argus_reader *argus_reader_from_input(argus_input *in)
{
    argus_reader *rd = argus_xcalloc(1, sizeof *rd, "reader");
    rd->in = *in;
    rd->in.max = ARGUS_MAX_RECORD;
    memset(in, 0, sizeof *in);
    rd->parser = argus_parser_new();
    rd->header_parser = argus_parser_new();
    rd->opening = true;

    argus_record *h = next_record(rd, rd->parser);
    if (!h) {
        char msg[8192];
        snprintf(msg, sizeof msg, "%s: empty input: no stream header", rd->in.name);
        reader_die(rd, msg);
    }
    /* keep the header in memory of its own, parsed again there */
    rd->header_raw = argus_xmalloc(h->raw_len, "the stream header");
    memcpy(rd->header_raw, h->raw, h->raw_len);
    argus_record *hh;
    char err[256];
    argus_parse_record(rd->header_parser, rd->header_raw, h->raw_len, &hh,
                       err, sizeof err);
    hh->number = h->number;
    hh->offset = h->offset;
    rd->header = hh;
    if (hh->type != ARGUS_T_STREAM)
        argus_record_fail(rd, hh,
                          "no stream header: the first record has type \"%.*s\"",
                          (int)hh->type_len, hh->type_name);
    size_t flen;
    const char *format = argus_get_text(hh, ARGUS_K_FORMAT, &flen);
    if (!format)
        argus_record_fail(rd, hh, "stream header has no text \"format\"");
    if (!argus_text_is(hh, ARGUS_K_FORMAT, "argus"))
        argus_record_fail(rd, hh, "unknown format \"%.*s\" (expected \"argus\")",
                          (int)flen, format);
    uint64_t version;
    if (!argus_get_uint(hh, ARGUS_K_VERSION, &version))
        argus_record_fail(rd, hh, "stream header has no unsigned \"version\"");
    if (version != 1)
        argus_record_fail(rd, hh,
                          "unsupported version %llu (this program reads version 1)",
                          (unsigned long long)version);
    rd->opening = false;
    return rd;
}

const argus_record *argus_reader_header(argus_reader *rd) { return rd->header; }
const char *argus_reader_name(const argus_reader *rd) { return rd->in.name; }
uint64_t argus_reader_bytes(const argus_reader *rd) { return rd->offset; }

const argus_record *argus_read(argus_reader *rd)
{
    argus_record *r = next_record(rd, rd->parser);
    if (!r)
        return NULL;
    if (r->type == ARGUS_T_STREAM)
        argus_record_fail(rd, r, "a second stream header");
    if (r->has_ts) {
        if (rd->have_ts && r->ts < rd->last_ts) {
            char now[64], before[64];
            if (r->is_event)
                snprintf(now, sizeof now, "event %llu", (unsigned long long)r->id);
            else
                snprintf(now, sizeof now, "record %llu", (unsigned long long)r->number);
            if (rd->last_ts_is_event)
                snprintf(before, sizeof before, "event %llu",
                         (unsigned long long)rd->last_ts_id);
            else
                snprintf(before, sizeof before, "record %llu",
                         (unsigned long long)rd->last_ts_number);
            argus_record_fail(rd, r, "ts goes backwards: %s has ts %llu, before ts %llu of %s",
                              now, (unsigned long long)r->ts,
                              (unsigned long long)rd->last_ts, before);
        }
        rd->have_ts = true;
        rd->last_ts = r->ts;
        rd->last_ts_number = r->number;
        rd->last_ts_is_event = r->is_event;
        rd->last_ts_id = r->id;
    }
    if (r->is_event) {
        if (rd->have_id && r->id <= rd->last_id)
            argus_record_fail(rd, r, "event id %llu is not above the previous event id %llu",
                              (unsigned long long)r->id,
                              (unsigned long long)rd->last_id);
        rd->have_id = true;
        rd->last_id = r->id;
    }
    return r;
}

void argus_reader_close(argus_reader *rd)
{
    if (!rd)
        return;
    argus_input_close(&rd->in);
    argus_parser_free(rd->parser);
    argus_parser_free(rd->header_parser);
    free(rd->header_raw);
    free(rd);
}

/* ---- writer ------------------------------------------------------------- */

#define FLUSH_AT (1u << 20)

struct argus_writer {
    argus_buf b;
    size_t done;     /* bytes of complete records in b */
    int fd;
    /* argus_writer_to: each record goes to a function as it is ended */
    void (*deliver)(void *ctx, const argus_record *r);
    void *ctx;
    argus_parser *parser;   /* reads back the records built here */
    uint64_t records, bytes;   /* handed on so far */
    argus_channel *channel;    /* argus_writer_channel: blocks go there */
};

static void flush_before_exit(void *w) { argus_writer_flush(w); }

argus_writer *argus_writer_fd(int fd)
{
    argus_writer *w = argus_xcalloc(1, sizeof *w, "writer");
    w->fd = fd;
    argus_buf_reserve(&w->b, FLUSH_AT * 2);
    return w;
}

argus_writer *argus_writer_stream(void)
{
    /* CBOR on a terminal is noise, and can leave it in a bad state */
    if (isatty(1))
        argus_die(ARGUS_EX_USAGE, "not writing a binary stream to a terminal: pipe it "
                  "(| argus to-json, | argus export) or redirect it to a file");
    return argus_writer_stdout();
}

argus_writer *argus_writer_stdout(void)
{
    argus_writer *w = argus_writer_fd(1);
    argus_cli_on_die(flush_before_exit, w);
#ifdef F_SETPIPE_SZ
    /* Stages run as a pipeline: a 64 KiB pipe makes every stage wake up
     * 16 times per flushed block. A larger pipe (if allowed; failure is
     * harmless) lets each side work in long stretches. */
    fcntl(w->fd, F_SETPIPE_SZ, (int)FLUSH_AT);
#endif
    return w;
}

argus_writer *argus_writer_null(void)
{
    argus_writer *w = argus_xcalloc(1, sizeof *w, "writer");
    w->fd = -1;
    return w;
}

argus_writer *argus_writer_to(const char *name,
                              void (*deliver)(void *ctx, const argus_record *r),
                              void *ctx)
{
    argus_writer *w = argus_xcalloc(1, sizeof *w, "writer");
    w->fd = -1;
    w->deliver = deliver;
    w->ctx = ctx;
    w->parser = argus_parser_new();
    w->parser->name = name;
    return w;
}

argus_writer *argus_writer_channel(argus_channel *ch)
{
    argus_writer *w = argus_writer_fd(-1);
    w->channel = ch;
    return w;
}

/* R handed on, numbered as the next program's reader would number it. */
static void deliver_numbered(argus_writer *w, argus_record *r)
{
    r->number = ++w->records;
    r->offset = w->bytes;
    w->bytes += r->raw_len;
    w->b.len = 0;
    w->deliver(w->ctx, r);
}

/* A record built in W (argus_put_*, argus_write_edited), read back as
 * the next stage's reader would read it, and handed on. */
static void deliver_built(argus_writer *w)
{
    argus_record *r = &w->parser->rec;
    char err[256];
    long n = scan_event(w->parser, w->b.p, w->b.len);
    if (n < 0)
        n = decode_framed_edge(w->parser, w->b.p);
    if (n < 0)
        n = argus_parse_record(w->parser, w->b.p, w->b.len, &r, err, sizeof err);
    if (n != (long)w->b.len) /* a stage of ours wrote a record it cannot read */
        argus_die(ARGUS_EX_SOFTWARE, "internal error: a stage wrote a malformed record (%s)",
                  n < 0 ? err : "not one whole record");
    deliver_numbered(w, r);
}

/* What argus_write_edited built in W from the event R, its fields and then
 * NSETS more (SETS, known keys R does not have): handed on with what was
 * read of R carried over, the offsets moved by the growth of the map head
 * (OLD_HEAD to NEW_HEAD bytes), instead of reading it again. R's head
 * pass, or its decoded fields, whichever it has; a record whose fields
 * point elsewhere than its bytes (indefinite strings) is read again. */
static void deliver_extended(argus_writer *w, const argus_record *r,
                             size_t old_head, size_t new_head,
                             const argus_set *sets, unsigned nsets)
{
    argus_parser *p = w->parser;
    argus_record *n = &p->rec;
    bool pending = r->fields_pending;
    unsigned old_count = pending ? r->scan_nfields : r->nfields;
    unsigned count = old_count + nsets;
    size_t shift = new_head - old_head;
    const char *old_raw = (const char *)r->raw, *new_raw = (const char *)w->b.p;
    for (unsigned i = 0; !pending && i < old_count; i++) {
        const argus_field *f = &r->fields[i];
        if (f->key < old_raw || f->key >= old_raw + r->raw_len ||
            (f->s && (f->s < old_raw || f->s > old_raw + r->raw_len))) {
            deliver_built(w);
            return;
        }
    }
    grow_fields(p, count);
    for (unsigned i = 0; i < old_count; i++) {
        argus_field *f = &n->fields[i];
        if (pending) {
            f->key_off = (uint32_t)(r->fields[i].key_off + shift);
            f->val_off = (uint32_t)(r->fields[i].val_off + shift);
            f->key_id = r->fields[i].key_id;    /* as scan_event set it */
            continue;
        }
        *f = r->fields[i];
        f->key = new_raw + (f->key - old_raw) + shift;
        if (f->s)
            f->s = new_raw + (f->s - old_raw) + shift;
        f->key_off += (uint32_t)shift;
        f->val_off += (uint32_t)shift;
        f->end_off += (uint32_t)shift;
    }
    size_t at = new_head + (r->raw_len - old_head);
    uint8_t keys = r->scan_keys;
    for (unsigned i = 0; i < nsets; i++) {
        argus_field *f = &n->fields[old_count + i];
        if (sets[i].key == ARGUS_K_SEG)
            keys &= (uint8_t)~ARGUS_SCAN_SEG_UINT;
        argus_cbor_head_info k = {0}, v = {0};
        bool have_v;
        scan_head(w->b.p + at, w->b.len - at, &k);
        f->key_off = (uint32_t)at;
        f->val_off = (uint32_t)(at + k.len + k.arg);
        /* a set's value is a uint, a text or a bool: its head tells its length */
        at = f->val_off + value_len(w->b.p + f->val_off, w->b.len - f->val_off, 2, &v, &have_v);
        keys |= scan_bit(sets[i].key);
        f->key_id = (uint16_t)sets[i].key; /* known: only_new_known_keys */
        if (!pending)
            decode_field(p, f, w->b.p, w->b.len, (uint32_t)at);
    }
    n->raw = w->b.p;
    n->raw_len = w->b.len;
    n->type = r->type;
    n->type_name = new_raw + (r->type_name - old_raw) + shift;
    n->type_len = r->type_len;
    n->is_event = true;
    n->id = r->id;
    n->ts = r->ts;
    n->tid = r->tid;
    n->pid = r->pid;
    n->has_ts = r->has_ts;
    n->has_pid = r->has_pid;
    n->scan_keys = keys;
    n->scan_seg = r->scan_seg;
    n->scan_nfields = count;
    n->fields_pending = pending;
    if (pending) {
        n->nfields = 0;
    } else {
        n->nfields = count;
        memcpy(n->index, r->index, sizeof n->index);
        for (unsigned i = 0; i < nsets; i++)
            n->index[sets[i].key] = (int16_t)(old_count + i);
    }
    deliver_numbered(w, n);
}

/* A write error after the first OUT bytes of the block: a record cut
 * there is taken back, so that the output ends with a whole record. That
 * is possible where it is a regular file that ends where this write did
 * (truncated to the end of the last whole record); a pipe or a device
 * keeps what it was given. */
static void take_back_cut_record(argus_writer *w, size_t out)
{
    size_t whole = 0; /* bytes of whole records among the OUT */
    while (whole < out) {
        size_t n = argus_cbor_item_len(w->b.p + whole, w->done - whole);
        if (n == 0 || n > out - whole)
            break;
        whole += n;
    }
    struct stat st;
    off_t end;
    if (whole == out || fstat(w->fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        (end = lseek(w->fd, 0, SEEK_CUR)) < 0 || end != st.st_size ||
        (uint64_t)end < out - whole)
        return;
    off_t to = end - (off_t)(out - whole);
    if (ftruncate(w->fd, to) == 0)
        lseek(w->fd, to, SEEK_SET);
}

void argus_writer_flush(argus_writer *w)
{
    size_t off = 0;
    if (w->deliver)
        return;
    if (w->channel) {
        if (w->done == 0)
            return;
        /* the block goes over whole; what follows the last whole record
         * (a record being built: an error's flush) starts the next one,
         * copied first, since the block is the reader's once handed */
        size_t rest = w->b.len - w->done;
        uint8_t *building = rest ? argus_xmalloc(rest, "a record being written") : NULL;
        if (rest)
            memcpy(building, w->b.p + w->done, rest);
        argus_channel_put(w->channel, &w->b.p, &w->b.cap, w->done,
                          rest > FLUSH_AT * 2 ? rest : FLUSH_AT * 2);
        w->bytes += w->done;
        if (rest)
            memcpy(w->b.p, building, rest);
        free(building);
        w->b.len = rest;
        w->done = 0;
        return;
    }
    if (w->fd < 0)
        off = w->done;
    argus_output_lock();
    while (off < w->done) {
        ssize_t n = write(w->fd, w->b.p + off, w->done - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            /* stdout left non-blocking by a parent: wait, do not cut */
            struct pollfd pfd = {.fd = w->fd, .events = POLLOUT};
            poll(&pfd, 1, -1);
            continue;
        }
        if (n < 0) {
            int err = errno;
            take_back_cut_record(w, off);
            /* nothing more goes out: the exit handler's flush must not
             * write this block again */
            w->fd = -1;
            w->b.len = w->done = 0;
            argus_output_unlock();
            argus_die(ARGUS_EX_IOERR, "write error: %s", strerror(err));
        }
        off += (size_t)n;
    }
    argus_output_unlock();
    if (w->done == 0)
        return;
    memmove(w->b.p, w->b.p + w->done, w->b.len - w->done);
    w->b.len -= w->done;
    w->done = 0;
}

uint64_t argus_writer_bytes(const argus_writer *w) { return w->bytes; }

void argus_writer_close(argus_writer *w)
{
    if (!w)
        return;
    argus_writer_flush(w);
    if (w->fd == 1)
        argus_cli_on_die(NULL, NULL);
    argus_parser_free(w->parser);
    argus_buf_free(&w->b);
    free(w);
}

void argus_end_record(argus_writer *w)
{
    if (w->deliver) {
        deliver_built(w);
        return;
    }
    w->done = w->b.len;
    if (w->done >= FLUSH_AT)
        argus_writer_flush(w);
}

void argus_put_raw(argus_writer *w, const void *p, size_t n) { argus_buf_add(&w->b, p, n); }
void argus_put_map(argus_writer *w, uint64_t n) { argus_cbor_head(&w->b, CBOR_MAP, n); }
void argus_put_array(argus_writer *w, uint64_t n) { argus_cbor_head(&w->b, CBOR_ARRAY, n); }
void argus_put_key(argus_writer *w, const char *k) { argus_cbor_text(&w->b, k, strlen(k)); }
void argus_put_text(argus_writer *w, const char *s, size_t n) { argus_cbor_text(&w->b, s, n); }
void argus_put_cstr(argus_writer *w, const char *s) { argus_cbor_text(&w->b, s, strlen(s)); }
void argus_put_uint(argus_writer *w, uint64_t v) { argus_cbor_head(&w->b, CBOR_UINT, v); }
void argus_put_negint(argus_writer *w, uint64_t n) { argus_cbor_head(&w->b, CBOR_NEGINT, n); }
void argus_put_bool(argus_writer *w, bool v) { argus_cbor_bool(&w->b, v); }
void argus_put_null(argus_writer *w) { argus_cbor_null(&w->b); }
void argus_put_double(argus_writer *w, double v) { argus_cbor_double(&w->b, v); }

void argus_put_int(argus_writer *w, int64_t v)
{
    if (v >= 0)
        argus_put_uint(w, (uint64_t)v);
    else
        argus_put_negint(w, (uint64_t)(-1 - v));
}

void argus_write_record(argus_writer *w, const argus_record *r)
{
    if (w->deliver) { /* handed on as it is: nothing to read again */
        w->records++;
        w->bytes += r->raw_len;
        w->deliver(w->ctx, r);
        return;
    }
    argus_buf_add(&w->b, r->raw, r->raw_len);
    argus_end_record(w);
}

/* The name of KEY, a known key, as a map key: its length from the table. */
static void put_known_key(argus_writer *w, int key)
{
    names_need();
    argus_cbor_text(&w->b, argus_key_name(key), key_len[key]);
}

static void put_set_value(argus_writer *w, const argus_set *s)
{
    switch (s->op) {
    case ARGUS_SET_UINT: argus_put_uint(w, s->u); break;
    case ARGUS_SET_TEXT: argus_put_cstr(w, s->s); break;
    case ARGUS_SET_BOOL: argus_put_bool(w, s->u != 0); break;
    case ARGUS_SET_REMOVE: break;
    }
}

static const argus_set *set_for(const argus_field *f, const argus_set *sets,
                                unsigned nsets)
{
    for (unsigned i = 0; i < nsets; i++) {
        if (sets[i].key != ARGUS_K_UNKNOWN ? sets[i].key == f->key_id
            : (f->key_id == ARGUS_K_UNKNOWN && strlen(sets[i].name) == f->key_len &&
               memcmp(sets[i].name, f->key, f->key_len) == 0))
            return &sets[i];
    }
    return NULL;
}

/* True when every set adds a known key the record does not have: then
 * the fields are copied in one piece (they follow the map head). */
static bool only_new_known_keys(const argus_record *r, const argus_set *sets,
                                unsigned nsets)
{
    for (unsigned i = 0; i < nsets; i++)
        if (sets[i].key == ARGUS_K_UNKNOWN || sets[i].op == ARGUS_SET_REMOVE ||
            r->index[sets[i].key] >= 0)
            return false;
    return r->nfields > 0;
}

/* R's fields, the bytes from HEAD (the end of its map head) to END, then
 * the NSETS SETS (known keys R has not): the fields in one piece. A
 * chain's writer hands the result on with what was read of R carried over
 * (deliver_extended) when the fields run to R's end. */
static void write_appended(argus_writer *w, const argus_record *r, size_t head,
                           size_t end, unsigned nfields, const argus_set *sets,
                           unsigned nsets)
{
    size_t start = w->b.len;
    argus_put_map(w, nfields + nsets);
    size_t new_head = w->b.len - start;
    argus_put_raw(w, r->raw + head, end - head);
    for (unsigned i = 0; i < nsets; i++) {
        put_known_key(w, sets[i].key);
        put_set_value(w, &sets[i]);
    }
    if (w->deliver && start == 0 && r->is_event && r->has_ts && r->has_pid &&
        end == r->raw_len)
        deliver_extended(w, r, head, new_head, sets, nsets);
    else
        argus_end_record(w);
}

void argus_write_edited(argus_writer *w, const argus_record *r,
                        const argus_set *sets, unsigned nsets)
{
    if (r->fields_pending && nsets == 1 && sets[0].key == ARGUS_K_SEG &&
        sets[0].op != ARGUS_SET_REMOVE && !(r->scan_keys & scan_bit(ARGUS_K_SEG)) &&
        r->scan_nfields > 0) {
        /* segment's seg on an event not looked into: no need to decode it */
        argus_cbor_head_info h = {0};
        scan_head(r->raw, r->raw_len, &h);
        write_appended(w, r, h.len, r->raw_len, r->scan_nfields, sets, 1);
        return;
    }
    argus_record_load(r);
    if (only_new_known_keys(r, sets, nsets)) { /* the stages' hot path */
        write_appended(w, r, r->fields[0].key_off, r->fields[r->nfields - 1].end_off,
                       r->nfields, sets, nsets);
        return;
    }
    bool used[16] = {false};
    uint64_t pairs = 0;
    if (nsets > 16)
        abort();
    for (unsigned i = 0; i < r->nfields; i++) {
        const argus_set *s = set_for(&r->fields[i], sets, nsets);
        if (s)
            used[s - sets] = true;
        if (!s || s->op != ARGUS_SET_REMOVE)
            pairs++;
    }
    for (unsigned i = 0; i < nsets; i++)
        if (!used[i] && sets[i].op != ARGUS_SET_REMOVE)
            pairs++;
    argus_put_map(w, pairs);
    for (unsigned i = 0; i < r->nfields; i++) {
        const argus_field *f = &r->fields[i];
        const argus_set *s = set_for(f, sets, nsets);
        if (!s) {
            argus_put_raw(w, r->raw + f->key_off, f->end_off - f->key_off);
        } else if (s->op != ARGUS_SET_REMOVE) {
            argus_put_raw(w, r->raw + f->key_off, f->val_off - f->key_off);
            put_set_value(w, s);
        }
    }
    for (unsigned i = 0; i < nsets; i++) {
        if (used[i] || sets[i].op == ARGUS_SET_REMOVE)
            continue;
        if (sets[i].key)
            put_known_key(w, sets[i].key);
        else
            argus_put_key(w, sets[i].name);
        put_set_value(w, &sets[i]);
    }
    argus_end_record(w);
}

void argus_write_header(argus_writer *w, const argus_record *hdr,
                        const char *command)
{
    const argus_field *st = argus_get(hdr, ARGUS_K_STAGES);
    bool append_key = !st || st->kind != ARGUS_V_ARRAY;
    argus_put_map(w, hdr->nfields + (st ? 0 : 1));
    for (unsigned i = 0; i < hdr->nfields; i++) {
        const argus_field *f = &hdr->fields[i];
        if (f != st) {
            argus_put_raw(w, hdr->raw + f->key_off, f->end_off - f->key_off);
            continue;
        }
        argus_put_raw(w, hdr->raw + f->key_off, f->val_off - f->key_off);
        if (append_key) { /* "stages" that is not an array: start one */
            argus_put_array(w, 1);
            argus_put_cstr(w, command);
            continue;
        }
        const uint8_t *v = hdr->raw + f->val_off;
        size_t vlen = f->end_off - f->val_off;
        argus_cbor_head_info h;
        argus_cbor_read_head(v, vlen, &h);
        if (h.info == 31) { /* indefinite: keep it so, before its break */
            argus_put_raw(w, v, vlen - 1);
            argus_put_cstr(w, command);
            argus_put_raw(w, v + vlen - 1, 1);
        } else {
            argus_put_array(w, h.arg + 1);
            argus_put_raw(w, v + h.len, vlen - h.len);
            argus_put_cstr(w, command);
        }
    }
    if (!st) {
        argus_put_key(w, "stages");
        argus_put_array(w, 1);
        argus_put_cstr(w, command);
    }
    argus_end_record(w);
}
