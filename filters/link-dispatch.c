/* argus-link-dispatch: links asynchronous work to where it runs: dispatch
 * enqueues, run loop submissions and armed timers to their invocations
 * (docs/stages/link-dispatch.md). */
#include "argus/stream/cli.h"
#include "argus/stages/stage.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const char usage[] =
    "Usage: argus-link-dispatch [--no-queue] [--no-runloop] [--no-timer] [--kernel-timers]\n"
    "                           [--max-pending N] [-v] [FILE|-]\n"
    "Link dispatch enqueues, run loop submissions and armed timers to their callouts.\n"
    "\n"
    "Rules (docs/stages/link-dispatch.md, spec graph-rules.md):\n"
    "  DISP-QUEUE    dispatch_enqueue -> the first later dispatch_invoke\n"
    "                begin with the same item in the same process\n"
    "                (edge \"dispatch\")\n"
    "  DISP-RUNLOOP  runloop_submit -> the first later runloop_invoke begin\n"
    "                with the same item in the same process (edge \"runloop\")\n"
    "  DISP-TIMER    timer_arm -> every timer_fire begin of the same timer,\n"
    "                in any process (kernel threads fire the timers of\n"
    "                others), until it is armed again or cancelled\n"
    "                (edge \"timer\")\n"
    "  DISP-TIMER-KERNEL  a timer armed inside an interrupt window (it has\n"
    "                ctx) or by the idle task (tid 0) is the kernel's own\n"
    "                (the tick re-arming itself): its fires get no edge\n"
    "\n"
    "      --no-queue       no dispatch edges (DISP-QUEUE)\n"
    "      --no-runloop     no runloop edges (DISP-RUNLOOP)\n"
    "      --no-timer       no timer edges (DISP-TIMER)\n"
    "      --kernel-timers  link the kernel's own timers too (no\n"
    "                       DISP-TIMER-KERNEL)\n"
    "      --max-pending N  bound of each pending table: past it the oldest\n"
    "                       entry is dropped and counted (default 1000000)\n"
    "  -v, --verbose        print counts to stderr at the end\n"
    "  -h, --help           show this help\n"
    "      --version        show the version\n";

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

int main(int argc, char **argv)
{
    argus_cli_init(argc, argv);
    enum { OPT_NO_QUEUE = 256, OPT_NO_RUNLOOP, OPT_NO_TIMER, OPT_KERNEL_TIMERS };
    static const struct option opts[] = {
        {"no-queue", no_argument, 0, OPT_NO_QUEUE},
        {"no-runloop", no_argument, 0, OPT_NO_RUNLOOP},
        {"no-timer", no_argument, 0, OPT_NO_TIMER},
        {"kernel-timers", no_argument, 0, OPT_KERNEL_TIMERS},
        ARGUS_OPTION_MAX_PENDING,
        ARGUS_OPTION_VERBOSE,
        ARGUS_OPTION_HELP,
        ARGUS_OPTION_VERSION,
        {0, 0, 0, 0},
    };
    bool queue = true, runloop = true, timer = true, kernel_timers = false;
    argus_options common = ARGUS_OPTIONS_DEFAULT;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
        switch (c) {
        case OPT_NO_QUEUE: queue = false; break;
        case OPT_NO_RUNLOOP: runloop = false; break;
        case OPT_NO_TIMER: timer = false; break;
        case OPT_KERNEL_TIMERS: kernel_timers = true; break;
        default: argus_common_option(c, usage, &common, argv);
        }
    }
    const char *input = argus_input_arg(argc, argv);

    argus_stage st;
    argus_stage_open(&st, input, common.verbose);
    const char *order[] = {C_DISPATCH, C_RUNLOOP, C_TIMER, C_INVOKE_ALONE,
                           C_RUNLOOP_ALONE, C_FIRE_ALONE, C_CANCEL_ALONE,
                           C_INCOMPLETE, C_ENQUEUES_DROPPED,
                           C_SUBMITS_DROPPED, C_TIMERS_DROPPED};
    for (size_t i = 0; i < sizeof order / sizeof *order; i++)
        argus_count(order[i], 0);
    argus_fifo *enqueued = argus_fifo_new(common.max_pending, C_ENQUEUES_DROPPED);
    argus_fifo *submitted = argus_fifo_new(common.max_pending, C_SUBMITS_DROPPED);
    argus_fifo *armed = argus_fifo_new(common.max_pending, C_TIMERS_DROPPED);

    const argus_record *r;
    while ((r = argus_read(st.in))) {
        switch (queue ? r->type : ARGUS_T_OTHER) {
        case ARGUS_T_DISPATCH_ENQUEUE:
            argus_write_record(st.out, r);
            push_item(enqueued, r);
            continue;
        case ARGUS_T_DISPATCH_INVOKE:
            if (!is_begin(r))
                break;
            take_item(st.out, enqueued, r, "dispatch", C_DISPATCH, C_INVOKE_ALONE);
            continue;
        default:
            break;
        }
        switch (runloop ? r->type : ARGUS_T_OTHER) {
        case ARGUS_T_RUNLOOP_SUBMIT:
            argus_write_record(st.out, r);
            push_item(submitted, r);
            continue;
        case ARGUS_T_RUNLOOP_INVOKE:
            if (!is_begin(r))
                break;
            take_item(st.out, submitted, r, "runloop", C_RUNLOOP, C_RUNLOOP_ALONE);
            continue;
        default:
            break;
        }
        if (timer && (r->type == ARGUS_T_TIMER_ARM ||
                      r->type == ARGUS_T_TIMER_FIRE ||
                      r->type == ARGUS_T_TIMER_CANCEL)) {
            on_timer(st.out, armed, r, kernel_timers);
            continue;
        }
        argus_write_record(st.out, r);
    }
    argus_count(C_ENQUEUES_LEFT, argus_fifo_pending(enqueued));
    argus_count(C_SUBMITS_LEFT, argus_fifo_pending(submitted));
    argus_count(C_TIMERS_LEFT, argus_fifo_pending(armed));
    argus_fifo_free(enqueued);
    argus_fifo_free(submitted);
    argus_fifo_free(armed);
    argus_stage_close(&st);
    return 0;
}
