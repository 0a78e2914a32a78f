/* argus-chain: runs built-in stages one after the other in one process,
 * each record handed from stage to stage with no encoding in between; its
 * output is the pipe of the separate programs', byte for byte
 * (docs/stages/chain.md). */
#include "argus/stream/cli.h"
#include "argus/stages/builtin.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

static const char usage[] =
    "Usage: argus-chain [-v] STAGE... [FILE|-]\n"
    "Run built-in stages in one process: the output of 'argus-A | argus-B ...'.\n"
    "\n"
    "STAGE is a built-in stage run with its default options: cull-interrupts,\n"
    "segment, link-ipc, link-dispatch, link-flags, link-wakeups. The records\n"
    "pass from one stage to the next in memory; each stage appends its own\n"
    "name to the header's \"stages\", as its program would, so the output is\n"
    "byte for byte that of the pipe of the programs. A stage with options,\n"
    "or one of your own, runs as its program in a pipe beside the chain.\n"
    "The last argument, when it names no stage, is the input (a file named\n"
    "like a stage: ./NAME).\n"
    "\n"
    "  -v, --verbose  print each stage's counts to stderr at the end, as\n"
    "                 argus-STAGE -v would\n"
    "  -h, --help     show this help\n"
    "      --version  show the version\n";

int main(int argc, char **argv)
{
    argus_cli_init(argc, argv);
    static const struct option opts[] = {
        ARGUS_OPTION_VERBOSE,
        ARGUS_OPTION_HELP,
        ARGUS_OPTION_VERSION,
        {0, 0, 0, 0},
    };
    argus_options common = ARGUS_OPTIONS_DEFAULT;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1)
        argus_common_option(c, usage, &common, argv);
    int n = argc - optind;
    const char *input = NULL;
    if (n > 0 && !argus_builtin_stage(argv[argc - 1])) {
        input = argv[argc - 1];
        n--;
    }
    if (n == 0)
        argus_usage_error("no stage given");
    const argus_stage_def **defs = calloc((size_t)n, sizeof *defs);
    if (!defs)
        abort();
    for (int i = 0; i < n; i++) {
        defs[i] = argus_builtin_stage(argv[optind + i]);
        if (!defs[i])
            argus_usage_error("no built-in stage '%s' (one of cull-interrupts, "
                              "segment, link-ipc, link-dispatch, link-flags, "
                              "link-wakeups)", argv[optind + i]);
    }
    int status = argus_stage_chain(defs, n, input, common.verbose);
    free(defs);
    return status;
}
