/* What the decoder fuzzers share (fuzz-kdebug and fuzz-tracetext through
 * kd-harness.h; fuzz-ftrace, fuzz-perfdata, fuzz-perfetto and fuzz-ctf
 * through ft-stream.h): one decoding's result and the memory file its
 * output goes to, the input as a memory file or held in memory, the
 * comparison of two readings, the places failures name, and the checks
 * every written stream gets (its header, ids and times in order). The
 * including file defines HARNESS (its name, for messages), COMMAND
 * (decode's command line in the header) and NAME (the input's name in
 * messages). Its functions are inline: not every harness uses each. */
#ifndef ARGUS_FUZZ_DECODE_HARNESS_H
#define ARGUS_FUZZ_DECODE_HARNESS_H

#include "argus/stream/input.h"
#include "argus/stream/stream.h"
#include "checks.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- One decoding --------------------------------------------------------- */

typedef struct result {
    int rc;
    char err[1024];
    uint8_t *out; /* what the decoder wrote, LEN bytes (to free) */
    size_t len;
} result;

/* The input memory file (in_path) holds DATA, SIZE bytes. */
static inline void put_input(const uint8_t *data, size_t size)
{
    CHECK(ftruncate(in_fd, 0) == 0);
    CHECK(pwrite(in_fd, data, size, 0) == (ssize_t)size);
}

/* A copy of DATA in a buffer of exactly SIZE bytes (a read past it is
 * caught), to free. */
static inline uint8_t *exact_copy(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1);
    CHECK(copy);
    memcpy(copy, data, size);
    return copy;
}

/* IN reading DATA from memory with no file behind it (its size unknown,
 * as from a pipe), from a buffer of exactly SIZE bytes. */
static inline void memory_input(argus_input *in, const uint8_t *data, size_t size)
{
    memset(in, 0, sizeof *in);
    in->fd = -1;
    in->buf = exact_copy(data, size);
    in->cap = in->max = in->hi = size;
    in->eof = true;
    in->name = strdup(NAME);
    CHECK(in->name);
}

/* IN reading the input memory file as argus-decode opens its input,
 * through a window of at most LIMIT bytes, named NAME; RAW: the bytes as
 * they are (decompression is fuzz-unpack's). */
static inline void file_input(argus_input *in, size_t limit, bool raw)
{
    if (raw)
        argus_input_open_raw(in, in_path, limit);
    else
        argus_input_open(in, in_path, limit);
    free(in->name);
    in->name = strdup(NAME);
    CHECK(in->name);
}

/* stdout sent to the output memory file, emptied; a writer on it. */
static inline argus_writer *output_begin(void)
{
    CHECK(ftruncate(out_fd, 0) == 0);
    CHECK(lseek(out_fd, 0, SEEK_SET) == 0);
    CHECK(dup2(out_fd, 1) == 1);
    return argus_writer_stdout();
}

/* W closed, stdout back, and what was written in RES. */
static inline void output_end(argus_writer *w, result *res)
{
    argus_writer_close(w);
    CHECK(dup2(saved_stdout, 1) == 1);
    off_t end = lseek(out_fd, 0, SEEK_CUR);
    CHECK(end >= 0);
    res->len = (size_t)end;
    res->out = malloc(res->len ? res->len : 1);
    CHECK(res->out);
    CHECK(pread(out_fd, res->out, res->len, 0) == (ssize_t)res->len);
}

static inline bool same_output(const result *a, const result *b)
{
    return a->len == b->len && memcmp(a->out, b->out, a->len) == 0;
}

/* B, the input read again HOW ("from a file", ...), gives A's return,
 * message and bytes. */
static inline void check_same(const result *a, const result *b, const char *how)
{
    if (a->rc != b->rc || strcmp(a->err, b->err) != 0)
        FAIL("read %s, the decoder returns %d (%s), else %d (%s)", how, b->rc, b->err,
             a->rc, a->err);
    if (!same_output(a, b))
        FAIL("read %s, the decoder writes other bytes (%zu, else %zu)", how, b->len,
             a->len);
}

/* ---- Places in messages ----------------------------------------------------- */

/* The number in ERR after PREFIX, followed by ": WHAT"; WHICH names it
 * in the failure when it is not there. */
static inline uint64_t place_in(const char *err, const char *prefix, const char *which)
{
    if (strncmp(err, prefix, strlen(prefix)) != 0)
        FAIL("error \"%s\" does not start with \"%s\"", err, prefix);
    const char *p = err + strlen(prefix), *digits = p;
    uint64_t at = 0;
    while (*p >= '0' && *p <= '9' && p - digits < 20)
        at = at * 10 + (uint64_t)(*p++ - '0');
    if (p == digits || p[0] != ':' || p[1] != ' ' || !p[2])
        FAIL("error \"%s\" has no \"%s: WHAT\"", err, which);
    return at;
}

