/* perf.data to an argus stream (include/argus/decode/perfdata.h).
 *
 * The layout (tools/perf/Documentation/perf.data-file-format.txt): a
 * 104-byte header (magic "PERFILE2", the attrs, data and feature
 * sections), the attributes (perf_event_attr, then the section of the
 * sample ids that name it), the data section's records (perf_event_header
 * then a body), then after the data a table of sections, one per feature
 * bit set in the header; feature 1 (HEADER_TRACING_DATA) holds the event
 * formats exactly as a trace.dat v6 does. A piped perf.data has a 16-byte
 * header and carries its attributes and tracing data as records instead.
 *
 * Records reach the ftrace decoder in time order: perf writes each CPU's
 * buffer in turn, a round at a time (PERF_RECORD_FINISHED_ROUND), so the
 * records of a round are held, sorted, and those no later than the last
 * time of the round before are passed on (perf's own rule: no record of a
 * later round is older). What is held is an offset and a time per record
 * of two rounds at most; the file is mapped, never read into memory.
 *
 * perf record -z writes the ring buffers' data as PERF_RECORD_COMPRESSED
 * records (COMPRESSED2 since perf 6.15: a data size, then the data padded
 * to 8 bytes): one zstd stream decompressed across them, whose output is
 * more records, a record sometimes cut between two of them (the ring
 * buffer's wrap). They are decompressed as the walk meets them into an
 * arena that keeps the records of the rounds still held (a held record's
 * offset then has PD_ARENA set and counts bytes of the decompressed
 * stream); what every held record is past is dropped. One concern,
 * perf.data's records, at 1.3k lines: its two layouts, the rounds and the
 * compressed records all feed one time-ordered walk. */
#include "argus/decode/perfdata.h"
#include "argus/decode/decoder.h"
#include "argus/stream/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-seq.h>
#include <zstd.h>

#define PD_MAGIC "PERFILE2"
#define PD_MAGIC_SWAPPED "2ELIFREP" /* a big-endian machine's file */
#define PD_HEADER_SIZE 104
#define PD_PIPE_HEADER_SIZE 16
#define PD_FEAT_TRACING_DATA 1
#define PD_FEAT_COMPRESSED 27      /* HEADER_COMPRESSED: version, type, level, ratio, mmap_len */
#define PD_COMP_ZSTD 1
#define PD_ARENA (1ull << 63)      /* an offset in the decompressed stream, not the file */
#define PD_INFLATE_MAX (64u << 20)  /* one compressed record's data, decompressed (perf: at most its mmap size) */
#define PD_TYPE_TRACEPOINT 2
#define PD_ATTR_SIZE_VER0 64

/* perf_event_header.type values read here (include/uapi/linux/perf_event.h
 * and tools/lib/perf/include/perf/event.h) */
enum {
    REC_LOST = 2, REC_COMM = 3, REC_EXIT = 4, REC_FORK = 7, REC_SAMPLE = 9,
    REC_LOST_SAMPLES = 13,
    REC_HEADER_ATTR = 64, REC_HEADER_TRACING_DATA = 66, REC_FINISHED_ROUND = 68,
    REC_AUXTRACE = 71, REC_COMPRESSED = 81, REC_FINISHED_INIT = 82, REC_COMPRESSED2 = 83,
};

/* perf_event_attr.sample_type bits, in the order their fields come */
enum {
    S_IP = 1u << 0, S_TID = 1u << 1, S_TIME = 1u << 2, S_ADDR = 1u << 3,
    S_READ = 1u << 4, S_CALLCHAIN = 1u << 5, S_ID = 1u << 6, S_CPU = 1u << 7,
    S_PERIOD = 1u << 8, S_STREAM_ID = 1u << 9, S_RAW = 1u << 10,
    S_IDENTIFIER = 1u << 16,
};
/* perf_event_attr.read_format bits */
enum { R_ENABLED = 1, R_RUNNING = 2, R_ID = 4, R_GROUP = 8, R_LOST = 16 };

typedef struct pd_attr {
    uint32_t type;
    uint64_t config;        /* for a tracepoint, its event id */
    uint64_t sample_type, read_format;
    bool sample_id_all;     /* non-sample records end with the sample id */
    struct tep_event *event;
} pd_attr;

typedef struct pd_id {
    uint64_t id;
    uint32_t attr;
} pd_id;

/* A thread as perf's COMM and FORK records name it. */
typedef struct pd_thread {
    int32_t tid, pid, ppid;
    bool used;
    char comm[17];
} pd_thread;

/* A record held for ordering: its time and where it is. */
typedef struct pd_held {
    uint64_t ts, off;
} pd_held;

/* Where the decompressed bytes from VSTART on came from: the compressed
 * record at byte FILE_AT (for messages). */
typedef struct pd_zseg {
    uint64_t vstart, file_at;
} pd_zseg;

typedef struct pd_file {
    const uint8_t *p;
    size_t len;
    const char *name;
    bool pipe;
    uint64_t data_off, data_end;
    pd_attr *attrs;
    size_t n_attrs;
    pd_id *ids;
    size_t n_ids, cap_ids;
    struct tep_handle *tep;
    bool have_tracing;
    char *err;
    size_t errlen;
    /* a pass */
    argus_ft *d;
    FILE *text;             /* argus_pd_render: the lines go there */
    bool prescan;
    int rc;
    pd_thread *threads;
    size_t cap_threads, n_threads;
    pd_held *held;
    size_t n_held, cap_held;
    uint64_t round_max, prev_round_max;
    struct trace_seq s;
    uint8_t *raw;           /* a sample's raw data, NUL-padded */
    size_t cap_raw;
    char *line;
    size_t cap_line;
    /* perf record -z: the decompressed stream */
    bool compressed;        /* HEADER_COMPRESSED said zstd */
    uint32_t comp_level, mmap_len;
    ZSTD_DStream *zd;
    uint8_t *arena;         /* its bytes from arena_base on */
    size_t arena_len, arena_cap;
    uint64_t arena_base;
    uint64_t z_next;        /* the next record to walk in it */
    pd_zseg *zsegs;
    size_t n_zsegs, cap_zsegs;
    uint64_t z_records, z_bytes, z_out; /* compressed records, their bytes, decompressed */
} pd_file;

bool argus_pd_sniff(const uint8_t *buf, size_t len)
{
    return len >= 8 && (memcmp(buf, PD_MAGIC, 8) == 0 || memcmp(buf, PD_MAGIC_SWAPPED, 8) == 0);
}

