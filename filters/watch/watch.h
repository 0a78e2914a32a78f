/* argus-watch's parts (docs/stages/watch.md): an always-on recorder that
 * finds hangs while they happen and diagnoses each one. It records with
 * argus-record's parts (filters/record/record.h: tracefs, events, probes,
 * threads) into the kernel's ring, and follows a second instance of a few
 * events (the scheduler's, the loops' probes) through its trace_pipe.
 *
 *   main.c    the command line, the live loop and --replay
 *   detect.c  the hangs in flight, from the events as they come (WATCH-*)
 *   report.c  a folder per hang: its trace, argus diagnose, the line on
 *             stdout, the desktop notification */
#ifndef ARGUS_WATCH_H
#define ARGUS_WATCH_H

#include "../record/record.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WATCH_MS 1000000ull

/* ---------------------------------------------------------------------- */
/* Options (main.c) */

struct watch_options {
    const char *dir;            /* --dir: where the folders go */
    const char **procs;         /* --proc NAME (repeatable) */
    size_t n_procs;
    int *pids;                  /* --pid PID (repeatable) */
    size_t n_pids;
    uint64_t hang_ms;           /* --hang, or 0: the defaults */
    uint64_t max_hang_ms;       /* --max-hang: a hang still going is
                                   diagnosed this long after it began */
    const char *replay;         /* --replay FILE: a recorded trace, not live */
    bool notify;                /* not --no-notify */
    bool verbose;               /* -v */
};
extern struct watch_options wopt;

/* ---------------------------------------------------------------------- */
/* One event line of the trace text (detect.c) */

struct event_line {
    uint64_t ts;                /* ns */
    int tid, tgid, cpu;         /* tgid 0: the column says "-------" */
    const char *comm;           /* the thread's name, COMM_LEN bytes */
    size_t comm_len;
    const char *event;          /* "sched_switch", "sys_futex(...", ... */
    size_t event_len;           /* up to ':' or '(' or ' ' */
    const char *args;           /* after "EVENT: ", or the syscall's text */
    bool irq;                   /* in an interrupt (the flags' 'h', 's', 'H'):
                                   not the thread's own doing */
};

/* Parses LINE (LEN bytes, no newline); false for a line that is no event
 * (a comment, "CPU:N [LOST M EVENTS]"). */
bool parse_event_line(const char *line, size_t len, struct event_line *ev);

/* ---------------------------------------------------------------------- */
/* Hangs in flight (detect.c) */

enum hang_kind { HANG_LOOP, HANG_BUSY, HANG_WAIT };

struct hang_found {
    int pid;
    char name[16];              /* the process's comm */
    enum hang_kind kind;
    uint64_t begin, end;        /* ns on the trace's clock */
    bool open;                  /* still going at end (the --max-hang cap, or
                                   the end of a replayed trace) */
};

/* Called for each hang found: when it ends, or at the cap. */
typedef void hang_sink(const struct hang_found *h, void *ctx);

/* SYSCALLS_FROM_PROC: the events have no system calls (live): a blocked
 * main thread's is read from /proc/PID/syscall */
void detect_init(hang_sink *sink, void *ctx, bool syscalls_from_proc);
/* A "# argus-thread:" line of a trace's header, or a thread in /proc:
 * its name, whether it is a display server's, a kernel thread */
void detect_thread(int tid, int tgid, const char *comm, bool kernel);
/* A "# argus-cmdline:" line of a replayed trace's header: process PID's
 * arguments, separated by '\n' (a --proc may name its script) */
void detect_cmdline(int pid, const char *cmdline);
void detect_line(const struct event_line *ev);
/* The trace's clock is at NOW (ns): the limits of the hangs in flight. */
void detect_tick(uint64_t now);
/* No watched thread away from its wait, busy or in a wait that may be a
 * hang for more than 100 ms at NOW, and none in flight: what the ring
 * holds is needed by no hang. */
bool detect_quiet(uint64_t now);
/* The end (of a replayed trace): hangs in flight are reported, open. */
void detect_finish(uint64_t now);
void detect_free(void);

/* ---------------------------------------------------------------------- */
/* A folder per hang (report.c) */

/* The threads at the start (live), for the window's thread lines. */
void report_set_threads(const struct thread_list *at_start);
/* Mono ns and realtime ns at one moment: folder names and the stdout
 * line say the wall-clock time. */
void report_set_clock(uint64_t mono, uint64_t realtime);
/* H is queued: its window goes to a folder once the trace's clock has
 * passed its end by a little (the wakeups that ended it). */
void report_hang(const struct hang_found *h);
/* The trace's clock is at NOW: the windows due are written and their
 * diagnoses started, up to four at once in the background when live;
 * with --replay one at a time, each waited for. */
void report_tick(uint64_t now);
/* Reaps the diagnoses that ended (all of them, waiting, when WAIT_ALL)
 * and writes their lines. */
void report_poll(bool wait_all);
/* the hangs queued or being diagnosed */
size_t report_pending(void);
/* Ends the diagnoses running (SIGTERM), frees the queue. */
void report_stop(void);
/* hangs reported, candidates the diagnosis did not confirm, hangs whose
 * window the ring no longer held */
extern uint64_t reports_written, reports_unconfirmed, reports_lost;

#endif
