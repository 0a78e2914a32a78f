/* Perfetto's protobuf traces to an argus stream
 * (include/argus/decode/perfetto.h, docs/inputs/perfetto.md).
 *
 * A small reader of protobuf's wire format (varints, fixed 32/64-bit,
 * length-delimited fields; every length checked against its buffer, no
 * allocation per field) walks the Trace's packets. A first walk (the
 * index) notes each ftrace bundle (its CPU, its first timestamp, where
 * its bytes are), the process tree, the system's architecture, and
 * inflates compressed packets (zlib's deflate, or zstd) to index them too. Then the bundles
 * are merged into time order: each bundle is a cursor over its events
 * and its compact_sched arrays (each in time order, as the kernel's
 * per-CPU buffer gives them), a heap holds the bundles open, and a
 * bundle opens when the merge reaches its first timestamp. Memory holds
 * the bundles that overlap in time, whatever the trace's length (a
 * writer that puts a whole CPU in one bundle, as systing does, has them
 * all open: that is the trace's own layout). Each event is rendered into
 * the line tracefs prints for it and goes to the ftrace text decoder.
 * The merge runs twice: first for the decoder's first pass
 * (argus_ft_prescan_line: threads asleep when the trace began), then for
 * the lines themselves. One concern, Perfetto's protobuf, at 1.9k lines:
 * the wire reader, the index, the merge and the rendering of each message
 * kind share the reader's state and its error path. */
#include "argus/decode/perfetto.h"
#include "argus/decode/syscalls.h"
#include "argus/stream/table.h"
#include "argus/stream/cli.h"
#include "argus/stream/procname.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define PF_MAX_CPUS 4096            /* a bundle's cpu beyond this is damage */
#define PF_MAX_INFLATED (256u << 20) /* one compressed_packets field, inflated */
#define PF_LINE_CAP 8192            /* a rendered line; a print's text is cut to fit */
#define PF_NAME_CAP 64              /* a thread's name */

/* ---- The wire format ------------------------------------------------------ */

typedef struct pb {
    const uint8_t *p, *end;
} pb;

typedef struct pb_field {
    uint32_t num;
    uint8_t wt;
    uint64_t v;           /* a varint or fixed field's value */
    const uint8_t *data;  /* a length-delimited field's bytes */
    size_t len;
} pb_field;

static bool pb_varint(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
    const uint8_t *p = *pp;
    uint64_t r = 0;
    for (int shift = 0; shift < 70 && p < end; shift += 7) {
        uint8_t c = *p++;
        if (shift == 63 && c > 1)
            return false; /* more than 64 bits */
        r |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            *v = r;
            *pp = p;
            return true;
        }
    }
    return false;
}

/* The next field of B: 1, 0 at its end, -1 when the bytes are not a
 * field (B->p is then where it failed). Groups (wire types 3 and 4) are
 * not used by Perfetto and are refused. */
static int pb_next(pb *b, pb_field *f)
{
    if (b->p >= b->end)
        return 0;
    const uint8_t *start = b->p;
    uint64_t key;
    if (!pb_varint(&b->p, b->end, &key) || (key >> 3) == 0 || (key >> 3) > 0x1fffffff) {
        b->p = start;
        return -1;
    }
    f->num = (uint32_t)(key >> 3);
    f->wt = (uint8_t)(key & 7);
    f->data = NULL;
    f->len = 0;
    f->v = 0;
    switch (f->wt) {
    case 0:
        if (pb_varint(&b->p, b->end, &f->v))
            return 1;
        break;
    case 1:
        if (b->end - b->p >= 8) {
            for (int i = 7; i >= 0; i--)
                f->v = f->v << 8 | b->p[i];
            b->p += 8;
            return 1;
        }
        break;
    case 5:
        if (b->end - b->p >= 4) {
            for (int i = 3; i >= 0; i--)
                f->v = f->v << 8 | b->p[i];
            b->p += 4;
            return 1;
        }
        break;
    case 2: {
        uint64_t n;
        if (pb_varint(&b->p, b->end, &n) && n <= (uint64_t)(b->end - b->p)) {
            f->data = b->p;
            f->len = (size_t)n;
            b->p += n;
            return 1;
        }
        break;
    }
    default:
        break;
    }
    b->p = start;
    return -1;
}

bool argus_pf_sniff(const uint8_t *buf, size_t len)
{
    /* the first packet: field 1, length-delimited, not empty */
    pb b = {buf, buf + len};
    const uint8_t *p = buf + 1;
    uint64_t n;
    if (len < 4 || buf[0] != 0x0a || !pb_varint(&p, buf + len, &n) || n == 0 ||
        n > (1u << 30))
        return false;
    /* its fields, as far as the bytes go: each a TracePacket field's shape */
    pb in = {p, p + (n < (uint64_t)(buf + len - p) ? n : (uint64_t)(buf + len - p))};
    pb_field f;
    int fields = 0, rc;
    while ((rc = pb_next(&in, &f)) == 1)
        fields++;
    if (fields == 0)
        return false;
    if (rc < 0 && (uint64_t)(buf + len - p) > n)
        return false; /* a whole packet that does not parse */
    (void)b;
    /* a second packet, when the bytes hold its start */
    if ((uint64_t)(buf + len - p) > n)
        return p[n] == 0x0a;
    return true;
}

/* ---- State ------------------------------------------------------------- */

/* A thread as the process tree and stats give it. */
typedef struct pf_thread {
    int64_t tgid, ppid;   /* -1: not known */
    bool kernel;
    char name[PF_NAME_CAP];
    char *cmdline;        /* a process's command line, escaped for
                             "# argus-cmdline:"; NULL: not given */
} pf_thread;

/* A task's name as the events so far give it (the lines' heads). */
typedef struct pf_comm {
    char name[PF_NAME_CAP];
} pf_comm;

/* Compressed packets (compressed_packets: deflate; zstd_compressed_packets):
 * inflated to index them, again when one of their bundles opens, and
 * freed when the last of those closes. */
typedef struct pf_chunk {
    const uint8_t *z;
    size_t zlen;
    bool zstd;
    uint64_t off;         /* the file offset of its packet */
    uint8_t *buf;
    size_t len;
    uint32_t bundles, open_left;
} pf_chunk;

typedef struct pf_bundle {
    uint64_t min_ts;
    uint64_t off;         /* the file offset of its packet (messages) */
    size_t data_off, len; /* its bytes: in the file, or in its chunk */
    uint32_t chunk;       /* 0: the file; else 1 + the chunk's index */
    uint32_t cpu, seq;
    bool dropped_before;  /* its packet says its sequence lost the packet
                             before it (previous_packet_dropped) */
} pf_bundle;

typedef struct pf_packed {
    const uint8_t *p, *end;
    bool present;
} pf_packed;

/* An open bundle: its three streams (events, compact switches, compact
 * wakings), each at its next item. */
typedef struct pf_cursor {
    uint64_t ts;          /* the head's */
    uint32_t seq, cpu;
    int head;             /* 0 event, 1 waking, 2 switch */
    const pf_bundle *b;
    pb rest;              /* the bundle's fields after the current event */
    pb_field ev;
    uint64_t ev_ts;
    bool ev_have;
    pf_packed sw_ts, sw_state, sw_pid, sw_prio, sw_comm;
    uint64_t sw_t;
    bool sw_have;
    pf_packed wk_ts, wk_pid, wk_cpu, wk_prio, wk_comm, wk_flags;
    uint64_t wk_t;
    bool wk_have;
    const uint8_t **intern;
    uint32_t *intern_len;
    uint32_t n_intern;
} pf_cursor;

/* A CPU's running task as the merge has seen it. */
typedef struct pf_cpu {
    int64_t tid;          /* -1: not known yet */
    int32_t prio;
    char comm[PF_NAME_CAP];
} pf_cpu;

typedef struct pf {
    argus_ft *d;
    const char *name;
    argus_pf_counts *c;
    char *err;
    size_t errlen;
    jmp_buf fail;
    const uint8_t *file;
    size_t file_len;
    /* where messages point: the file offset of the packet at hand, and
     * inside a compressed one, the offset in its inflated bytes */
    uint64_t at;
    const uint8_t *chunk_base;
    uint64_t chunk_off;
    char deferred[512];   /* an error of the index, given after the merge */
    /* the index */
    pf_bundle *bundles;
    size_t n_bundles, cap_bundles;
    pf_chunk *chunks;
    size_t n_chunks, cap_chunks;
    argus_table threads;  /* tid -> pf_thread */
    argus_table ksyms;    /* interned kernel symbol iid -> pf_comm (its name) */
    argus_table sequences; /* trusted_packet_sequence_id -> seen (a byte) */
    const argus_syscall *syscalls;
    bool old_kernel;      /* before 4.14: prev_state is printed as a number */
    uint64_t boottime, realtime; /* the first clock snapshot holding both */
    bool other_clock;     /* a bundle's ftrace clock is not the boot clock */
    uint64_t kinds[8];    /* packet kinds seen, for the refusal's message */
    /* DEC-LOSS: per CPU, the kernel ring's overrun and dropped counts at
     * the trace's start and end (ftrace_stats), and the chunks the
     * service's buffers overwrote (trace_stats) */
    struct pf_loss {
        uint64_t start_overrun, end_overrun, start_dropped, end_dropped;
        bool start, end;
    } *loss;
    uint32_t n_loss;
    uint64_t chunks_overwritten;
    uint64_t chunks_discarded; /* a buffer in discard mode, full */
    /* the merge */
    bool prescan;
    pf_cursor **heap;
    size_t n_heap;
    pf_cursor *opening;   /* a cursor being opened: freed if that fails */
    pf_cpu *cpus;
    uint32_t n_cpus;
    argus_table comms;    /* tid -> pf_comm */
    char line[PF_LINE_CAP];
    size_t n;
    uint64_t switches_seen, prints;
} pf;

