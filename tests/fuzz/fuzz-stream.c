/* libFuzzer target for the stream reader's record parser
 * (argus_parse_record, include/argus/stream/stream.h) and for everything a stage
 * does with a record it accepted: the typed accessors and the writer.
 *
 * The input is parsed record after record with one parser, as the reader
 * does. Each accepted record is copied to a buffer of exactly its length
 * and parsed again there by a new parser: the two parses must agree (no
 * state carried over from the records before), and any read past the
 * record's end is caught by AddressSanitizer. Then:
 *   - every accessor runs on every key, and every byte it points at is read;
 *   - every proper prefix tried must ask for more data (0): the reader feeds
 *     the parser partial buffers, so a prefix that parses or fails is a bug;
 *   - the record goes through the writer (argus_writer_null) verbatim, edited
 *     and as a header;
 *   - the same writes go to a memory file through argus_writer_stdout, and
 *     what they wrote must parse again with the edits applied and every
 *     other field byte for byte as it was.
 *   - a sparse parser (argus_parser_sparse: each field asked for decoded
 *     alone) answers every key as the whole decode does.
 * Where the parser stops (more data, or malformed), a new parser must say
 * the same, and a complaint about the CBOR itself must not come for bytes
 * that libcbor's cbor_load reads as a map with text keys.
 * A broken property aborts (libFuzzer reports a crash with the input).
 */
#include "argus/stream/cbor.h"
#include "argus/stream/stream.h"

#include <cbor.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_RECORDS 256
#define MAX_ELEMS 64
#define COMMAND "fuzz --stage 'x y'"
#define MARK "fuzz_mark"

static volatile uint64_t sink;
static argus_parser *check_parser; /* new for every input */
static argus_writer *mem_writer; /* argus_writer_stdout, flushed to mem_fd */
static int mem_fd = -1, saved_stdout = -1;

#define CHECK(cond)                                                         \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "fuzz-stream: %s:%d: check failed: %s\n",       \
                    __FILE__, __LINE__, #cond);                             \
            abort();                                                        \
        }                                                                   \
    } while (0)

static void touch(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint64_t h = 0;
    for (size_t i = 0; i < n; i++)
        h = h * 31 + b[i];
    sink += h;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    mem_fd = memfd_create("fuzz-stream", 0);
    saved_stdout = dup(1);
    if (mem_fd < 0 || saved_stdout < 0) {
        perror("fuzz-stream: memfd_create/dup");
        abort();
    }
    mem_writer = argus_writer_stdout();
    return 0;
}

/* Points stdout at the emptied memory file, for writes to mem_writer (a
 * large record may flush by itself). */
static void mem_begin(void)
{
    CHECK(ftruncate(mem_fd, 0) == 0);
    CHECK(lseek(mem_fd, 0, SEEK_SET) == 0);
    CHECK(dup2(mem_fd, 1) == 1);
}

/* Flushes mem_writer, restores stdout, and returns what the memory file
 * holds in a buffer of exactly that size (the caller frees it). */
static uint8_t *mem_take(size_t *len)
{
    argus_writer_flush(mem_writer);
    CHECK(dup2(saved_stdout, 1) == 1);
    off_t end = lseek(mem_fd, 0, SEEK_CUR);
    CHECK(end >= 0);
    *len = (size_t)end;
    uint8_t *buf = malloc(*len ? *len : 1);
    CHECK(buf);
    CHECK(pread(mem_fd, buf, *len, 0) == (ssize_t)*len);
    return buf;
}

/* Parses BUF (LEN bytes) as exactly one record with check_parser. */
static const argus_record *parse_one(const uint8_t *buf, size_t len)
{
    argus_record *r = NULL;
    char err[256];
    long n = argus_parse_record(check_parser, buf, len, &r, err, sizeof err);
    if (n != (long)len) {
        fprintf(stderr, "fuzz-stream: written record does not parse back "
                        "(%ld of %zu bytes): %s\n", n, len, n < 0 ? err : "");
        abort();
    }
    return r;
}

