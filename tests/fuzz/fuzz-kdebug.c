/* libFuzzer target for the kdebug binary decoder (include/argus/decode/kdebug.h):
 * argus_kd_read_binary on a whole file, as 'argus-decode --format kdebug'
 * drives it, and argus_kd_codes_line on the lines of a codes file.
 *
 * The input is one byte of options, then (with OPT_CODES) the lines of a
 * codes file up to the first NUL byte, then the kdebug file:
 *   bits 0-1  record size: the file's, 32, 64, the file's
 *   bit 2     kdebug_v0 (the file has no magic)
 *   bits 3-4  reorder window: 8, 1, 3 or 64 records (small, so that
 *             reordering and the late-record error are reached)
 *   bit 5     timebase override 125/3 (Apple silicon)
 *   bit 6     the second decoding (below) reads from memory with no file
 *             behind it (size unknown, as from a pipe) instead of through
 *             a 1031-byte input window
 *   bit 7     OPT_CODES
 * Each codes line goes to argus_kd_codes_line in a buffer of exactly its
 * length; a line it refuses must have a message and is skipped; an exact
 * entry it takes must then be found by its debugid and by its name.
 *
 * The file goes to a memory file, read as argus-decode reads its input
 * (argus_input_open, a 256 MiB limit), into argus_writer_stdout with
 * stdout pointed at another memory file. What the decoder wrote must be a
 * valid stream (docs/stream-format.md): records the parser accepts, a
 * version 1 "argus" header first with the file's "source" and this
 * command in "stages", no second header; every known key of its value
 * class; text valid UTF-8; event ids 1, 2, 3 ... in order; ts never
 * decreasing; each event after a thread record of its tid with its pid; a
 * kernel thread has pid 0. A -1 return has a message "fuzz: byte N: ..."
 * with N within the file.
 * The same options must give the same result read the other way (bit 6):
 * the same return, and the same bytes when both succeed. When the decoding
 * succeeds, a larger window must succeed with the same bytes (records
 * leave the window in ts order, ties in file order, whatever its size).
 * What argus_kd_sniff tells from the first bytes is the version read.
 * A broken property aborts (libFuzzer reports a crash with the input).
 *
 * ARGUS_FUZZ_NO_UTF8=1 in the environment leaves out the UTF-8 check (to
 * look for other bugs while that one is open).
 */
#define HARNESS "fuzz-kdebug"
#define COMMAND "decode --format kdebug fuzz"
#define KD_READ argus_kd_read_binary
#define OPT_V0 0x04
#define OPT_TIMEBASE 0x20
#include "kd-harness.h"


/* The "source" the header must name, or NULL when the file is none. */
static const char *source_of(const uint8_t *file, size_t size, bool v0)
{
    if (v0)
        return "kdebug-v0";
    if (size < 4)
        return NULL;
    uint32_t magic = (uint32_t)file[0] | (uint32_t)file[1] << 8 |
                     (uint32_t)file[2] << 16 | (uint32_t)file[3] << 24;
    switch (magic) {
    case 0x55aa0101u: return "kdebug-v1";
    case 0x55aa0200u: return "kdebug-v2";
    case 0x55aa0300u: case 0x00001000u: return "kdebug-v3";
    default: return NULL;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    uint8_t opt;
    argus_kd_options o = front_of(&data, &size, &opt);
    static const unsigned record_sizes[4] = {0, 32, 64, 0};
    o.record_size = record_sizes[opt & 3];
    o.kdebug_v0 = opt & OPT_V0;
    if (opt & OPT_TIMEBASE) {
        o.tb_numer = 125;
        o.tb_denom = 3;
    }

    put_input(data, size);
    const char *source = source_of(data, size, o.kdebug_v0);
    /* what argus-decode tells by the first bytes is what the reader reads */
    const char *sniffed = argus_kd_sniff(data, size);
    if (sniffed)
        CHECK(strcmp(sniffed, source_of(data, size, false)) == 0);

    /* as argus-decode reads it */
    result a;
    decode(&o, data, size, false, LIMIT, &a);
    if (a.rc < 0)
        check_byte_error(a.err, size);
    CHECK(source || a.rc < 0);
    check_stream(a.out, a.len, source);

    /* read the other way */
    result b;
    decode(&o, data, size, opt & OPT_NO_FD, SMALL_INPUT, &b);
    if (b.rc < 0)
        check_byte_error(b.err, size);
    if (a.rc != b.rc)
        FAIL("read %s, the decoder returns %d, else %d (%s)",
             opt & OPT_NO_FD ? "from memory with no file" : "through a small window",
             b.rc, a.rc, a.rc < 0 ? a.err : b.err);
    if (a.rc == 0 && !same_output(&a, &b))
        FAIL("read %s, the decoder writes other bytes (%zu, else %zu)",
             opt & OPT_NO_FD ? "from memory with no file" : "through a small window",
             b.len, a.len);
    if (b.rc < 0)
        check_stream(b.out, b.len, source);
    free(b.out);

    /* a larger window */
    if (a.rc == 0) {
        result c;
        argus_kd_options large = o;
        large.window = LARGE_WINDOW;
        decode(&large, data, size, false, LIMIT, &c);
        if (c.rc != 0)
            FAIL("with a window of %d records the decoder fails where %zu "
                 "succeeds: %s", LARGE_WINDOW, o.window, c.err);
        if (!same_output(&a, &c))
            FAIL("with a window of %d records the decoder writes other bytes "
                 "(%zu, else %zu with %zu)", LARGE_WINDOW, c.len, a.len, o.window);
        free(c.out);
    }
    free(a.out);
    if (o.codes != default_codes)
        argus_kd_codes_free((argus_kd_codes *)o.codes);
    return 0;
}
