/* gen-perfetto: ftrace text (tracefs `trace` lines, as fixtures/ftrace/
 * and argus-record write them) to a Perfetto protobuf trace of the same
 * events, for the tests (the same trace in both forms must give the same
 * diagnosis), the fuzzer's seeds and make bench. No perfetto binary is
 * needed: it writes the wire format itself.
 *
 *   bench/gen-perfetto [--compact] [--zlib|--zstd] [--no-tree] [--bundle N]
 *                      [--overrun CPU:N]... [--chunks-overwritten N] [--lost-bundle K]
 *                      [--dropped-before K] [--chunks-discarded N]
 *                      < trace.txt > trace.pb
 *
 * Each run of consecutive lines of one CPU (N at most, 256 by default)
 * becomes one FtraceEventBundle, so the file keeps the text's order. The
 * events converted: sched_switch, sched_waking/wakeup/wakeup_new,
 * irq_handler_entry/exit, softirq_entry/exit, sys_enter_NAME/sys_exit_NAME
 * (as raw_syscalls with x86-64's numbers) and raw sys_enter/sys_exit,
 * task_newtask, task_rename, sched_process_fork/exec/exit,
 * tracing_mark_write (as print), Android's binder events (binder_transaction,
 * _received, _set_priority, _lock/_locked/_unlock, _alloc_buf, binder_command,
 * binder_return); other lines are left out (counted on
 * stderr). `--compact` writes switches and wakings as compact_sched
 * arrays (Perfetto's default since v42); `--zlib` puts the packets in
 * zlib-compressed packets (compressed_packets, as trace_config's
 * COMPRESSION_TYPE_DEFLATE writes them), `--zstd` in zstd-compressed
 * ones (zstd_compressed_packets). What was lost (DEC-LOSS): `--overrun
 * CPU:N` writes ftrace_stats packets at the start and end whose CPU's
 * kernel overrun grew by N, `--chunks-overwritten N` a trace_stats
 * packet whose buffer overwrote N chunks, `--lost-bundle K` sets the
 * lost_events flag of the K-th bundle (from 1), `--dropped-before K` the
 * previous_packet_dropped flag of the K-th bundle's packet (its sequence
 * lost the packet before it), `--chunks-discarded N` a trace_stats
 * packet whose buffer, in discard mode, filled and discarded N chunks. The threads' processes ((TGID) columns and
 * `# argus-thread:` lines) go in a process tree first (`--no-tree`: none,
 * as a trace recorded without linux.process_stats), and a system info
 * packet says x86_64. Lengths are written as 4-byte varints, as
 * Perfetto's own writer (protozero) does. */
#include "argus/decode/syscalls.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

typedef struct buf {
    uint8_t *p;
    size_t n, cap;
} buf;

static void grow(buf *b, size_t more)
{
    if (b->n + more <= b->cap)
        return;
    while (b->n + more > b->cap)
        b->cap = b->cap ? b->cap * 2 : 4096;
    b->p = realloc(b->p, b->cap);
    if (!b->p)
        abort();
}

