/* libFuzzer target for the built-in graph stages through their library
 * functions (lib/stages/), as argus-chain and argus graph's in-process
 * chain run them: cull-interrupts, segment, link-ipc, link-dispatch,
 * link-flags and link-wakeups, each record handed from one stage to the
 * next in memory (argus_writer_to), each stage's header with its name
 * appended.
 *
 * The input's first byte picks the options: bit 0 cull-interrupts
 * --drop, bit 1 --no-in-syscall, bit 2 segment with every split rule off
 * but the wait split (else all on), bit 3 link-ipc --no-reply, bit 4
 * link-dispatch --kernel-timers, bit 5 link-flags --same-process, bit 6
 * link-wakeups --no-weak, bit 7 a --max-pending of 2 (tables that drop
 * their oldest entries). The rest is a stream file (a memory file opened
 * by name, as a program opens its input).
 *
 * The programs end at the first bad record (exit 65); here argus_die's
 * flush hook jumps back, and what the run held is freed: the stages not
 * yet finished (their discard), the writers between them, the reader
 * (which closes itself when its header is bad), so LeakSanitizer stays
 * on and a run cut short leaves nothing to the next. Checks besides the
 * sanitizers, on what the last stage wrote: a header first and only
 * there, its "stages" (when the input's was an array of text) ending in
 * the six stages' names; the events are
 * the input's, in the input's order (a subsequence where
 * cull-interrupts drops), each with a seg; an edge that was not in the
 * input joins two events written before it.
 */
#include "argus/stages/builtin.h"
#include "argus/stages/stage.h"
#include "argus/stream/cli.h"
#include "argus/stream/stream.h"
#include "argus/stream/table.h"

#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HARNESS "fuzz-link"
#include "check.h"

#define NSTAGES 6

#define ESCAPE_FREES
#include "escape.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    static char *args[] = {"fuzz-link", NULL};
    argus_cli_init(1, args);
    return 0;
}

/* One stage of the chain, as lib/stages/stage.c's chain_link. */
typedef struct stage_link {
    const argus_stage_def *def;
    void *self;
    argus_writer *out;
    char name[64];
    struct stage_link *next;      /* NULL: the last, whose output is checked */
    bool have_header;
} stage_link;

/* What the input held and the last stage wrote. */
static struct {
    uint64_t *in_ids;       /* the input's event ids, in order */
    size_t n_in, cap_in, next_in;
    argus_table in_edges;   /* from, to of the input's edges (hashed) */
    argus_table out_ids;    /* event ids written */
    uint64_t out_records;
    bool drop;
} seen;

static uint64_t edge_key(uint64_t from, uint64_t to)
{
    return from * 0x9e3779b97f4a7c15u ^ to;
}

static const char *const stage_names[NSTAGES] = {
    "cull-interrupts", "segment", "link-ipc", "link-dispatch", "link-flags",
    "link-wakeups"};

static void check_header(const argus_record *r)
{
    CHECK(r->type == ARGUS_T_STREAM);
    argus_text st[64];
    int n = argus_get_text_array(r, ARGUS_K_STAGES, st, 64);
    if (n < 0 || n >= 64)
        return;         /* the input's "stages" held more than text (the
                           stages pass it on; argus-validate refuses it),
                           or more than the 64 names kept here */
    CHECK(n >= NSTAGES);
    for (int i = 0; i < NSTAGES; i++) {
        const argus_text *t = &st[n - NSTAGES + i];
        CHECK(t->len == strlen(stage_names[i]) &&
              memcmp(t->s, stage_names[i], t->len) == 0);
    }
}

/* A record the last stage wrote. */
static void check_out(const argus_record *r)
{
    if (seen.out_records++ == 0) {
        check_header(r);
        return;
    }
    CHECK(r->type != ARGUS_T_STREAM);
    if (r->is_event) {
        uint64_t seg;
        CHECK(argus_get_uint(r, ARGUS_K_SEG, &seg));
        /* the input's events, in order */
        while (seen.next_in < seen.n_in && seen.in_ids[seen.next_in] != r->id) {
            CHECK(seen.drop);
            seen.next_in++;
        }
        CHECK(seen.next_in < seen.n_in);
        seen.next_in++;
        argus_table_put(&seen.out_ids, r->id, NULL);
    } else if (r->type == ARGUS_T_EDGE) {
        uint64_t from, to;
        if (argus_get_uint(r, ARGUS_K_FROM, &from) && argus_get_uint(r, ARGUS_K_TO, &to) &&
            argus_table_get(&seen.in_edges, edge_key(from, to)))
            return;     /* passed on from the input */
        CHECK(argus_get_uint(r, ARGUS_K_FROM, &from));
        CHECK(argus_get_uint(r, ARGUS_K_TO, &to));
        CHECK(argus_table_get(&seen.out_ids, from));
        CHECK(argus_table_get(&seen.out_ids, to));
    }
}

