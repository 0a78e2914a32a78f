/* The findings: the analysis records of the stream (docs/stream-format.md,
 * "Analysis records"), one struct per kind with one writer and one reader
 * each (lib/analysis/findings.c). find-spinning, similar and diff write
 * them through it; report, export and diff read them back through it, so
 * that a field is named in one place.
 *
 * An absent unsigned field is ARGUS_ABSENT, an absent text or array NULL
 * (an array present but empty is not NULL, its count 0). A writer writes what is present, in the
 * order of the struct; a reader fills every field it finds and fails only
 * when a field the kind needs is missing or a field has the wrong shape. */
#ifndef ARGUS_FINDINGS_H
#define ARGUS_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "argus/stream/stream.h"

#define ARGUS_ABSENT UINT64_MAX

/* The kinds, by their records' "type". */
typedef enum argus_finding_kind {
    ARGUS_F_NONE = -1,
    ARGUS_F_HANG, ARGUS_F_PATH, ARGUS_F_WAIT_CHAIN, ARGUS_F_CRITICAL_PATH,
    ARGUS_F_MATCH, ARGUS_F_NO_MATCH, ARGUS_F_CULPRIT, ARGUS_F_BRANCH,
    ARGUS_F_LOSS,
    ARGUS_F_KINDS
} argus_finding_kind;

/* The kind a record's type names (TYPE of LEN bytes), or ARGUS_F_NONE. */
argus_finding_kind argus_finding_kind_of(const char *type, size_t len);
const char *argus_finding_kind_name(argus_finding_kind k);

/* find-spinning: a hang. first_seg and waits come together,
 * for a wait retried after timeouts; wait, resource, reason, result and
 * runnable for a wait hang; open for a loop not back at its wait. */
typedef struct argus_hang_finding {
    uint64_t hang, seg, first_seg, waits;
    uint64_t tid, pid;
    const char *proc, *thread;
    uint64_t begin, end, duration;
    const char *cls, *indicator;        /* "class", "indicator" */
    uint64_t at, event;
    bool open;
    uint64_t events, yields, blocked, timeouts;
    uint64_t wait, resource;
    const char *reason, *result;
    uint64_t runnable;
    uint64_t number;            /* read: its record number in the stream */
} argus_hang_finding;

/* find-spinning: a causal path from the hang back to its cause, its
 * segments cause first, edge I leading from segs[I] to segs[I + 1]; ui
 * and ui_kind when complete (it reached a user input). */
typedef struct argus_path_finding {
    uint64_t hang, rank;
    int64_t score;
    bool complete;
    int nsegs, nfrom, nto, nkinds;
    uint64_t *segs, *from, *to;         /* "segs", "edge_from", "edge_to" */
    const char **kinds;                 /* "edge_kinds" */
    uint64_t ui;
    const char *ui_kind;
    uint64_t number;            /* read: its record number in the stream */
} argus_path_finding;

/* find-spinning: who the hang waited on, link by link: each link's
 * segment, thread, state, stretch and waits; links[I] joins segs[I] to
 * segs[I + 1]; resource and reason when the last one waited. */
typedef struct argus_chain_finding {
    uint64_t hang;
    int nsegs, ntids, nvia, nstates, nsince, nuntil, nwaits;
    uint64_t *segs, *tids;
    const char **via, **states;         /* "links", "states" */
    uint64_t *since, *until, *waits;
    const char *end;
    uint64_t resource;
    const char *reason;
    uint64_t number;            /* read: its record number in the stream */
} argus_chain_finding;

/* find-spinning: the hang's critical path, its steps in time order. */
typedef struct argus_cpath_finding {
    uint64_t hang;
    int n;
    uint64_t *tid, *from, *to;
    const char **state;
    uint64_t number;            /* read: its record number in the stream */
} argus_cpath_finding;

/* similar: a node like SEG in the baseline (hang absent: a match for
 * --seg); by is "kinds" when matched by its kinds only. */
