/* Linux ftrace text input (docs/inputs/linux.md): the text of tracefs
 * `trace` and `trace_pipe` (with or without the irq-flags and (tgid)
 * columns), `trace-cmd report`, Android atrace/systrace text (also inside
 * systrace HTML), and the lines argus-record adds, decoded into an argus
 * stream.
 *
 * Lines go through a bounded reorder window (lib/decode/reorder.c) into ts order,
 * then each is mapped: scheduler switches and wakeups, interrupts,
 * workqueues, timers, syscalls, task lifetimes. A line it does not
 * understand becomes an `ftrace` event with the raw text. As in the kdebug
 * decoder, errors are returned (never exited on) so a fuzzer drives it in
 * memory; the records written before an error stay valid. */
#ifndef ARGUS_FTRACE_H
#define ARGUS_FTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "argus/stream/input.h"
#include "argus/stream/stream.h"

typedef struct argus_ft_options {
    const char *name;     /* the input, for messages */
    const char *command;  /* this decode's command line, for "stages" */
    size_t window;        /* reorder window in lines (0: default) */
    bool need_ftrace;     /* an error when no line has an ftrace head, or
                           * fewer lines have one than have none (stack
                           * trace lines aside): a text of comments only,
                           * or of something else (perf script output);
                           * told at the 1000th line of a long one, else
                           * at its end (argus-decode sets it) */
} argus_ft_options;

#define ARGUS_FT_DEFAULT_WINDOW 16384

typedef struct argus_ft argus_ft;

argus_ft *argus_ft_new(argus_writer *w, const argus_ft_options *o);
void argus_ft_free(argus_ft *d);
const char *argus_ft_error(const argus_ft *d);
/* Whether NAME is a syscall whose wait is on a file descriptor, its first
 * argument: the wait event's `resource` (for the report, "fd 5"). */
bool argus_ft_fd_syscall(const char *name);

/* Whether a line is shaped as perf script prints a tracepoint sample
 * ("COMM TID [CPU] SECONDS: SYSTEM:EVENT: ..."), which is refused. */
bool argus_ft_perf_script_line(const char *p, size_t n);

/* Whether the first bytes look like ftrace text (or systrace HTML). */
bool argus_ft_sniff(const uint8_t *buf, size_t len);

/* The first pass over a text, one line at a time, before any
 * argus_ft_line: it finds the threads asleep when the trace began (their
 * first mention a wakeup), which get a wait at its start. argus_ft_read
 * makes this pass itself when the input is a regular file. */
void argus_ft_prescan_line(argus_ft *d, const char *line, size_t len);
/* A whole text, line by line, then finish. Returns 0 or -1. */
int argus_ft_read(argus_ft *d, argus_input *in);
/* One line (no newline), numbered in order from 1. Returns 0 or -1. */
int argus_ft_line(argus_ft *d, const char *line, size_t len);
/* DEC-LOSS for a binary reader whose format says so: its tracer's buffer
 * filled and discarded CHUNKS chunks of what came after (Perfetto's
 * discard fill policy), written as a loss record of kind "full". */
void argus_ft_buffer_full(argus_ft *d, uint64_t chunks);
/* End of input: the window drained, the header written if not yet. */
int argus_ft_finish(argus_ft *d);
/* After an error: writes the lines still in the window. */
void argus_ft_drain(argus_ft *d);

/* Counters for -v, printed one a line to F. */
void argus_ft_print_counts(const argus_ft *d, void *file);

/* The deadline of a main loop's wait, from its probe's text after the
 * event name (LEN bytes): argus_glib_poll's `timeout=MS`, argus_tcl_wait's
 * Tcl_Time (`time=PTR sec=S usec=US`). True with *NS when it has one;
 * false when it waits with none (g_poll's -1, a NULL Tcl_Time) or the
 * text says nothing of it. The decoder's before_waiting `timeout` and
 * argus watch's WATCH-LOOP read it here. */
bool argus_ft_loop_wait_deadline(const char *text, size_t len, uint64_t *ns);

#endif
