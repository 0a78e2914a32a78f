/* Perfetto's protobuf traces (docs/inputs/perfetto.md), read with a small
 * protobuf reader of argus' own for the dozen messages argus needs.
 *
 * The ftrace data (FtraceEventBundle: its events and its compact_sched
 * arrays) is merged across bundles into time order and each event is
 * rendered into the line tracefs' `trace` prints for it, which goes to
 * the ftrace text decoder (include/argus/decode/ftrace.h), as
 * lib/decode/tracedat.c does: one mapping for every form of a Linux
 * trace. The process tree gives `# argus-thread:` lines (processes,
 * names) before the first event. */
#ifndef ARGUS_PERFETTO_H
#define ARGUS_PERFETTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "argus/decode/ftrace.h"
#include "argus/stream/input.h"

/* Whether the first bytes are a Perfetto trace: a Trace's first packet
 * (field 1, length-delimited) whose fields parse as a TracePacket's. */
bool argus_pf_sniff(const uint8_t *buf, size_t len);

/* Reads the Perfetto trace IN into the ftrace decoder D (a regular file is
 * mapped; a pipe is first copied to an unlinked temporary file in
 * $TMPDIR): the first pass (argus_ft_prescan_line), the thread lines,
 * every event, then argus_ft_finish. Returns 0; or -1 for a damaged or
 * cut file (what came before the damage is decoded first) or a trace
 * with no scheduler events, -2 when D failed; either way ERR holds the
 * message ("FILE: byte N: ...", N the offset of the packet) and the
 * caller drains D (argus_ft_drain) so that the lines before stay. */
typedef struct argus_pf_counts {
    uint64_t packets, bundles, compressed, events, switches, wakings;
    uint64_t first_switches;   /* compact switches with no task known before */
    uint64_t unknown_wakers;   /* compact wakings before any task known */
    uint64_t binder;           /* binder_* events, rendered as their lines */
    uint64_t not_rendered;     /* ftrace events of a kind argus leaves out */
    uint64_t threads;          /* from the process tree and stats */
} argus_pf_counts;

int argus_pf_read(argus_ft *d, argus_input *in, argus_pf_counts *c, char *err,
                  size_t errlen);

/* The same on a trace in memory (NAME for messages). */
int argus_pf_read_mem(argus_ft *d, const uint8_t *buf, size_t len, const char *name,
                      argus_pf_counts *c, char *err, size_t errlen);

/* Counters for -v, one a line (after the ftrace decoder's). */
void argus_pf_print_counts(const argus_pf_counts *c, void *file);

#endif
