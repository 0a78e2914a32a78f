/* argus-decode: a trace to an argus stream (docs/stages/decode.md). */
#include "argus/decode/decode.h"
#include "argus/stream/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "Usage: argus-decode [--format FORMAT] [OPTIONS] [FILE|-]\n"
    "Decode a trace into an argus event stream (CBOR) on stdout.\n"
    "\n"
    "Formats:\n"
    "  argus       an argus stream already (CBOR): checked and passed through,\n"
    "              with this stage added to the header\n"
    "  jsonl       JSON lines, one record a line; '#' comment lines and blank\n"
    "              lines are skipped. A first line of type \"stream\" makes it a\n"
    "              rendered stream (argus-to-json output), taken as it is. Else\n"
    "              it is a hand-written trace: decode writes the header,\n"
    "              numbers the events in order, fills an event's pid from its\n"
    "              thread record, and applies the rules below.\n"
    "  kdebug      a macOS kdebug trace file: RAW_VERSION1, 2 and 3 (ktrace,\n"
    "              artrace, Instruments), 64- or 32-bit records; RAW_VERSION0\n"
    "              with --kdebug-v0 (docs/inputs/macos.md)\n"
    "  trace-text  the text macOS trace(1) prints (trace -t, trace -R)\n"
    "  ftrace      Linux ftrace text: tracefs trace/trace_pipe (with or without\n"
    "              the irq-flags and (tgid) columns), trace-cmd report, Android\n"
    "              atrace/systrace text and HTML, argus-record output\n"
    "              (docs/inputs/linux.md)\n"
    "  tracedat    trace-cmd's trace.dat, versions 6 and 7 (compressed or not),\n"
    "              read with libtracecmd: the stream of its 'trace-cmd report\n"
    "              -t' text read as ftrace\n"
    "  perfdata    perf's perf.data of tracepoints (perf record -e sched:...,\n"
    "              perf sched record; piped too): each sample rendered through\n"
    "              its event's format into the ftrace line tracefs prints\n"
    "              (docs/inputs/perf.md)\n"
    "  perfetto    a Perfetto protobuf trace (Linux, Android): its ftrace\n"
    "              events and compact_sched, merged in time order and read as\n"
    "              ftrace lines; its process tree (docs/inputs/perfetto.md)\n"
    "  ctf         a CTF 1.8 trace directory (LTTng kernel traces, perf data\n"
    "              convert --to-ctf), read with libbabeltrace2: its events as\n"
    "              the ftrace lines of their tracepoints (docs/inputs/ctf.md)\n"
    "Without --format the format is told from the first bytes (kdebug,\n"
    "trace.dat and perf.data by their magic number, Perfetto by its first\n"
    "packet, ftrace by its header or line shape); a directory is a CTF trace\n"
    "(its metadata file in it or below), and so is a CTF metadata file given\n"
    "alone (its directory is read).\n"
    "\n"
    "Rules (docs/stages/decode.md; all rules: docs/rules.md):\n"
    "  DEC-WOKEN  after a wait, a woken (synth: true) at the ts of the\n"
    "             thread's next event, unless the input has its own (kdebug:\n"
    "             the context switch that runs the thread again; ftrace: the\n"
    "             sched_switch to it); its result is the one the ending\n"
    "             wakeup gives\n"
    "  DEC-ORDER  jsonl input must be in ts order (an error names the line);\n"
    "             kdebug records and ftrace lines are merged into ts order\n"
    "             through a reorder window, one later than the window allows\n"
    "             is an error naming its byte offset (text: its line); ids\n"
    "             are given in output order\n"
    "\n"
    "  -f, --format FORMAT  input format (argus, jsonl, kdebug, trace-text,\n"
    "                       ftrace, tracedat, perfdata, perfetto, ctf)\n"
    "      --codes FILE     kdebug, trace-text: more codes, trace.codes lines\n"
    "                       with an optional type column (repeatable; later\n"
    "                       entries override the built-in table)\n"
    "      --window N       kdebug, trace-text, ftrace, tracedat, perfdata,\n"
    "                       perfetto, ctf: reorder window in records (default\n"
    "                       65536; ftrace, tracedat, perfdata, perfetto, ctf:\n"
    "                       lines, 16384)\n"
    "      --timebase N/D   kdebug: ns = ticks * N / D, over the file's own\n"
    "                       (V0 and V1 files have none: ns; Apple silicon 125/3)\n"
    "      --record-size B  kdebug: 64 or 32-byte records, over the file's flag\n"
    "                       or the guess (V0, V1)\n"
    "      --kdebug-v0      kdebug: the file is RAW_VERSION0 (it has no magic)\n"
    "  -v, --verbose        kdebug, trace-text, ftrace, tracedat, perfdata,\n"
    "                       perfetto, ctf: counters on stderr at the end\n"
    "                       (ftrace: lines kept as ftrace events, ...;\n"
    "                       perfetto: packets, bundles)\n"
    "  -h, --help           show this help\n"
    "      --version        show the version\n";

