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
#include "argus/decode/ftrace.h"
#include "argus/decode/perfetto.h"
#include "argus/stream/input.h"
#include "argus/stream/stream.h"
#include "argus/stream/table.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HARNESS "fuzz-perfetto"
#define COMMAND "decode --format perfetto fuzz"
#define NAME "fuzz"          /* the input's name in messages */
#define LIMIT (256u << 20)   /* argus-decode's input limit */

#include "checks.h"    /* after HARNESS */
#include "ft-stream.h" /* after COMMAND */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    open_harness_files();
    return 0;
}

typedef struct result {
    int rc;
    char err[768];
    uint8_t *out;
    size_t len;
} result;

/* Decodes the trace (SIZE bytes in DATA, also in in_fd): from memory, or
 * through argus_pf_read as argus-decode does. */
static void decode(const uint8_t *data, size_t size, bool through_input, result *res)
{
    CHECK(ftruncate(out_fd, 0) == 0);
    CHECK(lseek(out_fd, 0, SEEK_SET) == 0);
    CHECK(dup2(out_fd, 1) == 1);
    argus_writer *w = argus_writer_stdout();
    /* a small window: quick to make, and its late-line error is reached */
    argus_ft_options o = {.name = NAME, .command = COMMAND, .window = 64, .quiet = true};
    argus_ft *d = argus_ft_new(w, &o);
    CHECK(d);
    argus_pf_counts counts;
    res->err[0] = 0;
    if (through_input) {
        argus_input in;
        argus_input_open(&in, in_path, LIMIT);
        free(in.name);
        in.name = strdup(NAME);
        CHECK(in.name);
        res->rc = argus_pf_read(d, &in, &counts, res->err, sizeof res->err);
        argus_input_close(&in);
    } else {
        uint8_t *copy = malloc(size ? size : 1); /* exactly: reads past it are caught */
        CHECK(copy);
        memcpy(copy, data, size);
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
    argus_writer_close(w);
    CHECK(dup2(saved_stdout, 1) == 1);
    off_t end = lseek(out_fd, 0, SEEK_CUR);
    CHECK(end >= 0);
    res->len = (size_t)end;
    res->out = malloc(res->len ? res->len : 1);
    CHECK(res->out);
    CHECK(pread(out_fd, res->out, res->len, 0) == (ssize_t)res->len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)argus_pf_sniff(data, size);
    CHECK(ftruncate(in_fd, 0) == 0);
    CHECK(pwrite(in_fd, data, size, 0) == (ssize_t)size);
    result a, b;
    decode(data, size, false, &a);
    check_stream(a.out, a.len);
    decode(data, size, true, &b);
    if (a.rc != b.rc || strcmp(a.err, b.err) != 0 || a.len != b.len ||
        memcmp(a.out, b.out, a.len) != 0)
        FAIL("the trace read through argus_pf_read gives %d \"%s\" and %zu bytes, "
             "from memory %d \"%s\" and %zu bytes",
             b.rc, b.err, b.len, a.rc, a.err, a.len);
    free(a.out);
    free(b.out);
    return 0;
}
