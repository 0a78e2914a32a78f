/* libFuzzer target for the Perfetto decoder (include/argus/decode/perfetto.h):
 * argus_pf_read_mem on the input as a whole trace, into the ftrace decoder
 * writing to a memory file, and argus_pf_sniff on it.
 *
 * The trace is given in a buffer of exactly its size (a read past it is
 * caught). What the decoder wrote must be a valid stream of the ftrace
 * decoder (ft-stream.h: records the parser accepts, one header first with
 * "source" "ftrace" and this command, ids in order, ts never decreasing,
 * a thread record before each event, the DEC-WOKEN and ipc pairings); a
 * failure returns -1 or -2 with a message "fuzz: ..." (a place in bytes,
 * or the refusal of a trace with no scheduler events), after which the
 * decoder is drained as argus-decode does.
 *
 * The same trace read as argus-decode reads it (argus_pf_read on a
 * memory file: mapped) must give the same return, message and bytes.
 * A broken property aborts (libFuzzer reports a crash with the input). */
#include "argus/decode/perfetto.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HARNESS "fuzz-perfetto"
#define COMMAND "decode --format perfetto fuzz"
#define NAME "fuzz"          /* the input's name in messages */
#define LIMIT (256u << 20)   /* argus-decode's input limit */

#include "ft-stream.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    open_harness_files();
    return 0;
}

/* Decodes the trace (SIZE bytes in DATA, also in in_fd): from memory, or
 * through argus_pf_read as argus-decode does. */
static void decode(const uint8_t *data, size_t size, bool through_input, result *res)
{
    argus_writer *w = output_begin();
    /* a small window: quick to make, and its late-line error is reached */
    argus_ft_options o = {.name = NAME, .command = COMMAND, .window = 64};
    argus_ft *d = argus_ft_new(w, &o);
    CHECK(d);
    argus_pf_counts counts;
    res->err[0] = 0;
    if (through_input) {
        argus_input in;
        file_input(&in, LIMIT, false);
        res->rc = argus_pf_read(d, &in, &counts, res->err, sizeof res->err);
        argus_input_close(&in);
    } else {
        uint8_t *copy = exact_copy(data, size);
        res->rc = argus_pf_read_mem(d, copy, size, NAME, &counts, res->err, sizeof res->err);
        free(copy);
    }
    CHECK(res->rc == 0 || res->rc == -1 || res->rc == -2);
    if (res->rc < 0) {
        if (strncmp(res->err, NAME ": ", sizeof NAME + 1) != 0)
            FAIL("error \"%s\" does not start with \"" NAME ": \"", res->err);
        argus_ft_drain(d); /* as argus-decode: the lines before the error stay */
    } else {
        CHECK(res->err[0] == 0);
    }
    argus_ft_print_counts(d, devnull);
    argus_pf_print_counts(&counts, devnull);
    argus_ft_free(d);
    output_end(w, res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)argus_pf_sniff(data, size);
    put_input(data, size);
    result a, b;
    decode(data, size, false, &a);
    check_stream(a.out, a.len);
    decode(data, size, true, &b);
    check_same(&a, &b, "through argus_pf_read");
    free(a.out);
    free(b.out);
    return 0;
}