static void parse_timebase(const char *text, argus_kd_options *o)
{
    char numer[32]; /* N, split off for the shared parser */
    const char *slash = strchr(text, '/');
    uint64_t n = 0, dn = 0;
    size_t len = slash ? (size_t)(slash - text) : sizeof numer;
    if (len < sizeof numer) {
        memcpy(numer, text, len);
        numer[len] = 0;
    }
    if (len >= sizeof numer ||
        argus_parse_uint(numer, 1, UINT32_MAX, &n) != ARGUS_UINT_OK ||
        argus_parse_uint(slash + 1, 1, UINT32_MAX, &dn) != ARGUS_UINT_OK)
        argus_usage_error("--timebase wants N/D, two integers 1..%u (e.g. 125/3)", UINT32_MAX);
    o->tb_numer = (uint32_t)n;
    o->tb_denom = (uint32_t)dn;
}

int main(int argc, char **argv)
{
    argus_cli_init(argc, argv);
    enum { OPT_CODES = 1000, OPT_WINDOW, OPT_TIMEBASE, OPT_RECORD_SIZE, OPT_V0 };
    static const struct option opts[] = {
        {"format", required_argument, 0, 'f'},
        {"codes", required_argument, 0, OPT_CODES},
        {"window", required_argument, 0, OPT_WINDOW},
        {"timebase", required_argument, 0, OPT_TIMEBASE},
        {"record-size", required_argument, 0, OPT_RECORD_SIZE},
        {"kdebug-v0", no_argument, 0, OPT_V0},
        ARGUS_OPTION_VERBOSE,
        ARGUS_OPTION_HELP,
        ARGUS_OPTION_VERSION,
        {0, 0, 0, 0},
    };
    const char *format = NULL;
    argus_options common = ARGUS_OPTIONS_DEFAULT;
    argus_decode_options o = {0};
    argus_kd_codes *codes = argus_kd_codes_default();
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "f:hv", opts, NULL)) != -1) {
        switch (c) {
        case 'f': format = optarg; break;
        case OPT_CODES: {
            char err[512];
            if (argus_kd_codes_load(codes, optarg, err, sizeof err) < 0)
                argus_die(access(optarg, R_OK) == 0 ? ARGUS_EX_DATAERR : ARGUS_EX_NOINPUT,
                          "%s", err);
            o.kd_option = o.codes_given = true;
            break;
        }
        case OPT_WINDOW:
            o.kd.window = argus_parse_uint_option("--window", optarg, 1, 1u << 28, " records");
            o.kd_option = true;
            break;
        case OPT_TIMEBASE: parse_timebase(optarg, &o.kd); o.kd_option = true; break;
        case OPT_RECORD_SIZE:
            o.kd.record_size = (unsigned)argus_parse_uint_option("--record-size", optarg, 32,
                                                                  64, " (32 or 64)");
            if (o.kd.record_size != 32 && o.kd.record_size != 64)
                argus_usage_error("--record-size is 32 or 64");
            o.kd_option = true;
            break;
        case OPT_V0: o.kd.kdebug_v0 = true; o.kd_option = true; break;
        default: argus_common_option(c, usage, &common, argv);
        }
    }
    const char *input = argus_input_arg(argc, argv);
    /* run by argus graph or diagnose: its messages name that command */
    if (argus_cli_user_command())
        argus_cli_thread_prog(argus_cli_user_command());
    argus_decode_need_format(format, input);
    if (o.kd.kdebug_v0 && !format)
        format = "kdebug";
    o.kd.codes = codes;
    o.verbose = common.verbose;
    o.command = argus_command_line();

    if (argus_decode_is_dir(input)) { /* a CTF trace */
        argus_writer *w = argus_writer_stream();
        argus_decode_dir(input, format, &o, w);
        argus_kd_codes_free(codes);
        argus_writer_close(w);
        return 0;
    }
    argus_input in;
    argus_input_open(&in, input, ARGUS_DECODE_MAX_LINE);
    argus_decode_check(&in, format);
    argus_writer *w = argus_writer_stream();
    if (!format)
        format = argus_decode_detect(&in);
    argus_decode_run(&in, format, &o, w);
    argus_kd_codes_free(codes);
    argus_writer_close(w);
    argus_input_close(&in);
    return 0;
}
