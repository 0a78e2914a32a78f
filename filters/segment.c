/* argus-segment: divides every thread's events into execution segments,
 * the nodes of the event graph, and writes each event's segment id as
 * "seg" (docs/stages/segment.md, rules SEG-* of docs/rules.md). Its
 * command line; the stage is lib/stages/segment.c. */
#include "argus/stream/cli.h"
#include "argus/stages/builtin.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const char usage[] =
    "Usage: argus-segment [--no-RULE...] [-v] [FILE|-]\n"
    "Divide each thread's events into execution segments: add \"seg\" to every event.\n"
    "\n"
    "Rules (docs/stages/segment.md; all rules: docs/rules.md). Each thread has a\n"
    "current segment, a callout level and an IPC peer set:\n"
    "  SEG-WAIT     a wait at callout level 0 ends the segment (the wait is its\n"
    "               last event); inside a callout it does not split\n"
    "  SEG-CALLOUT  dispatch_invoke, runloop_invoke and timer_fire begin at\n"
    "               level 0 start a segment; begin raises the level, end lowers\n"
    "               it, and the end back to level 0 is the segment's last event\n"
    "  SEG-RUNLOOP  runloop_phase with stage entry starts a segment\n"
    "  SEG-UI       a ui_event at level 0 starts a segment\n"
    "  SEG-IPC      an ipc event none of whose processes (peer, voucher_pids,\n"
    "               the thread's own left out) is in the segment's non-empty\n"
    "               peer set starts a segment, at any level\n"
    "  SEG-KERNEL   in a kernel thread, every timer_fire begin starts a\n"
    "               segment, and so does a wakeup of a thread of another\n"
    "               process than the segment's earlier wakeups\n"
    "  SEG-CTX      each run of a thread's events with ctx (cull-interrupts)\n"
    "               is a segment of its own; the thread's segment goes on\n"
    "               after it\n"
    "  SEG-LINK     where SEG-IPC or SEG-KERNEL split a thread, a weak split\n"
    "               edge from the old segment's last event to the new one's first\n"
    "\n"
    "      --no-wait-split     turn off SEG-WAIT\n"
    "      --no-callout        turn off SEG-CALLOUT (the level is still counted)\n"
    "      --no-runloop-split  turn off SEG-RUNLOOP\n"
    "      --no-ui-split       turn off SEG-UI\n"
    "      --no-ipc-split      turn off SEG-IPC\n"
    "      --no-kernel-split   turn off SEG-KERNEL\n"
    "      --no-ctx-split      turn off SEG-CTX (ctx events are ordinary events)\n"
    "      --no-split-edges    turn off SEG-LINK\n"
    "  -v, --verbose           print counts to stderr at the end\n"
    "  -h, --help              show this help\n"
    "      --version           show the version\n";

int main(int argc, char **argv)
{
    argus_cli_init(argc, argv);
    enum {
        OPT_NO_WAIT = 256, OPT_NO_CALLOUT, OPT_NO_RUNLOOP, OPT_NO_UI,
        OPT_NO_IPC, OPT_NO_KERNEL, OPT_NO_CTX, OPT_NO_EDGES,
    };
    static const struct option opts[] = {
        {"no-wait-split", no_argument, 0, OPT_NO_WAIT},
        {"no-callout", no_argument, 0, OPT_NO_CALLOUT},
        {"no-runloop-split", no_argument, 0, OPT_NO_RUNLOOP},
        {"no-ui-split", no_argument, 0, OPT_NO_UI},
        {"no-ipc-split", no_argument, 0, OPT_NO_IPC},
        {"no-kernel-split", no_argument, 0, OPT_NO_KERNEL},
        {"no-ctx-split", no_argument, 0, OPT_NO_CTX},
        {"no-split-edges", no_argument, 0, OPT_NO_EDGES},
        ARGUS_OPTION_VERBOSE,
        ARGUS_OPTION_HELP,
        ARGUS_OPTION_VERSION,
        {0, 0, 0, 0},
    };
    argus_segment_options o = ARGUS_SEGMENT_DEFAULTS;
    argus_options common = ARGUS_OPTIONS_DEFAULT;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
        switch (c) {
        case OPT_NO_WAIT: o.wait_split = false; break;
        case OPT_NO_CALLOUT: o.callout = false; break;
        case OPT_NO_RUNLOOP: o.runloop_split = false; break;
        case OPT_NO_UI: o.ui_split = false; break;
        case OPT_NO_IPC: o.ipc_split = false; break;
        case OPT_NO_KERNEL: o.kernel_split = false; break;
        case OPT_NO_CTX: o.ctx_split = false; break;
        case OPT_NO_EDGES: o.split_edges = false; break;
        default: argus_common_option(c, usage, &common, argv);
        }
    }
    const char *input = argus_input_arg(argc, argv);

    return argus_stage_main(&argus_segment_stage, &o, input, &common);
}
