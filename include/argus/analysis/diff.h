/* diff as a library stage (lib/analysis/diff.c; docs/stages/diff.md):
 * argus-diff and argus-analyze run it on a graph already loaded, with the
 * similarity index argus-similar built. */
#ifndef ARGUS_DIFF_H
#define ARGUS_DIFF_H

#include <stdint.h>
#include <stdio.h>

#include "argus/analysis/graph.h"
#include "argus/stream/stream.h"

typedef struct argus_diff_options {
    int depth;                  /* --depth: recursion on culprits */
    int max_branches;           /* --max-branches */
    const uint32_t *choose;     /* --choose: the answers at branch points */
    uint32_t nchoose;
    FILE *tty;                  /* --interactive: asks there (or NULL) */
} argus_diff_options;
#define ARGUS_DIFF_DEFAULTS {2, 8, NULL, 0, NULL}

/* For each hang record of G, the culprits, branch points and lonely
 * threads found against BASE (NULL: no baseline; IX indexes BASE),
 * written to OUT. G's match records (argus-similar's) say which
 * baseline node each hang is. */
void argus_diff_write(argus_graph *g, argus_graph *base, const argus_sim_index *ix,
                      const argus_diff_options *o, argus_writer *out);

#endif
