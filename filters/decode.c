/* argus-decode: a trace to an argus stream (docs/stages/decode.md). */
#include "argus/cli.h"
#include "argus/input.h"
#include "argus/jsonl.h"
#include "argus/stream.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: argus-decode [--format FORMAT] [FILE|-]\n"
    "Decode a trace into an argus event stream (CBOR) on stdout.\n"
    "\n"
    "Formats:\n"
    "  argus    an argus stream already (CBOR): checked and passed through,\n"
    "           with this stage added to the header\n"
    "  jsonl    JSON lines, one record a line; '#' comment lines and blank\n"
    "           lines are skipped. A first line of type \"stream\" makes it a\n"
    "           rendered stream (argus-to-json output), taken as it is. Else it\n"
    "           is a hand-written trace: decode writes the header, numbers the\n"
    "           events in order, fills an event's pid from its thread record,\n"
    "           and applies the rules below.\n"
    "Without --format the format is told from the first bytes.\n"
    "\n"
    "Rules (docs/stages/decode.md, spec graph-rules.md):\n"
    "  DEC-WOKEN  after a wait, a woken (synth: true) at the ts of the\n"
    "             thread's next event, unless the input has its own; its\n"
    "             result is the one the ending wakeup gives\n"
    "  DEC-ORDER  input must be in ts order (an error names the line); ids\n"
    "             are given in output order\n"
    "\n"
    "  -f, --format FORMAT  input format (argus, jsonl)\n"
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

/* The format told by the first non-blank byte. */
static const char *detect(argus_input *in)
{
    while (!in->eof && in->hi - in->lo < 4096)
        fill(in);
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
    if (in->hi == in->lo)
        return "jsonl"; /* empty: an empty trace */
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

int main(int argc, char **argv)
{
    argus_cli_init(argc, argv);
    static const struct option opts[] = {
        {"format", required_argument, 0, 'f'},
        ARGUS_OPTION_HELP,
        ARGUS_OPTION_VERSION,
        {0, 0, 0, 0},
    };
    const char *format = NULL;
    argus_options common = ARGUS_OPTIONS_DEFAULT;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
        switch (c) {
        case 'f': format = optarg; break;
        default: argus_common_option(c, usage, &common, argv);
        }
    }
    const char *input = argus_input_arg(argc, argv);
    if (format && strcmp(format, "jsonl") != 0 && strcmp(format, "argus") != 0)
        argus_usage_error("unknown format '%s' (known: argus, jsonl)", format);

    argus_input in;
    argus_input_open(&in, input, MAX_LINE);
    argus_writer *w = argus_writer_stdout();
    if (!format)
        format = detect(&in);
    if (strcmp(format, "argus") == 0)
        pass_through(&in, w);
    else
        decode_jsonl(&in, w);
    argus_writer_close(w);
    argus_input_close(&in);
    return 0;
}
