/* argus-export: a graph stream, with its findings when it has them, as a
 * file other tools draw: Chrome trace-event JSON for Perfetto's UI and
 * chrome://tracing, Graphviz DOT, or an HTML page (docs/stages/export.md).
 * This is its command line; each format is a file of lib/view/ (export-*.c,
 * argus/view/export.h). */
#include "argus/view/export.h"
#include "argus/stream/cli.h"
#include "argus/stream/text.h"
#include "argus/stream/stream.h"
#include "argus/stream/table.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char usage[] =
    "Usage: argus-export [--output-format perfetto|dot|html] [--around N]\n"
    "                    [--window FROM..TO] [GRAPH|-]\n"
    "Export a graph stream and its findings for Perfetto's UI, Graphviz or a browser.\n"
    "Reads a graph stream (argus graph), with the findings of\n"
    "argus-find-spinning, argus-similar and argus-diff when it has them.\n"
    "\n"
    "  perfetto: Chrome trace-event JSON (ui.perfetto.dev, chrome://tracing,\n"
    "            DevTools' Performance panel): a track per thread, grouped\n"
    "            by process; each segment a slice (category \"segment\")\n"
    "            named by what it did, its key events as args; each edge a\n"
    "            flow arrow named by its kind (\"KIND (weak)\" for a weak\n"
    "            one), its events at its two slices' starts where the\n"
    "            second starts later (else at the edge's events); the\n"
    "            hang, causal path, wait chain and culprit segments marked\n"
    "            in args.marks (\"hang\", \"path\", \"chain\", \"culprit\"),\n"
    "            an instant event at each hang, path and culprit segment\n"
    "            (categories \"hang\", \"path\", \"culprit\").\n"
    "            Times are microseconds on the trace's own clock. The\n"
    "            whole export streams in bounded memory (--around and\n"
    "            --window load the graph): the open segments and the edges\n"
    "            not yet drawn, whatever the trace's length; where past events\n"
    "            were goes to a temporary file in TMPDIR (40 bytes an\n"
    "            event). Reads GRAPH twice (findings come last); standard\n"
    "            input is first copied to a temporary file.\n"
    "  dot:      Graphviz of the hangs' causal paths, wait chains and\n"
    "            culprits (a graph without findings: the whole graph up to\n"
    "            200 segments, else exit 1): a node per segment, a cluster\n"
    "            per process, edges by kind (weak ones dashed), the hang\n"
    "            and the culprits filled. Render with dot -Tsvg.\n"
    "  html:     one self-contained page (no network): the verdict, the\n"
    "            report (--report), and a timeline of the threads of the\n"
    "            first hang (--around N: hang N), its causal path, wait\n"
    "            chain and culprits, drawn in SVG by the page's script:\n"
    "            segments as bars (running, blocked, runnable), edges as\n"
    "            arrows, zoom and pan, a segment's events on hover and\n"
    "            click; with --baseline, the baseline's similar node and\n"
    "            the culprits' counterparts on a second timeline. At\n"
    "            most 5000 segments a timeline, the hang's, path's, chain's\n"
    "            and culprits' first; the page says what it left out.\n"
    "\n"
    "Exit status: 0 when written; 1 when there is nothing to draw (dot) or\n"
    "no hang N; 64 on a bad command line; 65 on bad input; 66 when GRAPH\n"
    "(or the --report or --baseline file) is missing.\n"
    "\n"
    "      --output-format F  perfetto (default), dot or html (-f, --format F:\n"
    "                   its old spelling)\n"
    "  -a, --around N   only hang N (the hang record's number, from 0) and\n"
    "                   its neighbourhood: perfetto, every segment of the\n"
    "                   threads of its hang, causal path, wait chain and\n"
    "                   culprits between the first of those segments' start\n"
    "                   and the last one's end (html: the same, as a\n"
    "                   timeline); dot, those segments only\n"
    "      --window FROM..TO  perfetto: only the segments ongoing between\n"
    "                   FROM and TO, in seconds as the report prints times\n"
    "                   (the trace's own clock: 1076.5..1078.5), and their\n"
    "                   threads\n"
    "  -r, --report FILE        html: the report's text (argus report) to show\n"
    "  -b, --baseline GRAPH     html: the baseline's graph stream, which the\n"
    "                           findings' match and culprit records name\n"
    "      --baseline-name NAME html: what the page calls it (default GRAPH)\n"
    "  -h, --help       show this help\n"
    "      --version    show the version\n";


int main(int argc, char **argv)
{
    argus_cli_init(argc, argv);
    export_state X = {.around = -1, .first_event = true};
    static const struct option opts[] = {
        {"output-format", required_argument, 0, 'f'},
        {"format", required_argument, 0, 'f'}, /* the old spelling, as -f */
        {"around", required_argument, 0, 'a'},
        {"window", required_argument, 0, 'w'},
        {"report", required_argument, 0, 'r'},
        {"baseline", required_argument, 0, 'b'},
        {"baseline-name", required_argument, 0, 'B'},
        ARGUS_OPTION_HELP,
        ARGUS_OPTION_VERSION,
        {0, 0, 0, 0},
    };
    argus_options common = ARGUS_OPTIONS_DEFAULT;
    enum { PERFETTO, DOT, HTML } format = PERFETTO;
    const char *report = NULL, *baseline = NULL, *base_name = NULL;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "f:a:r:b:w:h", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (strcmp(optarg, "perfetto") == 0)
                format = PERFETTO;
            else if (strcmp(optarg, "dot") == 0)
                format = DOT;
            else if (strcmp(optarg, "html") == 0)
                format = HTML;
            else
                argus_usage_error("--output-format must be perfetto, dot or html, not '%s'",
                                  optarg);
            break;
        case 'r': report = optarg; break;
        case 'b': baseline = optarg; break;
        case 'B': base_name = optarg; break;
        case 'w': {
            const char *dots = strstr(optarg, "..");
            X.windowed = true;
            if (!dots || !argus_export_parse_secs(optarg, (size_t)(dots - optarg), &X.window_from) ||
                !argus_export_parse_secs(dots + 2, strlen(dots + 2), &X.window_to) ||
                X.window_to <= X.window_from)
                argus_usage_error("--window must be FROM..TO, times as the report "
                                  "prints them, FROM < TO (as 0.5..2.5), not '%s'",
                                  optarg);
            break;
        }
        case 'a': {
            X.around = (long)argus_parse_uint_option("--around", optarg, 0, INT32_MAX, NULL);
            break;
        }
        case '?': argus_bad_option(argv);
        default: argus_common_option(c, usage, &common, argv);
        }
    }
    const char *input = argus_input_arg(argc, argv);
    if (X.windowed && (format != PERFETTO || X.around >= 0))
        argus_usage_error("--window is for --output-format perfetto, without --around");
    if (format != HTML && (report || baseline || base_name))
        argus_usage_error("--report, --baseline and --baseline-name are for --format html");
    argus_table_init(&X.marks, sizeof(export_mark));
    static char obuf[1 << 20];
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
    int status = 0;
    if (format == DOT) {
        status = argus_export_dot(&X, input);
    } else {
        if (!input || strcmp(input, "-") == 0)
            argus_export_make_stdin_seekable();
        if (format == HTML)
            status = argus_export_html(&X, input, report, baseline, base_name);
        else
            argus_export_perfetto(&X, input);
    }
    argus_close_stdout();
    argus_table_free(&X.marks);
    free(X.hangs);
    free(X.cores);
    free(X.links);
    return status;
}