/* A field's u is meaningful for these kinds; for the others (and for
 * indefinite containers) it is whatever the decoder saw last. */
static bool u_is_set(const argus_record *r, const argus_field *f)
{
    switch (f->kind) {
    case ARGUS_V_UINT: case ARGUS_V_NEGINT: case ARGUS_V_BOOL: case ARGUS_V_TAG:
        return true;
    case ARGUS_V_ARRAY: case ARGUS_V_MAP:
        return (r->raw[f->val_off] & 31) != 31;
    default:
        return false;
    }
}

/* R (parsed by a parser that parsed other records before) and C (the same
 * bytes parsed by a new parser) describe the same record. */
static void check_same_parse(const argus_record *r, const argus_record *c)
{
    CHECK(r->raw_len == c->raw_len && memcmp(r->raw, c->raw, r->raw_len) == 0);
    CHECK(r->nfields == c->nfields);
    CHECK(r->type == c->type && r->type_len == c->type_len &&
          memcmp(r->type_name, c->type_name, r->type_len) == 0);
    CHECK(r->is_event == c->is_event && r->has_ts == c->has_ts &&
          r->has_pid == c->has_pid);
    CHECK(r->id == c->id && r->ts == c->ts && r->tid == c->tid &&
          r->pid == c->pid);
    CHECK(memcmp(r->index, c->index, sizeof r->index) == 0);
    for (unsigned i = 0; i < r->nfields; i++) {
        const argus_field *a = &r->fields[i], *b = &c->fields[i];
        CHECK(a->key_id == b->key_id && a->kind == b->kind);
        CHECK(a->key_off == b->key_off && a->val_off == b->val_off &&
              a->end_off == b->end_off);
        CHECK(a->key_len == b->key_len &&
              memcmp(a->key, b->key, a->key_len) == 0);
        if (u_is_set(r, a))
            CHECK(a->u == b->u);
        if (a->kind == ARGUS_V_FLOAT)
            CHECK(memcmp(&a->f, &b->f, sizeof a->f) == 0);
        if (a->kind == ARGUS_V_TEXT || a->kind == ARGUS_V_BYTES) {
            CHECK(!a->s == !b->s);
            if (a->s)
                CHECK(a->slen == b->slen && memcmp(a->s, b->s, a->slen) == 0);
        }
    }
}

/* A record a chain's writer (argus_writer_to) hands on after an edit: the
 * same as the bytes parsed afresh, whether it was read again or carried
 * over from the record edited (head pass or decoded fields). */
static void check_delivered(void *ctx, const argus_record *d)
{
    argus_parser *fresh = ctx;
    argus_record *c = NULL;
    char err[256];
    long n = argus_parse_record(fresh, d->raw, d->raw_len, &c, err, sizeof err);
    CHECK(n == (long)d->raw_len);
    CHECK(d->id == c->id && d->ts == c->ts && d->tid == c->tid && d->pid == c->pid);
    CHECK(d->type == c->type && d->type_len == c->type_len &&
          memcmp(d->type_name, c->type_name, d->type_len) == 0);
    if (d->fields_pending) {
        CHECK(!!(d->scan_keys & ARGUS_SCAN_CTX) == (c->index[ARGUS_K_CTX] >= 0));
        CHECK(!!(d->scan_keys & ARGUS_SCAN_SEG) == (c->index[ARGUS_K_SEG] >= 0));
        CHECK(d->scan_nfields == c->nfields);
    }
    argus_record_load(d);
    check_same_parse(c, d);
}

/* R's edits through a chain's writer, on the undecoded record L (the
 * head pass's offsets carried) and on the decoded R. */
static void check_chain_edits(const argus_record *l, const argus_record *r)
{
    if (r->nfields > 1000)
        return; /* past the reader's key limit once edited */
    argus_parser *fresh = argus_parser_new();
    argus_writer *to = argus_writer_to("fuzz", check_delivered, fresh);
    argus_set seg = {.key = ARGUS_K_SEG, .op = ARGUS_SET_UINT, .u = r->ts};
    argus_set two[2] = {{.key = ARGUS_K_CTX, .op = ARGUS_SET_TEXT, .s = "interrupt"},
                        {.key = ARGUS_K_SEG, .op = ARGUS_SET_UINT, .u = 7}};
    argus_write_edited(to, l, &seg, 1);
    argus_write_edited(to, r, &seg, 1);
    argus_write_edited(to, r, two, 2);
    argus_writer_close(to);
    argus_parser_free(fresh);
}

