/* libFuzzer target for the trace(1) text decoder (include/argus/decode/kdebug.h):
 * argus_kd_read_text on a whole text, as 'argus-decode --format trace-text'
 * drives it, with the code table extended by argus_kd_codes_line (the text
 * names codes, and the table turns names back into debugids).
 *
 * The input is one byte of options, then (with OPT_CODES) the lines of a
 * codes file up to the first NUL byte, then the text. The options are
 * those of fuzz-kdebug.c, where they apply:
 *   bits 3-4  reorder window: 8, 1, 3 or 64 records (small, so that
 *             reordering and the late-record error are reached)
 *   bit 6     the second decoding (below) reads from memory with no file
 *             behind it instead of through a 1031-byte input window
 *   bit 7     OPT_CODES
 * Each codes line goes to argus_kd_codes_line in a buffer of exactly its
 * length; a line it refuses must have a message and is skipped; an exact
 * entry it takes must then be found by its debugid and by its name.
 *
 * The text goes to a memory file, read as argus-decode reads its input
 * (argus_input_open, a 256 MiB limit), into argus_writer_stdout with
 * stdout pointed at another memory file. What the decoder wrote must be a
 * valid stream (docs/stream-format.md): records the parser accepts, a
 * version 1 "argus" header first with "source" "trace-text" and this
 * command in "stages", no second header; every known key of its value
 * class; text valid UTF-8; event ids 1, 2, 3 ... in order; ts never
 * decreasing; each event after a thread record of its tid with its pid; a
 * kernel thread has pid 0. A -1 return has a message "fuzz:LINE: ..."
 * with LINE a line of the text.
 * The same options must give the same result read the other way (bit 6):
 * the same return (unless a line is longer than the 1031-byte window),
 * and the same bytes when both succeed. When the decoding succeeds, a
 * larger window must succeed too (its bytes may differ: the text maps a
 * thread when it first sees it, so the header, written when the first
 * record leaves the window, lists more threads).
 * A broken property aborts (libFuzzer reports a crash with the input).
 *
 * ARGUS_FUZZ_NO_UTF8=1 in the environment leaves out the UTF-8 check (to
 * look for other bugs while that one is open).
 */
#define HARNESS "fuzz-tracetext"
#define COMMAND "decode --format trace-text fuzz"
#define KD_READ argus_kd_read_text
#include "kd-harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    uint8_t opt;
    argus_kd_options o = front_of(&data, &size, &opt);
    uint64_t nlines = count_lines(data, size);

    put_input(data, size);

    /* as argus-decode reads it */
    result a;
    decode(&o, data, size, false, LIMIT, &a);
    if (a.rc < 0)
        check_line_error(a.err, nlines);
    check_stream(a.out, a.len, "trace-text");
    CHECK(a.rc < 0 || a.len > 0);

    /* read the other way */
    result b;
    bool no_fd = opt & OPT_NO_FD;
    decode(&o, data, size, no_fd, SMALL_INPUT, &b);
    if (b.rc < 0)
        check_line_error(b.err, nlines);
    bool too_long = !no_fd && b.rc < 0 && strstr(b.err, ": a line longer than ");
    if (a.rc != b.rc && !too_long)
        FAIL("read %s, the decoder returns %d, else %d (%s)",
             no_fd ? "from memory with no file" : "through a small window",
             b.rc, a.rc, a.rc < 0 ? a.err : b.err);
    if (a.rc == 0 && b.rc == 0 && !same_output(&a, &b))
        FAIL("read %s, the decoder writes other bytes (%zu, else %zu)",
             no_fd ? "from memory with no file" : "through a small window",
             b.len, a.len);
    if (b.rc < 0)
        check_stream(b.out, b.len, "trace-text");
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
        check_stream(c.out, c.len, "trace-text");
        free(c.out);
    }
    free(a.out);
    if (o.codes != default_codes)
        argus_kd_codes_free((argus_kd_codes *)o.codes);
    return 0;
}