static int pd_fail(pd_file *f, uint64_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int pd_fail(pd_file *f, uint64_t at, const char *fmt, ...)
{
    int n;
    if (at & PD_ARENA) {
        /* a record decompressed: the compressed record it came from */
        uint64_t v = at & ~PD_ARENA, file_at = 0;
        for (size_t i = 0; i < f->n_zsegs && f->zsegs[i].vstart <= v; i++)
            file_at = f->zsegs[i].file_at;
        n = snprintf(f->err, f->errlen, "%s: byte %llu: in the data of a compressed record, "
                     "byte %llu of the data decompressed: ", f->name,
                     (unsigned long long)file_at, (unsigned long long)v);
    } else {
        n = snprintf(f->err, f->errlen, "%s: byte %llu: ", f->name, (unsigned long long)at);
    }
    if (n < 0 || (size_t)n >= f->errlen)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->err + n, f->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static uint64_t rd64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static uint16_t rd16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

/* Whether [OFF, OFF+N) is inside the file. */
static bool in_file(const pd_file *f, uint64_t off, uint64_t n)
{
    return off <= f->len && n <= f->len - off;
}

/* The bytes of the record at AT: in the file, or decompressed. */
static const uint8_t *rec_at(const pd_file *f, uint64_t at)
{
    if (at & PD_ARENA)
        return f->arena + ((at & ~PD_ARENA) - f->arena_base);
    return f->p + at;
}

/* The bytes from AT to the end of its data: the data section's, or the
 * decompressed stream's so far. */
static uint64_t room_at(const pd_file *f, uint64_t at)
{
    if (at & PD_ARENA)
        return f->arena_base + f->arena_len - (at & ~PD_ARENA);
    return at <= f->data_end ? f->data_end - at : 0;
}

/* ---- Attributes and ids ---------------------------------------------------- */

static int add_attr(pd_file *f, const uint8_t *a, uint64_t size, uint64_t at)
{
    if (size < PD_ATTR_SIZE_VER0)
        return pd_fail(f, at, "an event attribute of %llu bytes (at least %d)",
                       (unsigned long long)size, PD_ATTR_SIZE_VER0);
    if (f->n_attrs >= 4096)
        return pd_fail(f, at, "more than 4096 event attributes");
    pd_attr *grown = realloc(f->attrs, (f->n_attrs + 1) * sizeof *grown);
    if (!grown)
        abort(); /* the trial child runs this too: formats_survive */
    f->attrs = grown;
    pd_attr *x = &f->attrs[f->n_attrs++];
    *x = (pd_attr){.type = rd32(a), .config = rd64(a + 8), .sample_type = rd64(a + 24),
                   .read_format = rd64(a + 32), .sample_id_all = (rd64(a + 40) >> 18) & 1};
    return 0;
}

static void add_id(pd_file *f, uint64_t id, uint32_t attr)
{
    if (f->n_ids == f->cap_ids) {
        f->cap_ids = f->cap_ids ? 2 * f->cap_ids : 64;
        f->ids = realloc(f->ids, f->cap_ids * sizeof *f->ids);
        if (!f->ids)
            abort(); /* the trial child runs this too: formats_survive */
    }
    f->ids[f->n_ids++] = (pd_id){id, attr};
}

static int cmp_id(const void *a, const void *b)
{
    const pd_id *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The attribute of sample id ID, or NULL. */
static pd_attr *attr_of_id(pd_file *f, uint64_t id)
{
    if (f->n_attrs == 1)
        return &f->attrs[0];
    pd_id key = {.id = id};
    pd_id *hit = bsearch(&key, f->ids, f->n_ids, sizeof *f->ids, cmp_id);
    return hit ? &f->attrs[hit->attr] : NULL;
}

/* The file header's attrs section: perf_file_attr (the attr, then the
 * section of its ids), each ATTR_SIZE bytes. */
static int read_attrs(pd_file *f)
{
    const uint8_t *h = f->p;
    uint64_t attr_size = rd64(h + 16), off = rd64(h + 24), size = rd64(h + 32);
    if (attr_size < PD_ATTR_SIZE_VER0 + 16 || attr_size > 4096)
        return pd_fail(f, 16, "an attribute size of %llu bytes (from %d to 4096)",
                       (unsigned long long)attr_size, PD_ATTR_SIZE_VER0 + 16);
    if (!in_file(f, off, size) || size % attr_size)
        return pd_fail(f, 24, "the attributes section (%llu bytes at byte %llu) is not "
                       "whole attributes inside the file of %zu bytes",
                       (unsigned long long)size, (unsigned long long)off, f->len);
    for (uint64_t a = off; a < off + size; a += attr_size) {
        if (add_attr(f, f->p + a, attr_size - 16, a) < 0)
            return -1;
        uint64_t ids_off = rd64(f->p + a + attr_size - 16), ids_size = rd64(f->p + a + attr_size - 8);
        if (!in_file(f, ids_off, ids_size) || ids_size % 8)
            return pd_fail(f, a + attr_size - 16, "the ids of an attribute (%llu bytes at "
                           "byte %llu) are not inside the file", (unsigned long long)ids_size,
                           (unsigned long long)ids_off);
        for (uint64_t i = 0; i < ids_size; i += 8)
            add_id(f, rd64(f->p + ids_off + i), (uint32_t)(f->n_attrs - 1));
    }
    if (!f->n_attrs)
        return pd_fail(f, 24, "no event attributes");
    return 0;
}

/* ---- Tracing data ----------------------------------------------------------- */

/* A cursor over the tracing data, for its failures' places. */
typedef struct td_cursor {
    const uint8_t *p;
    uint64_t at, end; /* offsets in the file */
} td_cursor;

static bool take(td_cursor *c, uint64_t n, const uint8_t **out)
{
    if (n > c->end - c->at)
        return false;
    *out = c->p + c->at;
    c->at += n;
    return true;
}

static char *nul_copy(const uint8_t *p, uint64_t n)
{
    char *s = malloc(n + 1);
    if (!s)
        abort(); /* the trial child runs this too: formats_survive */
    memcpy(s, p, n);
    s[n] = 0;
    return s;
}

/* The tracing data (tools/perf/util/trace-event-read.c's layout, integers
 * in the file's byte order): magic, version, endianness, long size, page
 * size, header_page, header_event, the ftrace formats, the event formats
 * per system, kallsyms, printk formats, saved cmdlines (version 0.6). */
static int read_tracing(pd_file *f, uint64_t off, uint64_t size)
{
    td_cursor c = {f->p, off, off + size};
    const uint8_t *b;
#define NEED(n, what)                                                           \
    do {                                                                        \
        if (!take(&c, (n), &b))                                                 \
            return pd_fail(f, c.at, "the tracing data ends inside %s", (what)); \
    } while (0)
    NEED(10, "its magic");
    if (memcmp(b, "\027\010Dtracing", 10) != 0)
        return pd_fail(f, c.at - 10, "the tracing data has not its magic \"\\027\\010Dtracing\"");
    uint64_t vstart = c.at;
    while (c.at < c.end && f->p[c.at])
        c.at++;
    NEED(1, "its version");
    char version[16];
    snprintf(version, sizeof version, "%.*s", (int)(c.at - 1 - vstart), f->p + vstart);
    NEED(6, "its byte order, long size and page size");
    if (b[0] != 0)
        return pd_fail(f, c.at - 6, "big-endian tracing data: not read (record on a little-endian machine)");
    if (b[1] != 4 && b[1] != 8)
        return pd_fail(f, c.at - 5, "a long size of %u bytes (4 or 8)", b[1]);
    tep_set_file_bigendian(f->tep, TEP_LITTLE_ENDIAN);
    tep_set_local_bigendian(f->tep, TEP_LITTLE_ENDIAN);
    tep_set_long_size(f->tep, b[1]);
    tep_set_page_size(f->tep, (int)rd32(b + 2));
    int long_size = b[1];
    /* header_page then header_event: a NUL-terminated name, a u64 size */
    static const char *const headers[] = {"header_page", "header_event"};
    for (int i = 0; i < 2; i++) {
        size_t n = strlen(headers[i]) + 1;
        NEED(n, headers[i]);
        if (memcmp(b, headers[i], n) != 0)
            return pd_fail(f, c.at - n, "the tracing data has no %s", headers[i]);
        NEED(8, headers[i]);
        uint64_t len = rd64(b);
        NEED(len, headers[i]);
        if (i == 0) {
            char *copy = nul_copy(b, len);
            int rc = tep_parse_header_page(f->tep, copy, len, long_size);
            free(copy);
            if (rc < 0)
                return pd_fail(f, c.at - len, "libtraceevent cannot parse its header_page");
        }
    }
    /* the ftrace formats, then each system's */
    NEED(4, "the ftrace formats");
    uint32_t n_ftrace = rd32(b);
    for (uint32_t i = 0; i < n_ftrace; i++) {
        NEED(8, "an ftrace format");
        uint64_t len = rd64(b);
        NEED(len, "an ftrace format");
        tep_parse_event(f->tep, (const char *)b, len, "ftrace"); /* one bad format is left out */
    }
    NEED(4, "the event systems");
    uint32_t n_systems = rd32(b);
    for (uint32_t i = 0; i < n_systems; i++) {
        uint64_t sys = c.at;
        while (c.at < c.end && f->p[c.at])
            c.at++;
        NEED(1, "a system's name");
        char system[64];
        snprintf(system, sizeof system, "%.*s", (int)(c.at - 1 - sys), f->p + sys);
        NEED(4, "a system's formats");
        uint32_t n = rd32(b);
        for (uint32_t j = 0; j < n; j++) {
            NEED(8, "an event format");
            uint64_t len = rd64(b);
            NEED(len, "an event format");
            tep_parse_event(f->tep, (const char *)b, len, system);
        }
    }
    /* kallsyms, the printk formats and the saved cmdlines are skipped: argus
     * needs none (symbols print as addresses, the names come from COMM
     * records, bprint events are not rendered), and libtraceevent 1.7's
     * tep_parse_printk_formats reads past its copy of a damaged list */
    NEED(4, "kallsyms");
    uint32_t len32 = rd32(b);
    NEED(len32, "kallsyms");
    NEED(4, "the printk formats");
    len32 = rd32(b);
    NEED(len32, "the printk formats");
    if (strcmp(version, "0.5") != 0 && c.at < c.end) {
        NEED(8, "the saved cmdlines");
        uint64_t len = rd64(b);
        NEED(len, "the saved cmdlines");
    }
#undef NEED
    f->have_tracing = true;
    return 0;
}

/* The section of feature BIT (1 when its bit is set, 0 when not, -1 on
 * damage): the feature sections' table, after the data, has one section
 * per bit set, in bit order. */
static int feature_section(pd_file *f, unsigned bit, const char *what, uint64_t *off,
                           uint64_t *size)
{
    const uint8_t *bits = f->p + 72; /* 256 bits */
    if (!((bits[bit / 8] >> (bit % 8)) & 1))
        return 0;
    uint64_t before = 0;
    for (unsigned i = 0; i < bit; i++)
        before += (bits[i / 8] >> (i % 8)) & 1;
    uint64_t table = f->data_end + before * 16;
    if (!in_file(f, table, 16))
        return pd_fail(f, table, "the feature sections' table is not inside the file "
                       "of %zu bytes (a file cut short?)", f->len);
    *off = rd64(f->p + table);
    *size = rd64(f->p + table + 8);
    if (!in_file(f, *off, *size))
        return pd_fail(f, table, "the %s section (%llu bytes at byte %llu) is not inside "
                       "the file of %zu bytes", what, (unsigned long long)*size,
                       (unsigned long long)*off, f->len);
    return 1;
}

/* The tracing data (bit 1) and how the data is compressed (bit 27). */
static int read_features(pd_file *f)
{
    uint64_t off, size;
    int rc = feature_section(f, PD_FEAT_COMPRESSED, "compression", &off, &size);
    if (rc < 0)
        return -1;
    if (rc > 0) {
        if (size < 20)
            return pd_fail(f, off, "a compression section of %llu bytes (20 expected)",
                           (unsigned long long)size);
        uint32_t type = rd32(f->p + off + 4);
        if (type != PD_COMP_ZSTD)
            return pd_fail(f, off, "data compressed by method %u: not read (perf record -z "
                           "writes zstd, method 1)", type);
        f->compressed = true;
        f->comp_level = rd32(f->p + off + 8);
        f->mmap_len = rd32(f->p + off + 16);
    }
    rc = feature_section(f, PD_FEAT_TRACING_DATA, "tracing data", &off, &size);
    return rc <= 0 ? rc : read_tracing(f, off, size);
}

/* Each attribute's event, for tracepoints. The ftrace system's own
 * (function, print, bprint: the function tracer's records, not argus's
 * events) are left out: their text comes from printk formats and
 * argument lists in the record, which libtraceevent trusts. */
static void find_events(pd_file *f)
{
    for (size_t i = 0; i < f->n_attrs; i++) {
        if (f->attrs[i].type != PD_TYPE_TRACEPOINT || f->attrs[i].config > INT32_MAX)
            continue;
        struct tep_event *ev = tep_find_event(f->tep, (int)f->attrs[i].config);
        if (ev && ev->system && strcmp(ev->system, "ftrace") != 0)
            f->attrs[i].event = ev;
    }
}

/* ---- Records ----------------------------------------------------------------- */

/* A record's size: the header's, plus what follows some records outside it. */
static int record_span(pd_file *f, uint64_t at, uint64_t *size)
{
    uint64_t room = room_at(f, at);
    if (!(at & PD_ARENA) && !in_file(f, at, 8))
        room = 0;
    if (room < 8)
        return pd_fail(f, at, "the data ends inside a record's header (a file cut short?)");
    const uint8_t *r = rec_at(f, at);
    uint32_t type = rd32(r);
    uint16_t n = rd16(r + 6);
    if (n < 8)
        return pd_fail(f, at, "a record of %u bytes (type %u), less than its header", n, type);
    uint64_t extra = 0;
    if (type == REC_HEADER_TRACING_DATA && n >= 12)
        extra = rd32(r + 8);
    else if (type == REC_AUXTRACE && n >= 16)
        extra = rd64(r + 8);
    if (extra > room || n > room - extra) {
        if (at & PD_ARENA)
            return pd_fail(f, at, "a record of %llu bytes (type %u) goes past the end of the "
                           "compressed data (%llu bytes there)", (unsigned long long)(n + extra),
                           type, (unsigned long long)room);
        return pd_fail(f, at, "a record of %llu bytes (type %u) goes past the end of the "
                       "data at byte %llu (a file cut short?)", (unsigned long long)(n + extra),
                       type, (unsigned long long)f->data_end);
    }
    *size = n + extra;
    return 0;
}

/* A sample's fields, as far as argus reads them. */
typedef struct pd_sample {
    pd_attr *attr;
    uint32_t pid, tid, cpu;
    uint64_t ts;
    const uint8_t *raw;
    uint32_t raw_size;
} pd_sample;

static bool skip(const uint8_t **p, const uint8_t *end, uint64_t n)
{
    if (n > (uint64_t)(end - *p))
        return false;
    *p += n;
    return true;
}

/* The id of a sample at AT: the first field with IDENTIFIER, else the ID
 * field after IP, TID, TIME and ADDR (perf requires every attribute to put
 * it there). */
static bool sample_id(const pd_file *f, const uint8_t *p, const uint8_t *end, uint64_t *id)
{
    uint64_t st = f->attrs[0].sample_type;
    if (st & S_IDENTIFIER)
        return end - p >= 8 && (*id = rd64(p), true);
    if (!(st & S_ID))
        return false;
    uint64_t pos = 8 * (!!(st & S_IP) + !!(st & S_TID) + !!(st & S_TIME) + !!(st & S_ADDR));
    return (uint64_t)(end - p) >= pos + 8 && (*id = rd64(p + pos), true);
}

/* The sample record at AT (SIZE bytes). */
static int parse_sample(pd_file *f, uint64_t at, uint64_t size, pd_sample *s)
{
    const uint8_t *p = rec_at(f, at) + 8, *end = rec_at(f, at) + size;
    uint64_t id = 0;
    *s = (pd_sample){0};
    if (f->n_attrs > 1 && !sample_id(f, p, end, &id))
        return pd_fail(f, at, "a sample without its id, of %llu bytes",
                       (unsigned long long)size);
    s->attr = attr_of_id(f, id);
    if (!s->attr)
        return pd_fail(f, at, "a sample of id %llu, which no event attribute has",
                       (unsigned long long)id);
    uint64_t st = s->attr->sample_type;
#define SKIP(n)                          \
    do {                                 \
        if (!skip(&p, end, (n)))         \
            goto short_sample;           \
    } while (0)
    if (st & S_IDENTIFIER)
        SKIP(8);
    if (st & S_IP)
        SKIP(8);
    if (st & S_TID) {
        SKIP(8);
        s->pid = rd32(p - 8);
        s->tid = rd32(p - 4);
    }
    if (st & S_TIME) {
        SKIP(8);
        s->ts = rd64(p - 8);
    }
    if (st & S_ADDR)
        SKIP(8);
    if (st & S_ID)
        SKIP(8);
    if (st & S_STREAM_ID)
        SKIP(8);
    if (st & S_CPU) {
        SKIP(8);
        s->cpu = rd32(p - 8);
    }
    if (st & S_PERIOD)
        SKIP(8);
    if (st & S_READ) {
        uint64_t rf = s->attr->read_format;
        uint64_t per_value = 8 * (1 + !!(rf & R_ID) + !!(rf & R_LOST));
        uint64_t times = 8 * (!!(rf & R_ENABLED) + !!(rf & R_RUNNING));
        if (rf & R_GROUP) {
            SKIP(8);
            uint64_t nr = rd64(p - 8);
            if (nr > (uint64_t)(end - p) / per_value)
                goto short_sample;
            SKIP(times + nr * per_value);
        } else {
            SKIP(per_value + times);
        }
    }
    if (st & S_CALLCHAIN) {
        SKIP(8);
        uint64_t nr = rd64(p - 8);
        if (nr > (uint64_t)(end - p) / 8)
            goto short_sample;
        SKIP(nr * 8);
    }
    if (st & S_RAW) {
        SKIP(4);
        s->raw_size = rd32(p - 4);
        s->raw = p;
        SKIP(s->raw_size);
    }
#undef SKIP
    return 0;
short_sample:
    return pd_fail(f, at, "a sample of %llu bytes ends inside its fields (sample_type 0x%llx)",
                   (unsigned long long)size, (unsigned long long)st);
}

/* The time of a non-sample record (its sample id's TIME when the
 * attribute says sample_id_all), 0 when it has none. */
static uint64_t record_time(const pd_file *f, uint64_t at, uint64_t size)
{
    const pd_attr *a = &f->attrs[0];
    if (!a->sample_id_all || !(a->sample_type & S_TIME))
        return 0;
    uint64_t st = a->sample_type;
    uint64_t after = 8 * (!!(st & S_ID) + !!(st & S_STREAM_ID) + !!(st & S_CPU) +
                          !!(st & S_IDENTIFIER));
    if (size < 8 + after + 8)
        return 0;
    uint64_t ts = rd64(rec_at(f, at) + size - after - 8);
    return ts == UINT64_MAX ? 0 : ts;
}

/* The CPU of a non-sample record, 0 when it has none. */
static uint32_t record_cpu(const pd_file *f, uint64_t at, uint64_t size)
{
    const pd_attr *a = &f->attrs[0];
    uint64_t st = a->sample_type;
    if (!a->sample_id_all || !(st & S_CPU))
        return 0;
    uint64_t after = 8 * !!(st & S_IDENTIFIER);
    if (size < 8 + after + 8)
        return 0;
    return rd32(rec_at(f, at) + size - after - 8);
}

/* ---- Threads ------------------------------------------------------------------- */

static pd_thread *thread_slot(pd_file *f, int32_t tid, bool add)
{
    if (add && (f->n_threads + 1) * 2 > f->cap_threads) {
        size_t cap = f->cap_threads ? 2 * f->cap_threads : 1024;
        pd_thread *t = argus_xcalloc(cap, sizeof *t, "threads");
        for (size_t i = 0; i < f->cap_threads; i++) {
            if (!f->threads[i].used)
                continue;
            size_t j = (uint32_t)f->threads[i].tid * 2654435761u % cap;
            while (t[j].used)
                j = (j + 1) % cap;
            t[j] = f->threads[i];
        }
        free(f->threads);
        f->threads = t;
        f->cap_threads = cap;
    }
    if (!f->cap_threads)
        return NULL;
    size_t j = (uint32_t)tid * 2654435761u % f->cap_threads;
    while (f->threads[j].used) {
        if (f->threads[j].tid == tid)
            return &f->threads[j];
        j = (j + 1) % f->cap_threads;
    }
    if (!add)
        return NULL;
    f->n_threads++;
    f->threads[j] = (pd_thread){.tid = tid, .pid = tid, .ppid = -1, .used = true};
    return &f->threads[j];
}

/* ---- Lines --------------------------------------------------------------------- */

static int send_line(pd_file *f, const char *text, size_t len)
{
    if (f->text) {
        fwrite(text, 1, len, f->text);
        putc('\n', f->text);
        return 0;
    }
    if (!f->d)
        return 0;
    if (f->prescan) {
        argus_ft_prescan_line(f->d, text, len);
        return 0;
    }
    if (argus_ft_line(f->d, text, len) < 0) {
        f->rc = -2;
        return -1;
    }
    return 0;
}

/* send_line as argus_each_line's EACH. */
static int send_each_line(void *f, const char *text, size_t len)
{
    return send_line(f, text, len);
}

/* The bytes of FIELD in the raw data of SIZE bytes: a field of the
 * format out of the data, or an array whose place (__data_loc,
 * __rel_loc) points out of it, would make libtraceevent read past it. */
static bool field_fits(const struct tep_format_field *field, const uint8_t *raw, uint32_t size)
{
    if ((uint64_t)field->offset + (uint64_t)field->size > size)
        return false;
    if (!(field->flags & TEP_FIELD_IS_DYNAMIC))
        return true;
    if (field->size < 4)
        return false;
    uint32_t loc = rd32(raw + field->offset);
    uint64_t start = loc & 0xffff, len = loc >> 16;
    if (field->flags & TEP_FIELD_IS_RELATIVE)
        start += (uint64_t)field->offset + (uint64_t)field->size;
    return start + len <= size;
}

static bool fields_fit(struct tep_format_field *list, const uint8_t *raw, uint32_t size)
{
    for (; list; list = list->next)
        if (!field_fits(list, raw, size))
            return false;
    return true;
}

/* A tracepoint sample as tracefs prints its line (with record-tgid). */
static int sample_line(pd_file *f, uint64_t at, const pd_sample *s)
{
    struct tep_event *ev = s->attr->event;
    if (!ev || !s->raw)
        return 0; /* not a tracepoint of the file's formats: nothing argus maps */
    /* the raw data, padded: libtraceevent reads strings to their NUL */
    if (f->cap_raw < (size_t)s->raw_size + 8) {
        free(f->raw);
        f->cap_raw = (size_t)s->raw_size + 64;
        f->raw = argus_xmalloc(f->cap_raw, "a sample's raw data");
    }
    memcpy(f->raw, s->raw, s->raw_size);
    memset(f->raw + s->raw_size, 0, 8);
    struct tep_record rec = {.ts = s->ts, .cpu = (int)s->cpu, .size = (int)s->raw_size,
                             .data = f->raw};
    if (!fields_fit(ev->format.common_fields, f->raw, s->raw_size) ||
        !fields_fit(ev->format.fields, f->raw, s->raw_size))
        return pd_fail(f, at, "a sample of %s:%s whose %u bytes of raw data do not hold "
                       "its fields", ev->system, ev->name, s->raw_size);
    if (tep_data_type(f->tep, &rec) != ev->id)
        return pd_fail(f, at, "a sample of %s:%s (id %d) whose raw data is of event %d",
                       ev->system, ev->name, ev->id, tep_data_type(f->tep, &rec));
    const char *comm = "<...>";
    pd_thread *t = thread_slot(f, (int32_t)s->tid, false);
    if (s->tid == 0)
        comm = "<idle>";
    else if (t && t->comm[0])
        comm = t->comm;
    trace_seq_reset(&f->s);
    trace_seq_printf(&f->s, "%16s-%-7d (%7d) [%03u] %llu.%09llu: %s: ", comm, (int)s->tid,
                     (int)s->pid, s->cpu, (unsigned long long)(s->ts / 1000000000u),
                     (unsigned long long)(s->ts % 1000000000u), ev->name);
    tep_print_event(f->tep, &f->s, &rec, "%s", TEP_PRINT_INFO);
    trace_seq_terminate(&f->s);
    /* a line at a time: an event's text may hold newlines (a stack trace) */
    return argus_each_line(f->s.buffer, (size_t)f->s.len, send_each_line, f);
}

/* The thread list line argus-record writes, for a thread alive when the
 * recording began. A kernel thread is kthreadd (2) or its child. */
static int thread_line(pd_file *f, const pd_thread *t)
{
    char line[160];
    bool kernel = t->pid == 2 || t->ppid == 2;
    int n;
    if (t->tid == t->pid && t->ppid > 0)
        n = snprintf(line, sizeof line, "# argus-thread: tid=%d tgid=%d kernel=%d ppid=%d comm=%s",
                     t->tid, t->pid, kernel, t->ppid, t->comm);
    else
        n = snprintf(line, sizeof line, "# argus-thread: tid=%d tgid=%d kernel=%d comm=%s",
                     t->tid, t->pid, kernel, t->comm);
    return send_line(f, line, (size_t)n);
}

/* A record taken in time order. */
static int take_record(pd_file *f, uint64_t at)
{
    uint64_t size;
    if (record_span(f, at, &size) < 0)
        return -1;
    const uint8_t *r = rec_at(f, at);
    uint32_t type = rd32(r);
    if (type == REC_SAMPLE) {
        pd_sample s;
        if (parse_sample(f, at, size, &s) < 0)
            return -1;
        return sample_line(f, at, &s);
    }
    if ((type == REC_COMM || type == REC_FORK) && size < 8 + (type == REC_COMM ? 8 : 24))
        return pd_fail(f, at, "a %s record of %llu bytes", type == REC_COMM ? "COMM" : "FORK",
                       (unsigned long long)size);
    if (type == REC_COMM) {
        int32_t pid = (int32_t)rd32(r + 8), tid = (int32_t)rd32(r + 12);
        pd_thread *t = thread_slot(f, tid, true);
        t->pid = pid;
        size_t n = 0;
        while (n < 16 && 16 + n < size && r[16 + n])
            n++;
        memcpy(t->comm, r + 16, n);
        t->comm[n] = 0;
        /* perf's records of the threads alive at the start have no time */
        if (record_time(f, at, size) == 0 && tid != 0)
            return thread_line(f, t);
        return 0;
    }
    if (type == REC_FORK) {
        int32_t pid = (int32_t)rd32(r + 8), ppid = (int32_t)rd32(r + 12);
        int32_t tid = (int32_t)rd32(r + 16), ptid = (int32_t)rd32(r + 20);
        pd_thread *parent = thread_slot(f, ptid, false);
        char comm[17] = "";
        if (parent)
            memcpy(comm, parent->comm, sizeof comm);
        pd_thread *t = thread_slot(f, tid, true);
        t->pid = pid;
        t->ppid = ppid;
        memcpy(t->comm, comm, sizeof comm); /* a fork copies the name */
        return 0;
    }
    /* perf record ends the file with a LOST_SAMPLES record of each event
     * and CPU, time 0, holding the counter of the samples it lost: the
     * LOST records gave them already as they happened (counted twice, a
     * recording's 266 events lost read as 532) */
    if (type == REC_LOST_SAMPLES && record_time(f, at, size) == 0)
        return 0;
    if (type == REC_LOST || type == REC_LOST_SAMPLES) {
        uint64_t lost = size >= 24 ? rd64(r + (type == REC_LOST ? 16 : 8)) : 0;
        char line[96];
        int n = snprintf(line, sizeof line, "CPU:%u [LOST %llu EVENTS]",
                         record_cpu(f, at, size), (unsigned long long)lost);
        return send_line(f, line, (size_t)n);
    }
    return 0;
}

/* ---- Ordering ------------------------------------------------------------------ */

static int cmp_held(const void *a, const void *b)
{
    const pd_held *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* Passes on the held records no later than LIMIT, in time order. */
static int flush_held(pd_file *f, uint64_t limit)
{
    if (f->n_held == 0) /* none held, perhaps none ever: held is NULL then */
        return 0;
    argus_sort(f->held, f->n_held, sizeof *f->held, cmp_held);
    size_t i = 0;
    for (; i < f->n_held && f->held[i].ts <= limit; i++)
        if (take_record(f, f->held[i].off) < 0)
            return -1;
    memmove(f->held, f->held + i, (f->n_held - i) * sizeof *f->held);
    f->n_held -= i;
    return 0;
}

#define HELD_MAX (8u << 20) /* records held past it: the older half goes on */

static int hold(pd_file *f, uint64_t ts, uint64_t off)
{
    if (f->n_held == f->cap_held) {
        if (f->n_held >= HELD_MAX) {
            /* no rounds (a piped file, an old perf): bounded, not ordered wider */
            argus_sort(f->held, f->n_held, sizeof *f->held, cmp_held);
            if (flush_held(f, f->held[f->n_held / 2].ts) < 0)
                return -1;
        } else {
            f->cap_held = f->cap_held ? 2 * f->cap_held : 4096;
            f->held = argus_xrealloc(f->held, f->cap_held * sizeof *f->held,
                                     "records held for time order");
        }
    }
    f->held[f->n_held++] = (pd_held){ts, off};
    if (ts > f->round_max)
        f->round_max = ts;
    return 0;
}

/* ---- Passes -------------------------------------------------------------------- */

/* A piped perf.data: its attributes and tracing data are records. */
static int read_pipe_headers(pd_file *f)
{
    for (uint64_t at = f->data_off; at < f->data_end;) {
        uint64_t size;
        if (record_span(f, at, &size) < 0)
            return -1;
        uint32_t type = rd32(f->p + at);
        uint16_t n = rd16(f->p + at + 6);
        if (type == REC_HEADER_ATTR) {
            if (n < 8 + PD_ATTR_SIZE_VER0)
                return pd_fail(f, at, "an attribute record of %u bytes", n);
            uint32_t attr_size = rd32(f->p + at + 12);
            if (attr_size < PD_ATTR_SIZE_VER0 || attr_size > (uint32_t)n - 8)
                return pd_fail(f, at, "an attribute of %u bytes in a record of %u", attr_size, n);
            if (add_attr(f, f->p + at + 8, attr_size, at) < 0)
                return -1;
            for (uint64_t i = 8 + attr_size; i + 8 <= n; i += 8)
                add_id(f, rd64(f->p + at + i), (uint32_t)(f->n_attrs - 1));
        } else if (type == REC_HEADER_TRACING_DATA && !f->have_tracing) {
            if (n < 12)
                return pd_fail(f, at, "a tracing data record of %u bytes", n);
            if (read_tracing(f, at + n, size - n) < 0)
                return -1;
        }
        at += size;
    }
    if (!f->n_attrs)
        return pd_fail(f, f->data_off, "a piped perf.data without event attributes");
    return 0;
}

/* ---- perf record -z ------------------------------------------------------------ */

/* Drops the decompressed bytes that neither a held record nor the walk
 * needs any more. */
static void arena_trim(pd_file *f)
{
    uint64_t keep = f->z_next;
    for (size_t i = 0; i < f->n_held; i++)
        if ((f->held[i].off & PD_ARENA) && (f->held[i].off & ~PD_ARENA) < keep)
            keep = f->held[i].off & ~PD_ARENA;
    size_t drop = (size_t)(keep - f->arena_base);
    if (drop == 0)
        return;
    memmove(f->arena, f->arena + drop, f->arena_len - drop);
    f->arena_len -= drop;
    f->arena_base = keep;
    size_t i = 0; /* the segments wholly before KEEP: all but the last of them */
    while (i + 1 < f->n_zsegs && f->zsegs[i + 1].vstart <= keep)
        i++;
    memmove(f->zsegs, f->zsegs + i, (f->n_zsegs - i) * sizeof *f->zsegs);
    f->n_zsegs -= i;
}

static int scan_record(pd_file *f, uint64_t at, uint64_t size);

/* A compressed record at AT (SIZE bytes, TYPE 81 or 83): its data through
 * the zstd stream into the arena, then the records it completes. */
static int inflate_record(pd_file *f, uint64_t at, uint64_t size, uint32_t type)
{
    if (at & PD_ARENA)
        return pd_fail(f, at, "a compressed record inside compressed data");
    const uint8_t *r = f->p + at;
    ZSTD_inBuffer in = {r + 8, size - 8, 0};
    if (type == REC_COMPRESSED2) {
        /* a data size, then the data, padded to 8 bytes */
        if (size < 16 || rd64(r + 8) > size - 16)
            return pd_fail(f, at, "a compressed record of %llu bytes whose data size says %llu",
                           (unsigned long long)size,
                           (unsigned long long)(size >= 16 ? rd64(r + 8) : 0));
        in = (ZSTD_inBuffer){r + 16, rd64(r + 8), 0};
    }
    if (!f->zd) {
        f->zd = ZSTD_createDStream();
        if (!f->zd) /* its own allocation: a shortage */
            argus_die(ARGUS_EX_IOERR, "out of memory (zstd decompressor)");
    }
    f->z_records++;
    f->z_bytes += in.size;
    arena_trim(f);
    if (f->n_zsegs == f->cap_zsegs) {
        f->cap_zsegs = f->cap_zsegs ? 2 * f->cap_zsegs : 16;
        f->zsegs = argus_xrealloc(f->zsegs, f->cap_zsegs * sizeof *f->zsegs,
                                  "decompressed records");
    }
    f->zsegs[f->n_zsegs++] = (pd_zseg){f->arena_base + f->arena_len, at};
    size_t out_before = f->arena_len;
    for (;;) {
        size_t want = ZSTD_DStreamOutSize();
        if (f->arena_cap - f->arena_len < want) {
            f->arena_cap = f->arena_cap * 2 > f->arena_len + want ? f->arena_cap * 2
                                                                  : f->arena_len + want;
            f->arena = argus_xrealloc(f->arena, f->arena_cap, "decompressed records");
        }
        ZSTD_outBuffer out = {f->arena + f->arena_len, f->arena_cap - f->arena_len, 0};
        size_t rc = ZSTD_decompressStream(f->zd, &out, &in);
        if (ZSTD_isError(rc))
            return pd_fail(f, at, "compressed data that does not decompress (zstd: %s)",
                           ZSTD_getErrorName(rc));
        f->arena_len += out.pos;
        if (f->arena_len - out_before > PD_INFLATE_MAX)
            return pd_fail(f, at, "a compressed record whose data decompresses to more than "
                           "%u MiB", PD_INFLATE_MAX >> 20);
        /* done when the input is used and the output was not filled */
        if (in.pos == in.size && out.pos < out.size)
            break;
    }
    f->z_out += f->arena_len - out_before;
    /* the records now whole; one cut at the end waits for the next */
    for (;;) {
        uint64_t left = f->arena_base + f->arena_len - f->z_next;
        if (left < 8)
            break;
        const uint8_t *h = f->arena + (f->z_next - f->arena_base);
        uint16_t n = rd16(h + 6);
        uint32_t t = rd32(h);
        if (n >= 8 && (t == REC_HEADER_TRACING_DATA || t == REC_AUXTRACE))
            return pd_fail(f, PD_ARENA | f->z_next, "a record of type %u in compressed data "
                           "(perf writes it outside)", t);
        if (n >= 8 && n > left)
            break;
        uint64_t rsize;
        if (record_span(f, PD_ARENA | f->z_next, &rsize) < 0 ||
            scan_record(f, PD_ARENA | f->z_next, rsize) < 0)
            return -1;
        f->z_next += rsize;
    }
    return 0;
}

/* The end of the data: no record left cut in the stream. (perf flushes
 * its zstd stream at each record and never ends the frame: an open frame
 * at the end is the rule.) */
static int inflate_end(pd_file *f)
{
    uint64_t left = f->arena_base + f->arena_len - f->z_next;
    if (left)
        return pd_fail(f, PD_ARENA | f->z_next, "the compressed data ends inside a record "
                       "(%llu bytes of it)", (unsigned long long)left);
    return 0;
}

/* ---- The walk ------------------------------------------------------------------- */

/* One record of the data, in the file or decompressed, in file order. */
static int scan_record(pd_file *f, uint64_t at, uint64_t size)
{
    uint32_t type = rd32(rec_at(f, at));
    switch (type) {
    case REC_SAMPLE: {
        pd_sample s;
        if (parse_sample(f, at, size, &s) < 0 || hold(f, s.ts, at) < 0)
            return -1;
        break;
    }
    case REC_COMM:
    case REC_FORK:
    case REC_LOST:
    case REC_LOST_SAMPLES:
        if (hold(f, record_time(f, at, size), at) < 0)
            return -1;
        break;
    case REC_FINISHED_ROUND:
        if (flush_held(f, f->prev_round_max) < 0)
            return -1;
        f->prev_round_max = f->round_max;
        break;
    case REC_COMPRESSED:
    case REC_COMPRESSED2:
        return inflate_record(f, at, size, type);
    default:
        break; /* mmaps, ids, maps, exits: nothing argus maps */
    }
    return 0;
}

static int pass(pd_file *f)
{
    f->n_threads = 0;
    if (f->threads)
        memset(f->threads, 0, f->cap_threads * sizeof *f->threads);
    f->n_held = 0;
    f->round_max = f->prev_round_max = 0;
    f->rc = 0;
    /* the decompressed stream starts again */
    f->arena_len = 0;
    f->arena_base = f->z_next = 0;
    f->n_zsegs = 0;
    f->z_records = f->z_bytes = f->z_out = 0;
    if (f->zd)
        ZSTD_initDStream(f->zd);
    for (uint64_t at = f->data_off; at < f->data_end;) {
        uint64_t size;
        if (record_span(f, at, &size) < 0 || scan_record(f, at, size) < 0)
            return -1;
        at += size;
    }
    if (inflate_end(f) < 0)
        return -1;
    return flush_held(f, UINT64_MAX);
}

static int open_file(pd_file *f)
{
    if (f->len >= 8 && memcmp(f->p, PD_MAGIC_SWAPPED, 8) == 0)
        return pd_fail(f, 0, "a big-endian perf.data (magic \"2ELIFREP\"): not read; "
                       "record on a little-endian machine");
    if (!argus_pd_sniff(f->p, f->len))
        return pd_fail(f, 0, "not a perf.data: no \"PERFILE2\" magic");
    if (f->len < 16)
        return pd_fail(f, 8, "the file ends inside its header (%zu bytes)", f->len);
    uint64_t hsize = rd64(f->p + 8);
    if (hsize == PD_PIPE_HEADER_SIZE) {
        f->pipe = true;
        f->data_off = PD_PIPE_HEADER_SIZE;
        f->data_end = f->len;
        return read_pipe_headers(f);
    }
    if (hsize < PD_HEADER_SIZE || f->len < PD_HEADER_SIZE)
        return pd_fail(f, 8, "a header of %llu bytes in a file of %zu (a perf.data header "
                       "has %d)", (unsigned long long)hsize, f->len, PD_HEADER_SIZE);
    f->data_off = rd64(f->p + 40);
    uint64_t data_size = rd64(f->p + 48);
    if (!in_file(f, f->data_off, data_size))
        return pd_fail(f, 40, "the data section (%llu bytes at byte %llu) is not inside "
                       "the file of %zu bytes (a file cut short, or a recording not "
                       "stopped cleanly)", (unsigned long long)data_size,
                       (unsigned long long)f->data_off, f->len);
    if (data_size == 0 && f->len > f->data_off)
        return pd_fail(f, 48, "the data section's size is 0 in a file of %zu bytes: perf "
                       "record did not finish writing it (killed?); perf cannot read it "
                       "either", f->len);
    f->data_end = f->data_off + data_size;
    if (read_attrs(f) < 0)
        return -1;
    return read_features(f);
}

/* ---- A trial in a child ----------------------------------------------------- */

/* libtraceevent 1.7 dies (a NULL read) on some damaged event formats
 * instead of failing. A child parses the headers and formats first,
 * writing nothing; when it dies, the file is refused with a message, never
 * a crash (lib/decode/tracedat.c does the same for libtracecmd). Under
 * AddressSanitizer a SEGV is an exit with a report, so any end but the
 * child's own exits is a death; a fuzzer's death callback, which would
 * take the child's death for its own, is dropped in the child. Out of
 * memory in what the child runs (open_file) is an abort(), a death too:
 * argus_die there would run the parent's exit path (its writer's flush,
 * the output lock) in the child. */
#define PD_TRIAL_OK 0
#define PD_TRIAL_REFUSED 3 /* the parent's own parse gives the message */

void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static bool formats_survive(const uint8_t *buf, size_t len, const char *name)
{
    pid_t pid = fork();
    if (pid < 0)
        return true; /* no trial: parsed in this process as it is */
    if (pid == 0) {
        if (__sanitizer_set_death_callback)
            __sanitizer_set_death_callback(NULL);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 2);
        char err[256];
        pd_file f = {.p = buf, .len = len, .name = name, .err = err, .errlen = sizeof err};
        f.tep = tep_alloc();
        if (!f.tep)
            _exit(PD_TRIAL_REFUSED);
        tep_set_loglevel(TEP_LOG_NONE);
        _exit(open_file(&f) == 0 ? PD_TRIAL_OK : PD_TRIAL_REFUSED);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return true;
    return WIFEXITED(status) &&
           (WEXITSTATUS(status) == PD_TRIAL_OK || WEXITSTATUS(status) == PD_TRIAL_REFUSED);
}

/* Both: into the decoder D, or (D NULL) the lines once to TEXT. */
static int pd_run(argus_ft *d, FILE *text, const uint8_t *buf, size_t len, const char *name,
                  char *err, size_t errlen)
{
    pd_file f = {.p = buf, .len = len, .name = name, .err = err, .errlen = errlen};
    if (!formats_survive(buf, len, name)) {
        snprintf(err, errlen, "%s: libtraceevent crashes parsing its event formats (a "
                 "damaged file): not read", name);
        return -1;
    }
    f.tep = tep_alloc();
    if (!f.tep) /* libtraceevent's own allocation: a shortage */
        argus_die(ARGUS_EX_IOERR, "out of memory (libtraceevent)");
    tep_set_loglevel(TEP_LOG_NONE); /* a bad format is left out, not printed */
    trace_seq_init(&f.s);
    int rc = open_file(&f);
    if (rc == 0) {
        argus_sort(f.ids, f.n_ids, sizeof *f.ids, cmp_id);
        find_events(&f);
        bool any = false;
        for (size_t i = 0; i < f.n_attrs; i++)
            any |= f.attrs[i].event != NULL;
        if (!any)
            rc = pd_fail(&f, 0, "no tracepoint events in it (%s): argus reads sched and "
                         "syscalls tracepoints; record with perf record -e sched:sched_switch "
                         "... (docs/inputs/perf.md)",
                         f.have_tracing ? "none of its events has a format"
                                        : "no tracing data");
    }
    if (rc == 0 && !d) {
        f.text = text;
        rc = pass(&f);
    } else if (rc == 0) {
        /* the first pass (threads asleep at the start), then the lines */
        f.d = d;
        f.prescan = true;
        rc = pass(&f);
        if (rc == 0) {
            f.prescan = false;
            rc = pass(&f);
            if (rc == 0 && argus_ft_finish(d) < 0)
                rc = -2;
        }
        if (rc < 0 && f.rc == -2)
            rc = -2;
    }
    trace_seq_destroy(&f.s);
    tep_free(f.tep);
    free(f.attrs);
    free(f.ids);
    free(f.threads);
    free(f.held);
    free(f.raw);
    free(f.arena);
    free(f.zsegs);
    ZSTD_freeDStream(f.zd);
    return rc;
}

int argus_pd_decode(argus_ft *d, const uint8_t *buf, size_t len, const char *name,
                    char *err, size_t errlen)
{
    return pd_run(d, NULL, buf, len, name, err, errlen);
}

int argus_pd_render(void *file, const uint8_t *buf, size_t len, const char *name, char *err,
                    size_t errlen)
{
    return pd_run(NULL, file, buf, len, name, err, errlen);
}

int argus_pd_read(argus_ft *d, argus_input *in, char *err, size_t errlen)
{
    int fd = argus_input_seekable_fd(in);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        snprintf(err, errlen, "%s: read error: %s", in->name, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    size_t len = (size_t)st.st_size;
    const uint8_t *p = len ? mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0) : (const uint8_t *)"";
    close(fd);
    if (p == MAP_FAILED) {
        snprintf(err, errlen, "%s: cannot map it: %s", in->name, strerror(errno));
        return -1;
    }
    int rc = argus_pd_decode(d, p, len, in->name, err, errlen);
    if (len)
        munmap((void *)p, len);
    return rc;
}