static void pf_free_merge(pf *p);

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3), noreturn))
#endif
static void pf_fail(pf *p, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (p->chunk_base)
        snprintf(p->err, p->errlen, "%s: byte %llu: in its compressed packets: %s", p->name,
                 (unsigned long long)p->chunk_off, what);
    else
        snprintf(p->err, p->errlen, "%s: byte %llu: %s", p->name, (unsigned long long)p->at,
                 what);
    longjmp(p->fail, 1);
}

/* The offset of PTR for messages: in the file, or in the inflated chunk. */
static uint64_t pf_offset(const pf *p, const uint8_t *ptr)
{
    return p->chunk_base ? (uint64_t)(ptr - p->chunk_base) : (uint64_t)(ptr - p->file);
}

/* The next field of B, or a failure naming WHAT holds it. */
static int pf_next(pf *p, pb *b, pb_field *f, const char *what)
{
    int rc = pb_next(b, f);
    if (rc < 0)
        pf_fail(p, "a damaged %s: no protobuf field at byte %llu%s", what,
                (unsigned long long)pf_offset(p, b->p),
                p->chunk_base ? " of the inflated data" : "");
    return rc;
}

static bool packed_next(pf *p, pf_packed *a, uint64_t *v)
{
    if (a->p >= a->end)
        return false;
    if (!pb_varint(&a->p, a->end, v))
        pf_fail(p, "a damaged compact_sched array (a varint cut short)");
    return true;
}

static void copy_name(char *dst, const uint8_t *s, size_t n)
{
    if (n > PF_NAME_CAP - 1)
        n = PF_NAME_CAP - 1;
    for (size_t i = 0; i < n; i++) {
        char ch = (char)s[i];
        /* a name stays on its line and in its field */
        dst[i] = ch == '\n' || ch == '\r' || ch == '\0' ? '?' : ch;
    }
    dst[n] = 0;
}

/* ---- The index ------------------------------------------------------------ */

static pf_thread *tree_thread(pf *p, int64_t tid)
{
    bool created;
    pf_thread *t = argus_table_put(&p->threads, (uint64_t)tid, &created);
    if (created) {
        t->tgid = t->ppid = -1;
        p->c->threads++;
    }
    return t;
}

/* ProcessTree: processes (pid 1, ppid 2, cmdline 3, cmdline_is_comm 9,
 * is_kthread 8) and threads (tid 1, name 2, tgid 3). The first word of a
 * thread's facts wins: a later tree (a tid reused) does not rewrite it. */
static void index_process_tree(pf *p, const uint8_t *data, size_t len)
{
    pb b = {data, data + len};
    pb_field f, g;
    while (pf_next(p, &b, &f, "process tree")) {
        if (f.wt != 2 || (f.num != 1 && f.num != 2))
            continue;
        pb in = {f.data, f.data + f.len};
        int64_t id = -1, ppid = -1, tgid = -1;
        bool kthread = false, is_comm = false;
        const uint8_t *name = NULL;
        size_t name_len = 0;
        char args[4096];        /* the command line's words, each ended by a NUL */
        size_t args_len = 0;
        while (pf_next(p, &in, &g, "process tree")) {
            if (f.num == 1) { /* Process */
                if (g.num == 1 && g.wt == 0) id = (int32_t)g.v;
                else if (g.num == 2 && g.wt == 0) ppid = (int32_t)g.v;
                else if (g.num == 3 && g.wt == 2) {
                    if (!name)
                        name = g.data, name_len = g.len;
                    size_t n = strnlen((const char *)g.data, g.len);
                    if (args_len + n + 1 <= sizeof args) {
                        memcpy(args + args_len, g.data, n);
                        args[args_len + n] = '\0';
                        args_len += n + 1;
                    }
                }
                else if (g.num == 8 && g.wt == 0) kthread = g.v != 0;
                else if (g.num == 9 && g.wt == 0) is_comm = g.v != 0;
            } else { /* Thread */
                if (g.num == 1 && g.wt == 0) id = (int32_t)g.v;
                else if (g.num == 2 && g.wt == 2) name = g.data, name_len = g.len;
                else if (g.num == 3 && g.wt == 0) tgid = (int32_t)g.v;
            }
        }
        if (id <= 0)
            continue;
        pf_thread *t = tree_thread(p, id);
        if (f.num == 1) {
            t->tgid = id;
            if (t->ppid < 0)
                t->ppid = ppid;
            t->kernel = t->kernel || kthread || id == 2 || ppid == 2;
            char line[4096];
            if (!is_comm && !t->kernel && !t->cmdline && args_len &&
                argus_cmdline_escape(line, sizeof line, args, args_len) > 0)
                t->cmdline = argus_xstrdup(line, "a command line");
            if (name && !t->name[0]) {
                /* a command line's first word is a path: the kernel's
                 * comm is its base name, 15 bytes at most */
                if (!is_comm) {
                    const uint8_t *slash = name;
                    for (size_t i = 0; i < name_len; i++)
                        if (name[i] == '/')
                            slash = name + i + 1;
                    name_len -= (size_t)(slash - name);
                    name = slash;
                    if (name_len > 15)
                        name_len = 15;
                }
                copy_name(t->name, name, name_len);
            }
        } else {
            if (t->tgid < 0)
                t->tgid = tgid;
            if (name)
                copy_name(t->name, name, name_len); /* a thread's own name wins */
        }
    }
}

/* ProcessStats: processes (pid 1) and their threads (11: tid 1). */
static void index_process_stats(pf *p, const uint8_t *data, size_t len)
{
    pb b = {data, data + len};
    pb_field f, g, h;
    while (pf_next(p, &b, &f, "process stats")) {
        if (f.num != 1 || f.wt != 2)
            continue;
        int64_t pid = -1;
        pb in = {f.data, f.data + f.len};
        while (pf_next(p, &in, &g, "process stats"))
            if (g.num == 1 && g.wt == 0)
                pid = (int32_t)g.v;
        if (pid <= 0)
            continue;
        tree_thread(p, pid)->tgid = pid;
        in = (pb){f.data, f.data + f.len};
        while (pf_next(p, &in, &g, "process stats")) {
            if (g.num != 11 || g.wt != 2)
                continue;
            pb th = {g.data, g.data + g.len};
            while (pf_next(p, &th, &h, "process stats"))
                if (h.num == 1 && h.wt == 0 && (int32_t)h.v > 0) {
                    pf_thread *t = tree_thread(p, (int32_t)h.v);
                    if (t->tgid < 0)
                        t->tgid = pid;
                }
        }
    }
}

/* InternedData's kernel_symbols (26: InternedString {iid 1, str 2}): the
 * names of function fields when the trace was recorded with
 * symbolize_ksyms. traced numbers a symbol once for the session, so the
 * iids are taken whatever the packet sequence. */
static void index_interned(pf *p, const uint8_t *data, size_t len)
{
    pb b = {data, data + len};
    pb_field f, g;
    while (pf_next(p, &b, &f, "interned data")) {
        if (f.num != 26 || f.wt != 2)
            continue;
        uint64_t iid = 0;
        const uint8_t *str = NULL;
        size_t n = 0;
        pb in = {f.data, f.data + f.len};
        while (pf_next(p, &in, &g, "interned data"))
            if (g.num == 1 && g.wt == 0)
                iid = g.v;
            else if (g.num == 2 && g.wt == 2)
                str = g.data, n = g.len;
        if (!iid || !str)
            continue;
        bool created;
        pf_comm *name = argus_table_put(&p->ksyms, iid, &created);
        copy_name(name->name, str, n);
        for (char *q = name->name; *q; q++)
            if (*q == ' ')
                *q = '_'; /* one word, as the kernel prints a symbol */
    }
}

/* ClockSnapshot: clocks (1: {clock_id 1, timestamp 2}); BOOTTIME (6),
 * the ftrace bundles' clock, against REALTIME (1): the wall clock of the
 * report's times. The first snapshot with both is kept. */
static void index_clock_snapshot(pf *p, const uint8_t *data, size_t len)
{
    pb b = {data, data + len};
    pb_field f, g;
    uint64_t boot = 0, real = 0;
    while (pf_next(p, &b, &f, "clock snapshot")) {
        if (f.num != 1 || f.wt != 2)
            continue;
        uint64_t id = 0, ts = 0;
        pb c = {f.data, f.data + f.len};
        while (pf_next(p, &c, &g, "clock snapshot"))
            if (g.num == 1 && g.wt == 0)
                id = g.v;
            else if (g.num == 2 && g.wt == 0)
                ts = g.v;
        if (id == 6)
            boot = ts;
        else if (id == 1)
            real = ts;
    }
    if (boot && real && !p->boottime)
        p->boottime = boot, p->realtime = real;
}

/* SystemInfo: utsname (1) { release 3, machine 4 }. */
static void index_system_info(pf *p, const uint8_t *data, size_t len)
{
    pb b = {data, data + len};
    pb_field f, g;
    while (pf_next(p, &b, &f, "system info")) {
        if (f.num != 1 || f.wt != 2)
            continue;
        pb u = {f.data, f.data + f.len};
        while (pf_next(p, &u, &g, "system info")) {
            if (g.wt != 2)
                continue;
            if (g.num == 4) {
                if (g.len == 6 && memcmp(g.data, "x86_64", 6) == 0)
                    p->syscalls = argus_syscalls_x86_64;
                else if ((g.len == 7 && memcmp(g.data, "aarch64", 7) == 0) ||
                         (g.len == 5 && memcmp(g.data, "arm64", 5) == 0))
                    p->syscalls = argus_syscalls_arm64;
            } else if (g.num == 3 && g.len >= 3) {
                unsigned major = 0, minor = 0;
                char rel[16];
                copy_name(rel, g.data, g.len < 15 ? g.len : 15);
                if (sscanf(rel, "%u.%u", &major, &minor) == 2)
                    p->old_kernel = major < 4 || (major == 4 && minor < 14);
            }
        }
    }
}

/* ftrace_stats: each CPU's overrun (events its ring overwrote before
 * traced read them) and dropped events (a ring not in overwrite mode,
 * full), at the trace's start and end; of several flushes, the first
 * start and the last end (DEC-LOSS). */
