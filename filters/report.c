/* argus-report: renders the findings of a graph stream (the hang, the UI
 * events and causal path that led to it, what it waits on, the similar
 * baseline node and the culprits) as text a developer reads in a minute
 * (docs/stages/report.md). */
#include "argus/view/report.h"
#include "argus/stream/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: argus-report [--output-format text|markdown] [-v] [FILE|-]\n"
    "Render the findings of a graph stream as a report to read.\n"
    "\n"
    "Reads a segmented graph stream (argus graph) with the records that\n"
    "argus-find-spinning (hang, path, wait_chain), argus-similar (match)\n"
    "and argus-diff (culprit, branch) appended. It opens with the verdict:\n"
    "for each hang, in one or two sentences, the hung thread and what it\n"
    "did, the thread its wait chain ended at, the UI event that started it\n"
    "and the culprit; then the baseline compared with, or why none. Then for\n"
    "each hang: where and when it was, its class (SPIN-CLASS) and what found\n"
    "it (SPIN-INDICATOR, SPIN-HANG); the UI events that led to it and the\n"
    "causal path (SPIN-PATH); what it waits on (the wait chain: each link\n"
    "with the wakeup, or the message an ipc edge explains it by, that held\n"
    "the one before up); the culprits (DIFF-CULPRIT). Segment ids, path\n"
    "ranks and scores, the similar node (SIM-MATCH), the culprits' evidence\n"
    "and the branch points (DIFF-ASK) are in a details section, with -v.\n"
    "Without a hang record it prints 'no hang found' and a one-line\n"
    "summary of the trace. Times are on the trace's own clock where the\n"
    "header has its origin (DEC-ORIGIN), else seconds of ts; with the wall\n"
    "clock where it has t0 (docs/stages/report.md).\n"
    "\n"
    "Exit status: 0 when the report is printed (found a hang or not), 64\n"
    "on a bad command line, 65 on bad input, 66 when FILE is missing.\n"
    "\n"
    "      --output-format F  text (default) or markdown (headings, a table\n"
    "                   for the path, code spans for symbols); --format F\n"
    "                   is its old spelling\n"
    "  -v, --verbose    add a details section to each hang: segment ids,\n"
    "                   path ranks and scores, the similar node, the\n"
    "                   culprits' baseline segments, missing edges, depths\n"
    "                   and branches, the branch points\n"
    "  -h, --help       show this help\n"
    "      --version    show the version\n";

/* The baseline of the last "similar ... --in BASELINE" of the header's
 * stages (shell-quoted as argus_command_line wrote it), or NULL: the
 * report names it where a hang has no similar node in it, as analyze's. */
static char *similar_baseline(const argus_record *hdr)
{
    argus_text st[256];
    int n = argus_get_text_array(hdr, ARGUS_K_STAGES, st, 256);
    for (int i = n - 1; i >= 0; i--) {
        if (st[i].len < 8 || memcmp(st[i].s, "similar ", 8) != 0)
            continue;
        const char *p = st[i].s, *end = p + st[i].len;
        const char *in = memmem(p, st[i].len, " --in ", 6);
        if (!in)
            return NULL;
        p = in + 6;
        char *name = argus_xmalloc(st[i].len + 1, "the baseline's name"), *q = name;
        bool quoted = false; /* '...' with '\'' for a quote inside */
        for (; p < end && (quoted || *p != ' '); p++) {
            if (*p == '\'')
                quoted = !quoted;
            else if (*p == '\\' && !quoted && p + 1 < end)
                *q++ = *++p;
            else
                *q++ = *p;
        }
        *q = 0;
        return name;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    argus_cli_init(argc, argv);
    enum { OPT_FORMAT = 256 };
    static const struct option opts[] = {
        {"output-format", required_argument, 0, OPT_FORMAT},
        {"format", required_argument, 0, OPT_FORMAT}, /* the old spelling */
        ARGUS_OPTION_VERBOSE,
        ARGUS_OPTION_HELP,
        ARGUS_OPTION_VERSION,
        {0, 0, 0, 0},
    };
    argus_options common = ARGUS_OPTIONS_DEFAULT;
    bool markdown = false;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
        switch (c) {
        case OPT_FORMAT:
            markdown = argus_report_format(optarg);
            break;
        default: argus_common_option(c, usage, &common, argv);
        }
    }
    const char *input = argus_input_arg(argc, argv);

    argus_reader *rd = argus_reader_open(input);
    char *baseline = similar_baseline(argus_reader_header(rd));
    argus_report_options ro = {.markdown = markdown, .verbose = common.verbose,
                               .baseline = baseline};
    argus_report_clocks(&ro, argus_reader_header(rd));
    argus_graph g;
    argus_graph_load(&g, rd, &(argus_graph_options){.keep_key_events = true,
                                                      .keys_lazily = true});
    argus_report_write(&g, &ro);
    argus_graph_free(&g);
    argus_reader_close(rd);
    free(baseline);
    return 0;
}
