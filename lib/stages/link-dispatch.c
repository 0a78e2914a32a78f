/* link-dispatch: links asynchronous work to where it runs: dispatch
 * enqueues, run loop submissions and armed timers to their invocations
 * (docs/stages/link-dispatch.md; the command line is
 * filters/link-dispatch.c). */
#include "argus/stages/builtin.h"
#include "argus/stream/cli.h"

#include <stdlib.h>
#include <string.h>

/* Counter names, each counted first (at 0) in this order so that -v
 * always prints the same lines. */
static const char C_DISPATCH[] = "dispatch edges";
static const char C_RUNLOOP[] = "runloop edges";
static const char C_TIMER[] = "timer edges";
static const char C_INVOKE_ALONE[] = "dispatch invokes without enqueue";
static const char C_RUNLOOP_ALONE[] = "runloop invokes without submit";
static const char C_FIRE_ALONE[] = "timer fires without arm";
static const char C_KERNEL_FIRES[] = "fires of the kernel's own timers (DISP-TIMER-KERNEL)";
static const char C_CANCEL_ALONE[] = "timer cancels without arm";
static const char C_INCOMPLETE[] = "events without item or timer";
static const char C_ENQUEUES_DROPPED[] = "pending enqueues dropped";
static const char C_SUBMITS_DROPPED[] = "pending submits dropped";
static const char C_TIMERS_DROPPED[] = "armed timers dropped";
static const char C_ENQUEUES_LEFT[] = "enqueues left pending";
static const char C_SUBMITS_LEFT[] = "submits left pending";
static const char C_TIMERS_LEFT[] = "timers left armed";

/* Work items are matched by item address within one process. The fifo
 * key mixes the two (one hash lookup); aux and aux2 keep them exactly, so
 * two pairs that mix to one key still never match each other. */
static uint64_t item_key(uint64_t item, uint64_t pid)
{
    return item ^ (pid * UINT64_C(0x9e3779b97f4a7c15));
}

typedef struct item_want { uint64_t item, pid; } item_want;

static bool same_item(const argus_fifo_item *pending, void *ctx)
{
    const item_want *w = ctx;
    return pending->aux == w->item && pending->aux2 == w->pid;
}

static bool is_begin(const argus_record *r)
{
    size_t len;
    const char *phase = argus_get_text(r, ARGUS_K_PHASE, &len);
    return phase && len == 5 && memcmp(phase, "begin", 5) == 0;
}

static void push_item(argus_fifo *pending, const argus_record *r)
{
    uint64_t item;
    if (!argus_get_uint(r, ARGUS_K_ITEM, &item)) {
        argus_count(C_INCOMPLETE, 1);
        return;
    }
    argus_fifo_push(pending, item_key(item, r->pid), r->id, item, r->pid);
}

/* Writes R, then the edge from the oldest pending submission of its item
 * in its process. */
static void take_item(argus_writer *out, argus_fifo *pending,
                      const argus_record *r, const char *kind,
                      const char *edges, const char *alone)
{
    argus_write_record(out, r);
    item_want want = {.pid = r->pid};
    if (!argus_get_uint(r, ARGUS_K_ITEM, &want.item)) {
        argus_count(C_INCOMPLETE, 1);
        return;
    }
    argus_fifo_item from;
    if (!argus_fifo_take(pending, item_key(want.item, r->pid), same_item,
                         &want, &from)) {
        argus_count(alone, 1);
        return;
    }
    argus_put_edge(out, kind, from.id, r->id, false);
    argus_count(edges, 1);
}

/* Armed timers: one entry per timer address, id = the arm. A firing puts
 * the entry back as the newest, so the bound drops the timers that have
 * been idle longest, not a busy repeating one. */
