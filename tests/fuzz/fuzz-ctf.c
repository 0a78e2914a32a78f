/* libFuzzer target for the CTF decoder (include/argus/decode/ctf.h):
 * argus_ctf_read on a trace directory, as 'argus-decode DIR' drives it,
 * and argus_ctf_sniff on the first bytes.
 *
 * A trace is a directory, so the input is one written into a directory of
 * this process (made once, the files rewritten for each input): the bytes
 * before the first NUL are its `metadata` file (CTF's text form; the
 * packetized form when they begin with its magic), the bytes after it the
 * stream file `stream_0`; no NUL: a metadata file alone. libbabeltrace2
 * reads them (it is not instrumented: the coverage that guides the fuzzer
 * is the rendering of events and the ftrace decoder's mapping; what
 * babeltrace2 does with the bytes is exercised, not steered). The seeds
 * are small real traces (tests/fuzz/corpus/fuzz-ctf/): an LTTng one with
 * the statedump, switches, wakeups and futex syscalls, and perf's CTF.
 *
 * What the decoder wrote must be a valid stream (docs/stream-format.md):
 * records the parser accepts; a version 1 "argus" header first with
 * "source" "ftrace" and this command in "stages", no second header; every
 * known key of its value class; text valid UTF-8; event ids 1, 2, 3 ... in
 * order; ts never decreasing; each event after a thread record of its tid
 * with its pid. A -1 return has a message naming the trace ("fuzz: ") or a
 * file of it ("DIR/metadata:LINE: ", "DIR/stream_0: "); -2 is the ftrace
 * decoder's error "fuzz:LINE: ...". The same input read twice gives the
 * same return, message and bytes (nothing of one reading stays for the
 * next: the cpu tasks, the process table). A broken property aborts.
 */
#include "argus/decode/ctf.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HARNESS "fuzz-ctf"
#define COMMAND "decode fuzz"
#define NAME "fuzz"

#include "ft-stream.h"

static char dir[256], metadata_path[300], stream_path[300];

/* The trace directory goes when the fuzzer exits. */
static void remove_dir(void)
{
    unlink(metadata_path);
    unlink(stream_path);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    open_harness_files();
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/fuzz-ctf.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror(HARNESS ": mkdtemp");
        abort();
    }
    snprintf(metadata_path, sizeof metadata_path, "%s/metadata", dir);
    snprintf(stream_path, sizeof stream_path, "%s/stream_0", dir);
    atexit(remove_dir);
    return 0;
}

static void write_file(const char *path, const uint8_t *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0);
    CHECK(write(fd, data, size) == (ssize_t)size);
    close(fd);
}

static void decode(result *res)
{
    argus_writer *w;
    argus_ft *d = ft_decoding_begin(&w, res);
    res->rc = argus_ctf_read(d, dir, NAME, res->err, sizeof res->err);
    CHECK(res->rc == 0 || res->rc == -1 || res->rc == -2);
    if (res->rc == -2) {
        snprintf(res->err, sizeof res->err, "%s", argus_ft_error(d));
        argus_ft_drain(d);
    }
    argus_ft_free(d);
    output_end(w, res);
}

/* A failure's message names the trace or one of its files. */
static void check_error(const result *r)
{
    size_t n = strlen(dir);
    bool names_file = strncmp(r->err, dir, n) == 0 && r->err[n] == '/' &&
                      (strncmp(r->err + n + 1, "metadata:", 9) == 0 ||
                       strncmp(r->err + n + 1, "stream_0: ", 10) == 0);
    bool names_trace = strncmp(r->err, NAME ": ", sizeof NAME + 1) == 0 ||
                       (r->rc == -2 && strncmp(r->err, NAME ":", sizeof NAME) == 0);
    if (!names_file && !names_trace)
        FAIL("error \"%s\" (return %d) names neither the trace nor one of its files",
             r->err, r->rc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t meta = nul ? (size_t)(nul - data) : size;

    /* the sniffer on exactly the bytes it is given */
    uint8_t *head = exact_copy(data, meta);
    (void)argus_ctf_sniff(head, meta);
    free(head);

    write_file(metadata_path, data, meta);
    if (nul)
        write_file(stream_path, nul + 1, size - meta - 1);
    else
        unlink(stream_path);
    if (!argus_ctf_dir(dir))
        return 0; /* argus-decode stops before: not a CTF trace (66) */

    result a, b;
    decode(&a);
    if (a.rc < 0)
        check_error(&a);
    check_stream(a.out, a.len);
    decode(&b);
    check_same(&a, &b, "again");
    free(a.out);
    free(b.out);
    return 0;
}
