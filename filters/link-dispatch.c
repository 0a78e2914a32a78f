/* argus-link-dispatch: links asynchronous work to where it runs: dispatch
 * enqueues, run loop submissions and armed timers to their invocations
 * (docs/stages/link-dispatch.md). Its command line; the stage is
 * lib/stages/link-dispatch.c. */
#include "argus/stream/cli.h"
#include "argus/stages/builtin.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const char usage[] =
    "Usage: argus-link-dispatch [--no-queue] [--no-runloop] [--no-timer] [--kernel-timers]\n"
    "                           [--max-pending N] [-v] [FILE|-]\n"
    "Link dispatch enqueues, run loop submissions and armed timers to their callouts.\n"
    "\n"
    "Rules (docs/stages/link-dispatch.md; all rules: docs/rules.md):\n"
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
    argus_link_dispatch_options o = ARGUS_LINK_DISPATCH_DEFAULTS;
    argus_options common = ARGUS_OPTIONS_DEFAULT;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
        switch (c) {
        case OPT_NO_QUEUE: o.queue = false; break;
        case OPT_NO_RUNLOOP: o.runloop = false; break;
        case OPT_NO_TIMER: o.timer = false; break;
        case OPT_KERNEL_TIMERS: o.kernel_timers = true; break;
        default: argus_common_option(c, usage, &common, argv);
        }
    }
    const char *input = argus_input_arg(argc, argv);

    return argus_stage_main(&argus_link_dispatch_stage, &o, input, &common);
}
