/* find-spinning as a library stage: its options, the events it watches
 * while the graph loads, and the hang records it writes once the graph is
 * loaded (lib/analysis/find-spinning.c; docs/stages/find-spinning.md).
 * argus-find-spinning and argus-analyze run it. */
#ifndef ARGUS_FIND_SPINNING_H
#define ARGUS_FIND_SPINNING_H

#include <stdbool.h>
#include <stdint.h>

#include "argus/analysis/causal.h"
#include "argus/analysis/graph.h"
#include "argus/stream/stream.h"

#define ARGUS_SPIN_HANG_DEFAULT UINT64_MAX      /* --hang not given */
#define ARGUS_SPIN_MAX_HANG_MS (1000ull * 1000 * 1000) /* 11.6 days: fits in ns */

typedef struct argus_spin_options {
    const char *symbols[64];    /* SPIN-INDICATOR symbols, defaults first */
    int nsymbols;
    const char *servers[64];    /* input servers (SPIN-IDLE), defaults first */
    int nservers;
    uint64_t hang_ms;           /* --hang, or ARGUS_SPIN_HANG_DEFAULT */
    const char *proc;           /* --proc, or NULL */
    bool no_idle;               /* --no-idle */
    argus_path_options paths;   /* --beam, --max-steps, --no-thread-order */
    bool wait_chain;            /* not --no-wait-chain */
} argus_spin_options;

/* The options of argus-find-spinning run with no flag. */
void argus_spin_defaults(argus_spin_options *o);
/* How many of servers[] are the defaults. */
int argus_spin_default_servers(void);

typedef struct argus_spin argus_spin;
/* For the stream whose header is HEADER (its source tells a Linux trace). */
argus_spin *argus_spin_start(const argus_spin_options *o, const argus_record *header);
/* The graph loader's on_event (argus_graph_options), with the argus_spin
 * as its ctx: indicators and main loops, as the events go by. */
void argus_spin_on_event(const argus_record *r, void *spin);
/* Finds the hangs in G, loaded with argus_spin_on_event, and writes their
 * hang, path and chain records to OUT; frees S. */
void argus_spin_finish(argus_spin *s, const argus_graph *g, argus_writer *out);

#endif
