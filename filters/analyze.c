/* argus-analyze: find-spinning, similar, diff and report in one process,
 * over a graph loaded once (docs/stages/analyze.md). The report is the
 * one of the pipe of the four programs, byte for byte. */
#include "argus/analysis/diff.h"
#include "argus/analysis/find-spinning.h"
#include "argus/view/report.h"
#include "argus/stages/stage.h"
#include "argus/stream/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "Usage: argus-analyze [--baseline BASELINE [--baseline-name NAME]]\n"
    "                     [find-spinning, similar and diff options]\n"
    "                     [--output-format text|markdown] [--keep FILE] [--counts] [-v]\n"
    "                     [GRAPH|-]\n"
    "Find the hangs of a graph, their culprits against a baseline, and print the report.\n"
    "\n"
    "Runs in one process, over one load of GRAPH (and of BASELINE):\n"
    "\n"
    "  argus-find-spinning GRAPH | argus-similar --in BASELINE\n"
    "    | argus-diff --baseline BASELINE | argus-report\n"
    "\n"
    "and prints what that pipe prints (without BASELINE: find-spinning |\n"
    "diff | report). Each stage's records are kept with the graph, as the\n"
    "next program would read them, and similar and diff share one index of\n"
    "the baseline's nodes. Rules: those of each program (their --help and\n"
    "docs/stages/).\n"
    "\n"
    "      --baseline BASELINE  a normal run's graph stream (argus graph)\n"
    "      --baseline-name NAME the name the match records give the baseline\n"
    "                         (default: BASELINE as given)\n"
    "  find-spinning: --indicator SYMBOL, --hang MS, --proc NAME,\n"
    "      --input-server NAME, --no-idle, --beam N, --max-steps N,\n"
    "      --no-thread-order, --no-wait-chain\n"
    "  similar: --max N (matches per node, default 5)\n"
    "  diff: --depth N, --choose LIST, --interactive, --max-branches N\n"
    "  report: --output-format text|markdown (--format: its old spelling)\n"
    "      --keep FILE        also write the findings stream to FILE: the\n"
    "                         graph and every stage's records\n"
    "  -v, --verbose          the report's details section (argus-report -v),\n"
    "                         and each stage's counts on stderr at the end,\n"
    "                         as argus-STAGE -v would\n"
    "      --counts           only those counts on stderr\n"
    "      --status           argus diagnose's ending: when no hang was found,\n"
    "                         one line after the report saying what was looked\n"
    "                         for (a Linux trace), and exit 1\n"
    "\n"
    "Exit status: 0, 1 (--status: no hang found), 64 usage, 65 bad input,\n"
    "66 a graph cannot be opened, 74 I/O error.\n"
    "  -h, --help             show this help\n"
    "      --version          show the version\n";

