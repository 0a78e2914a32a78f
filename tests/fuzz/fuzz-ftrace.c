/* libFuzzer target for the Linux ftrace text decoder (include/argus/decode/ftrace.h):
 * argus_ft_read on a whole text, as 'argus-decode --format ftrace' drives
 * it, and argus_ft_line line by line, and argus_ft_sniff on the first bytes.
 *
 * The input is one byte of options, then the text:
 *   bits 0-1  reorder window: 1, 2, 3 or 8 lines (small, so that reordering
 *             and the late-line error are reached)
 *   bit 2     the second reading (below) is from memory with no file behind
 *             it instead of through a 1031-byte input window
 *
 * The text goes to a memory file, read as argus-decode reads its input
 * (argus_input_open, a 256 MiB limit), into argus_writer_stdout with stdout
 * pointed at another memory file; after an error the window is drained, as
 * argus-decode does. What the decoder wrote must be a valid stream
 * (docs/stream-format.md): records the parser accepts; a version 1 "argus"
 * header first with "source" "ftrace" and this command in "stages", no
 * second header; every known key of its value class; text valid UTF-8;
 * event ids 1, 2, 3 ... in order; ts never decreasing; each event with a
 * cpu, after a thread record of its tid with its pid; a thread record with
 * a proc, tid 0 (the idle task) a kernel thread and not main, a main
 * thread's pid its tid. And what the mapping promises (DEC-WOKEN): a woken
 * only for a thread whose wait has no woken yet, no second wait before it;
 * an ipc recv only for a msg sent before and not received yet (but
 * binder's, the kernel's transaction numbers); an event
 * type of the mapping (or ftrace with its text, exec, exit). A -1 return
 * has a message "fuzz:LINE: ..." with LINE a line of the text.
 *
 * The same text must give the same result read other ways:
 *   - through a 1031-byte input window (or from memory, bit 2): the same
 *     return (unless a line is longer than that window) and bytes;
 *   - line by line, each line passed to argus_ft_line in a buffer of exactly
 *     its length (so a read past it is caught), then argus_ft_finish: the
 *     same return, message and bytes;
 *   - when the decoding succeeds, with a window of 512 lines: a success,
 *     and the same bytes (a success means the lines came out in the one
 *     stable ts order), unless an argus-thread line comes after an event
 *     line: those lines are taken when read, not through the window.
 * A broken property aborts (libFuzzer reports a crash with the input).
 *
 * ARGUS_FUZZ_NO_IDLE=1 in the environment leaves out the check of thread
 * 0's record (to look for other bugs while that one is open).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HARNESS "fuzz-ftrace"
#define COMMAND "decode --format ftrace fuzz"
#define NAME "fuzz"          /* the input's name in messages */
#define OPT_NO_FD 0x04
#define LIMIT (256u << 20)   /* argus-decode's input limit */
#define SMALL_INPUT 1031     /* lines straddle the input window's refills */
#define LARGE_WINDOW 512

#include "ft-stream.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    open_harness_files();
    const char *no_idle = getenv("ARGUS_FUZZ_NO_IDLE");
    check_idle = !no_idle || !*no_idle || strcmp(no_idle, "0") == 0;
    return 0;
}

/* ---- One decoding ------------------------------------------------------- */

enum how { WHOLE, NO_FD, LINES };

/* Decodes the text (SIZE bytes in DATA, also in in_fd) with a reorder
 * window of WINDOW lines: WHOLE through argus_input_open with an input
 * window of at most LIMIT bytes; NO_FD from memory with no file behind it;
 * LINES line by line. */