static void on_timer(argus_writer *out, argus_fifo *armed,
                     const argus_record *r, bool kernel_timers)
{
    argus_write_record(out, r);
    uint64_t timer;
    bool fire = r->type == ARGUS_T_TIMER_FIRE;
    if (fire && !is_begin(r))
        return;
    if (!argus_get_uint(r, ARGUS_K_TIMER, &timer)) {
        argus_count(C_INCOMPLETE, 1);
        return;
    }
    argus_fifo_item arm;
    bool was_armed = argus_fifo_take(armed, timer, NULL, NULL, &arm);
    switch (r->type) {
    case ARGUS_T_TIMER_ARM:
        /* aux2: armed by the kernel for itself (DISP-TIMER-KERNEL) */
        argus_fifo_push(armed, timer, r->id, 0,
                        !kernel_timers && (argus_get(r, ARGUS_K_CTX) || r->tid == 0));
        break;
    case ARGUS_T_TIMER_CANCEL:
        if (!was_armed)
            argus_count(C_CANCEL_ALONE, 1);
        break;
    default:
        if (!was_armed) {
            argus_count(C_FIRE_ALONE, 1);
            break;
        }
        if (arm.aux2) {
            argus_count(C_KERNEL_FIRES, 1);
        } else {
            argus_put_edge(out, "timer", arm.id, r->id, false);
            argus_count(C_TIMER, 1);
        }
        argus_fifo_push(armed, timer, arm.id, 0, arm.aux2);
        break;
    }
}

typedef struct dispatcher {
    argus_link_dispatch_options o;
    argus_fifo *enqueued, *submitted, *armed;
} dispatcher;

static void *link_dispatch_start(const void *options, const argus_options *common)
{
    static const argus_link_dispatch_options defaults = ARGUS_LINK_DISPATCH_DEFAULTS;
    dispatcher *k = argus_xcalloc(1, sizeof *k, "dispatcher");
    k->o = options ? *(const argus_link_dispatch_options *)options : defaults;
    const char *order[] = {C_DISPATCH, C_RUNLOOP, C_TIMER, C_INVOKE_ALONE,
                           C_RUNLOOP_ALONE, C_FIRE_ALONE, C_CANCEL_ALONE,
                           C_INCOMPLETE, C_ENQUEUES_DROPPED,
                           C_SUBMITS_DROPPED, C_TIMERS_DROPPED};
    for (size_t i = 0; i < sizeof order / sizeof *order; i++)
        argus_count(order[i], 0);
    k->enqueued = argus_fifo_new(common->max_pending, C_ENQUEUES_DROPPED);
    k->submitted = argus_fifo_new(common->max_pending, C_SUBMITS_DROPPED);
    k->armed = argus_fifo_new(common->max_pending, C_TIMERS_DROPPED);
    return k;
}

static void link_dispatch_record(void *self, const argus_record *r, argus_writer *out)
{
    dispatcher *k = self;
    switch (k->o.queue ? r->type : ARGUS_T_OTHER) {
    case ARGUS_T_DISPATCH_ENQUEUE:
        argus_write_record(out, r);
        push_item(k->enqueued, r);
        return;
    case ARGUS_T_DISPATCH_INVOKE:
        if (!is_begin(r))
            break;
        take_item(out, k->enqueued, r, "dispatch", C_DISPATCH, C_INVOKE_ALONE);
        return;
    default:
        break;
    }
    switch (k->o.runloop ? r->type : ARGUS_T_OTHER) {
    case ARGUS_T_RUNLOOP_SUBMIT:
        argus_write_record(out, r);
        push_item(k->submitted, r);
        return;
    case ARGUS_T_RUNLOOP_INVOKE:
        if (!is_begin(r))
            break;
        take_item(out, k->submitted, r, "runloop", C_RUNLOOP, C_RUNLOOP_ALONE);
        return;
    default:
        break;
    }
    if (k->o.timer && (r->type == ARGUS_T_TIMER_ARM ||
                       r->type == ARGUS_T_TIMER_FIRE ||
                       r->type == ARGUS_T_TIMER_CANCEL)) {
        on_timer(out, k->armed, r, k->o.kernel_timers);
        return;
    }
    argus_write_record(out, r);
}

static void link_dispatch_discard(void *self)
{
    dispatcher *k = self;
    argus_fifo_free(k->enqueued);
    argus_fifo_free(k->submitted);
    argus_fifo_free(k->armed);
    free(k);
}

static void link_dispatch_finish(void *self, argus_writer *out)
{
    dispatcher *k = self;
    (void)out;
    argus_count(C_ENQUEUES_LEFT, argus_fifo_pending(k->enqueued));
    argus_count(C_SUBMITS_LEFT, argus_fifo_pending(k->submitted));
    argus_count(C_TIMERS_LEFT, argus_fifo_pending(k->armed));
    link_dispatch_discard(k);
}

const argus_stage_def argus_link_dispatch_stage = {
    "link-dispatch", link_dispatch_start, link_dispatch_record, link_dispatch_finish,
    link_dispatch_discard,
};
