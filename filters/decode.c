/* argus-decode: a trace to an argus stream (docs/stages/decode.md). */
#include "argus/stream/cli.h"
#include "argus/decode/ftrace.h"
#include "argus/stream/input.h"
#include "argus/decode/jsonl.h"
#include "argus/decode/kdebug.h"
#include "argus/stream/stream.h"

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
    "Without --format the format is told from the first bytes (kdebug by its\n"
    "magic number, ftrace by its header or line shape).\n"
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
    "                       ftrace)\n"
    "      --codes FILE     kdebug, trace-text: more codes, trace.codes lines\n"
    "                       with an optional type column (repeatable; later\n"
    "                       entries override the built-in table)\n"
    "      --window N       kdebug, trace-text, ftrace: reorder window in\n"
    "                       records (default 65536; ftrace: lines, 16384)\n"
    "      --timebase N/D   kdebug: ns = ticks * N / D, over the file's own\n"
    "                       (V0 and V1 files have none: ns; Apple silicon 125/3)\n"
    "      --record-size B  kdebug: 64 or 32-byte records, over the file's flag\n"
    "                       or the guess (V0, V1)\n"
    "      --kdebug-v0      kdebug: the file is RAW_VERSION0 (it has no magic)\n"
    "  -v, --verbose        kdebug, trace-text, ftrace: counters on stderr at\n"
    "                       the end (ftrace: lines kept as ftrace events, ...)\n"
    "  -h, --help           show this help\n"
    "      --version        show the version\n";

/* A line may be as long as this. */
#define MAX_LINE (256u << 20)

static void fill(argus_input *in)
{
    if (!argus_input_fill(in))
        argus_die(ARGUS_EX_DATAERR, "%s: a line longer than %u MiB", in->name,
                  MAX_LINE >> 20);
}

/* Whether the first lines look like trace(1) text: its column header, a
 * ctime date line, or an event line "ABSTIME DELTA ...". */
static bool looks_like_trace_text(const uint8_t *buf, size_t len)
{
    const char *p = (const char *)buf, *end = p + len;
    for (int lines = 0; p < end && lines < 8; lines++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        while (p < e && (*p == ' ' || *p == '\t' || *p == '\r'))
            p++;
        if (p < e) {
            if (memmem(p, (size_t)(e - p), "AbsTime(", 8))
                return true;
            static const char *const days[] = {"Mon ", "Tue ", "Wed ", "Thu ",
                                               "Fri ", "Sat ", "Sun "};
            for (int i = 0; i < 7; i++)
                if (e - p > 4 && memcmp(p, days[i], 4) == 0)
                    return true;
            /* two decimal numbers with one digit after the point */
            int numbers = 0;
            const char *q = p;
            while (numbers < 2 && q < e) {
                const char *s = q;
                while (q < e && *q >= '0' && *q <= '9')
                    q++;
                if (q == s || q + 1 >= e || *q != '.' || q[1] < '0' || q[1] > '9')
                    break;
                q += 2;
                numbers++;
                while (q < e && (*q == ' ' || *q == '\t'))
                    q++;
            }
            return numbers == 2;
        }
        if (!nl)
            break;
        p = nl + 1;
    }
    return false;
}

/* What binary bytes are, for a message, when they are one of the files
 * given by mistake: ", an ELF executable" and the like, else "". */