/* The reader's lazy pass (argus_scan_record, then argus_record_load) over
 * the record R that argus_parse_record read at BUF: where it takes the
 * record, the same length, head and, once loaded, the same fields; an
 * edge it decodes from its framing at once, the same record. */
static void check_lazy(const uint8_t *buf, size_t len, const argus_record *r)
{
    argus_parser *lazy = argus_parser_new();
    argus_record *l = NULL;
    long n = argus_scan_record(lazy, buf, len, &l);
    if (n >= 0 && !l->fields_pending) {
        CHECK((size_t)n == r->raw_len && r->type == ARGUS_T_EDGE);
        check_same_parse(r, l);
    } else if (n >= 0) {
        CHECK((size_t)n == r->raw_len && l->fields_pending);
        CHECK(l->is_event && l->has_ts && l->has_pid);
        CHECK(l->id == r->id && l->ts == r->ts && l->tid == r->tid && l->pid == r->pid);
        CHECK(l->type == r->type && l->type_len == r->type_len);
        /* the head pass's key hints: an absent ctx answered undecoded,
         * seg added to the undecoded bytes, as on the decoded record */
        CHECK(!!(l->scan_keys & ARGUS_SCAN_CTX) == (r->index[ARGUS_K_CTX] >= 0));
        CHECK(!!(l->scan_keys & ARGUS_SCAN_SEG) == (r->index[ARGUS_K_SEG] >= 0));
        if (r->index[ARGUS_K_CTX] < 0)
            CHECK(argus_get(l, ARGUS_K_CTX) == NULL && l->fields_pending);
        argus_set seg = {.key = ARGUS_K_SEG, .op = ARGUS_SET_UINT, .u = r->id ^ 0x5a};
        size_t lazy_len, whole_len;
        mem_begin();
        argus_write_edited(mem_writer, l, &seg, 1);
        uint8_t *lazy_out = mem_take(&lazy_len);
        mem_begin();
        argus_write_edited(mem_writer, r, &seg, 1);
        uint8_t *whole_out = mem_take(&whole_len);
        CHECK(lazy_len == whole_len && memcmp(lazy_out, whole_out, lazy_len) == 0);
        free(lazy_out);
        free(whole_out);
        check_chain_edits(l, r);
        argus_record_load(l);
        CHECK(!l->fields_pending);
        check_same_parse(r, l);
    }
    argus_parser_free(lazy);
}

/* The value of field A is that of B. */
static void check_same_value(const argus_field *a, const argus_field *b)
{
    CHECK(a->kind == b->kind && a->u == b->u && a->slen == b->slen);
    CHECK(memcmp(&a->f, &b->f, sizeof a->f) == 0);
    CHECK(!a->s == !b->s);
    if (a->s)
        CHECK(memcmp(a->s, b->s, a->slen) == 0);
}

/* A sparse reader's answers (argus_reader_sparse: each field asked for
 * found and decoded alone) on the record R that argus_parse_record read
 * at BUF: for every known key, and every key of R by its name, the field
 * the whole decode gives, or none where it has none. */