int main(int argc, char **argv)
{
    argus_cli_init(argc, argv);
    enum { OPT_BASELINE = 256, OPT_BASELINE_NAME, OPT_MAX, OPT_FORMAT, OPT_KEEP, OPT_COUNTS,
           OPT_STATUS };
    static const struct option opts[] = {
        {"baseline", required_argument, 0, OPT_BASELINE},
        {"baseline-name", required_argument, 0, OPT_BASELINE_NAME},
        {"max", required_argument, 0, OPT_MAX},
        {"output-format", required_argument, 0, OPT_FORMAT},
        {"format", required_argument, 0, OPT_FORMAT}, /* the old spelling */
        {"keep", required_argument, 0, OPT_KEEP},
        {"counts", no_argument, 0, OPT_COUNTS},
        {"status", no_argument, 0, OPT_STATUS},
        ARGUS_SPIN_LONG_OPTIONS,
        ARGUS_DIFF_LONG_OPTIONS,
        ARGUS_OPTION_VERBOSE,
        ARGUS_OPTION_HELP,
        ARGUS_OPTION_VERSION,
        {0, 0, 0, 0},
    };
    argus_spin_options spin;
    argus_spin_defaults(&spin);
    argus_diff_options diff = ARGUS_DIFF_DEFAULTS;
    const char *baseline = NULL, *baseline_name = NULL, *keep_path = NULL;
    uint64_t max = 5;
    bool markdown = false, counts_only = false, status = false;
    argus_options common = ARGUS_OPTIONS_DEFAULT;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
        switch (c) {
        case OPT_BASELINE: baseline = optarg; break;
        case OPT_BASELINE_NAME: baseline_name = optarg; break;
        case OPT_MAX:
            max = argus_similar_max(optarg);
            break;
        case OPT_FORMAT:
            markdown = argus_report_format(optarg);
            break;
        case OPT_COUNTS: counts_only = true; break;
        case OPT_STATUS: status = true; break;
        case OPT_KEEP:
            if (!*optarg)
                argus_usage_error("--keep: needs a file name");
            keep_path = optarg;
            break;
        default:
            if (!argus_spin_option(&spin, c, optarg) && !argus_diff_option(&diff, c, optarg))
                argus_common_option(c, usage, &common, argv);
        }
    }
    if (baseline_name && !baseline)
        argus_usage_error("--baseline-name needs --baseline");
    argus_diff_options_ready(&diff);
    const char *input = argus_input_arg(argc, argv);

    /* the baseline loads in a second thread while the graph loads here */
    argus_graph base;
    pthread_t base_loader;
    argus_sim_index *ix = NULL; /* similar's and diff's, made in the loading thread */
    if (baseline)
        /* its key events read again when asked; --interactive lists a
         * candidate's first ones, so keeps them */
        argus_graph_load_file_async(&base, baseline, diff.interactive ? ARGUS_KEYS_KEPT
                                                                       : ARGUS_KEYS_REREAD,
                                    argus_sim_index_hook, &ix, &base_loader);
    argus_reader *rd = argus_reader_open(input);
    int keep_fd = -1;
    argus_writer *keep = NULL;
    if (keep_path) {
        keep_fd = open(keep_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (keep_fd < 0)
            argus_die(ARGUS_EX_IOERR, "%s: %s", keep_path, strerror(errno));
        keep = argus_writer_fd(keep_fd);
        argus_write_header(keep, argus_reader_header(rd), argus_command_line());
    }

    argus_counters *counts[3] = {argus_counters_new(), argus_counters_new(),
                                 argus_counters_new()};
    static const char *const progs[3] = {"argus-find-spinning", "argus-similar",
                                         "argus-diff"};
    argus_findings found = {0};
    argus_writer *out = argus_writer_to("the findings", argus_findings_collect, &found);

    argus_counters_use(counts[0]);
    argus_spin *sp = argus_spin_start(&spin, argus_reader_header(rd));
    argus_graph g;
    argus_graph_options gopt = {.keep_key_events = true, .keys_lazily = true, .pass = keep,
                                .on_event = argus_spin_on_event, .ctx = sp};
    argus_graph_load(&g, rd, &gopt);
    argus_spin_finish(sp, &g, out);
    argus_findings_add(&found, &g, keep);

    if (baseline) {
        pthread_join(base_loader, NULL);
        argus_counters_use(counts[1]);
        argus_similar_write(&g, NULL, 0, max, &base, ix,
                            baseline_name ? baseline_name : baseline, out);
        argus_findings_add(&found, &g, keep);
    }
    argus_counters_use(counts[2]);
    argus_diff_write(&g, baseline ? &base : NULL, ix, &diff, out);
    argus_findings_add(&found, &g, keep);
    argus_counters_use(NULL);
    argus_writer_close(out);
    if (keep) {
        argus_writer_close(keep);
        if (close(keep_fd) != 0)
            argus_die(ARGUS_EX_IOERR, "%s: %s", keep_path, strerror(errno));
    }

    argus_report_options ro = {.markdown = markdown, .verbose = common.verbose,
                               .baseline = baseline && baseline_name ? baseline_name : baseline};
    argus_report_clocks(&ro, argus_reader_header(rd));
    if (spin.hang_ms != ARGUS_SPIN_HANG_DEFAULT)
        ro.hang_ms = spin.hang_ms;
    argus_report_write(&g, &ro);
    if ((common.verbose && !status) || counts_only)
        for (int i = 0; i < 3; i++)
            if (i != 1 || baseline)
                argus_counters_print(counts[i], progs[i]);
    /* argus diagnose's ending: no hang is exit 1, with what was looked for */
    int exit_status = 0;
    if (status && argus_counters_get(counts[0], ARGUS_SPIN_COUNT_HANGS) == 0) {
        char note[512];
        if (argus_spin_no_hang_note(&spin, argus_reader_header(rd),
                                    argus_counters_get(counts[0], ARGUS_SPIN_COUNT_LOOPS), note,
                                    sizeof note))
            printf("%s\n", note);
        exit_status = 1;
    }
    for (int i = 0; i < 3; i++)
        argus_counters_free(counts[i]);
    argus_findings_free(&found);
    argus_diff_options_free(&diff);
    if (baseline) {
        argus_sim_index_free(ix);
        argus_graph_free(&base);
    }
    argus_graph_free(&g);
    argus_reader_close(rd);
    if (fflush(stdout) != 0)
        argus_die(ARGUS_EX_IOERR, "stdout: %s", strerror(errno));
    return exit_status;
}