typedef struct argus_match_finding {
    uint64_t hang, seg, rank, baseline_seg, distance, percent, size, baseline_size;
    const char *baseline, *by;
    uint64_t number;            /* read: its record number in the stream */
} argus_match_finding;

/* similar: a node with no match (SIM-NONE), why ("program", "role",
 * "unlike"), and for "unlike" the nearest candidate. */
typedef struct argus_no_match_finding {
    uint64_t hang, seg;
    const char *why;
    uint64_t size, nearest, distance, percent, baseline_size;
    const char *baseline;
    uint64_t number;            /* read: its record number in the stream */
} argus_no_match_finding;

/* diff: a thread to blame for a hang, ranked. */
typedef struct argus_culprit_finding {
    uint64_t hang, rank;
    bool root;
    uint64_t depth, branch;
    uint64_t tid, pid;
    const char *proc, *thread;
    uint64_t seg;
    const char *state;
    uint64_t since, until, duration;
    uint64_t wait, resource;
    const char *reason;
    uint64_t waits_on, baseline_seg;
    const char *missing, *evidence;
    uint64_t number;            /* read: its record number in the stream */
} argus_culprit_finding;

/* diff: a branch point of the baseline (DIFF-ASK): its choices and
 * the one taken. */
typedef struct argus_branch_finding {
    uint64_t hang, at;
    int nchoices;
    uint64_t *choices;
    uint64_t chosen;
    uint64_t number;            /* read: its record number in the stream */
} argus_branch_finding;

/* decode (DEC-LOSS): what the trace lost. kind is "overwritten" (events,
 * written), "cpu_start" (cpu, since), "dropped" (cpu, events, from, to),
 * "cut" (line) or "no_end". */
typedef struct argus_loss_finding {
    const char *kind;
    uint64_t cpu, events, written, since, from, to, line, chunks;
    uint64_t number;            /* read: its record number in the stream */
} argus_loss_finding;

void argus_write_hang(argus_writer *w, const argus_hang_finding *f);
void argus_write_path(argus_writer *w, const argus_path_finding *f);
void argus_write_chain(argus_writer *w, const argus_chain_finding *f);
void argus_write_cpath(argus_writer *w, const argus_cpath_finding *f);
void argus_write_match(argus_writer *w, const argus_match_finding *f);
void argus_write_no_match(argus_writer *w, const argus_no_match_finding *f);
void argus_write_culprit(argus_writer *w, const argus_culprit_finding *f);
void argus_write_branch(argus_writer *w, const argus_branch_finding *f);

/* What the readers' texts and arrays are kept in, freed at once; and why
 * the last read failed. */
typedef struct argus_findings_mem {
    struct argus_findings_block *blocks;
    char error[256];
} argus_findings_mem;
void argus_findings_mem_free(argus_findings_mem *m);

/* Each reads record R into *F (texts and arrays kept in M); false with
 * M->error saying what is wrong ("\"seg\" is missing or not an unsigned
 * integer"), the caller naming the record. */
bool argus_read_hang(const argus_record *r, argus_findings_mem *m, argus_hang_finding *f);
bool argus_read_path(const argus_record *r, argus_findings_mem *m, argus_path_finding *f);
bool argus_read_chain(const argus_record *r, argus_findings_mem *m, argus_chain_finding *f);
bool argus_read_cpath(const argus_record *r, argus_findings_mem *m, argus_cpath_finding *f);
bool argus_read_match(const argus_record *r, argus_findings_mem *m, argus_match_finding *f);
bool argus_read_no_match(const argus_record *r, argus_findings_mem *m,
                         argus_no_match_finding *f);
bool argus_read_culprit(const argus_record *r, argus_findings_mem *m,
                        argus_culprit_finding *f);
bool argus_read_branch(const argus_record *r, argus_findings_mem *m, argus_branch_finding *f);
bool argus_read_loss(const argus_record *r, argus_findings_mem *m, argus_loss_finding *f);

#endif
