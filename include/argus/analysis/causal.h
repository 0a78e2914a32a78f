/* Causal searches over an argus_graph shared by find-spinning and diff:
 * the SPIN-PATH beam search backward to a UI event, and the wait chain
 * ("what it waits on", recursively). */
#ifndef ARGUS_CAUSAL_H
#define ARGUS_CAUSAL_H

#include "argus/analysis/graph.h"

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

/* What a thread of the chain did over [since, until]. */
enum argus_link_state {
    ARGUS_LINK_BLOCKED,         /* in the final wait of its segment (waits
                                   > 1: the same wait retried after
                                   timeouts) */
    ARGUS_LINK_RUNNING,         /* it ran */
    ARGUS_LINK_RUNNABLE,        /* woken, it waited for a CPU */
    ARGUS_LINK_UNKNOWN,         /* before its first event in the trace */
};

/* SPIN-PATH "what it waits on", walked back from what ended the hang (the
 * way Trace Compass's critical path is): segs[0] is the hang's thread.
 * Each link is the stretch of a thread's time that held the one before up
 * most, between the start of that one's wait and the moment it was woken:
 * blocked until a thread woke it (the chain goes on to that thread, from
 * its wakeup back), blocked until its own timer expired, running, or
 * runnable; a wait that timed out and was taken up again on the same
 * thing (a lock retried after sleeps, a poll's timeouts) counts as one.
 * via[i] says how segs[i+1] was found from segs[i] ("wakeup": the thread
 * that woke it; "ipc": the peer of a request unanswered at the end of the
 * trace; "cpu": the thread that held the CPU it waited for). END says why
 * the chain stops: "timeout" (the last thread's wait ended by its own
 * timer: it slept), "running" (the last thread ran), "runnable" (woken
 * but waiting for a CPU), "io" (an interrupt ended the wait, no thread),
 * "no_reply"/"not_woken" (nothing woke it in the trace), "trace_start"
 * (the last thread woke the one before with its first event in the
 * trace: what it did before is not in it), "cycle", "depth". */
typedef struct argus_chain {
    uint32_t segs[ARGUS_CHAIN_MAX];
    const char *via[ARGUS_CHAIN_MAX];
    uint8_t state[ARGUS_CHAIN_MAX];
    uint64_t since[ARGUS_CHAIN_MAX], until[ARGUS_CHAIN_MAX];
    uint32_t waits[ARGUS_CHAIN_MAX];
    uint32_t len;
    const char *end;
} argus_chain;

/* The chain of the hang node START (a segment ending in a wait), from
 * FROM (where its hang began: its wait's start, or an earlier retried
 * wait's) to the end of its wait (or of the trace, when it never ended). */
void argus_wait_chain(const argus_graph *g, uint32_t start, uint64_t from,
                      int max_depth, argus_chain *out);

/* The critical path of a hang (Trace Compass's, after Giraldeau and
 * Dagenais): over the window of argus_wait_chain, in time order with no
 * gap and no overlap, which thread the hang waited on and in what state:
 * "running", "runnable", "blocked" (nothing in the trace ended it),
 * "timeout" (its own timer ended it), "io" (an interrupt) or "unknown"
 * (before the thread's first event). A blocked stretch is replaced by
 * the stretches of the thread that held it up (as the wait chain goes on: its waker,
 * the peer of its unanswered request, a file lock's releaser) over it. */
typedef struct argus_cp_step {
    uint32_t thread;            /* graph thread index */
    uint64_t from, to;
    const char *state;
} argus_cp_step;

typedef struct argus_cpath {
    argus_cp_step *steps;
    uint32_t len;
    size_t cap;
} argus_cpath;

/* Fills CP (its steps reused; free(cp->steps) when done) for the hang
 * node START from FROM, as argus_wait_chain takes them. */
void argus_critical_path(const argus_graph *g, uint32_t start, uint64_t from,
                         argus_cpath *cp);
/* The time thread THREAD holds on CP, in all states. */
uint64_t argus_cp_thread_time(const argus_cpath *cp, uint32_t thread);
/* Whether a wait's reason is a sleep (nanosleep, clock_nanosleep, pause):
 * ended by its own timer, nobody else held it up. */
bool argus_sleep_reason(const char *reason);
/* Whether segment S is a yield loop (SPIN-CLASS "yield"): a third or
 * more of its events are yields. */
static inline bool argus_yield_loop(const argus_seg *s)
{
    return s->nyields && 3ull * s->nyields >= s->nevents;
}
/* The thread's next segment after S that is not an interrupt window. */
uint32_t argus_next_own(const argus_graph *g, uint32_t s);

/* Whether the wait that ends segment A was taken up again by the one that
 * ends B, its thread's next segment, after a run of at most 50 ms: A's
 * wait timed out (or was interrupted) and B waits for the same reason on
 * the same resource, or a thread of its own process woke A (a worker's
 * progress) and B waits for the same reason (for futexes, on any word: a
 * condition variable's words change from one wait to the next), or both
 * are "disk" waits (uninterruptible, outside any system call: page faults
 * one after another). A lock retried after sleeps, a poll loop's
 * timeouts, a wait for workers, a program faulting its pages in: one
 * wait. */
bool argus_wait_retried(const argus_graph *g, uint32_t a, uint32_t b);

/* A wait of a segment: its final one, or one inside it (a callout's). */
typedef struct argus_wait_info {
    uint64_t id;                /* the wait event */
    uint64_t from, to;          /* its ts, and when the thread ran again
                                   (UINT64_MAX: not in the trace) */
    uint64_t resource, runnable;
    uint32_t reason;            /* string, 0: none */
    uint8_t wake;               /* enum argus_wake */
} argus_wait_info;

/* Segment S's final wait; false when it has none. */
bool argus_final_wait(const argus_graph *g, uint32_t s, argus_wait_info *out);
/* The wait segment S's thread was blocked in at time T: its final wait,
 * or a wait inside it; false when it was not blocked then. */
bool argus_wait_at(const argus_graph *g, uint32_t s, uint64_t t, argus_wait_info *out);
/* The wait inside segment S that blocked it longest within FROM..TO. */
bool argus_longest_inner_wait(const argus_graph *g, uint32_t s, uint64_t from, uint64_t to,
                              argus_wait_info *out);

#endif
