/* argus-cull-interrupts: marks (or drops) the events of interrupt and
 * timeshare-maintenance windows (docs/stages/cull-interrupts.md). */
#include "argus/stream/cli.h"
#include "argus/stages/stage.h"
#include "argus/stream/table.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const char usage[] =
    "Usage: argus-cull-interrupts [--drop] [--no-in-syscall] [-v] [FILE|-]\n"
    "Mark the events that interrupts and timeshare maintenance ran on a thread.\n"
    "\n"
    "Rules (docs/stages/cull-interrupts.md, spec graph-rules.md):\n"
    "  CULL-1  events of a thread from an interrupt begin to its matching end\n"
    "          (nesting counted), the two markers included, get\n"
    "          ctx: \"interrupt\"; sched_maintenance begin..end gets\n"
    "          ctx: \"maintenance\"\n"
    "  CULL-2  --drop removes those events (wakeups inside them included)\n"
    "          instead of marking them\n"
    "  CULL-3  an end without a begin is kept, marked and counted; a begin\n"
    "          left open marks up to the thread's next wait or woken (which\n"
    "          cannot run inside an interrupt) and is counted\n"
    "  CULL-SYSCALL  an interrupt begin..end that carries in_syscall (a\n"
    "          softirq the thread's own system call ran: loopback TCP's\n"
    "          NET_RX inside the sender's write) is the thread's own work:\n"
    "          neither it nor what happens in it is marked (an interrupt\n"
    "          nested in it is)\n"
    "\n"
    "  -d, --drop     remove the events instead of marking them (CULL-2)\n"
    "      --no-in-syscall  do not apply CULL-SYSCALL: mark those too\n"
    "  -v, --verbose  print counts to stderr at the end\n"
    "  -h, --help     show this help\n"
    "      --version  show the version\n";

typedef struct thread_ctx {
    uint32_t interrupt_depth, maintenance_depth;
    uint32_t own_depth;         /* CULL-SYSCALL windows open */
} thread_ctx;

int main(int argc, char **argv)
{
    argus_cli_init(argc, argv);
    enum { OPT_NO_IN_SYSCALL = 256 };
    static const struct option opts[] = {
        {"drop", no_argument, 0, 'd'},
        {"no-in-syscall", no_argument, 0, OPT_NO_IN_SYSCALL},
        ARGUS_OPTION_VERBOSE,
        ARGUS_OPTION_HELP,
        ARGUS_OPTION_VERSION,
        {0, 0, 0, 0},
    };
    bool drop = false, in_syscall_rule = true;
    argus_options common = ARGUS_OPTIONS_DEFAULT;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "dvh", opts, NULL)) != -1) {
        switch (c) {
        case 'd': drop = true; break;
        case OPT_NO_IN_SYSCALL: in_syscall_rule = false; break;
        default: argus_common_option(c, usage, &common, argv);
        }
    }
    const char *input = argus_input_arg(argc, argv);

    argus_stage st;
    argus_stage_open(&st, input, common.verbose);
    argus_table threads;
    argus_table_init(&threads, sizeof(thread_ctx));

    const argus_record *r;
    while ((r = argus_read(st.in))) {
        if (!r->is_event) {
            argus_write_record(st.out, r);
            continue;
        }
        thread_ctx *t = argus_table_put(&threads, r->tid, NULL);
        bool window = r->type == ARGUS_T_INTERRUPT ||
                      r->type == ARGUS_T_SCHED_MAINTENANCE;
        uint32_t *depth = r->type == ARGUS_T_INTERRUPT ? &t->interrupt_depth
                                                       : &t->maintenance_depth;
        const char *ctx = NULL;
        bool own = in_syscall_rule && r->type == ARGUS_T_INTERRUPT &&
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
            argus_write_record(st.out, r);
            continue;
        }
        if (drop) {
            argus_count("events dropped", 1);
            continue;
        }
        argus_count("events marked", 1);
        argus_set set = {.key = ARGUS_K_CTX, .op = ARGUS_SET_TEXT, .s = ctx};
        argus_write_edited(st.out, r, &set, 1);
    }
    argus_table_free(&threads);
    argus_stage_close(&st);
    return 0;
}
