/* What every stream-to-stream stage shares: opening its input and output
 * with the header carried over, writing edges, counting what it met for
 * -v, and bounded tables of pending matches. */
#ifndef ARGUS_STAGE_H
#define ARGUS_STAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "argus/stream/cli.h"
#include "argus/stream/stream.h"

typedef struct argus_stage {
    argus_reader *in;
    argus_writer *out;
    bool verbose;
} argus_stage;

/* ---- a stream-to-stream stage as functions of one shape -----------------
 * The built-in graph stages (include/argus/stages/builtin.h) are written
 * this way: filters/NAME.c parses the command line into the stage's
 * options and runs it with argus_stage_main; argus-chain runs several of
 * them in one process, each record handed from one to the next with no
 * encoding in between, and writes what the pipe of the separate programs
 * would write, byte for byte. */
typedef struct argus_stage_def {
    const char *name;   /* "link-ipc": the program argus-NAME */
    /* The stage's state for OPTIONS (the stage's own options struct;
     * NULL: its defaults) and the options every program shares. */
    void *(*start)(const void *options, const argus_options *common);
    /* One record of the input (the header excepted); what the stage
     * writes goes to OUT, in order. */
    void (*record)(void *self, const argus_record *r, argus_writer *out);
    /* The input has ended: writes what is still pending, counts, frees. */
    void (*finish)(void *self, argus_writer *out);
    /* The run was cut short (a bad record, where argus_die's flush hook
     * jumps back instead of the program exiting, as in the fuzz
     * targets): frees the state, writing and counting nothing. */
    void (*discard)(void *self);
} argus_stage_def;

/* Runs DEF as a program: reads PATH (NULL or "-": stdin), writes stdout,
 * prints its counters with -v. Returns the exit status. */
int argus_stage_main(const argus_stage_def *def, const void *options,
                     const char *path, const argus_options *common);

/* Runs N stages, each with its default options, one after the other in
 * this process over PATH; with VERBOSE, each stage's counters as its own
 * program would print them. Returns the exit status. */
int argus_stage_chain(const argus_stage_def *const *defs, int n,
                      const char *path, bool verbose);
/* The same over the reader IN, which it closes. *VERBOSE is read at the
 * start and again at the end, so that another thread can take the counts
 * back (argus-chain does when its decoding fails: that message is the
 * one to tell). */
int argus_stage_chain_reader(const argus_stage_def *const *defs, int n,
                             argus_reader *in, const bool *verbose);

/* Opens PATH (NULL or "-": stdin) and stdout, and writes the header read
 * with this program's command line appended to "stages". */
void argus_stage_open(argus_stage *st, const char *path, bool verbose);
/* Flushes, prints the -v counters, frees. */
void argus_stage_close(argus_stage *st);

/* {"type":"edge","kind":KIND,"from":FROM,"to":TO} (+ "weak":true). */
void argus_put_edge(argus_writer *w, const char *kind, uint64_t from,
                    uint64_t to, bool weak);

/* Named counters printed by argus_stage_close with -v, as
 * "PROGRAM: NAME: N", in the order they were first counted; in a chain,
 * each stage's counters are its own. */
void argus_count(const char *name, uint64_t n);

/* A set of counters of its own, for a program that runs several stages
 * (argus-chain, argus-analyze): argus_counters_use makes S the one
 * argus_count adds to (NULL: the program's own) and returns the one it
 * was; argus_counters_print prints S as PROG's -v would. */
typedef struct argus_counters argus_counters;
argus_counters *argus_counters_new(void);
argus_counters *argus_counters_use(argus_counters *s);
void argus_counters_print(const argus_counters *s, const char *prog);
/* The counter NAME of S, 0 when never counted. */
uint64_t argus_counters_get(const argus_counters *s, const char *name);
void argus_counters_free(argus_counters *s);

/* A bounded FIFO index of pending items (sends waiting for their receive,
 * enqueues waiting for their invoke): each key has a queue of entries in
 * arrival order; past MAX entries in all, the oldest is dropped (and
 * counted). Memory is bounded by MAX, never by trace length. */
typedef struct argus_fifo argus_fifo;
typedef struct argus_fifo_item {
    uint64_t key, id, aux, aux2;
} argus_fifo_item;

argus_fifo *argus_fifo_new(uint64_t max, const char *dropped_counter);
void argus_fifo_free(argus_fifo *f);
/* Appends an item to KEY's queue; returns its handle. */
uint64_t argus_fifo_push(argus_fifo *f, uint64_t key, uint64_t id,
                         uint64_t aux, uint64_t aux2);
/* The oldest live item of KEY for which ACCEPT (may be NULL) says yes,
 * removed from the index; false when there is none. */
bool argus_fifo_take(argus_fifo *f, uint64_t key,
                     bool (*accept)(const argus_fifo_item *, void *),
                     void *ctx, argus_fifo_item *out);
/* Removes the item of HANDLE if it is still pending (matched elsewhere);
 * fills OUT when given. False when it was already taken or dropped. */
bool argus_fifo_remove(argus_fifo *f, uint64_t handle, argus_fifo_item *out);
uint64_t argus_fifo_pending(const argus_fifo *f);

#endif