static void put_raw(buf *b, const void *d, size_t n)
{
    grow(b, n);
    memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void put_varint(buf *b, uint64_t v)
{
    grow(b, 10);
    do {
        uint8_t c = v & 0x7f;
        v >>= 7;
        b->p[b->n++] = c | (v ? 0x80 : 0);
    } while (v);
}

static void put_u(buf *b, uint32_t field, uint64_t v)
{
    put_varint(b, (uint64_t)field << 3);
    put_varint(b, v);
}

static void put_i(buf *b, uint32_t field, int64_t v)
{
    put_u(b, field, (uint64_t)v);
}

static void put_bytes(buf *b, uint32_t field, const void *d, size_t n)
{
    put_varint(b, (uint64_t)field << 3 | 2);
    put_varint(b, n);
    put_raw(b, d, n);
}

static void put_str(buf *b, uint32_t field, const char *s)
{
    put_bytes(b, field, s, strlen(s));
}

/* A nested message: its length patched in at the end, in 4 bytes. */
static size_t begin(buf *b, uint32_t field)
{
    put_varint(b, (uint64_t)field << 3 | 2);
    grow(b, 4);
    b->n += 4;
    return b->n;
}

static void end(buf *b, size_t start)
{
    size_t len = b->n - start;
    uint8_t *q = b->p + start - 4;
    for (int i = 0; i < 4; i++)
        q[i] = (uint8_t)(((len >> (7 * i)) & 0x7f) | (i < 3 ? 0x80 : 0));
}

/* ---- The text ----------------------------------------------------------- */

typedef struct line {
    char comm[64];
    long tid, tgid, cpu;
    bool have_flags;
    unsigned flags;
    uint64_t ts;
    char event[64];
    const char *body;
} line;

/* "COMM-TID [(TGID)] [CPU] [FLAGS] SEC.FRAC: EVENT: BODY" */
static bool parse_line(char *s, line *l)
{
    memset(l, 0, sizeof *l);
    l->tgid = -1;
    while (*s == ' ')
        s++;
    char *b = s;
    for (;;) {
        b = strchr(b, '[');
        if (!b)
            return false;
        char *e;
        long cpu = strtol(b + 1, &e, 10);
        if (e > b + 1 && *e == ']') {
            l->cpu = cpu;
            break;
        }
        b++;
    }
    char *e = b;
    while (e > s && e[-1] == ' ')
        e--;
    if (e > s && e[-1] == ')') {
        char *o = e - 1;
        while (o > s && *o != '(')
            o--;
        char *t = o + 1;
        while (*t == ' ')
            t++;
        l->tgid = *t >= '0' && *t <= '9' ? strtol(t, NULL, 10) : -1;
        e = o;
        while (e > s && e[-1] == ' ')
            e--;
    }
    char *dash = e;
    while (dash > s && dash[-1] != '-')
        dash--;
    if (dash == s)
        return false;
    l->tid = strtol(dash, NULL, 10);
    size_t cn = (size_t)(dash - 1 - s);
    if (cn >= sizeof l->comm)
        cn = sizeof l->comm - 1;
    memcpy(l->comm, s, cn);
    char *p = strchr(b, ']') + 1;
    while (*p == ' ')
        p++;
    /* flags: a token before the timestamp that is not one */
    char *colon = strstr(p, ": ");
    if (!colon)
        return false;
    char *sp = strchr(p, ' ');
    if (sp && sp < colon) {
        for (char *f = p; f < sp; f++)
            switch (*f) {
            case 'd': l->flags |= 0x01; break;
            case 'N': l->flags |= 0x24; break;
            case 'n': l->flags |= 0x04; break;
            case 'p': l->flags |= 0x20; break;
            case 'h': l->flags |= 0x08; break;
            case 's': l->flags |= 0x10; break;
            case 'H': l->flags |= 0x18; break;
            case 'z': l->flags |= 0x40; break;
            case 'Z': l->flags |= 0x48; break;
            default: break;
            }
        l->have_flags = true;
        p = sp;
        while (*p == ' ')
            p++;
    }
    char *dot;
    uint64_t sec = strtoull(p, &dot, 10);
    if (*dot != '.')
        return false;
    char *frac_end;
    uint64_t frac = strtoull(dot + 1, &frac_end, 10);
    for (long digits = frac_end - dot - 1; digits < 9; digits++)
        frac *= 10;
    l->ts = sec * 1000000000u + frac;
    if (frac_end[0] != ':' || frac_end[1] != ' ')
        return false;
    char *name = frac_end + 2;
    /* the older syscall tracer: "sys_NAME(a: 1, ...)", "sys_NAME -> 0x0" */
    size_t id = strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_");
    if (id > 4 && id < sizeof l->event - 4 && strncmp(name, "sys_", 4) == 0 &&
        (name[id] == '(' || strncmp(name + id, " -> ", 4) == 0)) {
        memcpy(l->event, name, id);
        strcpy(l->event + id, name[id] == '(' ? "(" : " ->");
        l->body = name[id] == '(' ? name + id + 1 : name + id + 4;
        return true;
    }
    char *ne = strstr(name, ": ");
    size_t nn = ne ? (size_t)(ne - name) : strlen(name);
    if (nn >= sizeof l->event)
        return false;
    memcpy(l->event, name, nn);
    if (nn && name[nn - 1] == ':')
        l->event[nn - 1] = 0;
    l->body = ne ? ne + 2 : name + nn;
    return true;
}

/* The value of KEY= in BODY, up to the next " WORD=" or " ==> ": names
 * may hold spaces. */
static bool kv(const char *body, const char *key, char *out, size_t cap)
{
    size_t kl = strlen(key);
    const char *p = body;
    for (;;) {
        p = strstr(p, key);
        if (!p)
            return false;
        if ((p == body || p[-1] == ' ') && p[kl] == '=')
            break;
        p++;
    }
    p += kl + 1;
    const char *e = p;
    for (;;) {
        const char *sp = strchr(e, ' ');
        if (!sp) {
            e = p + strlen(p);
            break;
        }
        const char *w = sp + 1;
        while ((*w >= 'a' && *w <= 'z') || *w == '_')
            w++;
        if ((*w == '=' && w > sp + 1) || strncmp(sp, " ==> ", 5) == 0) {
            e = sp;
            break;
        }
        e = sp + 1;
    }
    size_t n = (size_t)(e - p);
    if (n >= cap)
        n = cap - 1;
    memcpy(out, p, n);
    out[n] = 0;
    return true;
}

static long kv_num(const char *body, const char *key, int base)
{
    char v[64];
    return kv(body, key, v, sizeof v) ? strtol(v, NULL, base) : 0;
}

static int64_t state_bits(const char *s)
{
    if (*s >= '0' && *s <= '9')
        return strtoll(s, NULL, 10);
    int64_t v = 0;
    for (; *s; s++)
        switch (*s) {
        case 'S': v |= 1; break;
        case 'D': v |= 2; break;
        case 'T': v |= 4; break;
        case 't': v |= 8; break;
        case 'X': v |= 16; break;
        case 'Z': v |= 32; break;
        case 'P': v |= 64; break;
        case 'I': v |= 128; break;
        case '+': v |= 256; break;
        default: break;
        }
    return v;
}

static int syscall_nr(const char *name)
{
    for (const argus_syscall *s = argus_syscalls_x86_64; s->name; s++)
        if (strcmp(s->name, name) == 0)
            return s->nr;
    return -1;
}

/* ---- Kernel symbols: function fields as interned names ---------------------- */

static char (*ksyms)[64];
static size_t n_ksyms;

/* The iid of function name NAME (1 and up), as symbolize_ksyms writes it. */
static uint64_t ksym(const char *name)
{
    for (size_t i = 0; i < n_ksyms; i++)
        if (strcmp(ksyms[i], name) == 0)
            return i + 1;
    ksyms = realloc(ksyms, (n_ksyms + 1) * sizeof *ksyms);
    if (!ksyms)
        abort();
    snprintf(ksyms[n_ksyms], 64, "%s", name);
    return ++n_ksyms;
}

static uint64_t kv_func(const char *body, const char *key)
{
    char v[128];
    return kv(body, key, v, sizeof v) ? ksym(v) : 0;
}

static uint64_t kv_hex(const char *body, const char *key)
{
    char v[64];
    return kv(body, key, v, sizeof v) ? strtoull(v, NULL, 16) : 0;
}

static int64_t kv_ll(const char *body, const char *key)
{
    char v[64];
    return kv(body, key, v, sizeof v) ? strtoll(v, NULL, 10) : 0;
}

static int hrtimer_mode(const char *body)
{
    static const char *const modes[] = {"ABS", "REL", "ABS|PINNED", "REL|PINNED", "ABS|SOFT",
                                        "REL|SOFT", "ABS|PINNED|SOFT", "REL|PINNED|SOFT",
                                        "ABS|HARD", "REL|HARD", "ABS|PINNED|HARD",
                                        "REL|PINNED|HARD"};
    char v[64];
    if (!kv(body, "mode", v, sizeof v))
        return 0;
    for (int i = 0; i < 12; i++)
        if (strcmp(v, modes[i]) == 0)
            return i;
    return atoi(v);
}

/* ---- Bundles -------------------------------------------------------------- */

typedef struct compact {
    buf sw_ts, sw_state, sw_pid, sw_prio, sw_comm;
    buf wk_ts, wk_pid, wk_cpu, wk_prio, wk_comm, wk_flags;
    uint64_t sw_last, wk_last;
    bool any_flags;
    char (*intern)[64];
    size_t n_intern;
} compact;

static bool compact_mode, zlib_mode, zstd_mode, no_tree;
static uint64_t overrun[64], chunks_overwritten, chunks_discarded;
static bool overrun_set[64];
static long lost_bundle, dropped_before, bundles_written;
static long bundle_max = 256;
static buf out, packets, events;
static compact cs;
static long bundle_cpu = -1, bundle_n;
static uint64_t skipped, converted;

static uint32_t intern(const char *s)
{
    for (size_t i = 0; i < cs.n_intern; i++)
        if (strcmp(cs.intern[i], s) == 0)
            return (uint32_t)i;
    cs.intern = realloc(cs.intern, (cs.n_intern + 1) * sizeof *cs.intern);
    if (!cs.intern)
        abort();
    snprintf(cs.intern[cs.n_intern], 64, "%s", s);
    return (uint32_t)cs.n_intern++;
}

/* A finished packet: to the file, or to the next compressed batch. */
static void packet_done(buf *pkt)
{
    buf *to = zlib_mode ? &packets : &out;
    put_bytes(to, 1, pkt->p, pkt->n);
    pkt->n = 0;
}

static void flush_zlib(void)
{
    if (!zlib_mode || !packets.n)
        return;
    uLongf zn = zstd_mode ? ZSTD_compressBound(packets.n) : compressBound(packets.n);
    uint8_t *z = malloc(zn);
    if (!z)
        abort();
    if (zstd_mode) {
        size_t r = ZSTD_compress(z, zn, packets.p, packets.n, 3);
        if (ZSTD_isError(r))
            abort();
        zn = r;
    } else if (compress2(z, &zn, packets.p, packets.n, 9) != Z_OK) {
        abort();
    }
    buf pkt = {0};
    put_bytes(&pkt, zstd_mode ? 133 : 50, z, zn);
    put_u(&pkt, 10, 1);
    put_bytes(&out, 1, pkt.p, pkt.n);
    free(pkt.p);
    free(z);
    packets.n = 0;
}

static void flush_bundle(void)
{
    if (bundle_cpu < 0)
        return;
    buf pkt = {0};
    size_t fe = begin(&pkt, 1);
    put_u(&pkt, 1, (uint64_t)bundle_cpu);
    bool dropped = ++bundles_written == dropped_before;
    if (bundles_written == lost_bundle)
        put_u(&pkt, 3, 1); /* lost_events */
    put_raw(&pkt, events.p, events.n);
    if (cs.sw_ts.n || cs.wk_ts.n) {
        size_t c = begin(&pkt, 4);
        for (size_t i = 0; i < cs.n_intern; i++)
            put_str(&pkt, 5, cs.intern[i]);
        struct { buf *b; uint32_t f; } arrays[] = {
            {&cs.sw_ts, 1}, {&cs.sw_state, 2}, {&cs.sw_pid, 3}, {&cs.sw_prio, 4},
            {&cs.sw_comm, 6}, {&cs.wk_ts, 7}, {&cs.wk_pid, 8}, {&cs.wk_cpu, 9},
            {&cs.wk_prio, 10}, {&cs.wk_comm, 11}, {&cs.wk_flags, 12}};
        for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) {
            if (arrays[i].b->n && (arrays[i].f != 12 || cs.any_flags))
                put_bytes(&pkt, arrays[i].f, arrays[i].b->p, arrays[i].b->n);
            arrays[i].b->n = 0;
        }
        end(&pkt, c);
    }
    end(&pkt, fe);
    put_u(&pkt, 10, 1); /* trusted_packet_sequence_id */
    if (dropped)
        put_u(&pkt, 42, 1); /* previous_packet_dropped */
    packet_done(&pkt);
    free(pkt.p);
    events.n = 0;
    cs.n_intern = 0;
    cs.sw_last = cs.wk_last = 0;
    cs.any_flags = false;
    bundle_cpu = -1;
    bundle_n = 0;
    if (zlib_mode && packets.n > 65536)
        flush_zlib();
}

