/* What the two kdebug fuzzers share (fuzz-kdebug.c, fuzz-tracetext.c):
 * the memory files, the codes file at the front of an input, the checks
 * of the stream written, and one decoding. Before including it a harness
 * defines HARNESS (its name, for messages), COMMAND (decode's command
 * line in the header) and KD_READ (argus_kd_read_binary or
 * argus_kd_read_text). */
#ifndef ARGUS_FUZZ_KD_HARNESS_H
#define ARGUS_FUZZ_KD_HARNESS_H

#define NAME "fuzz"          /* the input's name in messages */

#include "argus/decode/kdebug.h"
#include "argus/stream/table.h"
#include "decode-harness.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OPT_NO_FD 0x40
#define OPT_CODES 0x80
#define LIMIT (256u << 20)   /* argus-decode's input limit */
#define SMALL_INPUT 1031     /* records, headers and lines straddle its refills */
#define LARGE_WINDOW 512

static argus_kd_codes *default_codes;
static bool check_utf8 = true;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    open_harness_files();
    default_codes = argus_kd_codes_default();
    const char *no_utf8 = getenv("ARGUS_FUZZ_NO_UTF8");
    check_utf8 = !no_utf8 || !*no_utf8 || strcmp(no_utf8, "0") == 0;
    return 0;
}

/* ---- The codes file --------------------------------------------------- */

static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* After LINE was taken: an exact entry "0xID NAME ..." is found by its
 * debugid and by its name. */
