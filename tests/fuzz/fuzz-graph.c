/* libFuzzer target for the graph loader (argus_graph_load) and the four
 * analysis stages over it, as argus-analyze runs them: find-spinning
 * (fed each event as it loads), similar and diff against the same graph
 * as baseline, then the report, text and markdown. Each stage's records
 * join the graph's extras before the next stage, so similar, diff and
 * the report see find-spinning's hangs as well as the input's own
 * analysis records (hang, path, match, culprit, ... of any shape).
 *
 * The input is a stream file (a memory file opened by name, as a program
 * opens its input). The programs end at the first bad record (exit 65):
 * here argus_die's flush hook jumps back instead, and what a cut-short
 * load holds is left behind, as the programs leave it to exit; so
 * LeakSanitizer is off here (the suite on the sanitizer build, `make
 * check`, runs the programs themselves with it). Checks besides the sanitizers: a
 * stream the loader takes has every segment, edge end and thread index in
 * range, and every input ends in well under a second (libFuzzer's
 * -timeout) with bounded memory (-rss_limit_mb): memory must follow the
 * records, not the values in them.
 */
#include "argus/analysis/diff.h"
#include "argus/analysis/find-spinning.h"
#include "argus/analysis/graph.h"
#include "argus/view/report.h"
#include "argus/stream/cli.h"
#include "argus/stream/stream.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HARNESS "fuzz-graph"
#include "check.h"

#include "escape.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    static char *args[] = {"fuzz-graph", NULL};
    argus_cli_init(1, args);
    /* the report prints on stdout */
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
        dup2(null, 1);
        close(null);
    }
    return 0;
}

static void check_graph(const argus_graph *g)
{
    for (uint32_t i = 0; i < g->nsegs; i++) {
        const argus_seg *s = &g->segs[i];
        CHECK(s->thread < g->nthreads);
        CHECK(s->prev == ARGUS_NONE || s->prev < g->nsegs);
        CHECK(s->next == ARGUS_NONE || s->next < g->nsegs);
        CHECK(argus_graph_find_seg(g, s->seg) == i);
        CHECK(argus_graph_seg_of(g, s->first_id) == i);
    }
    for (uint32_t i = 0; i < g->nedges; i++) {
        const argus_gedge *e = &g->edges[i];
        CHECK(e->from_seg == ARGUS_NONE || e->from_seg < g->nsegs);
        CHECK(e->to_seg == ARGUS_NONE || e->to_seg < g->nsegs);
    }
    for (uint32_t t = 0; t < g->nthreads; t++)
        CHECK(g->seg_first[t] <= g->seg_first[t + 1] && g->seg_first[t + 1] <= g->nsegs);
}

/* G's key events, made lazily, are those a load of PATH keeping them
 * keeps. */
static void check_lazy_keys(const argus_graph *g, const char *path)
{
    static argus_graph kept;
    argus_reader *rd = argus_reader_open(path);
    argus_graph_load(&kept, rd, &(argus_graph_options){.keep_key_events = true});
    argus_reader_close(rd);
    CHECK(kept.nsegs == g->nsegs);
    for (uint32_t si = 0; si < g->nsegs; si++) {
        if (si == 32 && g->nsegs > 64)
            si = g->nsegs - 32; /* a segment reads the file on from its
                                   first event: the first and last few */
        uint32_t n, m;
        const argus_key_event *a = argus_graph_seg_keys(g, si, &n);
        const argus_key_event *b = argus_graph_seg_keys(&kept, si, &m);
        CHECK(n == m);
        for (uint32_t k = 0; k < n; k++)
            CHECK(a[k].id == b[k].id && a[k].ts == b[k].ts && a[k].aux == b[k].aux &&
                  a[k].type == b[k].type && a[k].extra == b[k].extra &&
                  strcmp(argus_graph_str(g, a[k].text), argus_graph_str(&kept, b[k].text)) == 0);
    }
    argus_graph_free(&kept);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz-graph", 0);
    if (fd < 0)
        return 0;
    if (size && write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);

    static argus_graph g;
    static argus_findings found;
    static argus_sim_index *ix;
    memset(&g, 0, sizeof g);
    ix = NULL;
    argus_cli_on_die(escape, NULL);
    if (setjmp(escape_to)) {
        close(fd);
        return 0;
    }
    argus_reader *rd = argus_reader_open(path);
    argus_spin_options spin;
    argus_spin_defaults(&spin);
    argus_spin *sp = argus_spin_start(&spin, argus_reader_header(rd));
    /* an odd-sized input loads its key events lazily (GRAPH-LOAD), and
     * they must be the ones a load that keeps them keeps */
    argus_graph_options gopt = {.keep_key_events = true, .keys_lazily = size & 1,
                                .on_event = argus_spin_on_event, .ctx = sp};
    argus_graph_load(&g, rd, &gopt);
    check_graph(&g);
    if (size & 1)
        check_lazy_keys(&g, path);

    argus_writer *out = argus_writer_to("the findings", argus_findings_collect, &found);
    argus_spin_finish(sp, &g, out);
    argus_findings_add(&found, &g, NULL);
    ix = argus_sim_index_new(&g);
    argus_similar_write(&g, NULL, 0, 5, &g, ix, "self", out);
    argus_findings_add(&found, &g, NULL);
    argus_diff_options diff = ARGUS_DIFF_DEFAULTS;
    argus_diff_write(&g, &g, ix, &diff, out);
    argus_findings_add(&found, &g, NULL);
    argus_writer_close(out);
    argus_report_write(&g, &(argus_report_options){.markdown = false});
    argus_report_write(&g, &(argus_report_options){.markdown = true});

    argus_cli_on_die(NULL, NULL);
    argus_findings_free(&found);
    argus_sim_index_free(ix);
    argus_graph_free(&g);
    argus_reader_close(rd);
    close(fd);
    return 0;
}
