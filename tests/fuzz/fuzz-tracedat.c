/* libFuzzer target for the trace.dat decoder (include/argus/decode/tracedat.h):
 * argus_td_read on the input, into the ftrace decoder as argus-decode sets
 * it up (need_ftrace), read two ways: from the input memory file opened as
 * argus-decode opens a file, and from memory with no file behind it (as
 * from a pipe: the decoder copies it to a memory file first); and
 * argus_td_sniff.
 *
 * libtracecmd and libtraceevent are not instrumented: coverage guides the
 * rendering and the ftrace mapping, the libraries are exercised, not
 * steered. A file libtracecmd crashes on is read first in the decoder's
 * trial child, whose death the fuzzer does not see as its own.
 *
 * Checks besides the sanitizers: the return is 0, -1 or -2; a -1 has one
 * message "fuzz: WHAT", a -2 the ftrace decoder's; what was written is a
 * valid stream (ft-stream.h: header, known keys, UTF-8, ids and times in
 * order, a thread record before each event); the two readings give the
 * same return, message and bytes; an input the decoder takes (0) starts
 * with the magic argus_td_sniff tells. Seeds: the v6 and v7 recordings of
 * fixtures/tracedat (tests/fuzz/corpus/fuzz-tracedat). */
#include "argus/decode/tracedat.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HARNESS "fuzz-tracedat"
#define COMMAND "decode --format tracedat fuzz"
#define NAME "fuzz"

#include "ft-stream.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    open_harness_files();
    return 0;
}

/* Decodes DATA (SIZE bytes): from the input memfd (FROM_FILE), or from
 * memory with no file behind it. */
static void decode(const uint8_t *data, size_t size, bool from_file, result *res)
{
    argus_writer *w;
    argus_ft *d = ft_decoding_begin(&w, res);
    argus_input in;
    if (from_file)
        file_input(&in, 1u << 20, true);
    else
        memory_input(&in, data, size);
    res->rc = argus_td_read(d, &in, res->err, sizeof res->err);
    argus_input_close(&in);
    if (res->rc == -1 && strncmp(res->err, NAME ": ", strlen(NAME ": ")) != 0)
        FAIL("error \"%s\" does not name the input", res->err);
    ft_decoding_end(d, w, res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    put_input(data, size);
    result a, b;
    decode(data, size, true, &a);
    check_stream(a.out, a.len);
    if (a.rc == 0 && !argus_td_sniff(data, size))
        FAIL("an input without the trace.dat magic was decoded");
    decode(data, size, false, &b);
    check_same(&a, &b, "from memory");
    free(a.out);
    free(b.out);
    return 0;
}