static void check_sparse(const uint8_t *buf, size_t len, const argus_record *r)
{
    argus_parser *sparse = argus_parser_new();
    argus_parser_sparse(sparse);
    argus_record *l = NULL;
    if (argus_scan_record(sparse, buf, len, &l) >= 0) {
        uint64_t seg;
        CHECK(argus_get_uint(l, ARGUS_K_SEG, &seg) ==
              (r->index[ARGUS_K_SEG] >= 0 && r->fields[r->index[ARGUS_K_SEG]].kind == ARGUS_V_UINT));
        if (r->index[ARGUS_K_SEG] >= 0 && r->fields[r->index[ARGUS_K_SEG]].kind == ARGUS_V_UINT)
            CHECK(seg == r->fields[r->index[ARGUS_K_SEG]].u);
        for (int k = 1; k < ARGUS_K_COUNT; k++) {
            const argus_field *f = argus_get(l, k);
            CHECK(!f == (r->index[k] < 0));
            if (f)
                check_same_value(f, &r->fields[r->index[k]]);
        }
        char name[64];
        for (unsigned i = 0; i < r->nfields; i++) {
            const argus_field *want = &r->fields[i];
            if (want->key_len >= sizeof name || memchr(want->key, 0, want->key_len))
                continue;
            memcpy(name, want->key, want->key_len);
            name[want->key_len] = 0;
            const argus_field *f = argus_get_named(l, name);
            CHECK(f != NULL);
            check_same_value(f, want);
        }
    }
    argus_parser_free(sparse);
}

/* Where argus_parse_record wants more (0) or refuses (-1), the lazy pass
 * takes the record only when the whole decode refuses it for a key twice,
 * which only that decode looks for (an edge it decodes looks too). */
static void check_lazy_rejected(const uint8_t *buf, size_t len, long n, const char *err)
{
    argus_parser *lazy = argus_parser_new();
    argus_record *l = NULL;
    if (argus_scan_record(lazy, buf, len, &l) >= 0)
        CHECK(l->fields_pending && n < 0 && strstr(err, "appears twice"));
    argus_parser_free(lazy);
}

/* ---- rejections ---------------------------------------------------------- */

/* Whether libcbor's own decoder (cbor_load) reads a map with text keys at
 * BUF, in *USED bytes. argus_cbor_item_len first, so that no declared
 * length larger than the buffer reaches cbor_load's allocations. */
static bool libcbor_reads_map(const uint8_t *buf, size_t len, size_t *used)
{
    if (argus_cbor_item_len(buf, len) == 0)
        return false;
    struct cbor_load_result res;
    cbor_item_t *item = cbor_load(buf, len, &res);
    if (!item)
        return false;
    bool ok = res.error.code == CBOR_ERR_NONE && cbor_isa_map(item);
    if (ok) {
        struct cbor_pair *pairs = cbor_map_handle(item);
        for (size_t i = 0; i < cbor_map_size(item); i++)
            ok = ok && cbor_isa_string(pairs[i].key);
    }
    *used = res.read;
    cbor_decref(&item);
    return ok;
}

/* The parser said N (0: more data, -1: ERR) of the record at BUF: for a
 * complaint about the CBOR itself, libcbor must not read a good map there. */
static void check_rejection(const uint8_t *buf, size_t len, long n,
                            const char *err)
{
    static const char *const cbor_level[] = {
        "malformed CBOR", "unexpected break", "bad chunk", "map too large",
        "indefinite map with a key and no value", "record is not a CBOR map",
        "a key is not a text string",
    };
    bool about_cbor = n == 0;
    /* the whole message, or the phrase and " at byte N of the record": a
     * message about a record may quote its type name, which can hold
     * these words (a type named "malformed CBORue") */
    for (size_t i = 0; n < 0 && i < sizeof cbor_level / sizeof *cbor_level; i++) {
        size_t k = strlen(cbor_level[i]);
        about_cbor = about_cbor ||
                     (strncmp(err, cbor_level[i], k) == 0 &&
                      (err[k] == 0 || strncmp(err + k, " at byte ", 9) == 0 ||
                       strncmp(err + k, " in an indefinite-length string at byte ", 40) == 0));
    }
    size_t used = 0;
    if (about_cbor && libcbor_reads_map(buf, len, &used)) {
        fprintf(stderr, "fuzz-stream: the parser gives %ld (%s) for a record "
                        "that libcbor reads as a map with text keys in %zu "
                        "of %zu bytes\n", n, n < 0 ? err : "more data",
                used, len);
        abort();
    }
}

/* ---- accessors ------------------------------------------------------------ */

