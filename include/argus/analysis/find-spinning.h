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
/* The default limits on a Linux trace (argus-watch uses them too). */
#define ARGUS_LINUX_HANG_MS 500   /* SPIN-HANG: a main thread blocked or busy */
#define ARGUS_LOOP_HANG_MS 2000   /* SPIN-LOOP: macOS's spinning cursor (GNOME,
                                     Windows and Android say "not responding"
                                     at 5 s) */

/* Its counters (-v) that say what it found and watched. */
#define ARGUS_SPIN_COUNT_HANGS "hang nodes"
#define ARGUS_SPIN_COUNT_LOOPS "GUI main loops watched (SPIN-LOOP)"

/* The display servers (SPIN-IDLE's input, SPIN-LOOP's GUI programs). */
extern const char *const argus_input_servers[];
extern const size_t argus_n_input_servers;

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

/* When no hang was found in the stream whose header is HEADER, with the
 * options O and LOOPS main loops watched: one line (no newline) saying
 * what was looked for, in BUF; false (BUF empty) when there is nothing
 * to say (a trace with a spinning cursor to look for). */
bool argus_spin_no_hang_note(const argus_spin_options *o, const argus_record *header,
                             uint64_t loops, char *buf, size_t size);

/* The long options (struct option, <getopt.h>) that set them, for every
 * program that runs the stage; argus_spin_option applies one (C, from
 * getopt_long, with its ARG) and says whether C was one of them. A bad
 * value is a usage error. */
enum { ARGUS_SPIN_OPT_INDICATOR = 0x2000, ARGUS_SPIN_OPT_HANG, ARGUS_SPIN_OPT_PROC,
       ARGUS_SPIN_OPT_BEAM, ARGUS_SPIN_OPT_MAX_STEPS, ARGUS_SPIN_OPT_NO_THREAD_ORDER,
       ARGUS_SPIN_OPT_NO_WAIT_CHAIN, ARGUS_SPIN_OPT_INPUT_SERVER, ARGUS_SPIN_OPT_NO_IDLE };
#define ARGUS_SPIN_LONG_OPTIONS                                               \
    {"indicator", required_argument, 0, ARGUS_SPIN_OPT_INDICATOR},          \
    {"hang", required_argument, 0, ARGUS_SPIN_OPT_HANG},                    \
    {"proc", required_argument, 0, ARGUS_SPIN_OPT_PROC},                    \
    {"beam", required_argument, 0, ARGUS_SPIN_OPT_BEAM},                    \
    {"max-steps", required_argument, 0, ARGUS_SPIN_OPT_MAX_STEPS},          \
    {"no-thread-order", no_argument, 0, ARGUS_SPIN_OPT_NO_THREAD_ORDER},    \
    {"no-wait-chain", no_argument, 0, ARGUS_SPIN_OPT_NO_WAIT_CHAIN},        \
    {"input-server", required_argument, 0, ARGUS_SPIN_OPT_INPUT_SERVER},    \
    {"no-idle", no_argument, 0, ARGUS_SPIN_OPT_NO_IDLE}
bool argus_spin_option(argus_spin_options *o, int c, const char *arg);

typedef struct argus_spin argus_spin;
/* For the stream whose header is HEADER (its source tells a Linux trace). */
argus_spin *argus_spin_start(const argus_spin_options *o, const argus_record *header);
/* The graph loader's on_event (argus_graph_options), with the argus_spin
 * as its ctx: indicators, main loops and the display servers' threads,
 * as the events and thread records go by. */
void argus_spin_on_event(const argus_record *r, void *spin);
/* Finds the hangs in G, loaded with argus_spin_on_event, and writes their
 * hang, path and chain records to OUT; frees S. */
void argus_spin_finish(argus_spin *s, const argus_graph *g, argus_writer *out);

#endif