/* One line into the bundle of its cpu. */
static void convert(const line *l)
{
    const char *b = l->body;
    char s1[256], s2[256];
    const char *ev = l->event;
    bool sw = strcmp(ev, "sched_switch") == 0;
    bool wk = strcmp(ev, "sched_waking") == 0;
    if (compact_mode && (sw || wk)) {
        if (l->cpu != bundle_cpu || bundle_n >= bundle_max)
            flush_bundle();
        bundle_cpu = l->cpu;
        bundle_n++;
        if (sw) {
            kv(b, "prev_state", s1, sizeof s1);
            kv(b, "next_comm", s2, sizeof s2);
            put_varint(&cs.sw_ts, l->ts - cs.sw_last);
            cs.sw_last = l->ts;
            put_varint(&cs.sw_state, (uint64_t)state_bits(s1));
            put_varint(&cs.sw_pid, (uint64_t)kv_num(b, "next_pid", 10));
            put_varint(&cs.sw_prio, (uint64_t)kv_num(b, "next_prio", 10));
            put_varint(&cs.sw_comm, intern(s2));
        } else {
            kv(b, "comm", s1, sizeof s1);
            put_varint(&cs.wk_ts, l->ts - cs.wk_last);
            cs.wk_last = l->ts;
            put_varint(&cs.wk_pid, (uint64_t)kv_num(b, "pid", 10));
            put_varint(&cs.wk_cpu, (uint64_t)kv_num(b, "target_cpu", 10));
            put_varint(&cs.wk_prio, (uint64_t)kv_num(b, "prio", 10));
            put_varint(&cs.wk_comm, intern(s1));
            put_varint(&cs.wk_flags, l->flags);
            cs.any_flags |= l->have_flags;
        }
        converted++;
        return;
    }
    buf e = {0};
    if (sw) {
        size_t m = begin(&e, 4);
        kv(b, "prev_comm", s1, sizeof s1);
        put_str(&e, 1, s1);
        put_i(&e, 2, kv_num(b, "prev_pid", 10));
        put_i(&e, 3, kv_num(b, "prev_prio", 10));
        kv(b, "prev_state", s1, sizeof s1);
        put_i(&e, 4, state_bits(s1));
        kv(b, "next_comm", s2, sizeof s2);
        put_str(&e, 5, s2);
        put_i(&e, 6, kv_num(b, "next_pid", 10));
        put_i(&e, 7, kv_num(b, "next_prio", 10));
        end(&e, m);
    } else if (wk || strcmp(ev, "sched_wakeup") == 0 || strcmp(ev, "sched_wakeup_new") == 0) {
        size_t m = begin(&e, wk ? 20 : strcmp(ev, "sched_wakeup") == 0 ? 17 : 114);
        kv(b, "comm", s1, sizeof s1);
        put_str(&e, 1, s1);
        put_i(&e, 2, kv_num(b, "pid", 10));
        put_i(&e, 3, kv_num(b, "prio", 10));
        if (kv(b, "success", s2, sizeof s2))
            put_i(&e, 4, strtol(s2, NULL, 10));
        put_i(&e, 5, kv_num(b, "target_cpu", 10));
        end(&e, m);
    } else if (strcmp(ev, "irq_handler_entry") == 0) {
        size_t m = begin(&e, 36);
        put_i(&e, 1, kv_num(b, "irq", 10));
        kv(b, "name", s1, sizeof s1);
        put_str(&e, 2, s1);
        end(&e, m);
    } else if (strcmp(ev, "irq_handler_exit") == 0) {
        size_t m = begin(&e, 37);
        put_i(&e, 1, kv_num(b, "irq", 10));
        kv(b, "ret", s1, sizeof s1);
        put_i(&e, 2, strcmp(s1, "handled") == 0);
        end(&e, m);
    } else if (strcmp(ev, "softirq_entry") == 0 || strcmp(ev, "softirq_exit") == 0) {
        size_t m = begin(&e, ev[8] == 'e' && ev[9] == 'n' ? 24 : 25);
        put_u(&e, 1, (uint64_t)kv_num(b, "vec", 10));
        end(&e, m);
    } else if (strncmp(ev, "sys_enter_", 10) == 0 && syscall_nr(ev + 10) >= 0) {
        size_t m = begin(&e, 329);
        put_i(&e, 1, syscall_nr(ev + 10));
        const char *q = b;
        for (int i = 0; i < 6; i++) {
            const char *c = strstr(q, ": ");
            uint64_t v = 0;
            if (c) {
                char *after;
                v = strtoull(c + 2, &after, 16);
                q = after;
            }
            put_u(&e, 2, v);
        }
        end(&e, m);
    } else if (strncmp(ev, "sys_exit_", 9) == 0 && syscall_nr(ev + 9) >= 0) {
        size_t m = begin(&e, 330);
        put_i(&e, 1, syscall_nr(ev + 9));
        put_i(&e, 2, (int64_t)strtoull(b, NULL, 16));
        end(&e, m);
    } else if ((strcmp(ev, "sys_enter") == 0 || strcmp(ev, "sys_exit") == 0) &&
               strncmp(b, "NR ", 3) == 0) {
        bool enter = ev[4] == 'e' && ev[5] == 'n';
        size_t m = begin(&e, enter ? 329 : 330);
        char *q;
        put_i(&e, 1, strtol(b + 3, &q, 10));
        if (enter) {
            q = strchr(q, '(');
            for (int i = 0; i < 6 && q; i++) {
                put_u(&e, 2, strtoull(q + 1, &q, 16));
                q = strchr(q, ',');
            }
        } else {
            q = strstr(q, "= ");
            put_i(&e, 2, q ? strtoll(q + 2, NULL, 10) : 0);
        }
        end(&e, m);
    } else if (strncmp(ev, "sys_", 4) == 0 && (strchr(ev, '(') || strstr(ev, " ->"))) {
        char nm[64];
        snprintf(nm, sizeof nm, "%.*s", (int)strcspn(ev + 4, "( "), ev + 4);
        int nr = syscall_nr(nm);
        if (nr < 0) {
            skipped++;
            free(e.p);
            return;
        }
        bool enter = strchr(ev, '(') != NULL;
        size_t m = begin(&e, enter ? 329 : 330);
        put_i(&e, 1, nr);
        if (enter) {
            const char *q = b;
            for (int i = 0; i < 6; i++) {
                const char *c = strstr(q, ": ");
                uint64_t v = 0;
                if (c) {
                    char *after;
                    v = strtoull(c + 2, &after, 16);
                    q = after;
                }
                put_u(&e, 2, v);
            }
        } else {
            put_i(&e, 2, (int64_t)strtoull(b, NULL, 16));
        }
        end(&e, m);
    } else if (strcmp(ev, "hrtimer_start") == 0) {
        size_t m = begin(&e, 551);
        put_u(&e, 1, kv_hex(b, "hrtimer"));
        put_u(&e, 2, kv_func(b, "function"));
        put_i(&e, 3, kv_ll(b, "expires"));
        put_i(&e, 4, kv_ll(b, "softexpires"));
        put_u(&e, 5, (uint64_t)hrtimer_mode(b));
        end(&e, m);
    } else if (strcmp(ev, "hrtimer_expire_entry") == 0) {
        size_t m = begin(&e, 553);
        put_u(&e, 1, kv_hex(b, "hrtimer"));
        put_i(&e, 2, kv_ll(b, "now"));
        put_u(&e, 3, kv_func(b, "function"));
        end(&e, m);
    } else if (strcmp(ev, "hrtimer_cancel") == 0 || strcmp(ev, "hrtimer_expire_exit") == 0) {
        size_t m = begin(&e, ev[8] == 'c' ? 552 : 554);
        put_u(&e, 1, kv_hex(b, "hrtimer"));
        end(&e, m);
    } else if (strcmp(ev, "timer_start") == 0) {
        size_t m = begin(&e, 555);
        put_u(&e, 1, kv_hex(b, "timer"));
        put_u(&e, 2, kv_func(b, "function"));
        put_u(&e, 3, (uint64_t)kv_ll(b, "expires"));
        put_u(&e, 6, kv_hex(b, "flags"));
        end(&e, m);
    } else if (strcmp(ev, "timer_expire_entry") == 0) {
        size_t m = begin(&e, 557);
        put_u(&e, 1, kv_hex(b, "timer"));
        put_u(&e, 2, (uint64_t)kv_ll(b, "now"));
        put_u(&e, 3, kv_func(b, "function"));
        put_u(&e, 4, (uint64_t)kv_ll(b, "baseclk"));
        end(&e, m);
    } else if (strcmp(ev, "timer_cancel") == 0 || strcmp(ev, "timer_expire_exit") == 0) {
        size_t m = begin(&e, ev[6] == 'c' ? 556 : 558);
        put_u(&e, 1, kv_hex(b, "timer"));
        end(&e, m);
    } else if (strcmp(ev, "workqueue_queue_work") == 0) {
        size_t m = begin(&e, 59);
        put_u(&e, 1, kv_hex(b, "struct"));
        put_u(&e, 2, kv_func(b, "function"));
        put_i(&e, 4, kv_ll(b, "req_cpu"));
        put_i(&e, 5, kv_ll(b, "cpu"));
        kv(b, "workqueue", s1, sizeof s1);
        put_str(&e, 6, s1);
        end(&e, m);
    } else if (strcmp(ev, "workqueue_execute_start") == 0 ||
               strcmp(ev, "workqueue_execute_end") == 0) {
        /* "work struct W: function F" */
        size_t m = begin(&e, ev[18] == 's' ? 58 : 57);
        const char *w = strstr(b, "work struct ");
        put_u(&e, 1, w ? strtoull(w + 12, NULL, 16) : 0);
        const char *f = strstr(b, "function ");
        if (f) {
            snprintf(s1, sizeof s1, "%s", f + 9);
            s1[strcspn(s1, " ")] = 0;
            put_u(&e, 2, ksym(s1));
        }
        end(&e, m);
    } else if (strcmp(ev, "task_newtask") == 0) {
        size_t m = begin(&e, 235);
        put_i(&e, 1, kv_num(b, "pid", 10));
        kv(b, "comm", s1, sizeof s1);
        put_str(&e, 2, s1);
        put_u(&e, 3, (uint64_t)kv_num(b, "clone_flags", 16));
        put_i(&e, 4, kv_num(b, "oom_score_adj", 10));
        end(&e, m);
    } else if (strcmp(ev, "task_rename") == 0) {
        size_t m = begin(&e, 236);
        put_i(&e, 1, kv_num(b, "pid", 10));
        kv(b, "oldcomm", s1, sizeof s1);
        put_str(&e, 2, s1);
        kv(b, "newcomm", s2, sizeof s2);
        put_str(&e, 3, s2);
        put_i(&e, 4, kv_num(b, "oom_score_adj", 10));
        end(&e, m);
    } else if (strcmp(ev, "sched_process_fork") == 0) {
        size_t m = begin(&e, 239);
        kv(b, "comm", s1, sizeof s1);
        put_str(&e, 1, s1);
        put_i(&e, 2, kv_num(b, "pid", 10));
        kv(b, "child_comm", s2, sizeof s2);
        put_str(&e, 3, s2);
        put_i(&e, 4, kv_num(b, "child_pid", 10));
        end(&e, m);
    } else if (strcmp(ev, "sched_process_exec") == 0) {
        size_t m = begin(&e, 237);
        kv(b, "filename", s1, sizeof s1);
        put_str(&e, 1, s1);
        put_i(&e, 2, kv_num(b, "pid", 10));
        put_i(&e, 3, kv_num(b, "old_pid", 10));
        end(&e, m);
    } else if (strcmp(ev, "sched_process_exit") == 0) {
        size_t m = begin(&e, 238);
        kv(b, "comm", s1, sizeof s1);
        put_str(&e, 1, s1);
        put_i(&e, 2, kv_num(b, "pid", 10));
        put_i(&e, 4, kv_num(b, "prio", 10));
        end(&e, m);
    } else if (strcmp(ev, "binder_transaction") == 0) {
        size_t m = begin(&e, 50);
        put_i(&e, 1, kv_num(b, "transaction", 10));
        put_i(&e, 2, kv_num(b, "dest_node", 10));
        put_i(&e, 3, kv_num(b, "dest_proc", 10));
        put_i(&e, 4, kv_num(b, "dest_thread", 10));
        put_i(&e, 5, kv_num(b, "reply", 10));
        put_u(&e, 6, (uint64_t)kv_hex(b, "code"));
        put_u(&e, 7, (uint64_t)kv_hex(b, "flags"));
        end(&e, m);
    } else if (strcmp(ev, "binder_transaction_received") == 0) {
        size_t m = begin(&e, 51);
        put_i(&e, 1, kv_num(b, "transaction", 10));
        end(&e, m);
    } else if (strcmp(ev, "binder_set_priority") == 0) {
        size_t m = begin(&e, 52);
        put_i(&e, 1, kv_num(b, "proc", 10));
        put_i(&e, 2, kv_num(b, "thread", 10));
        put_u(&e, 3, (uint64_t)kv_num(b, "old", 10));
        put_u(&e, 4, (uint64_t)kv_num(b, "new", 10));
        put_u(&e, 5, (uint64_t)kv_num(b, "desired", 10));
        end(&e, m);
    } else if (strcmp(ev, "binder_lock") == 0 || strcmp(ev, "binder_locked") == 0 ||
               strcmp(ev, "binder_unlock") == 0) {
        size_t m = begin(&e, strcmp(ev, "binder_lock") == 0     ? 53
                             : strcmp(ev, "binder_locked") == 0 ? 54
                                                                : 55);
        kv(b, "tag", s1, sizeof s1);
        put_str(&e, 1, s1);
        end(&e, m);
    } else if (strcmp(ev, "binder_transaction_alloc_buf") == 0) {
        size_t m = begin(&e, 323);
        put_u(&e, 1, (uint64_t)kv_ll(b, "data_size"));
        put_i(&e, 2, kv_num(b, "transaction", 10));
        put_u(&e, 3, (uint64_t)kv_ll(b, "offsets_size"));
        if (kv(b, "extra_buffers_size", s1, sizeof s1))
            put_u(&e, 4, strtoull(s1, NULL, 10));
        end(&e, m);
    } else if (strcmp(ev, "binder_command") == 0 || strcmp(ev, "binder_return") == 0) {
        size_t m = begin(&e, ev[7] == 'c' ? 485 : 486);
        put_u(&e, 1, kv_hex(b, "cmd"));
        end(&e, m);
    } else if (strcmp(ev, "tracing_mark_write") == 0) {
        /* print's buf, with the newline the kernel adds to a trace_marker write */
        size_t m = begin(&e, 3);
        size_t len = strlen(b);
        char *text = malloc(len + 2);
        if (!text)
            abort();
        memcpy(text, b, len);
        text[len] = '\n';
        put_bytes(&e, 2, text, len + 1);
        free(text);
        end(&e, m);
    } else {
        skipped++;
        free(e.p);
        return;
    }
    if (l->cpu != bundle_cpu || bundle_n >= bundle_max)
        flush_bundle();
    bundle_cpu = l->cpu;
    bundle_n++;
    size_t m = begin(&events, 2);
    put_u(&events, 1, l->ts);
    put_u(&events, 2, (uint64_t)l->tid);
    if (l->have_flags)
        put_u(&events, 5, l->flags);
    put_raw(&events, e.p, e.n);
    end(&events, m);
    free(e.p);
    converted++;
}