static void exercise_accessors(const argus_record *r)
{
    touch(r->raw, r->raw_len);
    CHECK(r->type_name);
    touch(r->type_name, r->type_len);
    CHECK(r->type >= 0 && r->type < ARGUS_T_COUNT);
    touch(argus_type_name(r->type), strlen(argus_type_name(r->type)));
    sink += argus_type_is_event(r->type) + r->is_event + r->has_ts + r->has_pid;
    sink += r->id + r->ts + r->tid + r->pid;
    CHECK(r->nfields > 0);

    for (unsigned i = 0; i < r->nfields; i++) {
        const argus_field *f = &r->fields[i];
        CHECK(f->key_off < f->val_off && f->val_off < f->end_off);
        CHECK(f->end_off <= r->raw_len);
        CHECK(f->key_id < ARGUS_K_COUNT);
        CHECK(f->kind >= ARGUS_V_UINT && f->kind <= ARGUS_V_TAG);
        touch(f->key, f->key_len);
        CHECK(argus_key_lookup(f->key, f->key_len) == f->key_id);
        sink += (uint64_t)argus_key_class(f->key_id);
        touch(argus_key_name(f->key_id), strlen(argus_key_name(f->key_id)));
        if (f->key_id != ARGUS_K_UNKNOWN)
            CHECK(argus_get(r, f->key_id) == f);
        if ((f->kind == ARGUS_V_TEXT || f->kind == ARGUS_V_BYTES) && f->s)
            touch(f->s, f->slen);
        sink += f->u + (uint64_t)(f->f == f->f);
        /* a value is one well-formed CBOR item spanning its bytes */
        CHECK(argus_cbor_item_len(r->raw + f->val_off,
                                  r->raw_len - f->val_off) ==
              f->end_off - f->val_off);
    }

    for (int k = 0; k < ARGUS_K_COUNT; k++) {
        const argus_field *f = argus_get(r, k);
        if (f) {
            CHECK(f >= r->fields && f < r->fields + r->nfields);
            CHECK(f->key_id == k);
        }
        uint64_t u;
        if (argus_get_uint(r, k, &u)) {
            CHECK(f && f->kind == ARGUS_V_UINT);
            sink += u;
        }
        int64_t i64;
        if (argus_get_int(r, k, &i64))
            sink += (uint64_t)i64;
        bool b;
        if (argus_get_bool(r, k, &b))
            sink += b;
        size_t len = 0;
        const char *s = argus_get_text(r, k, &len);
        if (s) {
            touch(s, len);
            CHECK(argus_get_text(r, k, NULL) == s);
        }
        sink += argus_text_is(r, k, "stream") + argus_text_is(r, k, "");
    }

    static const int arrays[] = {ARGUS_K_ARGS, ARGUS_K_FRAMES, ARGUS_K_STAGES,
                                 ARGUS_K_VOUCHER_PIDS};
    for (size_t a = 0; a < sizeof arrays / sizeof arrays[0]; a++) {
        int k = arrays[a];
        uint64_t u[MAX_ELEMS];
        argus_text t[MAX_ELEMS];
        for (int max = 0; max <= MAX_ELEMS; max += MAX_ELEMS / 2) {
            int n = argus_get_uint_array(r, k, u, max);
            CHECK(n >= -1 && n <= max);
            for (int i = 0; i < n; i++)
                sink += u[i];
            n = argus_get_text_array(r, k, t, max);
            CHECK(n >= -1 && n <= max);
            for (int i = 0; i < n; i++) {
                const uint8_t *s = (const uint8_t *)t[i].s;
                CHECK(s >= r->raw && t[i].len <= r->raw_len &&
                      (size_t)(s - r->raw) <= r->raw_len - t[i].len);
                touch(s, t[i].len);
            }
        }
        /* the array accessors of the other keys (wrong class) too */
        sink += (uint64_t)argus_get_uint_array(r, ARGUS_K_TYPE, u, MAX_ELEMS);
        sink += (uint64_t)argus_get_text_array(r, ARGUS_K_ID, t, MAX_ELEMS);
    }
}

