/* macOS kdebug input (docs/inputs/macos.md): the binary trace files
 * (RAW_VERSION0..3, 64- and 32-bit records) and the text trace(1) prints,
 * both decoded into an argus stream through one table of codes.
 *
 * A decoder (argus_kd) takes raw records in any order, merges them into
 * ts order through a bounded reorder window, maps each through the code
 * table and writes stream records. Errors are returned, never exited on,
 * so that the fuzzers drive the decoders in memory: a function returning
 * -1 leaves its message in argus_kd_error(), and every record written
 * before it stays valid. */
#ifndef ARGUS_KDEBUG_H
#define ARGUS_KDEBUG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "argus/stream/input.h"
#include "argus/stream/stream.h"

/* debugid fields */
#define ARGUS_KD_FUNC_START 1u
#define ARGUS_KD_FUNC_END 2u
#define ARGUS_KD_FUNC_MASK 3u
#define ARGUS_KD_CLASS(d) ((d) >> 24)

/* ---- The code table ------------------------------------------------- */

/* What a code becomes (the type column of a codes file). */
typedef enum argus_kd_action {
    ARGUS_KD_RAW = 0,      /* a "kdebug" event with the raw debugid and args */
    ARGUS_KD_IGNORE,       /* nothing */
    ARGUS_KD_SWITCH,       /* context switch: arg2 = the thread switched in */
    ARGUS_KD_WAKEUP,       /* make-runnable: arg1 = woken tid, arg3 = result */
    ARGUS_KD_WAIT,         /* arg1 = wait event */
    ARGUS_KD_INTERRUPT,    /* arg1 = irq (begin) */
    ARGUS_KD_MAINTENANCE,  /* sched_maintenance */
    ARGUS_KD_SYSCALL,      /* a whole range: name from the code number */
    ARGUS_KD_IPC_SEND,     /* arg1 = kmsg, arg3 = msgh_id, arg4 = voucher */
    ARGUS_KD_IPC_RECV,     /* the same */
    ARGUS_KD_IPC_FREE,     /* arg1 = kmsg */
    ARGUS_KD_KMSG_INFO,    /* END: arg1 = sender pid, arg2 = dest pid */
    ARGUS_KD_VOUCHER,      /* thread_set_voucher: arg3 = voucher */
    ARGUS_KD_TIMER_ARM,    /* arg1 = timer call, arg3 = deadline */
    ARGUS_KD_TIMER_CANCEL, /* arg1 = timer call */
    ARGUS_KD_TIMER_FIRE,   /* arg1 = timer call, arg2 = function */
    ARGUS_KD_DISPATCH_ENQUEUE, /* arg1 = item, arg2 = func, arg3 = queue << 32 */
    ARGUS_KD_DISPATCH_INVOKE,  /* arg1 = item, arg3 = queue (begin) */
    ARGUS_KD_RUNLOOP_SUBMIT,   /* arg1 = item */
    ARGUS_KD_RUNLOOP_INVOKE,   /* arg1 = kind, arg2 = item, arg3 = func */
    ARGUS_KD_RUNLOOP_PHASE,    /* arg1 = stage */
    ARGUS_KD_UI_EVENT,     /* arg1 = NSEvent type */
    ARGUS_KD_FLAG_WRITE,   /* arg1 = address, arg2 = value */
    ARGUS_KD_FLAG_READ,    /* arg1 = address, arg2 = value */
    ARGUS_KD_CA_SET,       /* arg1 = object */
    ARGUS_KD_CA_DISPLAY,   /* arg1 = object */
    ARGUS_KD_NEW_THREAD,   /* arg1 = new tid, arg2 = its pid */
    ARGUS_KD_NEW_THREAD_NAME, /* string: the new thread's process name */
    ARGUS_KD_EXEC,         /* arg1 = pid */
    ARGUS_KD_EXEC_NAME,    /* string: the new command */
    ARGUS_KD_THREAD_NAME,  /* string: the thread's own name */
    ARGUS_KD_LOST,         /* events were lost before this one */
    ARGUS_KD_EVENT,        /* an event of a user-named type, with "args" */
    ARGUS_KD_NACTIONS
} argus_kd_action;

typedef enum argus_kd_phase {
    ARGUS_KD_PHASE_FUNC = 0, /* from the debugid's function bits */
    ARGUS_KD_PHASE_BEGIN,
    ARGUS_KD_PHASE_END,
    ARGUS_KD_PHASE_NONE,
} argus_kd_phase;

typedef struct argus_kd_code {
    uint32_t lo, hi;       /* debugids lo..hi, function bits clear */
    argus_kd_action action;
    argus_kd_phase phase;
    char *name;            /* trace.codes name, or NULL */
    char *type;            /* ARGUS_KD_EVENT: the event type */
} argus_kd_code;

typedef struct argus_kd_codes argus_kd_codes;