/* ---- The process tree ------------------------------------------------------ */

typedef struct task {
    long tid, tgid;
    bool kernel;
    char name[64];
} task;

static task *tasks;
static size_t n_tasks;

static task *find_task(long tid)
{
    for (size_t i = 0; i < n_tasks; i++)
        if (tasks[i].tid == tid)
            return &tasks[i];
    tasks = realloc(tasks, (n_tasks + 1) * sizeof *tasks);
    if (!tasks)
        abort();
    tasks[n_tasks] = (task){.tid = tid, .tgid = -1};
    return &tasks[n_tasks++];
}

static bool have_clock;
static uint64_t clock_mono, clock_real;

/* "SEC.FRAC" as ns */
static uint64_t text_ns(const char *p)
{
    char *dot;
    uint64_t sec = strtoull(p, &dot, 10), frac = 0;
    if (*dot == '.') {
        char *e;
        frac = strtoull(dot + 1, &e, 10);
        for (long digits = e - dot - 1; digits < 9; digits++)
            frac *= 10;
    }
    return sec * 1000000000u + frac;
}

/* argus-record's clock line as a clock snapshot: its trace clock taken
 * for BOOTTIME, Perfetto's ftrace clock. */
static void clock_snapshot(void)
{
    if (!have_clock)
        return;
    buf pkt = {0};
    size_t cs_ = begin(&pkt, 6);
    size_t c = begin(&pkt, 1);
    put_u(&pkt, 1, 6);
    put_u(&pkt, 2, clock_mono);
    end(&pkt, c);
    c = begin(&pkt, 1);
    put_u(&pkt, 1, 1);
    put_u(&pkt, 2, clock_real);
    end(&pkt, c);
    end(&pkt, cs_);
    packet_done(&pkt);
    free(pkt.p);
}

