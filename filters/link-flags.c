/* argus-link-flags: links shared-flag writes to their reads, and
 * CoreAnimation needs-display marks to the display that draws them
 * (docs/stages/link-flags.md). Its command line; the stage is
 * lib/stages/link-flags.c. */
#include "argus/stream/cli.h"
#include "argus/stages/builtin.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const char usage[] =
    "Usage: argus-link-flags [--no-rw] [--no-ca] [--same-process] [--max-pending N] [-v] [FILE|-]\n"
    "Link shared-flag writes to their reads and needs-display marks to their display.\n"
    "\n"
    "Rules (docs/stages/link-flags.md; all rules: docs/rules.md):\n"
    "  FLAG-RW  a flag_read of addr is linked from the latest earlier\n"
    "           flag_write of that addr made by another thread; when both\n"
    "           carry a value, only if the values are equal.\n"
    "           Edge kind \"flag\", written right after the read\n"
    "  FLAG-CA  every ca_set of obj since the last ca_display of obj\n"
    "           is linked to the next ca_display of obj (its\n"
    "           begin when it has a phase). Edge kind \"display\", written\n"
    "           right after the display\n"
    "\n"
    "      --no-rw            do not apply FLAG-RW\n"
    "      --no-ca            do not apply FLAG-CA\n"
    "      --same-process     match addr and obj within one process only (a\n"
    "                         library flag mapped at one address in every\n"
    "                         process); by default the address alone matches\n"
    "      --max-pending N    addresses (FLAG-RW) and ca_set marks (FLAG-CA)\n"
    "                         kept, each; past N the oldest is dropped and\n"
    "                         counted (default 1000000)\n"
    "  -v, --verbose          print counts to stderr at the end\n"
    "  -h, --help             show this help\n"
    "      --version          show the version\n";

int main(int argc, char **argv)
{
    argus_cli_init(argc, argv);
    enum { OPT_NO_RW = 256, OPT_NO_CA, OPT_SAME_PROCESS };
    static const struct option opts[] = {
        {"no-rw", no_argument, 0, OPT_NO_RW},
        {"no-ca", no_argument, 0, OPT_NO_CA},
        {"same-process", no_argument, 0, OPT_SAME_PROCESS},
        ARGUS_OPTION_MAX_PENDING,
        ARGUS_OPTION_VERBOSE,
        ARGUS_OPTION_HELP,
        ARGUS_OPTION_VERSION,
        {0, 0, 0, 0},
    };
    argus_link_flags_options o = ARGUS_LINK_FLAGS_DEFAULTS;
    argus_options common = ARGUS_OPTIONS_DEFAULT;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
        switch (c) {
        case OPT_NO_RW: o.rw = false; break;
        case OPT_NO_CA: o.ca = false; break;
        case OPT_SAME_PROCESS: o.same_process = true; break;
        default: argus_common_option(c, usage, &common, argv);
        }
    }
    const char *input = argus_input_arg(argc, argv);

    return argus_stage_main(&argus_link_flags_stage, &o, input, &common);
}
