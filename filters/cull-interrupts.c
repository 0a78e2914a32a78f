/* argus-cull-interrupts: marks (or drops) the events of interrupt and
 * timeshare-maintenance windows (docs/stages/cull-interrupts.md). Its
 * command line; the stage is lib/stages/cull-interrupts.c. */
#include "argus/stream/cli.h"
#include "argus/stages/builtin.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const char usage[] =
    "Usage: argus-cull-interrupts [--drop] [--no-in-syscall] [-v] [FILE|-]\n"
    "Mark the events that interrupts and timeshare maintenance ran on a thread.\n"
    "\n"
    "Rules (docs/stages/cull-interrupts.md; all rules: docs/rules.md):\n"
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
    argus_cull_options o = ARGUS_CULL_DEFAULTS;
    argus_options common = ARGUS_OPTIONS_DEFAULT;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "dvh", opts, NULL)) != -1) {
        switch (c) {
        case 'd': o.drop = true; break;
        case OPT_NO_IN_SYSCALL: o.in_syscall = false; break;
        default: argus_common_option(c, usage, &common, argv);
        }
    }
    const char *input = argus_input_arg(argc, argv);

    return argus_stage_main(&argus_cull_interrupts_stage, &o, input, &common);
}
