/* What the trace decoders (lib/decode/kdebug.c, lib/decode/ftrace.c) share: their
 * threads, kept by tid at addresses that never move (a decoder holds the
 * current thread while it adds the one it wakes or creates), and the
 * heads of the records they write. */
#ifndef ARGUS_DECODER_H
#define ARGUS_DECODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "argus/stream/stream.h"
#include "argus/stream/table.h"

/* The largest pid or tid Linux can give (PID_MAX_LIMIT, 4 * 1024 * 1024
 * on 64-bit kernels): a decoder refuses one above it (DEC-RANGE) rather
 * than keep it, wrapped round or merged with another. */
#define ARGUS_PID_MAX 4194304u

typedef struct argus_threads {
    argus_table by_tid;      /* tid -> index */
    unsigned char **blocks;  /* items, a block of 256 at a time */
    size_t nblocks, count, size;
} argus_threads;

/* Items of SIZE bytes whose first member is their uint64_t tid. */
void argus_threads_init(argus_threads *ts, size_t size);
void argus_threads_free(argus_threads *ts);
void *argus_threads_find(const argus_threads *ts, uint64_t tid);
/* The item of TID, added zeroed (but for its tid) when absent. */
void *argus_threads_add(argus_threads *ts, uint64_t tid, bool *created);
/* The I-th item added. */
void *argus_threads_at(const argus_threads *ts, size_t i);

/* {"type":"stream", ..., "source", ["t0",] "stages": [COMMAND]} */
void argus_put_stream_header(argus_writer *w, const char *source, bool have_t0,
                             uint64_t t0, const char *command);
/* The same with "origin" (after "t0"): the trace's own timestamp of ts 0,
 * in ns of its clock (docs/stream-format.md). */
void argus_put_stream_header_origin(argus_writer *w, const char *source, bool have_t0,
                                    uint64_t t0, bool have_origin, uint64_t origin,
                                    const char *command);
/* The same with "launched" (after "origin", when not 0): the pid of the
 * command the recorder launched (argus-record's "# argus-command:"). */
void argus_put_stream_header_launched(argus_writer *w, const char *source, bool have_t0,
                                      uint64_t t0, bool have_origin, uint64_t origin,
                                      uint64_t launched, const char *command);
/* The same with "focus" (after "launched", when N_FOCUS is not 0): the
 * pids of the running processes the recording was focused on
 * (argus-record's "# argus-focus:", --pid and --proc), at most
 * ARGUS_MAX_FOCUS. */
#define ARGUS_MAX_FOCUS 64
void argus_put_stream_header_focus(argus_writer *w, const char *source, bool have_t0,
                                   uint64_t t0, bool have_origin, uint64_t origin,
                                   uint64_t launched, const uint64_t *focus, size_t n_focus,
                                   const char *command);
/* A thread record; NAME may be empty or NULL (left out), PROC empty is
 * "unknown"; main and kernel are written when true, PARENT (the pid of the
 * process that forked it) when not 0, CMDLINE (the process's arguments,
 * separated by '\n') when not NULL, as the array "cmdline". */
void argus_put_thread_record(argus_writer *w, uint64_t tid, uint64_t pid,
                             const char *proc, const char *name, bool main,
                             bool kernel, uint64_t parent, const char *cmdline);
/* The head of an event: a map of 6 + EXTRA pairs, type, id, ts, tid, pid
 * and cpu written; the caller writes EXTRA more, then ends the record. */
void argus_put_event_head(argus_writer *w, const char *type, size_t type_len,
                          uint64_t id, uint64_t ts, uint64_t tid, uint64_t pid,
                          uint64_t cpu, unsigned extra);

/* Calls EACH with each line of TEXT (LEN bytes), split at '\n', the last
 * one without it, none after a final '\n': a library renders an event
 * as text that may hold newlines (a stack trace, a trace_printk), where
 * the ftrace decoder takes a line at a time. Stops at the first call that
 * returns less than 0 and returns that, else 0. */
int argus_each_line(const char *text, size_t len,
                    int (*each)(void *ctx, const char *line, size_t n), void *ctx);

#endif
