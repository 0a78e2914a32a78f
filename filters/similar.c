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
    "Rules (docs/stages/similar.md; all rules: docs/rules.md):\n"
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
    "             compared with signatures cut to its size, one the trace\n"
    "             began in (asleep at its start) with their last elements.\n"
    "             Ranked by distance, then closest event count, then\n"
    "             earliest\n"
    "  SIM-FIRST  a wait retried after timeouts (the hang's first_seg)\n"
    "             is looked up by its first segment when its last has no\n"
    "             match\n"
    "  SIM-KINDS  when SIM-MATCH finds none: candidates of the role with\n"
    "             the node's UI event kind sharing at least half of the\n"
    "             kinds (distinct elements) of both; \"by\":\"kinds\"\n"
    "  SIM-NONE   a node with no match gets a no_match record: why\n"
    "             (program, role, unlike) and the nearest candidate\n"
    "  SIM-BASELINE  a baseline with no thread that ran, or none in a\n"
    "             process of a hung thread's process name (another\n"
    "             program's run), exits 65 naming the programs it holds\n"
    "\n"
    "The nodes are the segments of the stream's hang records (argus\n"
    "find-spinning), or the segments given with --seg. Every record read is\n"
    "passed through; the match and no_match records are appended after them.\n"
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
    uint64_t *segs = NULL;
    size_t nsegs = 0, segs_cap = 0;
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
            *ARGUS_PUSH(segs, nsegs, segs_cap) = argus_parse_uint_option("--seg", optarg, 0, UINT64_MAX, NULL);
            break;
        case OPT_MAX:
            max = argus_similar_max(optarg);
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
    argus_sim_index *ix;        /* made in the loading thread */
    argus_graph_load_file_async(&base, base_path, ARGUS_KEYS_NONE, argus_sim_index_hook, &ix,
                                &base_loader);

    argus_stage st;
    argus_stage_open(&st, input, common.verbose);
    argus_graph g;
    argus_graph_options gopt = {.keep_key_events = false, .pass = st.out};
    argus_graph_load(&g, st.in, &gopt);
    pthread_join(base_loader, NULL);
    for (size_t i = 0; i < nsegs; i++) {
        if (argus_graph_find_seg(&g, segs[i]) != ARGUS_NONE)
            continue;
        argus_writer_flush(st.out);     /* the stream read, whole */
        argus_usage_error("--seg %llu: no segment %llu in %s",
                          (unsigned long long)segs[i],
                          (unsigned long long)segs[i], g.name);
    }
    argus_similar_write(&g, segs, nsegs, max, &base, ix, base_path, st.out);
    argus_sim_index_free(ix);
    free(segs);
    argus_stage_close(&st);
    argus_graph_free(&g);
    argus_graph_free(&base);
    return 0;
}
