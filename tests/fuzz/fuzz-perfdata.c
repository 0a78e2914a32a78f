/* libFuzzer target for the perf.data decoder (include/argus/decode/perfdata.h):
 * argus_pd_decode on the input as it is (in a buffer of exactly its size,
 * so a read past it is caught), into the ftrace decoder as argus-decode
 * sets it up (need_ftrace), and argus_pd_read on a memory file holding the
 * same bytes (mapped, as argus-decode reads a file), and argus_pd_sniff.
 *
 * Checks besides the sanitizers: the return is 0, -1 or -2; a -1 has one
 * message "fuzz: byte N: WHAT" with N within the input (or says that
 * libtraceevent died parsing the formats in the decoder's trial child,
 * whose death the fuzzer does not see as its own), a -2 the ftrace
 * decoder's message; what was written is a valid stream (records the
 * parser accepts, a version 1 "argus" header first with source "ftrace"
 * and this command in "stages", no second header, every known key of its
 * value class, text valid UTF-8, event ids 1, 2, 3 ..., ts never
 * decreasing, each event after a thread record of its tid with its pid);
 * the two readings give the same return, message and bytes; an input the
 * decoder takes (0) starts with the magic argus_pd_sniff tells. Seeds:
 * tests/fuzz/corpus/fuzz-perfdata (tests/fuzz/corpus/shrink-perfdata.py made them from real
 * recordings). */
#include "argus/decode/perfdata.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HARNESS "fuzz-perfdata"
#define COMMAND "decode --format perfdata fuzz"
#define NAME "fuzz"

#include "ft-stream.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    open_harness_files();
    return 0;
}

/* "fuzz: byte N: WHAT" with N at most SIZE, or the one message without a
 * place: libtraceevent died in the trial child parsing the formats. */
static void check_error(const char *err, size_t size)
{
    static const char died[] = NAME ": libtraceevent crashes parsing its event formats";
    if (strncmp(err, died, sizeof died - 1) != 0)
        check_byte_error(err, size);
}

/* Decodes DATA (SIZE bytes): from memory, or (FROM_FILE) through
 * argus_pd_read on the input memfd holding the same bytes. */
static void decode(const uint8_t *data, size_t size, bool from_file, result *res)
{
    argus_writer *w;
    argus_ft *d = ft_decoding_begin(&w, res);
    if (from_file) {
        argus_input in;
        file_input(&in, 1u << 20, false);
        res->rc = argus_pd_read(d, &in, res->err, sizeof res->err);
        argus_input_close(&in);
    } else {
        uint8_t *copy = exact_copy(data, size);
        res->rc = argus_pd_decode(d, copy, size, NAME, res->err, sizeof res->err);
        free(copy);
    }
    ft_decoding_end(d, w, res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    put_input(data, size);
    result a, b;
    decode(data, size, false, &a);
    if (a.rc == -1)
        check_error(a.err, size);
    check_stream(a.out, a.len);
    if (a.rc == 0 && !argus_pd_sniff(data, size))
        FAIL("an input without the perf.data magic was decoded");
    decode(data, size, true, &b);
    check_same(&a, &b, "from a file");
    free(a.out);
    free(b.out);
    return 0;
}