/* ---- prefixes --------------------------------------------------------- */

/* Every proper prefix asks for more data. */
static void check_prefix(const uint8_t *rec, size_t len, size_t cut)
{
    if (cut >= len)
        return;
    uint8_t *pre = malloc(cut ? cut : 1);
    CHECK(pre);
    memcpy(pre, rec, cut);
    argus_record *r = NULL;
    char err[256] = "";
    long n = argus_parse_record(check_parser, pre, cut, &r, err, sizeof err);
    if (n != 0) {
        fprintf(stderr, "fuzz-stream: a %zu-byte record cut to %zu bytes "
                        "gives %ld, not 0 (need more data): %s\n",
                len, cut, n, n < 0 ? err : "");
        abort();
    }
    free(pre);
}

/* ---- writer ------------------------------------------------------------- */

static const argus_set edits[] = {
    {.key = ARGUS_K_SEG, .op = ARGUS_SET_UINT, .u = 42},
    {.key = ARGUS_K_CTX, .op = ARGUS_SET_TEXT, .s = "interrupt"},
    {.key = ARGUS_K_NOTE, .op = ARGUS_SET_REMOVE},
    {.key = ARGUS_K_UNKNOWN, .name = MARK, .op = ARGUS_SET_BOOL, .u = 1},
};
#define NEDITS (sizeof edits / sizeof edits[0])

static bool is_mark(const argus_field *f)
{
    return f->key_id == ARGUS_K_UNKNOWN && f->key_len == strlen(MARK) &&
           memcmp(f->key, MARK, f->key_len) == 0;
}

static bool edited(const argus_field *f)
{
    return f->key_id == ARGUS_K_SEG || f->key_id == ARGUS_K_CTX ||
           f->key_id == ARGUS_K_NOTE || is_mark(f);
}

static bool same_field(const argus_record *a, const argus_field *fa,
                       const argus_record *b, const argus_field *fb)
{
    size_t la = fa->end_off - fa->key_off, lb = fb->end_off - fb->key_off;
    return la == lb && memcmp(a->raw + fa->key_off, b->raw + fb->key_off, la) == 0;
}

/* What argus_write_edited wrote for R (in OUT) carries the edits and every
 * other field of R unchanged and in order. */
static void check_edited(const argus_record *r, const uint8_t *out, size_t len)
{
    unsigned marks = 0, kept = 0;
    bool had_seg = argus_get(r, ARGUS_K_SEG), had_ctx = argus_get(r, ARGUS_K_CTX);
    bool had_note = argus_get(r, ARGUS_K_NOTE);
    for (unsigned i = 0; i < r->nfields; i++)
        marks += is_mark(&r->fields[i]);
    for (unsigned i = 0; i < r->nfields; i++)
        kept += !edited(&r->fields[i]);

    const argus_record *e = parse_one(out, len);
    CHECK(e->nfields == r->nfields - had_note + !had_seg + !had_ctx + !marks);
    CHECK(e->type_len == r->type_len &&
          memcmp(e->type_name, r->type_name, r->type_len) == 0);
    uint64_t u = 0;
    CHECK(argus_get_uint(e, ARGUS_K_SEG, &u) && u == 42);
    CHECK(argus_text_is(e, ARGUS_K_CTX, "interrupt"));
    CHECK(!argus_get(e, ARGUS_K_NOTE));
    unsigned emarks = 0, ekept = 0, j = 0;
    for (unsigned i = 0; i < e->nfields; i++) {
        const argus_field *f = &e->fields[i];
        if (is_mark(f)) {
            CHECK(f->kind == ARGUS_V_BOOL && f->u == 1);
            emarks++;
        }
        if (edited(f))
            continue;
        /* the next kept field of r */
        while (j < r->nfields && edited(&r->fields[j]))
            j++;
        CHECK(j < r->nfields);
        CHECK(same_field(r, &r->fields[j], e, f));
        j++;
        ekept++;
    }
    CHECK(emarks == (marks ? marks : 1));
    CHECK(ekept == kept);
}