static void deliver(void *ctx, const argus_record *r)
{
    stage_link *k = ctx;
    if (!k) {
        check_out(r);
        return;
    }
    if (k->have_header) {
        k->def->record(k->self, r, k->out);
    } else {
        k->have_header = true;
        argus_write_header(k->out, r, k->def->name);
    }
}

/* The input's records: noted, then into the first stage. */
static void note_input(const argus_record *r)
{
    if (r->is_event) {
        if (seen.n_in == seen.cap_in) {
            seen.cap_in = seen.cap_in ? 2 * seen.cap_in : 256;
            seen.in_ids = realloc(seen.in_ids, seen.cap_in * sizeof *seen.in_ids);
            if (!seen.in_ids)
                abort();
        }
        seen.in_ids[seen.n_in++] = r->id;
    } else if (r->type == ARGUS_T_EDGE) {
        uint64_t from, to;
        if (argus_get_uint(r, ARGUS_K_FROM, &from) && argus_get_uint(r, ARGUS_K_TO, &to))
            argus_table_put(&seen.in_edges, edge_key(from, to), NULL);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t opt = data[0];
    int fd = memfd_create("fuzz-link", 0);
    if (fd < 0)
        return 0;
    if (size > 1 && write(fd, data + 1, size - 1) != (ssize_t)(size - 1)) {
        close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);

    argus_cull_options cull = ARGUS_CULL_DEFAULTS;
    cull.drop = opt & 1;
    cull.in_syscall = !(opt & 2);
    argus_segment_options seg = ARGUS_SEGMENT_DEFAULTS;
    if (opt & 4)
        seg = (argus_segment_options){.wait_split = true};
    argus_link_ipc_options ipc = ARGUS_LINK_IPC_DEFAULTS;
    ipc.reply = !(opt & 8);
    argus_link_dispatch_options disp = ARGUS_LINK_DISPATCH_DEFAULTS;
    disp.kernel_timers = opt & 16;
    argus_link_flags_options flags = ARGUS_LINK_FLAGS_DEFAULTS;
    flags.same_process = opt & 32;
    argus_link_wakeups_options wake = ARGUS_LINK_WAKEUPS_DEFAULTS;
    wake.weak = !(opt & 64);
    argus_options common = ARGUS_OPTIONS_DEFAULT;
    if (opt & 128)
        common.max_pending = 2;
    const argus_stage_def *defs[NSTAGES] = {
        &argus_cull_interrupts_stage, &argus_segment_stage, &argus_link_ipc_stage,
        &argus_link_dispatch_stage, &argus_link_flags_stage, &argus_link_wakeups_stage};
    const void *options[NSTAGES] = {&cull, &seg, &ipc, &disp, &flags, &wake};

    static stage_link links[NSTAGES];
    memset(links, 0, sizeof links);
    free(seen.in_ids);
    memset(&seen, 0, sizeof seen);
    seen.drop = cull.drop;
    argus_table_init(&seen.in_edges, 0);
    argus_table_init(&seen.out_ids, 0);

    static argus_reader *in;
    in = NULL;
    argus_cli_on_die(escape, NULL);
    if (setjmp(escape_to)) {
        /* what the run held: the stages not yet finished, the writers,
         * the reader (NULL when its header was bad: it closed itself) */
        for (int i = 0; i < NSTAGES; i++) {
            if (links[i].self)
                defs[i]->discard(links[i].self);
            argus_writer_close(links[i].out);
        }
        if (in)
            argus_reader_close(in);
        close(fd);
        argus_table_free(&seen.in_edges);
        argus_table_free(&seen.out_ids);
        return 0;
    }
    in = argus_reader_open(path);
    for (int i = NSTAGES - 1; i >= 0; i--) {
        links[i].def = defs[i];
        links[i].next = i + 1 < NSTAGES ? &links[i + 1] : NULL;
        snprintf(links[i].name, sizeof links[i].name, "%s's output", defs[i]->name);
        links[i].out = argus_writer_to(links[i].name, deliver, links[i].next);
    }
    for (int i = 0; i < NSTAGES; i++)
        links[i].self = defs[i]->start(options[i], &common);
    deliver(&links[0], argus_reader_header(in));
    const argus_record *r;
    while ((r = argus_read(in))) {
        note_input(r);
        deliver(&links[0], r);
    }
    for (int i = 0; i < NSTAGES; i++) {
        defs[i]->finish(links[i].self, links[i].out);
        links[i].self = NULL;   /* freed: not discarded again */
    }
    for (int i = 0; i < NSTAGES; i++) {
        argus_writer_close(links[i].out);
        links[i].out = NULL;
    }
    argus_reader_close(in);
    argus_cli_on_die(NULL, NULL);
    close(fd);
    CHECK(seen.out_records >= 1);
    if (!seen.drop)
        CHECK(seen.next_in == seen.n_in);   /* every event came out */
    argus_table_free(&seen.in_edges);
    argus_table_free(&seen.out_ids);
    return 0;
}
