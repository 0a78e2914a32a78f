/* report as a library view (lib/view/report.c; docs/stages/report.md):
 * argus-report and argus-analyze print it from a graph already loaded. */
#ifndef ARGUS_REPORT_H
#define ARGUS_REPORT_H

#include <stdbool.h>

#include "argus/analysis/graph.h"

/* What a report is asked: its format, its details, the baseline's name
 * and the stream header's clocks. */
typedef struct argus_report_options {
    bool markdown;              /* else text */
    bool verbose;               /* a details section to each hang: segment
                                   ids, path ranks and scores, the similar
                                   node, the culprits' baseline segments,
                                   missing edges, depths and branches */
    const char *baseline;       /* what the findings were compared with
                                   (NULL: none), named for a hang with no
                                   similar node in it */
    /* the header's "origin" (times are printed on the trace's own clock)
     * and "t0" (the wall clock beside them) */
    bool have_origin, have_t0;
    uint64_t origin, t0;
    uint64_t hang_ms;           /* find-spinning's --hang, 0 when not given
                                   (the report names the default it used) */
} argus_report_options;

/* Prints on stdout the report of G's findings (its hang, path, wait_chain,
 * match, culprit, branch and loss records; G loaded with keep_key_events)
 * as O asks. Its state is its own: reports may follow one another. */
void argus_report_write(argus_graph *g, const argus_report_options *o);
/* O's clocks from the stream header HDR, and the --hang its stages were
 * given (find-spinning's or analyze's command line). */
void argus_report_clocks(argus_report_options *o, const argus_record *hdr);
/* --format's value: true for markdown, false for text; else a usage error. */
bool argus_report_format(const char *arg);

#endif