/* "NAME: byte N: WHAT" with N within the SIZE bytes of the input. */
static inline void check_byte_error(const char *err, size_t size)
{
    if (place_in(err, NAME ": byte ", "byte N") > size)
        FAIL("error \"%s\" names a byte past the end of the input (%zu bytes)", err,
             size);
}

/* "NAME:LINE: WHAT" with LINE one of the NLINES lines of the text. */
static inline void check_line_error(const char *err, uint64_t nlines)
{
    uint64_t line = place_in(err, NAME ":", "LINE");
    if (line < 1 || line > nlines)
        FAIL("error \"%s\" names a line not in the text (%llu lines)", err,
             (unsigned long long)nlines);
}

/* The lines of a text of SIZE bytes: one more than its newlines. */
static inline uint64_t count_lines(const uint8_t *data, size_t size)
{
    uint64_t n = 1;
    for (const uint8_t *p = data; (p = memchr(p, '\n', size - (size_t)(p - data))); p++)
        n++;
    return n;
}

/* ---- What every written stream is ------------------------------------------- */

/* The N-th record the decoder wrote, at byte OFF of OUT (LEN bytes),
 * parsed by P; its length in *USED. */
static inline argus_record *next_record(argus_parser *p, const uint8_t *out, size_t len,
                                 size_t off, uint64_t n, size_t *used)
{
    argus_record *r = NULL;
    char err[256];
    long got = argus_parse_record(p, out + off, len - off, &r, err, sizeof err);
    if (got <= 0)
        FAIL("record %llu written by the decoder (byte %zu) does not parse: %s",
             (unsigned long long)n, off, got < 0 ? err : "truncated");
    *used = (size_t)got;
    return r;
}

/* The N-th record R: the first a version 1 "argus" header with SOURCE
 * and COMMAND its one stage, no other a header. */
static inline void check_header(const argus_record *r, uint64_t n, const char *source)
{
    if (n == 1) {
        CHECK(r->type == ARGUS_T_STREAM);
        CHECK(argus_text_is(r, ARGUS_K_FORMAT, "argus"));
        uint64_t version = 0;
        CHECK(argus_get_uint(r, ARGUS_K_VERSION, &version) && version == 1);
        CHECK(source && argus_text_is(r, ARGUS_K_SOURCE, source));
        argus_text stages[2];
        CHECK(argus_get_text_array(r, ARGUS_K_STAGES, stages, 2) == 1);
        CHECK(stages[0].len == strlen(COMMAND) &&
              memcmp(stages[0].s, COMMAND, stages[0].len) == 0);
    } else if (r->type == ARGUS_T_STREAM) {
        FAIL("record %llu written by the decoder is a second stream header",
             (unsigned long long)n);
    }
}

/* Event ids 1, 2, 3 ..., ts never decreasing, each event with a cpu. */
typedef struct stream_order {
    uint64_t last_id, last_ts;
    bool have_ts;
} stream_order;

static inline void check_order(stream_order *o, const argus_record *r, uint64_t n)
{
    if (r->has_ts) {
        if (o->have_ts && r->ts < o->last_ts)
            FAIL("record %llu written by the decoder has ts %llu, before ts %llu",
                 (unsigned long long)n, (unsigned long long)r->ts,
                 (unsigned long long)o->last_ts);
        o->have_ts = true;
        o->last_ts = r->ts;
    }
    if (r->is_event) {
        if (r->id != o->last_id + 1)
            FAIL("record %llu written by the decoder has event id %llu after %llu",
                 (unsigned long long)n, (unsigned long long)r->id,
                 (unsigned long long)o->last_id);
        o->last_id = r->id;
        uint64_t cpu;
        CHECK(argus_get_uint(r, ARGUS_K_CPU, &cpu));
    }
}

/* Event R (the N-th record) comes after a thread record of its tid that
 * gave its pid: *PID1 is that record's pid + 1 (NULL: no record yet). */
static inline void check_event_thread(const argus_record *r, uint64_t n, const uint64_t *pid1)
{
    if (!pid1)
        FAIL("record %llu written by the decoder: event %llu of tid %llu comes "
             "before a thread record of it", (unsigned long long)n,
             (unsigned long long)r->id, (unsigned long long)r->tid);
    if (*pid1 != r->pid + 1)
        FAIL("record %llu written by the decoder: event %llu of tid %llu has pid "
             "%llu, its thread record pid %llu", (unsigned long long)n,
             (unsigned long long)r->id, (unsigned long long)r->tid,
             (unsigned long long)r->pid, (unsigned long long)(*pid1 - 1));
}

#endif
