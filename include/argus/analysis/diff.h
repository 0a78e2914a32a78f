/* diff as a library stage (lib/analysis/diff.c; docs/stages/diff.md):
 * argus-diff and argus-analyze run it on a graph already loaded, with the
 * similarity index argus-similar built. */
#ifndef ARGUS_DIFF_H
#define ARGUS_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "argus/analysis/graph.h"
#include "argus/stream/stream.h"

typedef struct argus_diff_options {
    int depth;                  /* --depth: recursion on culprits */
    int max_branches;           /* --max-branches */
    uint32_t *choose;           /* --choose: the answers at branch points */
    uint32_t nchoose;
    size_t choose_cap;
    bool interactive;           /* --interactive ... */
    FILE *tty;                  /* ... asks there (argus_diff_options_ready) */
} argus_diff_options;
#define ARGUS_DIFF_DEFAULTS {2, 8, NULL, 0, 0, false, NULL}

/* The long options (struct option, <getopt.h>) that set them, for every
 * program that runs the stage; argus_diff_option applies one (C, from
 * getopt_long, with its ARG) and says whether C was one of them. A bad
 * value is a usage error. */
enum { ARGUS_DIFF_OPT_DEPTH = 0x2100, ARGUS_DIFF_OPT_CHOOSE,
       ARGUS_DIFF_OPT_INTERACTIVE, ARGUS_DIFF_OPT_MAX_BRANCHES };
#define ARGUS_DIFF_LONG_OPTIONS                                               \
    {"depth", required_argument, 0, ARGUS_DIFF_OPT_DEPTH},                  \
    {"choose", required_argument, 0, ARGUS_DIFF_OPT_CHOOSE},                \
    {"interactive", no_argument, 0, ARGUS_DIFF_OPT_INTERACTIVE},            \
    {"max-branches", required_argument, 0, ARGUS_DIFF_OPT_MAX_BRANCHES}
bool argus_diff_option(argus_diff_options *o, int c, char *arg);
/* After the options: --choose and --interactive exclude each other, and
 * --interactive opens the terminal (usage errors otherwise). */
void argus_diff_options_ready(argus_diff_options *o);
void argus_diff_options_free(argus_diff_options *o);

/* For each hang record of G, the culprits, branch points and lonely
 * threads found against BASE (NULL: no baseline; IX indexes BASE),
 * written to OUT. G's match records (argus-similar's) say which
 * baseline node each hang is. */
void argus_diff_write(argus_graph *g, argus_graph *base, const argus_sim_index *ix,
                      const argus_diff_options *o, argus_writer *out);

#endif
