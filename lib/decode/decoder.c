/* What the trace decoders share (include/argus/decode/decoder.h). */
#include "argus/decode/decoder.h"
#include "argus/stream/cli.h"

#include <stdlib.h>
#include <string.h>

#define BLOCK 256

void argus_threads_init(argus_threads *ts, size_t size)
{
    memset(ts, 0, sizeof *ts);
    ts->size = size;
    argus_table_init(&ts->by_tid, sizeof(uint64_t));
}

void argus_threads_free(argus_threads *ts)
{
    for (size_t i = 0; i < ts->nblocks; i++)
        free(ts->blocks[i]);
    free(ts->blocks);
    argus_table_free(&ts->by_tid);
    memset(ts, 0, sizeof *ts);
}

void *argus_threads_at(const argus_threads *ts, size_t i)
{
    return ts->blocks[i / BLOCK] + (i % BLOCK) * ts->size;
}

void *argus_threads_find(const argus_threads *ts, uint64_t tid)
{
    const uint64_t *i = argus_table_get(&ts->by_tid, tid);
    return i ? argus_threads_at(ts, *i) : NULL;
}

void *argus_threads_add(argus_threads *ts, uint64_t tid, bool *created)
{
    bool made;
    uint64_t *i = argus_table_put(&ts->by_tid, tid, &made);
    if (created)
        *created = made;
    if (!made)
        return argus_threads_at(ts, *i);
    if (ts->count == ts->nblocks * BLOCK) {
        ts->blocks = argus_xrealloc(ts->blocks, (ts->nblocks + 1) * sizeof *ts->blocks,
                                    "thread table");
        ts->blocks[ts->nblocks] = argus_xmalloc(BLOCK * ts->size, "thread table");
        ts->nblocks++;
    }
    *i = ts->count++;
    unsigned char *item = argus_threads_at(ts, *i);
    memset(item, 0, ts->size);
    memcpy(item, &tid, sizeof tid);
    return item;
}

/* A text literal, its length known at compile time. */
#define PUT_LIT(w, lit) argus_put_text((w), lit, sizeof lit - 1)

void argus_put_stream_header(argus_writer *w, const char *source, bool have_t0,
                             uint64_t t0, const char *command)
{
    argus_put_stream_header_origin(w, source, have_t0, t0, false, 0, command);
}

void argus_put_stream_header_origin(argus_writer *w, const char *source, bool have_t0,
                                    uint64_t t0, bool have_origin, uint64_t origin,
                                    const char *command)
{
    argus_put_stream_header_launched(w, source, have_t0, t0, have_origin, origin, 0, command);
}

void argus_put_stream_header_launched(argus_writer *w, const char *source, bool have_t0,
                                      uint64_t t0, bool have_origin, uint64_t origin,
                                      uint64_t launched, const char *command)
{
    argus_put_stream_header_focus(w, source, have_t0, t0, have_origin, origin, launched, NULL, 0,
                                  command);
}

void argus_put_stream_header_focus(argus_writer *w, const char *source, bool have_t0,
                                   uint64_t t0, bool have_origin, uint64_t origin,
                                   uint64_t launched, const uint64_t *focus, size_t n_focus,
                                   const char *command)
{
    argus_put_map(w, 5 + have_t0 + have_origin + (launched != 0) + (n_focus != 0));
    PUT_LIT(w, "type");
    PUT_LIT(w, "stream");
    PUT_LIT(w, "format");
    PUT_LIT(w, "argus");
    PUT_LIT(w, "version");
    argus_put_uint(w, 1);
    PUT_LIT(w, "source");
    argus_put_cstr(w, source);
    if (have_t0) {
        PUT_LIT(w, "t0");
        argus_put_uint(w, t0);
    }
    if (have_origin) {
        PUT_LIT(w, "origin");
        argus_put_uint(w, origin);
    }
    if (launched) {
        PUT_LIT(w, "launched");
        argus_put_uint(w, launched);
    }
    if (n_focus) {
        PUT_LIT(w, "focus");
        argus_put_array(w, n_focus);
        for (size_t i = 0; i < n_focus; i++)
            argus_put_uint(w, focus[i]);
    }
    PUT_LIT(w, "stages");
    argus_put_array(w, 1);
    argus_put_cstr(w, command ? command : "decode");
    argus_end_record(w);
}

