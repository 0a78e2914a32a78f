/* argus-similar: for each hang node of a graph stream (or each --seg),
 * finds the similar nodes of a baseline graph and appends ranked match
 * records (docs/stages/similar.md). */
#include "argus/stream/cli.h"
#include "argus/analysis/graph.h"
#include "argus/stages/stage.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: argus-similar --in BASELINE [--seg ID]... [--max N] [-v] [FILE|-]\n"
    "Find each hang node's similar nodes in a baseline graph; append match records.\n"
    "\n"
    "Rules (docs/stages/similar.md, spec graph-rules.md):\n"
    "  SIM-SIG    a node's signature is its sequence of checking events\n"
    "             (ipc: dir, peer's process name, msg_id; wait: reason;\n"
    "             syscall: name; ui_event: kind; flag: name; dispatch and\n"
    "             runloop callouts: kind, func; runloop_phase: stage), with\n"
    "             no addresses, tids or times, nor what only says the\n"
    "             timing (a wait inside the syscall it is named after, an\n"
    "             ipc via socket or fd); consecutive repeats of one\n"
    "             element or of a run of up to 4 collapse to one\n"
    "  SIM-MATCH  candidates are the baseline's nodes of the same thread\n"
    "             role (same process and thread name, or both main threads\n"
    "             of the same process name) whose signature sizes differ by\n"
    "             at most 20%; they match when the edit distance is under\n"
    "             40% of the longer signature. A node cut short by the\n"
    "             end of its trace (its thread's last, not in a wait) is\n"
    "             compared with signatures cut to its size. Ranked by\n"
    "             distance, then closest event count, then earliest\n"
    "\n"
    "The nodes are the segments of the stream's hang records (argus\n"
    "find-spinning), or the segments given with --seg. Every record read is\n"
    "passed through; the match records are appended after them.\n"
    "\n"
    "      --in BASELINE      the baseline: the graph stream of a normal run\n"
    "                         (argus graph), required\n"
    "      --seg ID           find the nodes similar to segment ID of the\n"
    "                         stream (repeatable) instead of the hang nodes;\n"
    "                         the match records then carry no \"hang\"\n"
    "      --max N            matches written per node, best first (default 5)\n"
    "  -v, --verbose          print counts to stderr at the end\n"
    "  -h, --help             show this help\n"
    "      --version          show the version\n";

/* A node to match: a segment of the stream, and the hang it comes from. */
typedef struct query {
    uint64_t seg;
    uint64_t hang;
    bool has_hang;
} query;

typedef struct query_list {
    query *q;
    size_t n, cap;
} query_list;

static void query_add(query_list *l, query q)
{
    *ARGUS_PUSH(l->q, l->n, l->cap) = q;
}

/* The value of key NAME when it is an unsigned integer (keys the reader
 * does not know, like "hang", are found by name). */
static bool get_uint_named(const argus_record *r, const char *name, uint64_t *out)
{
    const argus_field *f = argus_get_named(r, name);
    if (!f || f->kind != ARGUS_V_UINT)
        return false;
    *out = f->u;
    return true;
}

/* The hang records of the stream, in stream order. */
static void hang_queries(argus_graph *g, query_list *l)
{
    uint32_t nhang = 0;
    for (uint32_t i = 0; i < g->nextras; i++) {
        if (!argus_extra_is(&g->extras[i], "hang"))
            continue;
        nhang++;
        const argus_record *r = argus_graph_parse_extra(g, i);
        query q = {0, 0, true};
        if (!r || !get_uint_named(r, "hang", &q.hang))
            argus_die(ARGUS_EX_DATAERR, "%s: hang record number %u has no "
                      "unsigned \"hang\"", g->name, nhang);
        if (!argus_get_uint(r, ARGUS_K_SEG, &q.seg))
            argus_die(ARGUS_EX_DATAERR, "%s: hang %llu has no unsigned \"seg\"",
                      g->name, (unsigned long long)q.hang);
        if (argus_graph_find_seg(g, q.seg) == ARGUS_NONE)
            argus_die(ARGUS_EX_DATAERR, "%s: hang %llu names seg %llu, which "
                      "is not a segment of the stream", g->name,
                      (unsigned long long)q.hang, (unsigned long long)q.seg);
        query_add(l, q);
    }
}

