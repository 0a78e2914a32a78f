/* The built-in graph stages, as functions of one shape (argus_stage_def,
 * stage.h): lib/stages/NAME.c holds each one's logic, filters/NAME.c its
 * command line, and argus-chain runs several in one process. Each stage's
 * options are the switches of its --help; NULL options mean these
 * defaults, which are what the program takes with no flag. */
#ifndef ARGUS_STAGES_BUILTIN_H
#define ARGUS_STAGES_BUILTIN_H

#include <stdbool.h>

#include "argus/stages/stage.h"

typedef struct argus_cull_options {
    bool drop;              /* --drop (CULL-2) */
    bool in_syscall;        /* CULL-SYSCALL; --no-in-syscall */
} argus_cull_options;
#define ARGUS_CULL_DEFAULTS {false, true}

typedef struct argus_segment_options {
    bool wait_split, callout, runloop_split, ui_split, ipc_split,
         kernel_split, ctx_split, split_edges;   /* --no-RULE turns off */
} argus_segment_options;
#define ARGUS_SEGMENT_DEFAULTS {true, true, true, true, true, true, true, true}

typedef struct argus_link_ipc_options {
    bool msg_match;         /* --no-msg-match */
    bool reply;             /* --no-reply */
} argus_link_ipc_options;
#define ARGUS_LINK_IPC_DEFAULTS {true, true}

typedef struct argus_link_dispatch_options {
    bool queue, runloop, timer;  /* --no-queue, --no-runloop, --no-timer */
    bool kernel_timers;          /* --kernel-timers */
} argus_link_dispatch_options;
#define ARGUS_LINK_DISPATCH_DEFAULTS {true, true, true, false}

typedef struct argus_link_flags_options {
    bool rw, ca;            /* --no-rw, --no-ca */
    bool same_process;      /* --same-process */
} argus_link_flags_options;
#define ARGUS_LINK_FLAGS_DEFAULTS {true, true, false}

typedef struct argus_link_wakeups_options {
    bool weak, external, workq;  /* --no-weak, --no-external, --no-workq */
} argus_link_wakeups_options;
#define ARGUS_LINK_WAKEUPS_DEFAULTS {true, true, true}

extern const argus_stage_def argus_cull_interrupts_stage;
extern const argus_stage_def argus_segment_stage;
extern const argus_stage_def argus_link_ipc_stage;
extern const argus_stage_def argus_link_dispatch_stage;
extern const argus_stage_def argus_link_flags_stage;
extern const argus_stage_def argus_link_wakeups_stage;

/* The built-in stage called NAME ("link-ipc"), or NULL. */
const argus_stage_def *argus_builtin_stage(const char *name);

#endif