void argus_put_thread_record(argus_writer *w, uint64_t tid, uint64_t pid,
                             const char *proc, const char *name, bool main,
                             bool kernel, uint64_t parent, const char *cmdline)
{
    bool named = name && name[0];
    argus_put_map(w, 4 + named + main + kernel + (parent != 0) + (cmdline != NULL));
    PUT_LIT(w, "type");
    PUT_LIT(w, "thread");
    PUT_LIT(w, "tid");
    argus_put_uint(w, tid);
    PUT_LIT(w, "pid");
    argus_put_uint(w, pid);
    PUT_LIT(w, "proc");
    argus_put_cstr(w, proc && proc[0] ? proc : "unknown");
    if (named) {
        PUT_LIT(w, "name");
        argus_put_cstr(w, name);
    }
    if (main) {
        PUT_LIT(w, "main");
        argus_put_bool(w, true);
    }
    if (kernel) {
        PUT_LIT(w, "kernel");
        argus_put_bool(w, true);
    }
    if (parent) {
        PUT_LIT(w, "parent");
        argus_put_uint(w, parent);
    }
    if (cmdline) {
        size_t n = 1;
        for (const char *c = cmdline; *c; c++)
            n += *c == '\n';
        PUT_LIT(w, "cmdline");
        argus_put_array(w, n);
        for (const char *c = cmdline;; c++) {
            const char *e = strchr(c, '\n');
            argus_put_text(w, c, e ? (size_t)(e - c) : strlen(c));
            if (!e)
                break;
            c = e;
        }
    }
    argus_end_record(w);
}

void argus_put_event_head(argus_writer *w, const char *type, size_t type_len,
                          uint64_t id, uint64_t ts, uint64_t tid, uint64_t pid,
                          uint64_t cpu, unsigned extra)
{
    /* the keys' CBOR, ready-made: text heads 0x60 + length */
    static const unsigned char k_type[] = {0x64, 't', 'y', 'p', 'e'};
    static const unsigned char k_id[] = {0x62, 'i', 'd'};
    static const unsigned char k_ts[] = {0x62, 't', 's'};
    static const unsigned char k_tid[] = {0x63, 't', 'i', 'd'};
    static const unsigned char k_pid[] = {0x63, 'p', 'i', 'd'};
    static const unsigned char k_cpu[] = {0x63, 'c', 'p', 'u'};
    argus_put_map(w, 6 + extra);
    argus_put_raw(w, k_type, sizeof k_type);
    argus_put_text(w, type, type_len);
    argus_put_raw(w, k_id, sizeof k_id);
    argus_put_uint(w, id);
    argus_put_raw(w, k_ts, sizeof k_ts);
    argus_put_uint(w, ts);
    argus_put_raw(w, k_tid, sizeof k_tid);
    argus_put_uint(w, tid);
    argus_put_raw(w, k_pid, sizeof k_pid);
    argus_put_uint(w, pid);
    argus_put_raw(w, k_cpu, sizeof k_cpu);
    argus_put_uint(w, cpu);
}

int argus_each_line(const char *text, size_t len,
                    int (*each)(void *ctx, const char *line, size_t n), void *ctx)
{
    while (len) {
        const char *nl = memchr(text, '\n', len);
        size_t n = nl ? (size_t)(nl - text) : len;
        int rc = each(ctx, text, n);
        if (rc < 0)
            return rc;
        if (!nl)
            break;
        text += n + 1;
        len -= n + 1;
    }
    return 0;
}
