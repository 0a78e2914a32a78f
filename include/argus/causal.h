/* Causal searches over an argus_graph shared by find-spinning and diff:
 * the SPIN-PATH beam search backward to a UI event, and the wait chain
 * ("what it waits on", recursively). */
#ifndef ARGUS_CAUSAL_H
#define ARGUS_CAUSAL_H

#include "argus/graph.h"

/* A step's edge when the path went to the thread's previous segment
 * (program order) because the segment has no incoming edge. */
#define ARGUS_EDGE_THREAD (ARGUS_NONE - 1)

typedef struct argus_step {
    uint32_t seg;               /* segment index */
    uint32_t edge;              /* the edge from this segment into the step
                                   before it (toward the hang); ARGUS_NONE
                                   for the hang itself */
} argus_step;

/* steps[0] is the hang node, steps[len-1] the cause reached. */
typedef struct argus_path {
    argus_step *steps;
    uint32_t len;
    int score;
    bool complete;              /* the cause holds a ui_event */
} argus_path;

typedef struct argus_path_options {
    int beam;                   /* paths kept per step and returned */
    int max_depth;              /* steps at most */
    bool thread_order;          /* step to the thread's previous segment
                                   where a segment has no incoming edge */
} argus_path_options;

/* SPIN-PATH beam search from segment START: strong edges cost -1, weak +1,
 * a program-order step +2; a path ends at a segment holding a ui_event.
 * Returns up to BEAM paths (complete ones first, best score first) in
 * *OUT (free with argus_paths_free). */
int argus_path_search(const argus_graph *g, uint32_t start,
                      const argus_path_options *opt, argus_path **out);
void argus_paths_free(argus_path *paths, int n);

#define ARGUS_CHAIN_MAX 32

/* SPIN-PATH "what it waits on": segs[0] is START; each next one is the
 * segment where the thread it waited on was blocked (or running) at time
 * AT; via[i] says how segs[i+1] was found from segs[i] ("wakeup": the
 * thread that woke it in the end; "ipc": the peer of its request that
 * never replied). END says why the chain stops: "io" (woken by an
 * interrupt, no thread), "timeout", "no_reply"/"not_woken" (nothing woke
 * it in the trace), "cycle", "running" (the last thread was not blocked),
 * "depth". */
typedef struct argus_chain {
    uint32_t segs[ARGUS_CHAIN_MAX];
    const char *via[ARGUS_CHAIN_MAX];
    uint32_t len;
    const char *end;
} argus_chain;

void argus_wait_chain(const argus_graph *g, uint32_t start, uint64_t at,
                      int max_depth, argus_chain *out);

/* The blocking wait of segment S was over when the thread ran at or
 * after T: true when S ends in a wait that began at or before T and had
 * not ended by T. */
bool argus_seg_blocked_at(const argus_graph *g, const argus_seg *s, uint64_t t);

#endif
