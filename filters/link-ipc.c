/* argus-link-ipc: links each IPC receive to its send, and each request's
 * receive to the send of its reply (docs/stages/link-ipc.md). Its command
 * line; the stage is lib/stages/link-ipc.c. */
#include "argus/stream/cli.h"
#include "argus/stages/builtin.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const char usage[] =
    "Usage: argus-link-ipc [--no-msg-match] [--no-reply] [--max-pending N] [-v] [FILE|-]\n"
    "Link each IPC receive to its send, and a request's receive to its reply.\n"
    "\n"
    "Rules (docs/stages/link-ipc.md; all rules: docs/rules.md):\n"
    "  IPC-MSG    a recv is linked from its send (edge \"ipc\"): by msg when\n"
    "             both carry it, else the oldest unmatched send to the same\n"
    "             port; a send naming its peer matches only a recv in that\n"
    "             process (and a recv naming its peer only a send from it);\n"
    "             events without a port (macOS kdebug) match by msg alone\n"
    "  IPC-REPLY  a send with reply_port R is a request; once its recv is\n"
    "             known, the first later send to port R is the reply: edge\n"
    "             \"reply\" from the request's recv to that send\n"
    "  IPC-FREE   an ipc_free of msg M (macOS MACH_IPC_kmsg_free) drops the\n"
    "             pending sends without port that carry M: never received\n"
    "  IPC-REUSE  a send without port that carries M drops the pending sends\n"
    "             without port that carry M: the buffer was freed and reused\n"
    "  IPC-BOUND  past --max-pending unmatched sends (and as many requests\n"
    "             waiting for their reply) the oldest is dropped and counted\n"
    "\n"
    "      --no-msg-match   match by port only, in FIFO order (IPC-MSG by msg)\n"
    "      --no-reply       no reply edges (IPC-REPLY)\n"
    "      --max-pending N  bound of each pending table (IPC-BOUND;\n"
    "                       default 1000000)\n"
    "  -v, --verbose        print counts to stderr at the end\n"
    "  -h, --help           show this help\n"
    "      --version        show the version\n";

int main(int argc, char **argv)
{
    argus_cli_init(argc, argv);
    enum { OPT_NO_MSG = 256, OPT_NO_REPLY };
    static const struct option opts[] = {
        {"no-msg-match", no_argument, 0, OPT_NO_MSG},
        {"no-reply", no_argument, 0, OPT_NO_REPLY},
        ARGUS_OPTION_MAX_PENDING,
        ARGUS_OPTION_VERBOSE,
        ARGUS_OPTION_HELP,
        ARGUS_OPTION_VERSION,
        {0, 0, 0, 0},
    };
    argus_link_ipc_options o = ARGUS_LINK_IPC_DEFAULTS;
    argus_options common = ARGUS_OPTIONS_DEFAULT;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
        switch (c) {
        case OPT_NO_MSG: o.msg_match = false; break;
        case OPT_NO_REPLY: o.reply = false; break;
        default: argus_common_option(c, usage, &common, argv);
        }
    }
    const char *input = argus_input_arg(argc, argv);

    return argus_stage_main(&argus_link_ipc_stage, &o, input, &common);
}
