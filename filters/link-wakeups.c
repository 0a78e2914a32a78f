/* argus-link-wakeups: links a wakeup to the woken it causes, the wait it
 * ends to its waker, and a thread's own wait to its woken when no thread
 * caused it (docs/stages/link-wakeups.md). Its command line; the stage
 * is lib/stages/link-wakeups.c. */
#include "argus/stream/cli.h"
#include "argus/stages/builtin.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const char usage[] =
    "Usage: argus-link-wakeups [--no-weak] [--no-external] [--no-workq] [--max-pending N] [-v] [FILE|-]\n"
    "Link wakeups to the woken they cause and waits to the wakeup that ends them.\n"
    "\n"
    "Rules (docs/stages/link-wakeups.md; all rules: docs/rules.md):\n"
    "  WAKE-EDGE      a wakeup of thread T -> T's next woken (the last wakeup\n"
    "                 before the woken wins). Kind \"wakeup\", strong\n"
    "  WAKE-WEAK      T's wait that this woken ends -> the wakeup. Kind\n"
    "                 \"wait\", weak\n"
    "  WAKE-EXTERNAL  a wakeup made inside an interrupt or maintenance\n"
    "                 window (it has ctx), a woken with result timed_out, or\n"
    "                 a woken no wakeup explains: no thread caused it; T's\n"
    "                 own wait -> woken instead. Kind \"resume\", strong\n"
    "  WAKE-WORKQ     a wakeup by a worker thread whose latest event ends a\n"
    "                 dispatch_invoke, of another worker of its process whose\n"
    "                 next event after the woken begins a dispatch_invoke:\n"
    "                 the \"wakeup\" edge is weak, and written after that\n"
    "                 next event\n"
    "Edges: wakeup (wakeup -> woken), wait (wait -> wakeup, weak),\n"
    "resume (wait -> woken of one thread); each is written after the woken\n"
    "(WAKE-WORKQ: a wakeup edge after the target's next event).\n"
    "\n"
    "      --no-weak          do not apply WAKE-WEAK (no wait edges)\n"
    "      --no-external      do not apply WAKE-EXTERNAL: no resume edges;\n"
    "                         wakeups with ctx and timed-out ones are linked\n"
    "                         like any other\n"
    "      --no-workq         do not apply WAKE-WORKQ (every wakeup edge is\n"
    "                         strong)\n"
    "      --max-pending N    wakeups waiting for their woken; past N the\n"
    "                         oldest is dropped and counted (default 1000000)\n"
    "  -v, --verbose          print counts to stderr at the end\n"
    "  -h, --help             show this help\n"
    "      --version          show the version\n";

int main(int argc, char **argv)
{
    argus_cli_init(argc, argv);
    enum { OPT_NO_WEAK = 256, OPT_NO_EXTERNAL, OPT_NO_WORKQ };
    static const struct option opts[] = {
        {"no-weak", no_argument, 0, OPT_NO_WEAK},
        {"no-external", no_argument, 0, OPT_NO_EXTERNAL},
        {"no-workq", no_argument, 0, OPT_NO_WORKQ},
        ARGUS_OPTION_MAX_PENDING,
        ARGUS_OPTION_VERBOSE,
        ARGUS_OPTION_HELP,
        ARGUS_OPTION_VERSION,
        {0, 0, 0, 0},
    };
    argus_link_wakeups_options o = ARGUS_LINK_WAKEUPS_DEFAULTS;
    argus_options common = ARGUS_OPTIONS_DEFAULT;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
        switch (c) {
        case OPT_NO_WEAK: o.weak = false; break;
        case OPT_NO_EXTERNAL: o.external = false; break;
        case OPT_NO_WORKQ: o.workq = false; break;
        default: argus_common_option(c, usage, &common, argv);
        }
    }
    const char *input = argus_input_arg(argc, argv);

    return argus_stage_main(&argus_link_wakeups_stage, &o, input, &common);
}