static void index_ftrace_stats(pf *p, const uint8_t *data, size_t len)
{
    pb b = {data, data + len};
    pb_field f, g;
    uint64_t phase = 0;
    while (pf_next(p, &b, &f, "ftrace stats"))
        if (f.num == 1 && f.wt == 0)
            phase = f.v;
    if (phase != 1 && phase != 2)
        return;
    b = (pb){data, data + len};
    while (pf_next(p, &b, &f, "ftrace stats")) {
        if (f.num != 2 || f.wt != 2)
            continue;
        uint64_t cpu = 0, overrun = 0, dropped = 0;
        pb c = {f.data, f.data + f.len};
        while (pf_next(p, &c, &g, "ftrace cpu stats")) {
            if (g.wt != 0)
                continue;
            if (g.num == 1)
                cpu = g.v;
            else if (g.num == 3)
                overrun = g.v;
            else if (g.num == 8)
                dropped = g.v;
        }
        if (cpu >= PF_MAX_CPUS)
            continue;
        if (cpu >= p->n_loss) {
            uint32_t n = (uint32_t)cpu + 1;
            p->loss = argus_xrealloc(p->loss, n * sizeof *p->loss, "loss counts");
            memset(p->loss + p->n_loss, 0, (n - p->n_loss) * sizeof *p->loss);
            p->n_loss = n;
        }
        struct pf_loss *l = &p->loss[cpu];
        if (phase == 1 && !l->start)
            l->start = true, l->start_overrun = overrun, l->start_dropped = dropped;
        else if (phase == 2)
            l->end = true, l->end_overrun = overrun, l->end_dropped = dropped;
    }
}

/* trace_stats: the chunks each buffer overwrote before they were read
 * (a ring buffer full: the trace's oldest data gone). */
static void index_trace_stats(pf *p, const uint8_t *data, size_t len)
{
    pb b = {data, data + len};
    pb_field f, g;
    uint64_t chunks = 0, discarded = 0;
    while (pf_next(p, &b, &f, "trace stats")) {
        if (f.num != 1 || f.wt != 2)
            continue;
        pb s = {f.data, f.data + f.len};
        while (pf_next(p, &s, &g, "buffer stats")) {
            if (g.num == 3 && g.wt == 0)
                chunks += g.v;
            else if (g.num == 18 && g.wt == 0) /* chunks_discarded: full, in discard mode */
                discarded += g.v;
        }
    }
    if (chunks > p->chunks_overwritten) /* the last, cumulative */
        p->chunks_overwritten = chunks;
    if (discarded > p->chunks_discarded)
        p->chunks_discarded = discarded;
}

/* A bundle's first timestamp: its first event's, its first switch's and
 * first waking's (compact_sched: the first of each array is absolute). */
static uint64_t bundle_min_ts(pf *p, const uint8_t *data, size_t len, uint32_t *cpu)
{
    uint64_t min = UINT64_MAX;
    bool have_event = false;
    pb b = {data, data + len};
    pb_field f, g;
    *cpu = 0;
    while (pf_next(p, &b, &f, "ftrace bundle")) {
        if (f.num == 1 && f.wt == 0) {
            if (f.v >= PF_MAX_CPUS)
                pf_fail(p, "an ftrace bundle of cpu %llu (at most %u)",
                        (unsigned long long)f.v, PF_MAX_CPUS - 1);
            *cpu = (uint32_t)f.v;
        } else if (f.num == 5 && f.wt == 0) {
            p->other_clock |= f.v != 0; /* FtraceClock: only UNSPECIFIED is boot */
        } else if (f.num == 2 && f.wt == 2 && !have_event) {
            have_event = true;
            pb e = {f.data, f.data + f.len};
            while (pf_next(p, &e, &g, "ftrace event"))
                if (g.num == 1 && g.wt == 0 && g.v < min)
                    min = g.v;
        } else if (f.num == 4 && f.wt == 2) {
            pb cs = {f.data, f.data + f.len};
            while (pf_next(p, &cs, &g, "compact_sched")) {
                if ((g.num == 1 || g.num == 7) && g.wt == 2 && g.len) {
                    const uint8_t *q = g.data;
                    uint64_t v;
                    if (!pb_varint(&q, g.data + g.len, &v))
                        pf_fail(p, "a damaged compact_sched array (a varint cut short)");
                    if (v < min)
                        min = v;
                }
            }
        }
    }
    return min;
}

static void add_bundle(pf *p, const uint8_t *data, size_t len, uint32_t chunk)
{
    uint32_t cpu;
    uint64_t min = bundle_min_ts(p, data, len, &cpu);
    p->c->bundles++;
    if (min == UINT64_MAX)
        return; /* nothing in it */
    if (p->n_bundles == p->cap_bundles) {
        p->cap_bundles = p->cap_bundles ? p->cap_bundles * 2 : 64;
        p->bundles = argus_xrealloc(p->bundles, p->cap_bundles * sizeof *p->bundles,
                                    "ftrace bundles");
    }
    const uint8_t *base = chunk ? p->chunk_base : p->file;
    p->bundles[p->n_bundles] = (pf_bundle){
        .min_ts = min, .off = p->at, .data_off = (size_t)(data - base), .len = len,
        .chunk = chunk, .cpu = cpu, .seq = (uint32_t)p->n_bundles};
    p->n_bundles++;
    if (chunk)
        p->chunks[chunk - 1].bundles++;
}

/* BUF of inflated packets grown to twice its capacity *CAP, at most
 * PF_MAX_INFLATED: past that the trace is refused, the decompressor
 * STREAM ended first (END) and BUF freed. zlib's and zstd's loops alike. */
static uint8_t *grow_inflated(pf *p, uint8_t *buf, size_t *cap, void (*end)(void *),
                              void *stream)
{
    if (*cap >= PF_MAX_INFLATED) {
        end(stream);
        free(buf);
        pf_fail(p, "compressed packets inflate to more than %u MiB", PF_MAX_INFLATED >> 20);
    }
    *cap = *cap * 2 > PF_MAX_INFLATED ? PF_MAX_INFLATED : *cap * 2;
    return argus_xrealloc(buf, *cap, "inflated packets");
}

static void end_zstd(void *stream) { ZSTD_freeDStream(stream); }
static void end_zlib(void *stream) { inflateEnd(stream); }

/* Decompresses a zstd chunk C into its buffer: one or more frames, their
 * size not trusted (the output grows as it comes, up to PF_MAX_INFLATED). */
static void unzstd_chunk(pf *p, pf_chunk *c)
{
    ZSTD_DStream *zd = ZSTD_createDStream();
    if (!zd) /* its own allocation: a shortage */
        argus_die(ARGUS_EX_IOERR, "out of memory (zstd decompressor)");
    size_t cap = c->zlen * 4 + 4096, rc = 0;
    uint8_t *buf = argus_xmalloc(cap, "inflated packets");
    ZSTD_inBuffer in = {c->z, c->zlen, 0};
    ZSTD_outBuffer out = {buf, cap, 0};
    while (in.pos < in.size || rc != 0) {
        if (out.pos == out.size) {
            buf = grow_inflated(p, buf, &cap, end_zstd, zd);
            out.dst = buf;
            out.size = cap;
        }
        size_t before_in = in.pos, before_out = out.pos;
        rc = ZSTD_decompressStream(zd, &out, &in);
        if (ZSTD_isError(rc) || (rc && in.pos == before_in && out.pos == before_out &&
                                 in.pos == in.size)) {
            ZSTD_freeDStream(zd);
            free(buf);
            pf_fail(p, "zstd-compressed packets that do not decompress (zstd: %s)",
                    ZSTD_isError(rc) ? ZSTD_getErrorName(rc) : "cut short");
        }
    }
    ZSTD_freeDStream(zd);
    c->buf = buf;
    c->len = out.pos;
}

/* Inflates chunk C into its buffer. */
static void inflate_chunk(pf *p, pf_chunk *c)
{
    if (c->zstd) {
        unzstd_chunk(p, c);
        return;
    }
    z_stream z = {0};
    if (inflateInit(&z) != Z_OK) /* its own allocation: a shortage */
        argus_die(ARGUS_EX_IOERR, "out of memory (zlib decompressor)");
    size_t cap = c->zlen * 4 + 4096, len = 0;
    uint8_t *buf = argus_xmalloc(cap, "inflated packets");
    z.next_in = (Bytef *)c->z;
    z.avail_in = (uInt)c->zlen;
    int rc;
    do {
        if (len == cap)
            buf = grow_inflated(p, buf, &cap, end_zlib, &z);
        z.next_out = buf + len;
        z.avail_out = (uInt)(cap - len);
        rc = inflate(&z, Z_NO_FLUSH);
        len = cap - z.avail_out;
    } while (rc == Z_OK || (rc == Z_BUF_ERROR && z.avail_out == 0 && z.avail_in > 0));
    inflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(buf);
        pf_fail(p, "compressed packets that do not inflate (zlib: %s)",
                rc == Z_DATA_ERROR ? "bad data" : "cut short");
    }
    c->buf = buf;
    c->len = len;
}

static void index_trace(pf *p, const uint8_t *data, size_t len, uint32_t chunk);

static void count_kind(pf *p, uint32_t num)
{
    static const uint32_t kinds[] = {1, 11, 66, 2, 9, 39, 7};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (kinds[i] == num)
            p->kinds[i]++;
}

/* DEC-LOSS: a packet's previous_packet_dropped (42) says its sequence
 * (trusted_packet_sequence_id, 10) lost the packet before it; on an
 * ftrace bundle's, that CPU lost events there. A sequence's first packet
 * may say it of a writer just made: it counts from the second on, as
 * Perfetto's trace processor counts it. */
static void note_dropped(pf *p, size_t first_bundle, uint64_t seq, bool has_seq, bool dropped)
{
    if (!has_seq)
        return;
    bool created;
    argus_table_put(&p->sequences, seq, &created);
    if (!dropped || created)
        return;
    for (size_t i = first_bundle; i < p->n_bundles; i++)
        p->bundles[i].dropped_before = true;
}

