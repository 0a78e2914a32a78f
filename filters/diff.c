/* argus-diff: the assisted graph diff (the paper's AssistedGraphDiff): for
 * each hang node, walk its similar node's causal path in a baseline graph
 * and name the threads that acted there but were blocked or busy here
 * (docs/stages/diff.md). */
#include "argus/analysis/diff.h"
#include "argus/stream/cli.h"
#include "argus/stages/stage.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: argus-diff [--baseline FILE] [--depth N] [--choose LIST | --interactive]\n"
    "                  [--max-branches N] [-v] [FILE|-]\n"
    "Name each hang's culprits against its similar node in a baseline graph.\n"
    "The stream passes through, with culprit (and branch) records appended.\n"
    "\n"
    "Rules (docs/stages/diff.md; all rules: docs/rules.md):\n"
    "  DIFF-CULPRIT  take the baseline node's backward causal path (from the\n"
    "                segment where it went on after its wait); every thread on\n"
    "                it that, in this trace, was blocked or busy from about when\n"
    "                it acted in the baseline (aligned to the similar node) up\n"
    "                to the hang is a culprit, with the node where it blocked;\n"
    "                recurse on each culprit's node up to --depth. The culprit\n"
    "                farthest back on the path ranks first (root). A busy hang\n"
    "                is its own culprit. Without --baseline, the culprits are\n"
    "                the threads of the hang's wait chain, deepest first\n"
    "  DIFF-CONNECTED  a counterpart must be tied to this hang in this trace:\n"
    "                on its chain or causal path, in a process they asked, in\n"
    "                the hang's process, or linked to the counterpart of the\n"
    "                node it acted on; not by name alone\n"
    "  DIFF-MISSING  a baseline edge into the hang's thread that the\n"
    "                counterpart made here too is no missing edge\n"
    "  DIFF-WAITER   a counterpart whose wait the hang's own thread ended\n"
    "                after the hang waited on it: no culprit, unless the\n"
    "                hang asked its process (a deadlock a timeout broke)\n"
    "  DIFF-CHAIN    a wait chain that ends at a thread holding the hang up\n"
    "                itself (timeout, running, runnable) gives the order,\n"
    "                baseline culprits after; else the baseline's stand\n"
    "  DIFF-RELAY    the chain's threads rank by their time on the critical\n"
    "                path; one that held the hang up less than a tenth of it\n"
    "                only relayed: no culprit (but the chain's last)\n"
    "  DIFF-ASK      where the baseline path has several incoming strong edges,\n"
    "                or can go on only over weak ones, take the choice from\n"
    "                --choose or ask (--interactive); else follow every branch\n"
    "                and rank them\n"
    "\n"
    "      --baseline FILE     the baseline run's graph stream (argus graph)\n"
    "      --depth N           recursion on culprits (default 2; 0: none)\n"
    "      --choose LIST       comma-separated 1-based choices, one per branch\n"
    "                          point in the order met (0: follow all)\n"
    "      --interactive       ask at each branch point on /dev/tty\n"
    "      --max-branches N    paths followed per node at most (default 8)\n"
    "  -v, --verbose           print counts to stderr at the end\n"
    "  -h, --help              show this help\n"
    "      --version           show the version\n";


int main(int argc, char **argv)
{
    argus_cli_init(argc, argv);
    enum { OPT_BASELINE = 256 };
    static const struct option opts[] = {
        {"baseline", required_argument, 0, OPT_BASELINE},
        ARGUS_DIFF_LONG_OPTIONS,
        ARGUS_OPTION_VERBOSE,
        ARGUS_OPTION_HELP,
        ARGUS_OPTION_VERSION,
        {0, 0, 0, 0},
    };
    argus_diff_options c = ARGUS_DIFF_DEFAULTS;
    const char *baseline = NULL;
    argus_options common = ARGUS_OPTIONS_DEFAULT;
    int o;
    opterr = 0;
    while ((o = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
        if (o == OPT_BASELINE)
            baseline = optarg;
        else if (!argus_diff_option(&c, o, optarg))
            argus_common_option(o, usage, &common, argv);
    }
    argus_diff_options_ready(&c);
    const char *input = argus_input_arg(argc, argv);

    argus_graph base;
    pthread_t base_loader;
    argus_sim_index *ix = NULL; /* made in the loading thread */
    if (baseline) {
        /* its key events read again when asked; --interactive lists a
         * candidate's first ones, so keeps them */
        argus_graph_load_file_async(&base, baseline, c.interactive ? ARGUS_KEYS_KEPT
                                                                    : ARGUS_KEYS_REREAD,
                                    argus_sim_index_hook, &ix, &base_loader);
    }
    argus_stage st;
    argus_stage_open(&st, input, common.verbose);
    argus_graph g;
    argus_graph_options gopt = {.pass = st.out};
    argus_graph_load(&g, st.in, &gopt);
    if (baseline)
        pthread_join(base_loader, NULL);
    argus_diff_write(&g, baseline ? &base : NULL, ix, &c, st.out);
    argus_diff_options_free(&c);
    argus_graph_free(&g);
    if (baseline) {
        argus_sim_index_free(ix);
        argus_graph_free(&base);
    }
    argus_stage_close(&st);
    return 0;
}
