/* libFuzzer target for compressed input (DEC-COMPRESSED,
 * lib/stream/input.c): argus_input reads gzip and zstd data as the bytes
 * they hold, in a bounded window that moves and grows as a decoder's
 * does.
 *
 * Each input is read twice, from a memory file opened by name as a
 * program opens its input:
 *  - as it is: corrupt, cut or trailing data ends in argus_die (exit 65
 *    in a program; here its hook jumps back), anything else reads to the
 *    end within the sanitizers;
 *  - compressed here, with zlib as gzip (odd first byte) or with zstd
 *    (even), then read back: the bytes must be the input's, exactly,
 *    whatever the window (its limit and the share consumed between fills
 *    come from the input's own bytes).
 * A run cut short closes the input it was reading (its file, window and
 * decompressor), so LeakSanitizer stays on (ESCAPE_FREES): left open,
 * each such run kept a file descriptor and a zlib or zstd state, and
 * after some 50,000 inputs the fuzzer died of "Too many open files" at
 * about 1 GB.
 */
#include "argus/stream/cli.h"
#include "argus/stream/input.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define HARNESS "fuzz-unpack"
#include "check.h"

#define ESCAPE_FREES
#include "escape.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    static char *args[] = {"fuzz-unpack", NULL};
    argus_cli_init(1, args);
    return 0;
}

/* A memory file holding DATA, and its name. */
static int memory_file(const uint8_t *data, size_t size, char *path, size_t len)
{
    int fd = memfd_create("fuzz-unpack", 0);
    CHECK(fd >= 0);
    CHECK(size == 0 || write(fd, data, size) == (ssize_t)size);
    snprintf(path, len, "/proc/self/fd/%d", fd);
    return fd;
}

/* The input being read, where a run cut short (argus_die's jump back)
 * finds it to close it. */
static argus_input in;

/* Reads PATH through argus_input with a window of at most LIMIT bytes,
 * taking STEP bytes of what is unread before each fill (all of it when
 * 0); what was taken is appended to OUT (when not NULL, up to CAP). */
static size_t read_all(const char *path, size_t limit, size_t step, uint8_t *out, size_t cap)
{
    argus_input_open(&in, path, limit);
    size_t got = 0;
    for (;;) {
        size_t n = in.hi - in.lo;
        if (step && n > step && !in.eof)
            n = step;
        if (out) {
            CHECK(got + n <= cap);
            memcpy(out + got, in.buf + in.lo, n);
        }
        got += n;
        in.lo += n;
        if (in.eof && in.lo == in.hi)
            break;
        if (!argus_input_fill(&in)) /* full: a decoder's line too long */
            in.lo = in.hi;
    }
    argus_input_close(&in);
    return got;
}

/* DATA compressed: gzip (zlib, with a gzip header) or one zstd frame. */
static uint8_t *compress_copy(const uint8_t *data, size_t size, bool gzip, size_t *len)
{
    if (gzip) {
        z_stream z = {0};
        CHECK(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
        size_t cap = deflateBound(&z, size) + 32;
        uint8_t *out = malloc(cap);
        CHECK(out);
        z.next_in = (uint8_t *)data;
        z.avail_in = (uInt)size;
        z.next_out = out;
        z.avail_out = (uInt)cap;
        CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
        *len = cap - z.avail_out;
        deflateEnd(&z);
        return out;
    }
    size_t cap = ZSTD_compressBound(size);
    uint8_t *out = malloc(cap ? cap : 1);
    CHECK(out);
    *len = ZSTD_compress(out, cap, data, size, 3);
    CHECK(!ZSTD_isError(*len));
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    /* the window's limit: 64 bytes to 64 KiB, from the last byte */
    size_t limit = (size_t)64 << (size ? data[size - 1] % 11 : 0);
    size_t step = size > 1 ? data[size - 2] % 7 : 0;

    /* as it is */
    int fd = memory_file(data, size, path, sizeof path);
    argus_cli_on_die(escape, NULL);
    if (setjmp(escape_to) == 0)
        read_all(path, limit, step, NULL, 0);
    else
        argus_input_close(&in);
    argus_cli_on_die(NULL, NULL);
    close(fd);

    /* compressed here, read back: the input's bytes exactly */
    size_t packed_len = 0;
    uint8_t *packed = compress_copy(data, size, size && (data[0] & 1), &packed_len);
    fd = memory_file(packed, packed_len, path, sizeof path);
    uint8_t *back = malloc(size ? size : 1);
    CHECK(back);
    size_t got = read_all(path, limit, step, back, size);
    CHECK(got == size);
    CHECK(size == 0 || memcmp(back, data, size) == 0);
    free(back);
    free(packed);
    close(fd);
    return 0;
}