static const char *binary_kind(const uint8_t *b, size_t n)
{
    static const struct { const char *magic; size_t len; const char *what; } kinds[] = {
        {"\177ELF", 4, ", an ELF executable or library"},
        {"\037\213", 2, ", gzip-compressed (gunzip it first)"},
        {"BZh", 3, ", bzip2-compressed (bunzip2 it first)"},
        {"\3757zXZ", 6, ", xz-compressed (unxz it first)"},
        {"\050\265\057\375", 4, ", zstd-compressed (unzstd it first)"},
        {"\027\010Dtracing", 10, ", a trace-cmd trace.dat file (decode reads the text "
                                 "of 'trace-cmd report')"},
        {"PERFILE2", 8, ", a perf.data file (not read)"},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (n >= kinds[i].len && memcmp(b, kinds[i].magic, kinds[i].len) == 0)
            return kinds[i].what;
    return "";
}

/* An input decode cannot read whatever the format: nothing at all, or
 * binary where a text format was asked for (a text trace has no NUL
 * byte; kdebug files and streams are binary and have checks of their
 * own). Both are data errors (65), not an empty stream or a trace of
 * lines not understood. */
static void check_content(argus_input *in, const char *format)
{
    while (!in->eof && in->hi - in->lo < 4096)
        fill(in);
    const uint8_t *b = in->buf + in->lo;
    size_t n = in->hi - in->lo;
    if (n == 0)
        argus_die(ARGUS_EX_DATAERR, "%s: empty input: no trace in it (0 bytes)", in->name);
    if (!format || strcmp(format, "kdebug") == 0 || strcmp(format, "argus") == 0)
        return;
    const uint8_t *nul = memchr(b, 0, n);
    if (nul)
        argus_die(ARGUS_EX_DATAERR, "%s: not %s text: binary data%s (a NUL byte at byte %zu)%s",
                  in->name, format, binary_kind(b, n), (size_t)(nul - b),
                  argus_kd_sniff(b, n) ? "; a kdebug file? --format kdebug" : "");
}

/* The format told by the first bytes. */
static const char *detect(argus_input *in)
{
    while (!in->eof && in->hi - in->lo < 4096)
        fill(in);
    if (argus_kd_sniff(in->buf + in->lo, in->hi - in->lo))
        return "kdebug";
    if (argus_ft_sniff(in->buf + in->lo, in->hi - in->lo))
        return "ftrace";
    for (size_t i = in->lo; i < in->hi; i++) {
        char c = (char)in->buf[i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
            continue;
        if (c == '{' || c == '#')
            return "jsonl";
        if ((uint8_t)c >= 0xa0 && (uint8_t)c <= 0xbf) /* a CBOR map */
            return "argus";
        break;
    }
    if (looks_like_trace_text(in->buf + in->lo, in->hi - in->lo))
        return "trace-text";
    const uint8_t *b = in->buf + in->lo;
    size_t n = in->hi - in->lo;
    if (memchr(b, 0, n))
        argus_die(ARGUS_EX_DATAERR,
                  "%s: cannot tell the input format: binary data%s, not a kdebug file "
                  "nor an argus stream; give --format if it is one",
                  in->name, binary_kind(b, n));
    argus_die(ARGUS_EX_DATAERR, "%s: cannot tell the input format; give --format",
              in->name);
}

static void decode_jsonl(argus_input *in, argus_writer *w)
{
    argus_jsonl *d = argus_jsonl_new(w, argus_command_line());
    uint64_t line = 0;
    for (;;) {
        char *start = (char *)in->buf + in->lo;
        char *nl = memchr(start, '\n', in->hi - in->lo);
        if (!nl && !in->eof) {
            fill(in);
            continue;
        }
        if (!nl && in->hi == in->lo)
            break;
        size_t len = nl ? (size_t)(nl - start) : in->hi - in->lo;
        line++;
        if (argus_jsonl_line(d, start, len) < 0)
            argus_die(ARGUS_EX_DATAERR, "%s:%llu: %s", in->name,
                      (unsigned long long)line, argus_jsonl_error(d));
        in->lo += len + (nl ? 1 : 0);
    }
    argus_jsonl_finish(d);
    argus_jsonl_free(d);
}

/* An argus stream: every record checked by the reader and copied. */
static void pass_through(argus_input *in, argus_writer *w)
{
    argus_reader *rd = argus_reader_from_input(in);
    argus_write_header(w, argus_reader_header(rd), argus_command_line());
    const argus_record *r;
    while ((r = argus_read(rd)))
        argus_write_record(w, r);
    argus_reader_close(rd);
}

/* kdebug and trace-text: the decoder of include/argus/decode/kdebug.h. */
static void decode_kdebug(argus_input *in, argus_writer *w, const char *format,
                          argus_kd_options *o, bool verbose)
{
    argus_kd *d = argus_kd_new(w, o);
    int rc = strcmp(format, "kdebug") == 0 ? argus_kd_read_binary(d, in)
                                           : argus_kd_read_text(d, in);
    if (verbose)
        argus_kd_print_counts(d, stderr);
    if (rc < 0)
        argus_die(ARGUS_EX_DATAERR, "%s", argus_kd_error(d));
    argus_kd_free(d);
}

/* ftrace: the decoder of include/argus/decode/ftrace.h. */
static void decode_ftrace(argus_input *in, argus_writer *w, size_t window, bool verbose)
{
    argus_ft_options o = {.name = in->name, .command = argus_command_line(),
                          .window = window, .need_ftrace = true};
    argus_ft *d = argus_ft_new(w, &o);
    int rc = argus_ft_read(d, in);
    if (rc < 0)
        argus_ft_drain(d); /* the lines before the error stay */
    if (verbose)
        argus_ft_print_counts(d, stderr);
    if (rc < 0)
        argus_die(ARGUS_EX_DATAERR, "%s", argus_ft_error(d));
    argus_ft_free(d);
}

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
    argus_kd_options kd = {0};
    argus_kd_codes *codes = argus_kd_codes_default();
    bool kd_option = false, kd_codes_given = false;
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
            kd_option = kd_codes_given = true;
            break;
        }
        case OPT_WINDOW:
            kd.window = argus_parse_uint_option("--window", optarg, 1, 1u << 28, " records");
            kd_option = true;
            break;
        case OPT_TIMEBASE: parse_timebase(optarg, &kd); kd_option = true; break;
        case OPT_RECORD_SIZE:
            kd.record_size = (unsigned)argus_parse_uint_option("--record-size", optarg, 32, 64,
                                                                " (32 or 64)");
            if (kd.record_size != 32 && kd.record_size != 64)
                argus_usage_error("--record-size is 32 or 64");
            kd_option = true;
            break;
        case OPT_V0: kd.kdebug_v0 = true; kd_option = true; break;
        default: argus_common_option(c, usage, &common, argv);
        }
    }
    const char *input = argus_input_arg(argc, argv);
    static const char *const formats[] = {"argus", "jsonl", "kdebug", "trace-text",
                                          "ftrace"};
    bool known = !format;
    for (size_t i = 0; format && i < sizeof formats / sizeof *formats; i++)
        known |= strcmp(format, formats[i]) == 0;
    if (!known)
        argus_usage_error("unknown format '%s' (known: argus, jsonl, kdebug, trace-text, "
                          "ftrace)",
                          format);
    if (kd.kdebug_v0 && !format)
        format = "kdebug";

    argus_input in;
    argus_input_open(&in, input, MAX_LINE);
    check_content(&in, format);
    argus_writer *w = argus_writer_stream();
    if (!format)
        format = detect(&in);
    bool kdebug = strcmp(format, "kdebug") == 0 || strcmp(format, "trace-text") == 0;
    bool ftrace = strcmp(format, "ftrace") == 0;
    if (ftrace && kd_option && (kd.record_size || kd.kdebug_v0 || kd.tb_numer ||
                                kd_codes_given))
        argus_usage_error("--codes, --timebase, --record-size and --kdebug-v0 are for "
                          "kdebug and trace-text input");
    if (kd_option && !kdebug && !ftrace)
        argus_usage_error("--codes, --window, --timebase, --record-size and "
                          "--kdebug-v0 are for kdebug and trace-text input");
    if (strcmp(format, "argus") == 0) {
        pass_through(&in, w);
    } else if (ftrace) {
        decode_ftrace(&in, w, kd.window, common.verbose);
    } else if (kdebug) {
        kd.name = in.name;
        kd.command = argus_command_line();
        kd.codes = codes;
        decode_kdebug(&in, w, format, &kd, common.verbose);
    } else {
        decode_jsonl(&in, w);
    }
    argus_kd_codes_free(codes);
    argus_writer_close(w);
    argus_input_close(&in);
    return 0;
}