static void check_entry(const argus_kd_codes *c, const char *line, size_t len)
{
    const char *p = line, *end = line + len;
    while (p < end && is_blank(*p))
        p++;
    if (end - p < 3 || p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
        return;
    uint64_t id = 0;
    for (p += 2; p < end; p++) {
        int h = *p >= '0' && *p <= '9' ? *p - '0'
              : (*p | 0x20) >= 'a' && (*p | 0x20) <= 'f' ? (*p | 0x20) - 'a' + 10
              : -1;
        if (h < 0)
            break;
        id = id << 4 | (uint64_t)h;
    }
    if (p < end && *p == '-')
        return; /* a range: exact entries inside it come first */
    while (p < end && is_blank(*p))
        p++;
    const char *name = p;
    while (p < end && !is_blank(*p))
        p++;
    size_t name_len = (size_t)(p - name);
    if (name_len == 0 || memchr(name, '\0', name_len))
        return;
    uint32_t debugid = (uint32_t)id;
    const argus_kd_code *e = argus_kd_code_find(c, debugid);
    CHECK(e);
    CHECK(e->lo == (debugid & ~ARGUS_KD_FUNC_MASK) && e->hi == e->lo);
    CHECK(e->name && strlen(e->name) == name_len &&
          memcmp(e->name, name, name_len) == 0);
    CHECK((unsigned)e->action < ARGUS_KD_NACTIONS);
    CHECK(argus_kd_action_name(e->action) != NULL);
    uint32_t by_name = 0;
    CHECK(argus_kd_code_by_name(c, name, name_len, &by_name));
    CHECK(by_name == (debugid & ~ARGUS_KD_FUNC_MASK));
    char small[4];
    const char *n = argus_kd_code_name(c, debugid | ARGUS_KD_FUNC_END, small,
                                       sizeof small);
    CHECK(n != NULL);
    (void)argus_kd_code_has_phase(e);
}

/* The default table plus the lines of TEXT. */
static argus_kd_codes *codes_from(const uint8_t *text, size_t len)
{
    argus_kd_codes *c = argus_kd_codes_default();
    size_t off = 0;
    while (off < len) {
        const uint8_t *nl = memchr(text + off, '\n', len - off);
        size_t line_len = nl ? (size_t)(nl - (text + off)) : len - off;
        size_t next = off + line_len + (nl ? 1 : 0);
        while (line_len && text[off + line_len - 1] == '\r')
            line_len--; /* as argus_kd_codes_load strips it */
        char *line = malloc(line_len ? line_len : 1);
        CHECK(line);
        memcpy(line, text + off, line_len);
        char err[160];
        err[0] = '\0';
        int rc = argus_kd_codes_line(c, line, line_len, err, sizeof err);
        CHECK(rc == 0 || rc == -1);
        if (rc < 0)
            CHECK(err[0] && strnlen(err, sizeof err) < sizeof err);
        else
            check_entry(c, line, line_len);
        free(line);
        off = next;
    }
    return c;
}

/* ---- The output ------------------------------------------------------- */

/* The records in OUT (LEN bytes) form a valid stream from SOURCE. */
static void check_stream(const uint8_t *out, size_t len, const char *source)
{
    argus_parser *p = argus_parser_new();
    argus_table pids; /* tid -> pid + 1 of its last thread record */
    argus_table_init(&pids, sizeof(uint64_t));
    size_t off = 0, used;
    uint64_t n = 0;
    stream_order order = {0};
    while (off < len) {
        argus_record *r = next_record(p, out, len, off, ++n, &used);
        check_fields(r, n, check_utf8);
        check_header(r, n, source);
        check_order(&order, r, n);
        if (r->type == ARGUS_T_THREAD) {
            bool created, kernel = false;
            argus_get_bool(r, ARGUS_K_KERNEL, &kernel);
            if (kernel && r->pid != 0)
                FAIL("record %llu written by the decoder: thread %llu is a "
                     "kernel thread of pid %llu", (unsigned long long)n,
                     (unsigned long long)r->tid, (unsigned long long)r->pid);
            CHECK(argus_get_text(r, ARGUS_K_PROC, NULL));
            *(uint64_t *)argus_table_put(&pids, r->tid, &created) = r->pid + 1;
        }
        if (r->is_event) {
            const uint64_t *pid1 = argus_table_get(&pids, r->tid);
            check_event_thread(r, n, pid1);
        }
        off += used;
    }
    argus_table_free(&pids);
    argus_parser_free(p);
}

/* ---- One decoding ------------------------------------------------------- */

/* Decodes the file (SIZE bytes of FILE, also in the input memory file)
 * with O; NO_FD reads it from memory with no file behind it, else
 * through a window of at most LIMIT bytes. */
static void decode(const argus_kd_options *o, const uint8_t *file, size_t size,
                   bool no_fd, size_t limit, result *res)
{
    argus_input in;
    if (no_fd)
        memory_input(&in, file, size);
    else
        file_input(&in, limit, true);
    argus_writer *w = output_begin();
    argus_kd *d = argus_kd_new(w, o);
    CHECK(d);
    res->rc = KD_READ(d, &in);
    CHECK(res->rc == 0 || res->rc == -1);
    res->err[0] = '\0';
    if (res->rc < 0) {
        const char *e = argus_kd_error(d);
        CHECK(e && strnlen(e, sizeof res->err) < sizeof res->err);
        strcpy(res->err, e);
    }
    argus_kd_print_counts(d, devnull);
    argus_kd_free(d);
    output_end(w, res);
    argus_input_close(&in);
}

/* The front of an input: the option byte, then with OPT_CODES a codes
 * file up to the first NUL. Moves DATA and SIZE past them and returns the
 * options they give (the codes in o->codes, the default ones or a table
 * to free). */
static argus_kd_options front_of(const uint8_t **data, size_t *size, uint8_t *opt)
{
    *opt = (*data)[0];
    (*data)++, (*size)--;
    argus_kd_codes *codes = default_codes;
    if (*opt & OPT_CODES) {
        const uint8_t *nul = memchr(*data, '\0', *size);
        size_t codes_len = nul ? (size_t)(nul - *data) : *size;
        codes = codes_from(*data, codes_len);
        *data += codes_len + (nul ? 1 : 0);
        *size -= codes_len + (nul ? 1 : 0);
    }
    static const size_t windows[4] = {8, 1, 3, 64};
    return (argus_kd_options){
        .name = NAME,
        .command = COMMAND,
        .codes = codes,
        .window = windows[(*opt >> 3) & 3],
    };
}

#endif