static void decode(const uint8_t *data, size_t size, size_t window, enum how how,
                   size_t limit, result *res)
{
    argus_writer *w = output_begin();
    argus_ft_options o = {.name = NAME, .command = COMMAND, .window = window};
    argus_ft *d = argus_ft_new(w, &o);
    CHECK(d);
    if (how != WHOLE) {
        /* the first pass argus_ft_read makes itself on a regular file */
        size_t off = 0;
        while (off < size) {
            const uint8_t *nl = memchr(data + off, '\n', size - off);
            size_t n = nl ? (size_t)(nl - (data + off)) : size - off;
            argus_ft_prescan_line(d, (const char *)data + off, n);
            off += n + (nl ? 1 : 0);
        }
    }
    if (how == LINES) {
        /* split as argus_ft_read splits: at '\n', a last line without one */
        res->rc = 0;
        size_t off = 0;
        while (off < size && res->rc == 0) {
            const uint8_t *nl = memchr(data + off, '\n', size - off);
            size_t n = nl ? (size_t)(nl - (data + off)) : size - off;
            char *line = (char *)exact_copy(data + off, n);
            res->rc = argus_ft_line(d, line, n);
            free(line);
            off += n + (nl ? 1 : 0);
        }
        if (res->rc == 0)
            res->rc = argus_ft_finish(d);
    } else {
        argus_input in;
        if (how == NO_FD)
            memory_input(&in, data, size);
        else
            file_input(&in, limit, true);
        res->rc = argus_ft_read(d, &in);
        argus_input_close(&in);
    }
    CHECK(res->rc == 0 || res->rc == -1);
    res->err[0] = '\0';
    if (res->rc < 0) {
        const char *e = argus_ft_error(d);
        CHECK(e && strnlen(e, sizeof res->err) < sizeof res->err);
        strcpy(res->err, e);
        argus_ft_drain(d); /* as argus-decode: the lines before the error stay */
    }
    argus_ft_print_counts(d, devnull);
    argus_ft_free(d);
    output_end(w, res);
}

/* Whether a "# argus-thread:" line comes after a line that is not a
 * comment (then a larger window may give other bytes, see above). */
static bool thread_line_late(const uint8_t *data, size_t size)
{
    static const char tag[] = "# argus-thread:";
    bool seen_other = false;
    size_t off = 0;
    while (off < size) {
        const uint8_t *nl = memchr(data + off, '\n', size - off);
        size_t n = nl ? (size_t)(nl - (data + off)) : size - off;
        const uint8_t *p = data + off, *e = p + n;
        while (p < e && (*p == ' ' || *p == '\t'))
            p++;
        if (p < e && *p != '#' && *p != '\r')
            seen_other = true;
        else if (seen_other && (size_t)(e - p) >= sizeof tag - 1 &&
                 memcmp(p, tag, sizeof tag - 1) == 0)
            return true;
        off += n + (nl ? 1 : 0);
    }
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    uint8_t opt = data[0];
    data++, size--;
    static const size_t windows[4] = {1, 2, 3, 8};
    size_t window = windows[opt & 3];
    uint64_t nlines = count_lines(data, size);

    /* the sniffer on exactly the bytes it is given */
    uint8_t *head = exact_copy(data, size);
    (void)argus_ft_sniff(head, size);
    free(head);

    put_input(data, size);

    /* as argus-decode reads it */
    result a;
    decode(data, size, window, WHOLE, LIMIT, &a);
    if (a.rc < 0)
        check_line_error(a.err, nlines);
    check_stream(a.out, a.len);
    CHECK(a.len > 0);

    /* read the other way */
    result b;
    bool no_fd = opt & OPT_NO_FD;
    decode(data, size, window, no_fd ? NO_FD : WHOLE, SMALL_INPUT, &b);
    if (b.rc < 0)
        check_line_error(b.err, nlines);
    bool too_long = !no_fd && b.rc < 0 && strstr(b.err, ": a line longer than ");
    if (!too_long) {
        if (a.rc != b.rc)
            FAIL("read %s, the decoder returns %d, else %d (%s)",
                 no_fd ? "from memory with no file" : "through a small window",
                 b.rc, a.rc, a.rc < 0 ? a.err : b.err);
        if (!same_output(&a, &b))
            FAIL("read %s, the decoder writes other bytes (%zu, else %zu)",
                 no_fd ? "from memory with no file" : "through a small window",
                 b.len, a.len);
    } else {
        check_stream(b.out, b.len);
    }
    free(b.out);

    /* line by line */
    result c;
    decode(data, size, window, LINES, LIMIT, &c);
    check_same(&a, &c, "line by line");
    free(c.out);

    /* a larger window */
    if (a.rc == 0) {
        result l;
        decode(data, size, LARGE_WINDOW, WHOLE, LIMIT, &l);
        if (l.rc != 0)
            FAIL("with a window of %d lines the decoder fails where %zu "
                 "succeeds: %s", LARGE_WINDOW, window, l.err);
        check_stream(l.out, l.len);
        if (!same_output(&a, &l) && !thread_line_late(data, size))
            FAIL("with a window of %d lines the decoder writes other bytes "
                 "(%zu, else %zu with %zu)", LARGE_WINDOW, l.len, a.len, window);
        free(l.out);
    }
    free(a.out);
    return 0;
}