static void process_tree(void)
{
    buf pkt = {0};
    size_t pt = begin(&pkt, 2);
    for (size_t i = 0; i < n_tasks; i++) {
        const task *t = &tasks[i];
        if (t->tgid <= 0 && !t->name[0])
            continue;
        if (t->tgid == t->tid) {
            size_t m = begin(&pkt, 1);
            put_i(&pkt, 1, t->tid);
            if (t->name[0]) {
                put_str(&pkt, 3, t->name);
                put_u(&pkt, 9, 1); /* cmdline_is_comm */
            }
            if (t->kernel)
                put_u(&pkt, 8, 1); /* is_kthread */
            end(&pkt, m);
        }
        size_t m = begin(&pkt, 2);
        put_i(&pkt, 1, t->tid);
        if (t->name[0])
            put_str(&pkt, 2, t->name);
        if (t->tgid > 0)
            put_i(&pkt, 3, t->tgid);
        end(&pkt, m);
    }
    end(&pkt, pt);
    put_u(&pkt, 10, 2);
    packet_done(&pkt);
    free(pkt.p);
}

/* ftrace_stats of PHASE (1 start, 2 end): each --overrun CPU's overrun,
 * 5 at the start (the kernel's count before the trace), 5 + N at the end. */
static void ftrace_stats(uint64_t phase)
{
    buf pkt = {0};
    size_t st = begin(&pkt, 34);
    put_u(&pkt, 1, phase);
    for (unsigned c = 0; c < 64; c++) {
        if (!overrun_set[c])
            continue;
        size_t cpu = begin(&pkt, 2);
        put_u(&pkt, 1, c);
        put_u(&pkt, 2, 100);
        put_u(&pkt, 3, 5 + (phase == 2 ? overrun[c] : 0));
        end(&pkt, cpu);
    }
    end(&pkt, st);
    put_u(&pkt, 10, 3);
    packet_done(&pkt);
    free(pkt.p);
}