/* What argus_write_header wrote for R has COMMAND appended to "stages" and
 * every other field unchanged. */
static void check_header(const argus_record *r, const uint8_t *out, size_t len)
{
    const argus_field *st = argus_get(r, ARGUS_K_STAGES);
    const argus_record *h = parse_one(out, len);
    CHECK(h->nfields == r->nfields + (st ? 0 : 1));
    for (unsigned i = 0; i < r->nfields; i++) {
        const argus_field *f = &r->fields[i];
        if (f != st)
            CHECK(same_field(r, f, h, &h->fields[i]));
    }
    const argus_field *hst = argus_get(h, ARGUS_K_STAGES);
    CHECK(hst && hst->kind == ARGUS_V_ARRAY);
    argus_text before[MAX_ELEMS], after[MAX_ELEMS];
    int nb = st && st->kind == ARGUS_V_ARRAY
                 ? argus_get_text_array(r, ARGUS_K_STAGES, before, MAX_ELEMS)
                 : 0;
    int na = argus_get_text_array(h, ARGUS_K_STAGES, after, MAX_ELEMS);
    if (nb < 0 || nb >= MAX_ELEMS - 1)
        return; /* not all text, or too long to see the end */
    CHECK(na == nb + 1);
    for (int i = 0; i < nb; i++)
        CHECK(before[i].len == after[i].len &&
              memcmp(before[i].s, after[i].s, before[i].len) == 0);
    CHECK(after[nb].len == strlen(COMMAND) &&
          memcmp(after[nb].s, COMMAND, after[nb].len) == 0);
}

/* Makes S name field F: by id when known, else by its text in NAME (room
 * for 64 bytes); false when the name cannot be given as a C string. */
static bool name_field(const argus_field *f, argus_set *s, char *name)
{
    memset(s, 0, sizeof *s);
    s->key = f->key_id;
    if (f->key_id != ARGUS_K_UNKNOWN)
        return true;
    if (f->key_len >= 64 || memchr(f->key, 0, f->key_len))
        return false;
    memcpy(name, f->key, f->key_len);
    name[f->key_len] = 0;
    s->name = name;
    return true;
}

/* OUT (LEN bytes) is one definite map whose pairs fill it exactly. */
static void check_map_shape(const uint8_t *out, size_t len)
{
    argus_cbor_head_info h;
    CHECK(argus_cbor_read_head(out, len, &h));
    CHECK(h.major == CBOR_MAP && h.info != 31);
    size_t off = h.len;
    for (uint64_t i = 0; i < h.arg * 2; i++) {
        CHECK(off < len);
        size_t k = argus_cbor_item_len(out + off, len - off);
        CHECK(k > 0);
        off += k;
    }
    CHECK(off == len);
}

/* Edits chosen by the record's own bytes: one of its fields removed,
 * another set to a text, and a key with an empty name added. What is
 * written may not be a valid record (the type may be gone), but it is
 * one map with as many pairs as its head says. */
static void edit_own_fields(argus_writer *null, const argus_record *r)
{
    argus_set sets[3];
    char n1[64], n2[64];
    unsigned ns = 0;
    const argus_field *f1 = &r->fields[r->raw[r->raw_len - 1] % r->nfields];
    const argus_field *f2 = &r->fields[r->raw[r->raw_len / 2] % r->nfields];
    if (name_field(f1, &sets[ns], n1))
        sets[ns++].op = ARGUS_SET_REMOVE;
    if (name_field(f2, &sets[ns], n2)) {
        sets[ns].op = ARGUS_SET_TEXT;
        sets[ns++].s = "edited";
    }
    sets[ns++] = (argus_set){.key = ARGUS_K_UNKNOWN, .name = "",
                             .op = ARGUS_SET_UINT, .u = UINT64_MAX};
    argus_write_edited(null, r, sets, ns);

    size_t len;
    mem_begin();
    argus_write_edited(mem_writer, r, sets, ns);
    uint8_t *out = mem_take(&len);
    check_map_shape(out, len);
    free(out);
}

