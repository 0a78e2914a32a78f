/* cull-interrupts: marks (or drops) the events of interrupt and
 * timeshare-maintenance windows (docs/stages/cull-interrupts.md; the
 * command line is filters/cull-interrupts.c). */
#include "argus/stages/builtin.h"
#include "argus/stream/table.h"
#include "argus/stream/cli.h"

#include <stdlib.h>

typedef struct thread_ctx {
    uint32_t interrupt_depth, maintenance_depth;
    uint32_t own_depth;         /* CULL-SYSCALL windows open */
} thread_ctx;

typedef struct culler {
    argus_cull_options o;
    argus_table threads;        /* tid -> thread_ctx */
} culler;

static void *cull_start(const void *options, const argus_options *common)
{
    static const argus_cull_options defaults = ARGUS_CULL_DEFAULTS;
    (void)common;
    culler *k = argus_xcalloc(1, sizeof *k, "culler");
    k->o = options ? *(const argus_cull_options *)options : defaults;
    argus_table_init(&k->threads, sizeof(thread_ctx));
    return k;
}

static void cull_record(void *self, const argus_record *r, argus_writer *out)
{
    culler *k = self;
    if (!r->is_event) {
        argus_write_record(out, r);
        return;
    }
    thread_ctx *t = argus_table_put(&k->threads, r->tid, NULL);
    bool window = r->type == ARGUS_T_INTERRUPT ||
                  r->type == ARGUS_T_SCHED_MAINTENANCE;
    uint32_t *depth = r->type == ARGUS_T_INTERRUPT ? &t->interrupt_depth
                                                   : &t->maintenance_depth;
    const char *ctx = NULL;
    bool own = k->o.in_syscall && r->type == ARGUS_T_INTERRUPT &&
               argus_get_named(r, "in_syscall") != NULL;
    if (own && t->interrupt_depth == 0 && t->maintenance_depth == 0) {
        /* CULL-SYSCALL: the thread's own system call ran it */
        if (argus_text_is(r, ARGUS_K_PHASE, "begin")) {
            t->own_depth++;
            argus_count("softirqs of the thread's own system call (CULL-SYSCALL)", 1);
        } else if (t->own_depth > 0) {
            t->own_depth--;
        }
    } else if (window && argus_text_is(r, ARGUS_K_PHASE, "begin")) {
        ++*depth;
        ctx = r->type == ARGUS_T_INTERRUPT ? "interrupt" : "maintenance";
    } else if (window && argus_text_is(r, ARGUS_K_PHASE, "end")) {
        if (*depth > 0)
            --*depth;
        else
            argus_count("end without begin", 1);
        ctx = r->type == ARGUS_T_INTERRUPT ? "interrupt" : "maintenance";
    } else if (t->interrupt_depth || t->maintenance_depth) {
        if (r->type == ARGUS_T_WAIT || r->type == ARGUS_T_WOKEN) {
            /* a thread does not block inside an interrupt: the window
             * was left open by a lost end */
            argus_count("begin left open", t->interrupt_depth + t->maintenance_depth +
                                               t->own_depth);
            t->interrupt_depth = t->maintenance_depth = t->own_depth = 0;
        } else {
            ctx = t->interrupt_depth ? "interrupt" : "maintenance";
        }
    }
    if (!ctx) {
        argus_write_record(out, r);
        return;
    }
    if (k->o.drop) {
        argus_count("events dropped", 1);
        return;
    }
    argus_count("events marked", 1);
    argus_set set = {.key = ARGUS_K_CTX, .op = ARGUS_SET_TEXT, .s = ctx};
    argus_write_edited(out, r, &set, 1);
}

static void cull_discard(void *self)
{
    culler *k = self;
    argus_table_free(&k->threads);
    free(k);
}

static void cull_finish(void *self, argus_writer *out)
{
    (void)out;
    cull_discard(self);
}

const argus_stage_def argus_cull_interrupts_stage = {
    "cull-interrupts", cull_start, cull_record, cull_finish, cull_discard,
};