static void index_packet(pf *p, const uint8_t *data, size_t len, uint32_t chunk)
{
    pb b = {data, data + len};
    pb_field f;
    size_t first_bundle = p->n_bundles;
    uint64_t seq = 0;
    bool has_seq = false, dropped = false;
    p->c->packets++;
    while (pf_next(p, &b, &f, "packet")) {
        if (f.wt == 0 && f.num == 10)
            seq = f.v, has_seq = true;
        else if (f.wt == 0 && f.num == 42)
            dropped = f.v != 0;
        if (f.wt != 2)
            continue;
        count_kind(p, f.num);
        switch (f.num) {
        case 1: add_bundle(p, f.data, f.len, chunk); break;
        case 2: index_process_tree(p, f.data, f.len); break;
        case 9: index_process_stats(p, f.data, f.len); break;
        case 45: index_system_info(p, f.data, f.len); break;
        case 12: index_interned(p, f.data, f.len); break;
        case 6: index_clock_snapshot(p, f.data, f.len); break;
        case 34: index_ftrace_stats(p, f.data, f.len); break;
        case 35: index_trace_stats(p, f.data, f.len); break;
        case 50:
        case 133: { /* compressed_packets (deflate), zstd_compressed_packets */
            if (chunk)
                pf_fail(p, "compressed packets inside compressed packets");
            if (p->n_chunks == p->cap_chunks) {
                p->cap_chunks = p->cap_chunks ? p->cap_chunks * 2 : 16;
                p->chunks = argus_xrealloc(p->chunks, p->cap_chunks * sizeof *p->chunks,
                                           "compressed packets");
            }
            pf_chunk *c = &p->chunks[p->n_chunks++];
            *c = (pf_chunk){.z = f.data, .zlen = f.len, .off = p->at, .zstd = f.num == 133};
            p->c->compressed++;
            inflate_chunk(p, c);
            p->chunk_base = c->buf;
            p->chunk_off = p->at;
            index_trace(p, c->buf, c->len, (uint32_t)p->n_chunks);
            p->chunk_base = NULL;
            free(c->buf);
            c->buf = NULL;
            break;
        }
        default: break;
        }
    }
    note_dropped(p, first_bundle, seq, has_seq, dropped);
}

/* The packets of a Trace (field 1 each). */
static void index_trace(pf *p, const uint8_t *data, size_t len, uint32_t chunk)
{
    pb b = {data, data + len};
    pb_field f;
    for (;;) {
        const uint8_t *start = b.p;
        if (!chunk)
            p->at = (uint64_t)(start - p->file);
        int rc = pb_next(&b, &f);
        if (rc == 0)
            break;
        if (rc < 0) {
            /* a file cut short or damaged: what came before is decoded,
             * then the error is given */
            uint64_t left = (uint64_t)(data + len - start);
            const uint8_t *q = start;
            uint64_t key, n;
            if (pb_varint(&q, data + len, &key) && key == 0x0a && pb_varint(&q, data + len, &n))
                snprintf(p->deferred, sizeof p->deferred,
                         "%s: byte %llu: %s ends inside a packet of %llu bytes (%llu there)",
                         p->name, (unsigned long long)(chunk ? p->chunk_off : p->at),
                         chunk ? "the inflated data" : "the file", (unsigned long long)n,
                         (unsigned long long)(data + len - q));
            else
                snprintf(p->deferred, sizeof p->deferred,
                         "%s: byte %llu: not a Perfetto packet (%llu bytes left that "
                         "are no protobuf field)%s",
                         p->name, (unsigned long long)(chunk ? p->chunk_off : p->at),
                         (unsigned long long)left, chunk ? ", in compressed packets" : "");
            return;
        }
        if (f.num != 1 || f.wt != 2)
            continue; /* a Trace holds packets only; others are skipped */
        index_packet(p, f.data, f.len, chunk);
        if (p->deferred[0])
            return;
    }
}

/* ---- The merge ------------------------------------------------------------ */

static const uint8_t *bundle_data(pf *p, const pf_bundle *b)
{
    if (!b->chunk)
        return p->file + b->data_off;
    pf_chunk *c = &p->chunks[b->chunk - 1];
    if (!c->buf) {
        p->chunk_base = NULL;
        p->at = c->off;
        inflate_chunk(p, c);
    }
    return c->buf + b->data_off;
}

static void cursor_free(pf *p, pf_cursor *cur)
{
    if (cur->b && cur->b->chunk) {
        pf_chunk *c = &p->chunks[cur->b->chunk - 1];
        if (c->open_left && --c->open_left == 0) {
            free(c->buf);
            c->buf = NULL;
        }
    }
    free(cur->intern);
    free(cur->intern_len);
    free(cur);
}

/* The cursor's next event of the bundle's event list. */
static void next_event(pf *p, pf_cursor *cur)
{
    pb_field f, g;
    cur->ev_have = false;
    while (pf_next(p, &cur->rest, &f, "ftrace bundle")) {
        if (f.num != 2 || f.wt != 2)
            continue;
        cur->ev = f;
        cur->ev_ts = 0;
        pb e = {f.data, f.data + f.len};
        while (pf_next(p, &e, &g, "ftrace event"))
            if (g.num == 1 && g.wt == 0)
                cur->ev_ts = g.v;
        cur->ev_have = true;
        return;
    }
}

static void next_switch(pf *p, pf_cursor *cur)
{
    uint64_t d;
    cur->sw_have = packed_next(p, &cur->sw_ts, &d);
    cur->sw_t += d;
}

static void next_waking(pf *p, pf_cursor *cur)
{
    uint64_t d;
    cur->wk_have = packed_next(p, &cur->wk_ts, &d);
    cur->wk_t += d;
}

/* The cursor's head: the earliest of its three streams (at a tie: the
 * event, then the waking, then the switch). False when it is done. */
static bool cursor_head(pf_cursor *cur)
{
    cur->head = -1;
    if (cur->ev_have)
        cur->head = 0, cur->ts = cur->ev_ts;
    if (cur->wk_have && (cur->head < 0 || cur->wk_t < cur->ts))
        cur->head = 1, cur->ts = cur->wk_t;
    if (cur->sw_have && (cur->head < 0 || cur->sw_t < cur->ts))
        cur->head = 2, cur->ts = cur->sw_t;
    return cur->head >= 0;
}

static void set_packed(pf *p, pf_packed *a, const pb_field *g)
{
    if (g->wt != 2)
        pf_fail(p, "a compact_sched array not packed (field %u)", g->num);
    if (a->present)
        pf_fail(p, "a compact_sched array in two parts (field %u), which argus does "
                   "not read", g->num);
    *a = (pf_packed){g->data, g->data + g->len, true};
}

static pf_cursor *cursor_open(pf *p, const pf_bundle *b)
{
    pf_cursor *cur = argus_xcalloc(1, sizeof *cur, "a bundle's cursor");
    p->opening = cur;
    cur->b = b;
    cur->seq = b->seq;
    cur->cpu = b->cpu;
    const uint8_t *data = bundle_data(p, b);
    p->at = b->off;
    p->chunk_base = b->chunk ? p->chunks[b->chunk - 1].buf : NULL;
    p->chunk_off = b->off;
    cur->rest = (pb){data, data + b->len};
    pb all = cur->rest;
    pb_field f, g;
    bool lost = false;
    while (pf_next(p, &all, &f, "ftrace bundle")) {
        if (f.num == 3 && f.wt == 0)
            lost = f.v != 0;
        if (f.num != 4 || f.wt != 2)
            continue;
        pb cs = {f.data, f.data + f.len};
        uint32_t n = 0;
        while (pf_next(p, &cs, &g, "compact_sched")) {
            switch (g.num) {
            case 1: set_packed(p, &cur->sw_ts, &g); break;
            case 2: set_packed(p, &cur->sw_state, &g); break;
            case 3: set_packed(p, &cur->sw_pid, &g); break;
            case 4: set_packed(p, &cur->sw_prio, &g); break;
            case 6: set_packed(p, &cur->sw_comm, &g); break;
            case 7: set_packed(p, &cur->wk_ts, &g); break;
            case 8: set_packed(p, &cur->wk_pid, &g); break;
            case 9: set_packed(p, &cur->wk_cpu, &g); break;
            case 10: set_packed(p, &cur->wk_prio, &g); break;
            case 11: set_packed(p, &cur->wk_comm, &g); break;
            case 12: set_packed(p, &cur->wk_flags, &g); break;
            case 5:
                if (g.wt == 2)
                    n++;
                break;
            default: break;
            }
        }
        if (n) {
            free(cur->intern);
            free(cur->intern_len);
            cur->intern = argus_xmalloc(n * sizeof *cur->intern, "interned strings");
            cur->intern_len = argus_xmalloc(n * sizeof *cur->intern_len, "interned strings");
            cur->n_intern = 0;
            cs = (pb){f.data, f.data + f.len};
            while (pf_next(p, &cs, &g, "compact_sched"))
                if (g.num == 5 && g.wt == 2) {
                    cur->intern[cur->n_intern] = g.data;
                    cur->intern_len[cur->n_intern++] = (uint32_t)g.len;
                }
        }
    }
    if ((lost || b->dropped_before) && !p->prescan) {
        char l[64];
        int n = snprintf(l, sizeof l, "CPU:%u [LOST EVENTS]", b->cpu);
        if (argus_ft_line(p->d, l, (size_t)n) < 0)
            longjmp(p->fail, 2);
    }
    next_event(p, cur);
    next_switch(p, cur);
    next_waking(p, cur);
    p->opening = NULL;
    return cur;
}

static bool heap_less(const pf_cursor *a, const pf_cursor *b)
{
    return a->ts < b->ts || (a->ts == b->ts && a->seq < b->seq);
}

static void heap_push(pf *p, pf_cursor *cur)
{
    size_t i = p->n_heap++;
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (!heap_less(cur, p->heap[up]))
            break;
        p->heap[i] = p->heap[up];
        i = up;
    }
    p->heap[i] = cur;
}

