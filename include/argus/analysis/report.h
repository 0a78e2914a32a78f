/* report as a library stage (lib/analysis/report.c; docs/stages/report.md):
 * argus-report and argus-analyze print it from a graph already loaded. */
#ifndef ARGUS_REPORT_H
#define ARGUS_REPORT_H

#include <stdbool.h>

#include "argus/analysis/graph.h"

/* Prints on stdout the report of G's findings (its hang, path, wait_chain,
 * match, culprit and branch records; G loaded with keep_key_events), as
 * text or MARKDOWN. Uses state of its own: one report at a time. */
void argus_report_write(argus_graph *g, bool markdown);
/* The baseline the findings were compared with (NULL: none), for a hang
 * with no similar node in it, which the report names. */
void argus_report_baseline(const char *name);
/* With ON, the report adds a details section to each hang: segment ids,
 * path ranks and scores, the similar node, the culprits' baseline
 * segments, missing edges, depths and branches, the branch points. */
void argus_report_verbose(bool on);
/* The stream header HDR's clocks: "origin" (times are printed on the
 * trace's own clock) and "t0" (the wall clock beside them). */
void argus_report_header(const argus_record *hdr);
/* --format's value: true for markdown, false for text; else a usage error. */
bool argus_report_format(const char *arg);

#endif