static void exercise_writer(argus_writer *null, const argus_record *r)
{
    edit_own_fields(null, r);

    argus_write_record(null, r);
    argus_write_edited(null, r, edits, NEDITS);
    argus_write_edited(null, r, edits, 1);
    argus_write_edited(null, r, NULL, 0);
    argus_write_header(null, r, COMMAND);
    argus_write_header(null, r, "");

    size_t len;
    uint8_t *out;

    mem_begin();
    argus_write_record(mem_writer, r);
    out = mem_take(&len);
    CHECK(len == r->raw_len && memcmp(out, r->raw, len) == 0);
    free(out);

    mem_begin();
    argus_write_edited(mem_writer, r, NULL, 0);
    out = mem_take(&len);
    const argus_record *e = parse_one(out, len);
    CHECK(e->nfields == r->nfields);
    for (unsigned i = 0; i < r->nfields; i++)
        CHECK(same_field(r, &r->fields[i], e, &e->fields[i]));
    free(out);

    mem_begin();
    argus_write_edited(mem_writer, r, edits, NEDITS);
    out = mem_take(&len);
    check_edited(r, out, len);
    free(out);

    mem_begin();
    argus_write_header(mem_writer, r, COMMAND);
    out = mem_take(&len);
    check_header(r, out, len);
    free(out);
}

/* ---- the target ------------------------------------------------------------ */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    argus_parser *p = argus_parser_new();
    check_parser = argus_parser_new();
    argus_writer *null = argus_writer_null();
    size_t off = 0;
    for (int nrec = 0; off < size && nrec < MAX_RECORDS; nrec++) {
        argus_record *r = NULL;
        char err[256];
        err[0] = 0;
        long n = argus_parse_record(p, data + off, size - off, &r, err,
                                    sizeof err);
        if (n <= 0) {
            if (n < 0)
                CHECK(memchr(err, 0, sizeof err) && err[0]);
            check_lazy_rejected(data + off, size - off, n, err);
            /* a parser that parsed nothing before says the same */
            argus_parser *fresh = argus_parser_new();
            argus_record *c = NULL;
            char err2[256];
            err2[0] = 0;
            long nc = argus_parse_record(fresh, data + off, size - off, &c,
                                         err2, sizeof err2);
            if (nc != n || (n < 0 && strcmp(err, err2) != 0)) {
                fprintf(stderr, "fuzz-stream: record %d (byte %zu) gives %ld "
                                "(%s) after the records before it, %ld (%s) "
                                "alone\n", nrec + 1, off, n, n < 0 ? err : "",
                        nc, nc < 0 ? err2 : "");
                abort();
            }
            argus_parser_free(fresh);
            check_rejection(data + off, size - off, n, err);
            break;
        }
        CHECK((size_t)n <= size - off);
        CHECK(r && r->raw == data + off && r->raw_len == (size_t)n);
        check_lazy(data + off, size - off, r);
        check_sparse(data + off, size - off, r);

        /* the same record alone, in a buffer of its own length, parsed
         * by a parser of its own */
        size_t len = (size_t)n;
        uint8_t *rec = malloc(len);
        CHECK(rec);
        memcpy(rec, data + off, len);
        argus_parser *fresh = argus_parser_new();
        argus_record *c = NULL;
        long nc = argus_parse_record(fresh, rec, len, &c, err, sizeof err);
        if (nc != n) {
            fprintf(stderr, "fuzz-stream: record %d (byte %zu) parses to %ld "
                            "in the stream, to %ld alone: %s\n",
                    nrec + 1, off, n, nc, nc < 0 ? err : "");
            abort();
        }
        check_same_parse(r, c);

        exercise_accessors(r);
        exercise_accessors(c);
        exercise_writer(null, c);

        check_prefix(rec, len, len - 1);
        check_prefix(rec, len, len / 2);
        check_prefix(rec, len, rec[len - 1] % len);
        argus_parser_free(fresh);
        free(rec);
        off += len;
    }
    argus_writer_close(null);
    argus_parser_free(p);
    argus_parser_free(check_parser);
    check_parser = NULL;
    return 0;
}