/* The top moved (its ts grew) or left (n_heap already one less). */
static void heap_down(pf *p, pf_cursor *cur)
{
    size_t i = 0, n = p->n_heap;
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        const pf_cursor *best = cur;
        if (l < n && heap_less(p->heap[l], best))
            m = l, best = p->heap[l];
        if (l + 1 < n && heap_less(p->heap[l + 1], best))
            m = l + 1;
        if (m == i)
            break;
        p->heap[i] = p->heap[m];
        i = m;
    }
    if (n)
        p->heap[i] = cur;
}

/* ---- Rendering ---------------------------------------------------------- */

static void put(pf *p, const char *fmt, ...)
{
    if (p->n >= sizeof p->line - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(p->line + p->n, sizeof p->line - p->n, fmt, ap);
    va_end(ap);
    if (w > 0)
        p->n += (size_t)w < sizeof p->line - p->n ? (size_t)w : sizeof p->line - 1 - p->n;
}

static const char *comm_of(pf *p, int64_t tid)
{
    if (tid == 0)
        return "<idle>";
    const pf_comm *c = argus_table_get(&p->comms, (uint64_t)tid);
    if (c && c->name[0])
        return c->name;
    const pf_thread *t = argus_table_get(&p->threads, (uint64_t)tid);
    return t && t->name[0] ? t->name : "<...>";
}

static void learn_comm(pf *p, int64_t tid, const char *name)
{
    if (tid <= 0 || !name[0])
        return;
    bool created;
    pf_comm *c = argus_table_put(&p->comms, (uint64_t)tid, &created);
    snprintf(c->name, sizeof c->name, "%s", name);
}

static pf_cpu *cpu_state(pf *p, uint32_t cpu)
{
    if (cpu >= p->n_cpus) {
        uint32_t n = cpu + 1 > p->n_cpus * 2 ? cpu + 1 : p->n_cpus * 2;
        p->cpus = argus_xrealloc(p->cpus, n * sizeof *p->cpus, "CPU states");
        for (uint32_t i = p->n_cpus; i < n; i++)
            p->cpus[i] = (pf_cpu){.tid = -1, .prio = 120};
        p->n_cpus = n;
    }
    return &p->cpus[cpu];
}

/* The kernel's flags column from trace_entry's flags (irqs-off,
 * need-resched, hardirq/softirq; the preempt depth is not recorded). */
static void put_flags(pf *p, uint64_t fl)
{
    char irqs = fl & 0x01 ? 'd' : '.';
    char resched = (fl & 0x04) && (fl & 0x20) ? 'N' : fl & 0x04 ? 'n' : fl & 0x20 ? 'p' : '.';
    char ctx = (fl & 0x40) && (fl & 0x08) ? 'Z' : fl & 0x40 ? 'z' :
               (fl & 0x08) && (fl & 0x10) ? 'H' : fl & 0x08 ? 'h' : fl & 0x10 ? 's' : '.';
    put(p, " %c%c%c.", irqs, resched, ctx);
}

static void put_head(pf *p, int64_t tid, uint32_t cpu, bool have_flags, uint64_t flags,
                     uint64_t ts, const char *event)
{
    p->n = 0;
    put(p, "%16s-%-7lld [%03u]", comm_of(p, tid), (long long)tid, cpu);
    if (have_flags)
        put_flags(p, flags);
    put(p, " %llu.%09llu: %s: ", (unsigned long long)(ts / 1000000000u),
        (unsigned long long)(ts % 1000000000u), event);
}

/* prev_state as the kernel (4.14 and later) prints it. */
static void put_state(pf *p, int64_t st)
{
    if (p->old_kernel) {
        put(p, "%lld", (long long)st);
        return;
    }
    static const char letters[] = "SDTtXZPI";
    uint64_t v = (uint64_t)st & 0xff;
    if (!v) {
        put(p, "R%s", (uint64_t)st & ~(uint64_t)0xff ? "+" : "");
        return;
    }
    bool first = true;
    for (int i = 0; i < 8; i++)
        if (v >> i & 1) {
            put(p, "%s%c", first ? "" : "|", letters[i]);
            first = false;
        }
    if ((uint64_t)st & 0x100)
        put(p, "+");
}

static void emit(pf *p)
{
    if (p->prescan) {
        argus_ft_prescan_line(p->d, p->line, p->n);
        return;
    }
    if (argus_ft_line(p->d, p->line, p->n) < 0)
        longjmp(p->fail, 2);
}

static void put_switch(pf *p, uint32_t cpu, uint64_t ts, bool have_flags, uint64_t flags,
                       int64_t prev_pid, const char *prev_comm, int32_t prev_prio,
                       int64_t prev_state, int64_t next_pid, const char *next_comm,
                       int32_t next_prio)
{
    p->switches_seen++;
    p->c->switches++;
    learn_comm(p, prev_pid, prev_comm);
    learn_comm(p, next_pid, next_comm);
    put_head(p, prev_pid, cpu, have_flags, flags, ts, "sched_switch");
    put(p, "prev_comm=%s prev_pid=%lld prev_prio=%d prev_state=", prev_comm,
        (long long)prev_pid, prev_prio);
    put_state(p, prev_state);
    put(p, " ==> next_comm=%s next_pid=%lld next_prio=%d", next_comm, (long long)next_pid,
        next_prio);
    emit(p);
    pf_cpu *c = cpu_state(p, cpu);
    c->tid = next_pid;
    c->prio = next_prio;
    snprintf(c->comm, sizeof c->comm, "%s", next_comm);
}

static void intern_name(pf *p, const pf_cursor *cur, uint64_t index, char *out)
{
    if (index >= cur->n_intern)
        pf_fail(p, "a compact_sched comm index %llu past its table of %u",
                (unsigned long long)index, cur->n_intern);
    copy_name(out, cur->intern[index], cur->intern_len[index]);
}

static void render_compact_switch(pf *p, pf_cursor *cur)
{
    uint64_t state = 0, pid = 0, prio = 0, comm = 0;
    if (!packed_next(p, &cur->sw_state, &state) || !packed_next(p, &cur->sw_pid, &pid) ||
        !packed_next(p, &cur->sw_prio, &prio) || !packed_next(p, &cur->sw_comm, &comm))
        pf_fail(p, "compact_sched switch arrays of different lengths");
    char next_comm[PF_NAME_CAP];
    intern_name(p, cur, comm, next_comm);
    pf_cpu *c = cpu_state(p, cur->cpu);
    if (c->tid < 0) {
        /* the task it switched from is not known: only where it went */
        p->c->first_switches++;
        c->tid = (int32_t)pid;
        c->prio = (int32_t)prio;
        snprintf(c->comm, sizeof c->comm, "%s", next_comm);
        learn_comm(p, (int32_t)pid, next_comm);
        return;
    }
    char prev_comm[PF_NAME_CAP];
    snprintf(prev_comm, sizeof prev_comm, "%s", c->comm);
    if (c->tid == 0)
        snprintf(prev_comm, sizeof prev_comm, "swapper/%u", cur->cpu);
    else if (!c->comm[0])
        snprintf(prev_comm, sizeof prev_comm, "%s", comm_of(p, c->tid));
    put_switch(p, cur->cpu, cur->sw_t, false, 0, c->tid, prev_comm, c->prio, (int64_t)state,
               (int32_t)pid, next_comm, (int32_t)prio);
}

static void put_waking(pf *p, const char *event, int64_t waker, uint32_t cpu, uint64_t ts,
                       bool have_flags, uint64_t flags, const char *comm, int64_t pid,
                       int32_t prio, bool have_success, int64_t success, int64_t target)
{
    p->c->wakings++;
    learn_comm(p, pid, comm);
    put_head(p, waker, cpu, have_flags, flags, ts, event);
    put(p, "comm=%s pid=%lld prio=%d", comm, (long long)pid, prio);
    if (have_success)
        put(p, " success=%lld", (long long)success);
    put(p, " target_cpu=%03lld", (long long)target);
    emit(p);
}

static void render_compact_waking(pf *p, pf_cursor *cur)
{
    uint64_t pid = 0, target = 0, prio = 0, comm = 0, flags = 0;
    if (!packed_next(p, &cur->wk_pid, &pid) || !packed_next(p, &cur->wk_cpu, &target) ||
        !packed_next(p, &cur->wk_prio, &prio) || !packed_next(p, &cur->wk_comm, &comm))
        pf_fail(p, "compact_sched waking arrays of different lengths");
    bool have_flags = cur->wk_flags.present && packed_next(p, &cur->wk_flags, &flags);
    char name[PF_NAME_CAP];
    intern_name(p, cur, comm, name);
    pf_cpu *c = cpu_state(p, cur->cpu);
    if (c->tid < 0)
        p->c->unknown_wakers++; /* the idle task's, as far as the trace tells */
    put_waking(p, "sched_waking", c->tid < 0 ? 0 : c->tid, cur->cpu, cur->wk_t, have_flags,
               flags, name, (int32_t)pid, (int32_t)prio, false, 0, (int32_t)target);
}

/* The fields of an event's message, by number (the few argus reads). */
typedef struct ev_fields {
    uint64_t v[12];
    bool has[12];
    const uint8_t *s[12];
    size_t n[12];
    uint64_t args[6];
    size_t nargs;
} ev_fields;

static void read_fields(pf *p, const uint8_t *data, size_t len, ev_fields *e, bool args)
{
    memset(e, 0, sizeof *e);
    pb b = {data, data + len};
    pb_field f;
    while (pf_next(p, &b, &f, "ftrace event")) {
        if (args && f.num == 2) {
            /* SysEnter's args: repeated uint64, packed or not */
            if (f.wt == 0 && e->nargs < 6) {
                e->args[e->nargs++] = f.v;
            } else if (f.wt == 2) {
                const uint8_t *q = f.data, *end = f.data + f.len;
                uint64_t v;
                while (q < end) {
                    if (!pb_varint(&q, end, &v))
                        pf_fail(p, "a damaged sys_enter event (its args)");
                    if (e->nargs < 6)
                        e->args[e->nargs++] = v;
                }
            }
            continue;
        }
        if (f.num >= 12)
            continue;
        e->has[f.num] = true;
        if (f.wt == 2)
            e->s[f.num] = f.data, e->n[f.num] = f.len;
        else
            e->v[f.num] = f.v;
    }
}

static const char *str_field(const ev_fields *e, int i, char *buf)
{
    copy_name(buf, e->s[i] ? e->s[i] : (const uint8_t *)"", e->s[i] ? e->n[i] : 0);
    return buf;
}

static int32_t i32(const ev_fields *e, int i)
{
    return (int32_t)e->v[i];
}

static const argus_syscall *find_syscall(const argus_syscall *table, int64_t nr)
{
    if (!table || nr < 0)
        return NULL;
    for (const argus_syscall *s = table; s->name; s++)
        if (s->nr == nr)
            return s;
    return NULL;
}

/* A function field: its symbol's name (symbolize_ksyms), else the address. */
static void put_function(pf *p, uint64_t v)
{
    const pf_comm *name = argus_table_get(&p->ksyms, v);
    if (name && name->name[0])
        put(p, "%s", name->name);
    else
        put(p, "0x%llx", (unsigned long long)v);
}

static const char *hrtimer_mode(uint64_t m)
{
    static const char *const modes[] = {"ABS", "REL", "ABS|PINNED", "REL|PINNED", "ABS|SOFT",
                                        "REL|SOFT", "ABS|PINNED|SOFT", "REL|PINNED|SOFT",
                                        "ABS|HARD", "REL|HARD", "ABS|PINNED|HARD",
                                        "REL|PINNED|HARD"};
    return m < sizeof modes / sizeof *modes ? modes[m] : "?";
}

static void render_event(pf *p, pf_cursor *cur)
{
    pb b = {cur->ev.data, cur->ev.data + cur->ev.len};
    pb_field f, ev = {0};
    int64_t pid = 0;
    uint64_t flags = 0;
    bool have_flags = false;
    while (pf_next(p, &b, &f, "ftrace event")) {
        if (f.num == 2 && f.wt == 0)
            pid = (int32_t)f.v;
        else if (f.num == 5 && f.wt == 0)
            flags = f.v, have_flags = true;
        else if (f.wt == 2 && f.num != 1)
            ev = f;
    }
    p->c->events++;
    uint64_t ts = cur->ev_ts;
    uint32_t cpu = cur->cpu;
    /* the task on this cpu, for compact switches and wakings after it */
    pf_cpu *c = cpu_state(p, cpu);
    if (c->tid != pid) {
        c->tid = pid;
        c->comm[0] = 0;
    }
    ev_fields e;
    char a[PF_NAME_CAP], bname[PF_NAME_CAP];
    switch (ev.num) {
    case 4: /* sched_switch */
        read_fields(p, ev.data, ev.len, &e, false);
        put_switch(p, cpu, ts, have_flags, flags, i32(&e, 2), str_field(&e, 1, a), i32(&e, 3),
                   (int64_t)e.v[4], i32(&e, 6), str_field(&e, 5, bname), i32(&e, 7));
        return;
    case 20: case 17: case 114: /* sched_waking, sched_wakeup, sched_wakeup_new */
        read_fields(p, ev.data, ev.len, &e, false);
        put_waking(p, ev.num == 20 ? "sched_waking" : ev.num == 17 ? "sched_wakeup"
                                                                   : "sched_wakeup_new",
                   pid, cpu, ts, have_flags, flags, str_field(&e, 1, a), i32(&e, 2),
                   i32(&e, 3), e.has[4], i32(&e, 4), i32(&e, 5));
        return;
    case 36: /* irq_handler_entry */
        read_fields(p, ev.data, ev.len, &e, false);
        put_head(p, pid, cpu, have_flags, flags, ts, "irq_handler_entry");
        put(p, "irq=%d name=%s", i32(&e, 1), str_field(&e, 2, a));
        break;
    case 37: /* irq_handler_exit */
        read_fields(p, ev.data, ev.len, &e, false);
        put_head(p, pid, cpu, have_flags, flags, ts, "irq_handler_exit");
        put(p, "irq=%d ret=%s", i32(&e, 1), e.v[2] ? "handled" : "unhandled");
        break;
    case 24: case 25: { /* softirq_entry, softirq_exit */
        static const char *const actions[] = {"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
                                              "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU"};
        read_fields(p, ev.data, ev.len, &e, false);
        put_head(p, pid, cpu, have_flags, flags, ts,
                 ev.num == 24 ? "softirq_entry" : "softirq_exit");
        put(p, "vec=%u", (unsigned)e.v[1]);
        if (e.v[1] < 10)
            put(p, " [action=%s]", actions[e.v[1]]);
        break;
    }
    case 329: case 330: { /* raw_syscalls sys_enter, sys_exit */
        read_fields(p, ev.data, ev.len, &e, ev.num == 329);
        int64_t nr = (int64_t)e.v[1];
        const argus_syscall *s = find_syscall(p->syscalls, nr);
        if (ev.num == 330) {
            if (s) {
                put_head(p, pid, cpu, have_flags, flags, ts, "sys_exit_");
                p->n -= 2; /* "sys_exit_NAME: " */
                put(p, "%s: 0x%llx", s->name, (unsigned long long)e.v[2]);
            } else {
                put_head(p, pid, cpu, have_flags, flags, ts, "sys_exit");
                put(p, "NR %lld = %lld", (long long)nr, (long long)e.v[2]);
            }
            break;
        }
        if (s) {
            put_head(p, pid, cpu, have_flags, flags, ts, "sys_enter_");
            p->n -= 2;
            put(p, "%s: ", s->name);
            if (s->args) {
                const char *q = s->args;
                for (size_t i = 0; *q && i < 6; i++) {
                    const char *sp = strchr(q, ' ');
                    size_t len = sp ? (size_t)(sp - q) : strlen(q);
                    put(p, "%s%.*s: 0x%08llx", i ? ", " : "", (int)len, q,
                        (unsigned long long)e.args[i]);
                    q += len;
                    while (*q == ' ')
                        q++;
                }
            } else {
                for (size_t i = 0; i < 6; i++)
                    put(p, "%sarg%zu: 0x%08llx", i ? ", " : "", i,
                        (unsigned long long)e.args[i]);
            }
        } else {
            put_head(p, pid, cpu, have_flags, flags, ts, "sys_enter");
            put(p, "NR %lld (", (long long)nr);
            for (size_t i = 0; i < 6; i++)
                put(p, "%s%llx", i ? ", " : "", (unsigned long long)e.args[i]);
            put(p, ")");
        }
        break;
    }
    case 3: { /* print: an atrace mark, as tracing_mark_write */
        p->prints++;
        read_fields(p, ev.data, ev.len, &e, false);
        put_head(p, pid, cpu, have_flags, flags, ts, "tracing_mark_write");
        size_t n = e.n[2];
        while (n && (e.s[2][n - 1] == '\n' || e.s[2][n - 1] == 0))
            n--;
        for (size_t i = 0; i < n && p->n < sizeof p->line - 1; i++) {
            char ch = (char)e.s[2][i];
            p->line[p->n++] = ch == '\n' || ch == '\r' || ch == 0 ? ' ' : ch;
        }
        p->line[p->n] = 0;
        break;
    }
    case 50: /* binder_transaction: a call or a reply (android.c's DEC-BINDER) */
        p->c->binder++;
        read_fields(p, ev.data, ev.len, &e, false);
        put_head(p, pid, cpu, have_flags, flags, ts, "binder_transaction");
        put(p, "transaction=%d dest_node=%d dest_proc=%d dest_thread=%d reply=%d flags=0x%x "
               "code=0x%x", i32(&e, 1), i32(&e, 2), i32(&e, 3), i32(&e, 4), i32(&e, 5),
            (unsigned)e.v[7], (unsigned)e.v[6]);
        break;
    case 51: /* binder_transaction_received */
        p->c->binder++;
        read_fields(p, ev.data, ev.len, &e, false);
        put_head(p, pid, cpu, have_flags, flags, ts, "binder_transaction_received");
        put(p, "transaction=%d", i32(&e, 1));
        break;
    case 52: /* binder_set_priority */
        p->c->binder++;
        read_fields(p, ev.data, ev.len, &e, false);
        put_head(p, pid, cpu, have_flags, flags, ts, "binder_set_priority");
        put(p, "proc=%d thread=%d old=%d => new=%d desired=%d", i32(&e, 1), i32(&e, 2),
            i32(&e, 3), i32(&e, 4), i32(&e, 5));
        break;
    case 53: case 54: case 55: /* binder_lock, binder_locked, binder_unlock */
        p->c->binder++;
        read_fields(p, ev.data, ev.len, &e, false);
        put_head(p, pid, cpu, have_flags, flags, ts,
                 ev.num == 53 ? "binder_lock" : ev.num == 54 ? "binder_locked" : "binder_unlock");
        put(p, "tag=%s", str_field(&e, 1, a));
        break;
    case 323: /* binder_transaction_alloc_buf */
        p->c->binder++;
        read_fields(p, ev.data, ev.len, &e, false);
        put_head(p, pid, cpu, have_flags, flags, ts, "binder_transaction_alloc_buf");
        put(p, "transaction=%d data_size=%lld offsets_size=%lld", i32(&e, 2), (long long)e.v[1],
            (long long)e.v[3]);
        if (e.has[4]) /* kernels since 4.14 print it */
            put(p, " extra_buffers_size=%lld", (long long)e.v[4]);
        break;
    case 485: case 486: { /* binder_command (BC_*), binder_return (BR_*) */
        static const char *const bc[] = {
            "BC_TRANSACTION", "BC_REPLY", "BC_ACQUIRE_RESULT", "BC_FREE_BUFFER", "BC_INCREFS",
            "BC_ACQUIRE", "BC_RELEASE", "BC_DECREFS", "BC_INCREFS_DONE", "BC_ACQUIRE_DONE",
            "BC_ATTEMPT_ACQUIRE", "BC_REGISTER_LOOPER", "BC_ENTER_LOOPER", "BC_EXIT_LOOPER",
            "BC_REQUEST_DEATH_NOTIFICATION", "BC_CLEAR_DEATH_NOTIFICATION",
            "BC_DEAD_BINDER_DONE", "BC_TRANSACTION_SG", "BC_REPLY_SG"};
        static const char *const br[] = {
            "BR_ERROR", "BR_OK", "BR_TRANSACTION", "BR_REPLY", "BR_ACQUIRE_RESULT",
            "BR_DEAD_REPLY", "BR_TRANSACTION_COMPLETE", "BR_INCREFS", "BR_ACQUIRE",
            "BR_RELEASE", "BR_DECREFS", "BR_ATTEMPT_ACQUIRE", "BR_NOOP", "BR_SPAWN_LOOPER",
            "BR_FINISHED", "BR_DEAD_BINDER", "BR_CLEAR_DEATH_NOTIFICATION_DONE",
            "BR_FAILED_REPLY", "BR_FROZEN_REPLY", "BR_ONEWAY_SPAM_SUSPECT",
            "BR_TRANSACTION_PENDING_FROZEN"};
        p->c->binder++;
        read_fields(p, ev.data, ev.len, &e, false);
        uint32_t cmd = (uint32_t)e.v[1], nr = cmd & 0xff; /* _IOC_NR */
        const char *name = ev.num == 485 ? (nr < sizeof bc / sizeof *bc ? bc[nr] : "unknown")
                                         : (nr < sizeof br / sizeof *br ? br[nr] : "unknown");
        put_head(p, pid, cpu, have_flags, flags, ts,
                 ev.num == 485 ? "binder_command" : "binder_return");
        put(p, "cmd=0x%x %s", cmd, name);
        break;
    }
    case 235: /* task_newtask */
        read_fields(p, ev.data, ev.len, &e, false);
        learn_comm(p, i32(&e, 1), str_field(&e, 2, a));
        put_head(p, pid, cpu, have_flags, flags, ts, "task_newtask");
        put(p, "pid=%d comm=%s clone_flags=%llx oom_score_adj=%d", i32(&e, 1), a,
            (unsigned long long)e.v[3], i32(&e, 4));
        break;
    case 236: /* task_rename */
        read_fields(p, ev.data, ev.len, &e, false);
        learn_comm(p, i32(&e, 1), str_field(&e, 3, bname));
        put_head(p, pid, cpu, have_flags, flags, ts, "task_rename");
        put(p, "pid=%d oldcomm=%s newcomm=%s oom_score_adj=%d", i32(&e, 1),
            str_field(&e, 2, a), bname, i32(&e, 4));
        break;
    case 239: /* sched_process_fork */
        read_fields(p, ev.data, ev.len, &e, false);
        learn_comm(p, i32(&e, 4), str_field(&e, 3, bname));
        put_head(p, pid, cpu, have_flags, flags, ts, "sched_process_fork");
        put(p, "comm=%s pid=%d child_comm=%s child_pid=%d", str_field(&e, 1, a), i32(&e, 2),
            bname, i32(&e, 4));
        break;
    case 237: /* sched_process_exec */
        read_fields(p, ev.data, ev.len, &e, false);
        put_head(p, pid, cpu, have_flags, flags, ts, "sched_process_exec");
        put(p, "filename=%.*s pid=%d old_pid=%d", (int)(e.n[1] < 1024 ? e.n[1] : 1024),
            e.s[1] ? (const char *)e.s[1] : "", i32(&e, 2), i32(&e, 3));
        for (size_t i = 0; i < p->n; i++)
            if (p->line[i] == '\n' || p->line[i] == '\r' || p->line[i] == 0)
                p->line[i] = '?';
        break;
    case 238: /* sched_process_exit */
        read_fields(p, ev.data, ev.len, &e, false);
        put_head(p, pid, cpu, have_flags, flags, ts, "sched_process_exit");
        put(p, "comm=%s pid=%d prio=%d", str_field(&e, 1, a), i32(&e, 2), i32(&e, 4));
        break;
    case 551: /* hrtimer_start */
        read_fields(p, ev.data, ev.len, &e, false);
        put_head(p, pid, cpu, have_flags, flags, ts, "hrtimer_start");
        put(p, "hrtimer=%016llx function=", (unsigned long long)e.v[1]);
        put_function(p, e.v[2]);
        put(p, " expires=%lld softexpires=%lld mode=%s", (long long)e.v[3], (long long)e.v[4],
            hrtimer_mode(e.v[5]));
        break;
    case 553: /* hrtimer_expire_entry */
        read_fields(p, ev.data, ev.len, &e, false);
        put_head(p, pid, cpu, have_flags, flags, ts, "hrtimer_expire_entry");
        put(p, "hrtimer=%016llx function=", (unsigned long long)e.v[1]);
        put_function(p, e.v[3]);
        put(p, " now=%lld", (long long)e.v[2]);
        break;
    case 552: case 554: /* hrtimer_cancel, hrtimer_expire_exit */
        read_fields(p, ev.data, ev.len, &e, false);
        put_head(p, pid, cpu, have_flags, flags, ts,
                 ev.num == 552 ? "hrtimer_cancel" : "hrtimer_expire_exit");
        put(p, "hrtimer=%016llx", (unsigned long long)e.v[1]);
        break;
    case 555: /* timer_start */
        read_fields(p, ev.data, ev.len, &e, false);
        put_head(p, pid, cpu, have_flags, flags, ts, "timer_start");
        put(p, "timer=%016llx function=", (unsigned long long)e.v[1]);
        put_function(p, e.v[2]);
        put(p, " expires=%llu flags=0x%08llx", (unsigned long long)e.v[3],
            (unsigned long long)e.v[6]);
        break;
    case 557: /* timer_expire_entry */
        read_fields(p, ev.data, ev.len, &e, false);
        put_head(p, pid, cpu, have_flags, flags, ts, "timer_expire_entry");
        put(p, "timer=%016llx function=", (unsigned long long)e.v[1]);
        put_function(p, e.v[3]);
        put(p, " now=%llu baseclk=%llu", (unsigned long long)e.v[2], (unsigned long long)e.v[4]);
        break;
    case 556: case 558: /* timer_cancel, timer_expire_exit */
        read_fields(p, ev.data, ev.len, &e, false);
        put_head(p, pid, cpu, have_flags, flags, ts,
                 ev.num == 556 ? "timer_cancel" : "timer_expire_exit");
        put(p, "timer=%016llx", (unsigned long long)e.v[1]);
        break;
    case 59: /* workqueue_queue_work */
        read_fields(p, ev.data, ev.len, &e, false);
        put_head(p, pid, cpu, have_flags, flags, ts, "workqueue_queue_work");
        put(p, "work struct=%016llx function=", (unsigned long long)e.v[1]);
        put_function(p, e.v[2]);
        put(p, " workqueue=%s req_cpu=%d cpu=%d", str_field(&e, 6, a), i32(&e, 4), i32(&e, 5));
        break;
    case 58: case 57: /* workqueue_execute_start, workqueue_execute_end */
        read_fields(p, ev.data, ev.len, &e, false);
        put_head(p, pid, cpu, have_flags, flags, ts,
                 ev.num == 58 ? "workqueue_execute_start" : "workqueue_execute_end");
        put(p, "work struct %016llx: function ", (unsigned long long)e.v[1]);
        put_function(p, e.v[2]);
        break;
    case 56: /* workqueue_activate_work */
        read_fields(p, ev.data, ev.len, &e, false);
        put_head(p, pid, cpu, have_flags, flags, ts, "workqueue_activate_work");
        put(p, "work struct %016llx", (unsigned long long)e.v[1]);
        break;
    default:
        p->c->not_rendered++;
        return;
    }
    emit(p);
}

/* ---- The passes ------------------------------------------------------------ */

static int bundle_order(const void *a, const void *b)
{
    const pf_bundle *x = a, *y = b;
    if (x->min_ts != y->min_ts)
        return x->min_ts < y->min_ts ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void pf_free_merge(pf *p)
{
    if (p->opening)
        cursor_free(p, p->opening);
    p->opening = NULL;
    for (size_t i = 0; i < p->n_heap; i++)
        cursor_free(p, p->heap[i]);
    p->n_heap = 0;
    free(p->heap);
    p->heap = NULL;
    free(p->cpus);
    p->cpus = NULL;
    p->n_cpus = 0;
    argus_table_free(&p->comms);
    for (size_t i = 0; i < p->n_chunks; i++) {
        free(p->chunks[i].buf);
        p->chunks[i].buf = NULL;
    }
}

/* One merge of every bundle, in time order, into the decoder. */
static void merge(pf *p)
{
    argus_table_init(&p->comms, sizeof(pf_comm));
    p->heap = argus_xmalloc((p->n_bundles + 1) * sizeof *p->heap, "the merge heap");
    for (size_t i = 0; i < p->n_chunks; i++)
        p->chunks[i].open_left = p->chunks[i].bundles;
    size_t next = 0;
    for (;;) {
        pf_cursor *top = p->n_heap ? p->heap[0] : NULL;
        if (next < p->n_bundles && (!top || p->bundles[next].min_ts < top->ts)) {
            pf_cursor *cur = cursor_open(p, &p->bundles[next++]);
            if (cursor_head(cur))
                heap_push(p, cur);
            else
                cursor_free(p, cur);
            continue;
        }
        if (!top)
            break;
        p->at = top->b->off;
        p->chunk_base = top->b->chunk ? p->chunks[top->b->chunk - 1].buf : NULL;
        p->chunk_off = top->b->off;
        switch (top->head) {
        case 0: render_event(p, top); next_event(p, top); break;
        case 1: render_compact_waking(p, top); next_waking(p, top); break;
        default: render_compact_switch(p, top); next_switch(p, top); break;
        }
        if (cursor_head(top)) {
            heap_down(p, top);
        } else {
            p->heap[0] = p->heap[--p->n_heap];
            if (p->n_heap)
                heap_down(p, p->heap[0]);
            cursor_free(p, top);
        }
    }
    pf_free_merge(p);
}

/* The process tree's facts as argus-record's thread lines, and the clock
 * snapshot as its clock line (the trace clock's reading, "mono=", is
 * BOOTTIME's here). */
static void thread_lines(pf *p)
{
    if (p->boottime && !p->other_clock) {
        p->n = 0;
        put(p, "# argus-clock: mono=%llu.%09llu realtime=%llu.%09llu",
            (unsigned long long)(p->boottime / 1000000000u),
            (unsigned long long)(p->boottime % 1000000000u),
            (unsigned long long)(p->realtime / 1000000000u),
            (unsigned long long)(p->realtime % 1000000000u));
        emit(p);
    }
    size_t pos = 0;
    uint64_t tid;
    void *v;
    while (argus_table_next(&p->threads, &pos, &tid, &v)) {
        const pf_thread *t = v;
        p->n = 0;
        put(p, "# argus-thread: tid=%llu", (unsigned long long)tid);
        if (t->tgid > 0)
            put(p, " tgid=%lld", (long long)t->tgid);
        if (t->kernel)
            put(p, " kernel=1");
        if (t->ppid > 0 && t->tgid == (int64_t)tid)
            put(p, " ppid=%lld", (long long)t->ppid);
        if (t->name[0])
            put(p, " comm=%s", t->name);
        emit(p);
        if (t->cmdline && t->tgid == (int64_t)tid) {
            p->n = 0;
            put(p, "# argus-cmdline: pid=%llu %s", (unsigned long long)tid, t->cmdline);
            emit(p);
        }
    }
}

/* DEC-LOSS: what the stats say was lost, as the lines tracefs writes for
 * it, before the first event: each CPU's events lost in its kernel ring
 * (overrun and dropped, the end's count less the start's), and, when the
 * service's buffer overwrote chunks, each CPU's "buffer started" mark
 * (its oldest events gone). */
static void loss_lines(pf *p)
{
    for (uint32_t cpu = 0; cpu < p->n_loss; cpu++) {
        const struct pf_loss *l = &p->loss[cpu];
        if (!l->end)
            continue;
        uint64_t lost = 0;
        if (l->end_overrun > l->start_overrun)
            lost += l->end_overrun - l->start_overrun;
        if (l->end_dropped > l->start_dropped)
            lost += l->end_dropped - l->start_dropped;
        if (lost) {
            p->n = 0;
            put(p, "CPU:%u [LOST %llu EVENTS]", cpu, (unsigned long long)lost);
            emit(p);
        }
    }
    if (p->chunks_discarded)
        argus_ft_buffer_full(p->d, p->chunks_discarded);
    if (!p->chunks_overwritten)
        return;
    uint8_t seen[PF_MAX_CPUS / 8 + 1] = {0};
    for (size_t i = 0; i < p->n_bundles; i++) {
        uint32_t cpu = p->bundles[i].cpu;
        if (cpu < PF_MAX_CPUS && !(seen[cpu / 8] & (1u << (cpu % 8)))) {
            seen[cpu / 8] |= (uint8_t)(1u << (cpu % 8));
            p->n = 0;
            put(p, "##### CPU %u buffer started ####", cpu);
            emit(p);
        }
    }
}

static const char *const kind_names[] = {"ftrace_events", "track_event", "perf_sample",
                                         "process_tree", "process_stats", "android_log",
                                         "sys_stats"};

/* No scheduler events: the trace cannot be diagnosed, and says why. */
static void refuse(pf *p)
{
    char held[200] = "";
    size_t n = 0;
    for (size_t i = 1; i < sizeof kind_names / sizeof *kind_names; i++)
        if (p->kinds[i] && n < sizeof held - 40)
            n += (size_t)snprintf(held + n, sizeof held - n, ", %llu %s",
                                  (unsigned long long)p->kinds[i], kind_names[i]);
    snprintf(p->err, p->errlen,
             "%s: no scheduler events: a Perfetto trace without sched_switch (the "
             "linux.ftrace data source with sched/sched_switch was not recorded): its %llu "
             "ftrace bundles hold %llu events (%llu atrace marks)%s of %llu packets; argus "
             "needs the kernel's switches and wakeups to diagnose a hang "
             "(docs/inputs/perfetto.md says how to record them)",
             p->name, (unsigned long long)p->kinds[0], (unsigned long long)p->c->events,
             (unsigned long long)p->prints, held, (unsigned long long)p->c->packets);
}

static int pf_run(pf *p)
{
    /* the index: a damaged packet ends it, what came before is decoded
     * and the error given at the end */
    if (setjmp(p->fail) == 0)
        index_trace(p, p->file, p->file_len, 0);
    else if (!p->deferred[0])
        snprintf(p->deferred, sizeof p->deferred, "%s", p->err);
    p->chunk_base = NULL;
    argus_sort(p->bundles, p->n_bundles, sizeof *p->bundles, bundle_order);
    /* the first pass: an error there is met again, at the same event, in
     * the second, after the lines before it */
    p->prescan = true;
    volatile bool prescan_failed = false;
    if (setjmp(p->fail) == 0)
        merge(p);
    else
        prescan_failed = true, pf_free_merge(p);
    if (!p->switches_seen) {
        if (prescan_failed)
            ; /* its message is in err */
        else if (p->deferred[0] && p->n_bundles == 0)
            snprintf(p->err, p->errlen, "%s", p->deferred);
        else
            refuse(p);
        return -1;
    }
    p->prescan = false;
    *p->c = (argus_pf_counts){.packets = p->c->packets, .bundles = p->c->bundles,
                              .compressed = p->c->compressed, .threads = p->c->threads};
    int how = setjmp(p->fail);
    if (how) {
        pf_free_merge(p);
        return how == 2 ? -2 : -1;
    }
    thread_lines(p);
    loss_lines(p);
    merge(p);
    if (p->deferred[0]) {
        snprintf(p->err, p->errlen, "%s", p->deferred);
        return -1;
    }
    return argus_ft_finish(p->d) < 0 ? -2 : 0;
}

int argus_pf_read_mem(argus_ft *d, const uint8_t *buf, size_t len, const char *name,
                      argus_pf_counts *c, char *err, size_t errlen)
{
    pf *p = argus_xcalloc(1, sizeof *p, "Perfetto reader");
    *c = (argus_pf_counts){0};
    p->d = d;
    p->name = name;
    p->c = c;
    p->err = err;
    p->errlen = errlen;
    p->file = buf;
    p->file_len = len;
    p->syscalls = argus_syscalls_x86_64; /* when the trace does not say */
    argus_table_init(&p->threads, sizeof(pf_thread));
    argus_table_init(&p->ksyms, sizeof(pf_comm));
    argus_table_init(&p->sequences, 1);
    err[0] = 0;
    int rc = pf_run(p);
    if (rc == -2 && !err[0]) {
        /* the decoder's message, its "NAME:LINE" a rendered line's number:
         * the place is the packet's */
        const char *m = argus_ft_error(d);
        size_t nl = strlen(name);
        if (strncmp(m, name, nl) == 0 && m[nl] == ':') {
            const char *q = m + nl + 1;
            while (*q >= '0' && *q <= '9')
                q++;
            if (*q == ':')
                m = q + 1;
            while (*m == ' ')
                m++;
        }
        snprintf(err, errlen, "%s: byte %llu: %s", name, (unsigned long long)p->at, m);
    }
    size_t pos = 0;
    uint64_t tid;
    void *v;
    while (argus_table_next(&p->threads, &pos, &tid, &v))
        free(((pf_thread *)v)->cmdline);
    argus_table_free(&p->threads);
    argus_table_free(&p->ksyms);
    argus_table_free(&p->sequences);
    free(p->bundles);
    free(p->loss);
    for (size_t i = 0; i < p->n_chunks; i++)
        free(p->chunks[i].buf);
    free(p->chunks);
    free(p);
    return rc;
}

int argus_pf_read(argus_ft *d, argus_input *in, argus_pf_counts *c, char *err,
                  size_t errlen)
{
    struct stat st;
    /* the file's own bytes are mapped; a pipe, stdin or a gzip/zstd file
     * (read decompressed) is copied to a file of its own first */
    int fd = argus_input_seekable_fd(in);
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s: read error: %s", in->name, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    size_t len = (size_t)st.st_size;
    const uint8_t *map = len ? mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    close(fd);
    if (len && map == MAP_FAILED) {
        snprintf(err, errlen, "%s: cannot map it: %s", in->name, strerror(errno));
        return -1;
    }
    if (len)
        madvise((void *)map, len, MADV_SEQUENTIAL);
    int rc = argus_pf_read_mem(d, map ? map : (const uint8_t *)"", len, in->name, c, err,
                               errlen);
    if (len)
        munmap((void *)map, len);
    return rc;
}

void argus_pf_print_counts(const argus_pf_counts *c, void *file)
{
    FILE *f = file;
#define COUNT(v, what) \
    if (v)             \
        fprintf(f, "  %llu %s\n", (unsigned long long)(v), what)
    COUNT(c->packets, "Perfetto packets");
    COUNT(c->compressed, "of them compressed packets (deflate or zstd), inflated");
    COUNT(c->bundles, "ftrace bundles");
    COUNT(c->events, "ftrace events");
    COUNT(c->switches, "sched_switch (ftrace and compact_sched)");
    COUNT(c->wakings, "wakings (ftrace and compact_sched)");
    COUNT(c->first_switches, "compact switches with no task known on their cpu before (left out)");
    COUNT(c->unknown_wakers, "compact wakings before any task known on their cpu (the idle task's)");
    COUNT(c->binder, "binder events (transactions, receipts and the driver's others)");
    COUNT(c->not_rendered, "ftrace events of kinds argus leaves out");
    COUNT(c->threads, "threads from the process tree and stats");
#undef COUNT
}
