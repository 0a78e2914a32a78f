/* libFuzzer target for the JSON-lines decoder (include/argus/decode/jsonl.h), as
 * 'argus-decode --format jsonl' drives it: the input is split at '\n',
 * each line goes to argus_jsonl_line() without its newline (in a buffer
 * of exactly its length, so that a read past the line is caught), decoding
 * stops at the first line that fails, then argus_jsonl_finish and
 * argus_jsonl_free.
 *
 * The decoding runs twice: once into argus_writer_null(), and once into
 * argus_writer_stdout() with stdout pointed at a memory file, so that what
 * the decoder wrote can be checked as every later stage will read it
 * (docs/stream-format.md): a sequence of records that the stream parser
 * accepts, the first one a version 1 "argus" header and no other header,
 * event ids strictly increasing, ts never decreasing.
 * A broken property aborts (libFuzzer reports a crash with the input).
 */
#include "argus/decode/jsonl.h"
#include "argus/stream/stream.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define COMMAND "decode --format jsonl fuzz"

static int mem_fd = -1, saved_stdout = -1;

#define CHECK(cond)                                                         \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "fuzz-jsonl: %s:%d: check failed: %s\n",        \
                    __FILE__, __LINE__, #cond);                             \
            abort();                                                        \
        }                                                                   \
    } while (0)

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    mem_fd = memfd_create("fuzz-jsonl", 0);
    saved_stdout = dup(1);
    if (mem_fd < 0 || saved_stdout < 0) {
        perror("fuzz-jsonl: memfd_create/dup");
        abort();
    }
    return 0;
}

/* Feeds DATA to a decoder writing to W, line by line. Returns the number
 * of the line that failed, or 0. */
static size_t decode(argus_writer *w, const uint8_t *data, size_t size)
{
    argus_jsonl *d = argus_jsonl_new(w, COMMAND);
    CHECK(d);
    size_t line = 0, failed = 0, off = 0;
    while (off < size) {
        const uint8_t *nl = memchr(data + off, '\n', size - off);
        size_t len = nl ? (size_t)(nl - (data + off)) : size - off;
        char *copy = malloc(len ? len : 1);
        CHECK(copy);
        memcpy(copy, data + off, len);
        line++;
        int rc = argus_jsonl_line(d, copy, len);
        free(copy);
        CHECK(rc == 0 || rc == -1);
        if (rc < 0) {
            const char *err = argus_jsonl_error(d);
            CHECK(err && err[0]);
            CHECK(strnlen(err, 4096) < 4096);
            failed = line;
            break;
        }
        off += len + (nl ? 1 : 0);
    }
    int rc = argus_jsonl_finish(d);
    CHECK(rc == 0 || rc == -1);
    argus_jsonl_free(d);
    return failed;
}

/* The records in OUT (LEN bytes) form a valid stream. */
static void check_output(const uint8_t *out, size_t len, size_t failed)
{
    argus_parser *p = argus_parser_new();
    size_t off = 0;
    uint64_t n = 0, last_id = 0, last_ts = 0;
    bool have_id = false, have_ts = false;
    while (off < len) {
        argus_record *r = NULL;
        char err[256];
        long used = argus_parse_record(p, out + off, len - off, &r, err, sizeof err);
        if (used <= 0) {
            fprintf(stderr, "fuzz-jsonl: record %llu written by the decoder "
                            "(byte %zu) does not parse: %s\n",
                    (unsigned long long)n + 1, off,
                    used < 0 ? err : "truncated");
            abort();
        }
        n++;
        if (n == 1) {
            CHECK(r->type == ARGUS_T_STREAM);
            CHECK(argus_text_is(r, ARGUS_K_FORMAT, "argus"));
            uint64_t version = 0;
            CHECK(argus_get_uint(r, ARGUS_K_VERSION, &version) && version == 1);
        } else if (r->type == ARGUS_T_STREAM) {
            fprintf(stderr, "fuzz-jsonl: record %llu written by the decoder "
                            "is a second stream header\n",
                    (unsigned long long)n);
            abort();
        }
        if (r->has_ts) {
            if (have_ts && r->ts < last_ts) {
                fprintf(stderr, "fuzz-jsonl: record %llu written by the "
                                "decoder has ts %llu, before ts %llu\n",
                        (unsigned long long)n, (unsigned long long)r->ts,
                        (unsigned long long)last_ts);
                abort();
            }
            have_ts = true;
            last_ts = r->ts;
        }
        if (r->is_event) {
            if (have_id && r->id <= last_id) {
                fprintf(stderr, "fuzz-jsonl: record %llu written by the "
                                "decoder has event id %llu, not above %llu\n",
                        (unsigned long long)n, (unsigned long long)r->id,
                        (unsigned long long)last_id);
                abort();
            }
            have_id = true;
            last_id = r->id;
        }
        off += (size_t)used;
    }
    /* finish always leaves a header, unless a rendered stream's own
     * header line was the one that failed */
    CHECK(n > 0 || failed > 0);
    argus_parser_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    argus_writer *null = argus_writer_null();
    size_t failed = decode(null, data, size);
    argus_writer_close(null);

    /* again, keeping what is written */
    CHECK(ftruncate(mem_fd, 0) == 0);
    CHECK(lseek(mem_fd, 0, SEEK_SET) == 0);
    CHECK(dup2(mem_fd, 1) == 1);
    argus_writer *w = argus_writer_stdout();
    size_t failed2 = decode(w, data, size);
    argus_writer_close(w);
    CHECK(dup2(saved_stdout, 1) == 1);
    CHECK(failed2 == failed);

    off_t end = lseek(mem_fd, 0, SEEK_CUR);
    CHECK(end >= 0);
    size_t len = (size_t)end;
    uint8_t *out = malloc(len ? len : 1);
    CHECK(out);
    CHECK(pread(mem_fd, out, len, 0) == (ssize_t)len);
    check_output(out, len, failed);
    free(out);
    return 0;
}