static void put_match(argus_writer *w, const query *q, uint32_t rank,
                      const argus_seg *s, const argus_graph *base,
                      const argus_match *m, const char *base_name)
{
    const argus_seg *b = &base->segs[m->seg];
    argus_put_map(w, q->has_hang ? 10 : 9);
    argus_put_key(w, "type");
    argus_put_cstr(w, "match");
    if (q->has_hang) {
        argus_put_key(w, "hang");
        argus_put_uint(w, q->hang);
    }
    argus_put_key(w, "seg");
    argus_put_uint(w, s->seg);
    argus_put_key(w, "rank");
    argus_put_uint(w, rank);
    argus_put_key(w, "baseline_seg");
    argus_put_uint(w, b->seg);
    argus_put_key(w, "distance");
    argus_put_uint(w, m->distance);
    argus_put_key(w, "percent");
    argus_put_uint(w, m->percent);
    argus_put_key(w, "size");
    argus_put_uint(w, s->sig_len);
    argus_put_key(w, "baseline_size");
    argus_put_uint(w, b->sig_len);
    argus_put_key(w, "baseline");
    argus_put_cstr(w, base_name);
    argus_end_record(w);
}

int main(int argc, char **argv)
{
    argus_cli_init(argc, argv);
    enum { OPT_IN = 256, OPT_SEG, OPT_MAX };
    static const struct option opts[] = {
        {"in", required_argument, 0, OPT_IN},
        {"seg", required_argument, 0, OPT_SEG},
        {"max", required_argument, 0, OPT_MAX},
        ARGUS_OPTION_VERBOSE,
        ARGUS_OPTION_HELP,
        ARGUS_OPTION_VERSION,
        {0, 0, 0, 0},
    };
    const char *base_path = NULL;
    uint64_t max = 5;
    query_list segs = {0};
    argus_options common = ARGUS_OPTIONS_DEFAULT;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
        switch (c) {
        case OPT_IN:
            if (!*optarg)
                argus_usage_error("--in: needs a file name");
            base_path = optarg;
            break;
        case OPT_SEG:
            query_add(&segs, (query){argus_parse_uint_option("--seg", optarg),
                                     0, false});
            break;
        case OPT_MAX:
            max = argus_parse_uint_option("--max", optarg);
            if (max == 0)
                argus_usage_error("--max: must be at least 1");
            break;
        default: argus_common_option(c, usage, &common, argv);
        }
    }
    const char *input = argus_input_arg(argc, argv);
    if (!base_path)
        argus_usage_error("--in BASELINE is required (the graph stream of a "
                          "normal run)");

    /* The baseline is read in a second thread while the input passes
     * through: two graphs in the time of one. A missing baseline fails
     * before anything is written. */
    argus_graph base;
    pthread_t base_loader;
    argus_graph_load_file_async(&base, base_path, false, &base_loader);

    argus_stage st;
    argus_stage_open(&st, input, common.verbose);
    argus_graph g;
    argus_graph_options gopt = {.keep_key_events = false, .pass = st.out};
    argus_graph_load(&g, st.in, &gopt);
    pthread_join(base_loader, NULL);

    query_list hangs = {0};
    const query_list *nodes = &segs;
    if (segs.n == 0) {
        hang_queries(&g, &hangs);
        nodes = &hangs;
    } else {
        for (size_t i = 0; i < segs.n; i++) {
            if (argus_graph_find_seg(&g, segs.q[i].seg) != ARGUS_NONE)
                continue;
            argus_writer_flush(st.out);     /* the stream read, whole */
            argus_usage_error("--seg %llu: no segment %llu in %s",
                              (unsigned long long)segs.q[i].seg,
                              (unsigned long long)segs.q[i].seg, g.name);
        }
    }

    /* never more matches than baseline nodes */
    uint64_t most = max < base.nsegs ? max : base.nsegs;
    int nmax = most == 0 ? 1 : most > INT_MAX ? INT_MAX : (int)most;
    argus_match *found = malloc((size_t)nmax * sizeof *found);
    if (!found)
        argus_die(ARGUS_EX_IOERR, "out of memory");
    argus_sim_index *ix = argus_sim_index_new(&base);
    for (size_t i = 0; i < nodes->n; i++) {
        const query *q = &nodes->q[i];
        uint32_t si = argus_graph_find_seg(&g, q->seg);
        int k = argus_sim_find(ix, &g, si, found, nmax);
        argus_count("nodes", 1);
        if (k == 0)
            argus_count("nodes without a match", 1);
        for (int j = 0; j < k; j++)
            put_match(st.out, q, (uint32_t)j + 1, &g.segs[si], &base, &found[j],
                      base_path);
        if (k)
            argus_count("matches", (uint64_t)k);
    }
    argus_sim_index_free(ix);
    free(found);
    free(segs.q);
    free(hangs.q);
    argus_stage_close(&st);
    argus_graph_free(&g);
    argus_graph_free(&base);
    return 0;
}