/* trace_stats: one buffer that overwrote --chunks-overwritten chunks, or
 * discarded --chunks-discarded. */
static void trace_stats(void)
{
    buf pkt = {0};
    size_t st = begin(&pkt, 35);
    size_t b = begin(&pkt, 1);
    put_u(&pkt, 12, 1 << 20);
    put_u(&pkt, 2, 1000 + chunks_overwritten);
    if (chunks_overwritten)
        put_u(&pkt, 3, chunks_overwritten);
    if (chunks_discarded)
        put_u(&pkt, 18, chunks_discarded);
    end(&pkt, b);
    end(&pkt, st);
    put_u(&pkt, 10, 4);
    packet_done(&pkt);
    free(pkt.p);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--compact") == 0)
            compact_mode = true;
        else if (strcmp(argv[i], "--zlib") == 0)
            zlib_mode = true;
        else if (strcmp(argv[i], "--zstd") == 0)
            zlib_mode = zstd_mode = true;
        else if (strcmp(argv[i], "--overrun") == 0 && i + 1 < argc) {
            unsigned c;
            unsigned long long v;
            if (sscanf(argv[++i], "%u:%llu", &c, &v) != 2 || c >= 64)
                return 2;
            overrun[c] = v;
            overrun_set[c] = true;
        } else if (strcmp(argv[i], "--chunks-overwritten") == 0 && i + 1 < argc)
            chunks_overwritten = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--chunks-discarded") == 0 && i + 1 < argc)
            chunks_discarded = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--lost-bundle") == 0 && i + 1 < argc)
            lost_bundle = atol(argv[++i]);
        else if (strcmp(argv[i], "--dropped-before") == 0 && i + 1 < argc)
            dropped_before = atol(argv[++i]);
        else if (strcmp(argv[i], "--no-tree") == 0)
            no_tree = true;
        else if (strcmp(argv[i], "--bundle") == 0 && i + 1 < argc)
            bundle_max = atol(argv[++i]);
        else {
            fprintf(stderr, "usage: gen-perfetto [--compact] [--zlib|--zstd] [--no-tree] "
                            "[--bundle N] [--overrun CPU:N]... [--chunks-overwritten N] "
                            "[--lost-bundle K] [--dropped-before K] [--chunks-discarded N] < trace.txt > trace.pb\n");
            return 2;
        }
    }
    if (bundle_max < 1)
        bundle_max = 1;
    /* the whole text: the process tree comes first */
    buf text = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0)
        put_raw(&text, chunk, n);
    put_raw(&text, "", 1);
    for (char *s = (char *)text.p; *s;) {
        char *nl = strchr(s, '\n');
        if (nl)
            *nl = 0;
        line l;
        const char *tag = strstr(s, "# argus-thread:");
        const char *clock = strstr(s, "# argus-clock:");
        if (clock && strstr(clock, "mono=") && strstr(clock, "realtime=")) {
            have_clock = true;
            clock_mono = text_ns(strstr(clock, "mono=") + 5);
            clock_real = text_ns(strstr(clock, "realtime=") + 9);
        } else if (tag) {
            const char *t = strstr(tag, " tid="), *g = strstr(tag, "tgid="),
                       *c = strstr(tag, "comm="), *k = strstr(tag, "kernel=1");
            if (t) {
                task *tk = find_task(strtol(t + 5, NULL, 10));
                if (g)
                    tk->tgid = strtol(g + 5, NULL, 10);
                if (c)
                    snprintf(tk->name, sizeof tk->name, "%s", c + 5);
                tk->kernel = k != NULL;
            }
        } else if (*s != '#' && parse_line(s, &l) && l.tid > 0) {
            task *k = find_task(l.tid);
            if (l.tgid > 0 && k->tgid <= 0)
                k->tgid = l.tgid;
            if (!k->name[0] && l.comm[0] != '<')
                snprintf(k->name, sizeof k->name, "%s", l.comm);
        }
        if (nl)
            *nl = '\n';
        s = nl ? nl + 1 : s + strlen(s);
    }
    /* system info: the syscall numbers are x86-64's */
    buf pkt = {0};
    size_t si = begin(&pkt, 45);
    size_t u = begin(&pkt, 1);
    put_str(&pkt, 1, "Linux");
    put_str(&pkt, 3, "6.1.0");
    put_str(&pkt, 4, "x86_64");
    end(&pkt, u);
    end(&pkt, si);
    packet_done(&pkt);
    free(pkt.p);
    clock_snapshot();
    if (!no_tree)
        process_tree();
    bool any_overrun = false;
    for (unsigned c = 0; c < 64; c++)
        any_overrun |= overrun_set[c];
    if (any_overrun)
        ftrace_stats(1);
    /* the function names: read ahead, interned in one packet before the
     * events (symbolize_ksyms) */
    buf saved_out = out, saved_packets = packets;
    out = (buf){0};
    packets = (buf){0};
    bool saved_zlib = zlib_mode;
    zlib_mode = false;
    for (char *s = (char *)text.p; *s;) {
        char *nl = strchr(s, '\n');
        if (nl)
            *nl = 0;
        line l;
        if (*s != '#' && !strstr(s, "# argus-thread:") && parse_line(s, &l))
            convert(&l);
        if (nl)
            *nl = '\n';
        s = nl ? nl + 1 : s + strlen(s);
    }
    flush_bundle();
    free(out.p);
    out = saved_out;
    packets = saved_packets;
    zlib_mode = saved_zlib;
    converted = skipped = 0;
    bundles_written = 0;
    if (n_ksyms) {
        buf k = {0};
        size_t id = begin(&k, 12);
        for (size_t i = 0; i < n_ksyms; i++) {
            size_t m = begin(&k, 26);
            put_u(&k, 1, i + 1);
            put_str(&k, 2, ksyms[i]);
            end(&k, m);
        }
        end(&k, id);
        put_u(&k, 10, 1);
        packet_done(&k);
        free(k.p);
    }
    for (char *s = (char *)text.p; *s;) {
        char *nl = strchr(s, '\n');
        if (nl)
            *nl = 0;
        line l;
        if (*s != '#' && !strstr(s, "# argus-thread:") && parse_line(s, &l))
            convert(&l);
        s = nl ? nl + 1 : s + strlen(s);
    }
    flush_bundle();
    if (any_overrun)
        ftrace_stats(2);
    if (chunks_overwritten || chunks_discarded)
        trace_stats();
    flush_zlib();
    fwrite(out.p, 1, out.n, stdout);
    fprintf(stderr, "gen-perfetto: %llu events converted, %llu lines left out\n",
            (unsigned long long)converted, (unsigned long long)skipped);
    return 0;
}