/* The built-in table (docs/inputs/macos.md). */
argus_kd_codes *argus_kd_codes_default(void);
/* Adds the lines of a codes file (trace.codes format plus an optional
 * type column); a later entry overrides an earlier one for its codes.
 * Returns 0, or -1 with "PATH:LINE: what" in ERR. */
int argus_kd_codes_load(argus_kd_codes *c, const char *path, char *err,
                        size_t errlen);
/* Parses one line as argus_kd_codes_load does (for tests and fuzzing). */
int argus_kd_codes_line(argus_kd_codes *c, const char *line, size_t len,
                        char *err, size_t errlen);
/* The entry for DEBUGID (function bits ignored): an exact entry before a
 * range; NULL when none. */
const argus_kd_code *argus_kd_code_find(const argus_kd_codes *c,
                                        uint32_t debugid);
/* The debugid named NAME (trace(1) prints at most 28 characters of a
 * name, so a 28-character NAME matches any longer name it starts).
 * Returns false when no entry has that name. */
bool argus_kd_code_by_name(const argus_kd_codes *c, const char *name,
                           size_t len, uint32_t *debugid);
/* The name of DEBUGID: its entry's name, or a syscall's name from the
 * number within a syscall range; NULL when unknown. */
const char *argus_kd_code_name(const argus_kd_codes *c, uint32_t debugid,
                               char *buf, size_t buflen);
/* The same for DEBUGID's entry E already found (NULL: unknown). */
const char *argus_kd_entry_name(const argus_kd_code *e, uint32_t debugid,
                                char *buf, size_t buflen);
const char *argus_kd_action_name(argus_kd_action a);
/* Whether records of this entry bracket work (a begin/end phase). */
bool argus_kd_code_has_phase(const argus_kd_code *c);
void argus_kd_codes_free(argus_kd_codes *c);

/* ---- The decoder ---------------------------------------------------- */

/* One kd_buf record as read from a file or a line, before mapping. */
typedef struct argus_kd_rec {
    uint64_t ts;       /* file clock ticks (text: ns) */
    uint64_t arg[4];
    uint64_t tid;
    uint64_t where;    /* byte offset in the file (text: line number) */
    uint32_t debugid;
    uint32_t cpu;
} argus_kd_rec;

typedef struct argus_kd_options {
    const char *name;          /* the input, for messages */
    const char *command;       /* this decode's command line, for "stages" */
    const argus_kd_codes *codes;
    size_t window;             /* reorder window in records (0: default) */
    uint32_t tb_numer, tb_denom; /* timebase override (0: the file's) */
    unsigned record_size;      /* 32 or 64 (0: from the file, or guessed) */
    bool kdebug_v0;            /* no magic: read as RAW_VERSION0 */
} argus_kd_options;

#define ARGUS_KD_DEFAULT_WINDOW 65536

typedef struct argus_kd argus_kd;

argus_kd *argus_kd_new(argus_writer *w, const argus_kd_options *o);
void argus_kd_free(argus_kd *d);
const char *argus_kd_error(const argus_kd *d);
const argus_kd_codes *argus_kd_codes_of(const argus_kd *d);

/* Which kdebug container the first bytes name ("kdebug-v1", "kdebug-v2",
 * "kdebug-v3"), or NULL. */
const char *argus_kd_sniff(const uint8_t *buf, size_t len);

/* A whole binary file (any version). Returns 0 or -1. */
int argus_kd_read_binary(argus_kd *d, argus_input *in);
/* A whole trace(1) text. Returns 0 or -1. */
int argus_kd_read_text(argus_kd *d, argus_input *in);

/* What the readers above drive, in this order: the clock and the header
 * facts, the thread map, then records, then finish. */
void argus_kd_set_source(argus_kd *d, const char *source);
/* ns = ticks * numer / denom (an override given in the options wins). */
void argus_kd_set_timebase(argus_kd *d, uint64_t numer, uint64_t denom);
/* Unix epoch ns of the file clock's tick T (the file's wall time). */
void argus_kd_set_walltime(argus_kd *d, uint64_t epoch_ns, uint64_t at_tick);
/* One entry of a thread map (kd_threadmap: tid, pid, command). */
void argus_kd_map_thread(argus_kd *d, uint64_t tid, uint32_t pid,
                         const char *command, size_t len);
/* A record, in any order within the reorder window. Returns 0 or -1. */
int argus_kd_push(argus_kd *d, const argus_kd_rec *r);
/* End of input: the window drained, the header written if not yet.
 * Returns 0 or -1. */
int argus_kd_finish(argus_kd *d);
/* After an error: writes the records still in the window. */
void argus_kd_drain(argus_kd *d);
/* Sets the error message (printf style); returns -1. */
int argus_kd_fail(argus_kd *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Counters for -v, printed "  N what" one a line to F. */
void argus_kd_print_counts(const argus_kd *d, void *file);

#endif
