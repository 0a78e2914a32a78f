/* argus-decode's work: a trace to an argus stream, whatever its format
 * (include/argus/decode/decode.h, docs/stages/decode.md). */
#include "argus/decode/decode.h"
#include "argus/decode/ctf.h"
#include "argus/decode/ftrace.h"
#include "argus/decode/jsonl.h"
#include "argus/decode/perfdata.h"
#include "argus/decode/perfetto.h"
#include "argus/decode/tracedat.h"
#include "argus/stream/cli.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void fill(argus_input *in)
{
    if (!argus_input_fill(in))
        argus_die(ARGUS_EX_DATAERR, "%s: a line longer than %u MiB", in->name,
                  ARGUS_DECODE_MAX_LINE >> 20);
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
        {"BZh", 3, ", bzip2-compressed (bunzip2 it first: argus reads gzip and zstd)"},
        {"\3757zXZ", 6, ", xz-compressed (unxz it first: argus reads gzip and zstd)"},
        {"\027\010Dtracing", 10, ", a trace-cmd trace.dat file (--format tracedat reads it)"},
        {"PERFILE2", 8, ", a perf.data file (--format perfdata reads it)"},
        {"\x57\x1d\xd1\x75", 4, ", a CTF trace's metadata (give its directory, or --format ctf)"},
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
void argus_decode_check(argus_input *in, const char *format)
{
    while (!in->eof && in->hi - in->lo < 4096)
        fill(in);
    const uint8_t *b = in->buf + in->lo;
    size_t n = in->hi - in->lo;
    if (n == 0)
        argus_die(ARGUS_EX_DATAERR, "%s: empty input: no trace in it (0 bytes)", in->name);
    if (!format || strcmp(format, "kdebug") == 0 || strcmp(format, "argus") == 0 ||
        strcmp(format, "tracedat") == 0 || strcmp(format, "perfdata") == 0 ||
        strcmp(format, "perfetto") == 0 || strcmp(format, "ctf") == 0)
        return;
    const uint8_t *nul = memchr(b, 0, n);
    if (nul)
        argus_die(ARGUS_EX_DATAERR, "%s: not %s text: binary data%s (a NUL byte at byte %zu)%s",
                  in->name, format, binary_kind(b, n), (size_t)(nul - b),
                  argus_kd_sniff(b, n)   ? "; a kdebug file? --format kdebug"
                  : argus_pf_sniff(b, n) ? "; a Perfetto trace? --format perfetto"
                                         : "");
}

/* Whether the first lines are perf's text (perf script, with or without
 * its --header block "# ========" / "# captured on ..."). */
static bool looks_like_perf_script(const uint8_t *buf, size_t len)
{
    const char *p = (const char *)buf, *end = p + len;
    for (int lines = 0; p < end && lines < 64; lines++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        while (p < e && (*p == ' ' || *p == '\t'))
            p++;
        if (e - p >= 13 && memcmp(p, "# captured on", 13) == 0)
            return true;
        if (p < e && *p != '#')
            return argus_ft_perf_script_line(p, (size_t)(e - p));
        if (!nl)
            break;
        p = nl + 1;
    }
    return false;
}

/* The format told by the first bytes. */
const char *argus_decode_detect(argus_input *in)
{
    while (!in->eof && in->hi - in->lo < 4096)
        fill(in);
    if (argus_kd_sniff(in->buf + in->lo, in->hi - in->lo))
        return "kdebug";
    if (argus_td_sniff(in->buf + in->lo, in->hi - in->lo))
        return "tracedat";
    if (argus_pd_sniff(in->buf + in->lo, in->hi - in->lo))
        return "perfdata";
    if (argus_pf_sniff(in->buf + in->lo, in->hi - in->lo))
        return "perfetto";
    if (argus_ctf_sniff(in->buf + in->lo, in->hi - in->lo))
        return "ctf"; /* a trace's metadata file: its directory is read */
    if (argus_ft_sniff(in->buf + in->lo, in->hi - in->lo))
        return "ftrace";
    if (looks_like_perf_script(in->buf + in->lo, in->hi - in->lo))
        argus_die(ARGUS_EX_DATAERR,
                  "%s: perf script text, which argus does not read (its default fields drop "
                  "the process ids and nanoseconds): give argus the perf.data it printed "
                  "instead (argus diagnose perf.data; docs/inputs/perf.md)",
                  in->name);
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

static void decode_jsonl(argus_input *in, argus_writer *w, const char *command)
{
    argus_jsonl *d = argus_jsonl_new(w, command);
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
static void pass_through(argus_input *in, argus_writer *w, const char *command)
{
    argus_reader *rd = argus_reader_from_input(in);
    argus_write_header(w, argus_reader_header(rd), command);
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
static void decode_ftrace(argus_input *in, argus_writer *w, size_t window, bool verbose,
                          const char *command)
{
    argus_ft_options o = {.name = in->name, .command = command,
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

/* The end of a binary format rendered into ftrace lines for the ftrace
 * decoder D (trace.dat, perf.data, Perfetto, CTF): RC is the reader's, 0,
 * or -1 with its own message ERR, or -2 for the ftrace decoder's error.
 * The lines before an error stay: those of a -2, and of a -1 when the
 * reader fails mid-trace (MIDWAY; the others fail before any line). -v
 * prints the decoder's counters, then the reader's (PF, Perfetto's). */
static void finish_rendered(argus_ft *d, int rc, const char *err, bool midway, bool verbose,
                            const argus_pf_counts *pf)
{
    if (rc == -2 || (rc == -1 && midway))
        argus_ft_drain(d);
    if (verbose) {
        argus_ft_print_counts(d, stderr);
        if (pf)
            argus_pf_print_counts(pf, stderr);
    }
    if (rc == -1)
        argus_die(ARGUS_EX_DATAERR, "%s", err);
    if (rc < 0)
        argus_die(ARGUS_EX_DATAERR, "%s", argus_ft_error(d));
    argus_ft_free(d);
}

/* trace.dat and perf.data: rendered into ftrace lines
 * (include/argus/decode/tracedat.h, perfdata.h) for the ftrace decoder,
 * so a trace.dat's stream is that of the report's text. */
static void decode_tracedat(argus_input *in, argus_writer *w, size_t window, bool verbose,
                            const char *command, bool perfdata)
{
    argus_ft_options o = {.name = in->name, .command = command,
                          .window = window, .need_ftrace = true};
    argus_ft *d = argus_ft_new(w, &o);
    char err[512];
    int rc = perfdata ? argus_pd_read(d, in, err, sizeof err)
                      : argus_td_read(d, in, err, sizeof err);
    finish_rendered(d, rc, err, false, verbose, NULL);
}

/* Perfetto: its ftrace events rendered into ftrace lines
 * (include/argus/decode/perfetto.h) for the ftrace decoder. */
static void decode_perfetto(argus_input *in, argus_writer *w, size_t window, bool verbose,
                            const char *command)
{
    argus_ft_options o = {.name = in->name, .command = command, .window = window};
    argus_ft *d = argus_ft_new(w, &o);
    char err[768];
    argus_pf_counts counts;
    int rc = argus_pf_read(d, in, &counts, err, sizeof err);
    finish_rendered(d, rc < 0 ? -1 : rc, err, true, verbose, &counts);
}

/* A CTF trace (the directory DIR, NAME in messages): its events rendered
 * into ftrace lines (include/argus/decode/ctf.h) for the ftrace decoder. */
static void decode_ctf(const char *dir, const char *name, argus_writer *w, size_t window,
                       bool verbose, const char *command)
{
    argus_ft_options o = {.name = name, .command = command,
                          .window = window, .need_ftrace = true};
    argus_ft *d = argus_ft_new(w, &o);
    char err[1024];
    int rc = argus_ctf_read(d, dir, name, err, sizeof err);
    finish_rendered(d, rc, err, false, verbose, NULL);
}

bool argus_decode_is_dir(const char *path)
{
    struct stat st;
    return path && strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

void argus_decode_dir(const char *path, const char *format, argus_decode_options *o,
                      argus_writer *w)
{
    if (format && strcmp(format, "ctf") != 0)
        argus_die(ARGUS_EX_NOINPUT, "%s: a directory: --format %s reads a file (a directory "
                  "is read as a CTF trace)", path, format);
    if (o->kd_option && (o->kd.record_size || o->kd.kdebug_v0 || o->kd.tb_numer ||
                         o->codes_given))
        argus_usage_error("--codes, --timebase, --record-size and --kdebug-v0 are for "
                          "kdebug and trace-text input");
    /* not a trace at all: the input cannot be opened as one (66) */
    if (!argus_ctf_dir(path))
        argus_die(ARGUS_EX_NOINPUT, "%s: Is a directory, with no CTF trace in it (no file "
                  "'metadata' beginning '/* CTF 1.8' or with CTF's metadata magic, in it "
                  "or 4 levels below)", path);
    decode_ctf(path, path, w, o->kd.window, o->verbose, o->command);
}

void argus_decode_run(argus_input *in, const char *format, argus_decode_options *o,
                      argus_writer *w)
{
    if (strcmp(format, "ctf") == 0) {
        /* a metadata file: the trace is its directory */
        if (in->fd == 0 && strcmp(in->name, "<stdin>") == 0)
            argus_die(ARGUS_EX_DATAERR, "%s: CTF metadata on stdin: give the trace's "
                      "directory (its metadata and stream files)", in->name);
        char *copy = strdup(in->name);
        if (!copy)
            abort();
        char *dir = dirname(copy);
        if (!argus_ctf_dir(dir))
            argus_die(ARGUS_EX_DATAERR, "%s: not a CTF metadata file: it does not begin "
                      "'/* CTF 1.8' nor with CTF's metadata magic", in->name);
        argus_decode_dir(dir, format, o, w);
        free(copy);
        return;
    }
    bool kdebug = strcmp(format, "kdebug") == 0 || strcmp(format, "trace-text") == 0;
    bool perfdata = strcmp(format, "perfdata") == 0;
    bool tracedat = strcmp(format, "tracedat") == 0 || perfdata;
    bool perfetto = strcmp(format, "perfetto") == 0;
    bool ftrace = strcmp(format, "ftrace") == 0 || tracedat || perfetto;
    argus_kd_options *kd = &o->kd;
    if (ftrace && o->kd_option && (kd->record_size || kd->kdebug_v0 || kd->tb_numer ||
                                   o->codes_given))
        argus_usage_error("--codes, --timebase, --record-size and --kdebug-v0 are for "
                          "kdebug and trace-text input");
    if (tracedat) {
        decode_tracedat(in, w, kd->window, o->verbose, o->command, perfdata);
        return;
    }
    if (perfetto) {
        decode_perfetto(in, w, kd->window, o->verbose, o->command);
        return;
    }
    if (o->kd_option && !kdebug && !ftrace)
        argus_usage_error("--codes, --window, --timebase, --record-size and "
                          "--kdebug-v0 are for kdebug and trace-text input");
    if (strcmp(format, "argus") == 0) {
        pass_through(in, w, o->command);
    } else if (ftrace) {
        decode_ftrace(in, w, kd->window, o->verbose, o->command);
    } else if (kdebug) {
        kd->name = in->name;
        kd->command = o->command;
        decode_kdebug(in, w, format, kd, o->verbose);
    } else {
        decode_jsonl(in, w, o->command);
    }
}

void argus_decode_need_format(const char *format)
{
    static const char *const formats[] = {"argus", "jsonl", "kdebug", "trace-text",
                                          "ftrace", "tracedat", "perfdata", "perfetto",
                                          "ctf"};
    if (!format)
        return;
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
        if (strcmp(format, formats[i]) == 0)
            return;
    argus_usage_error("unknown format '%s' (known: argus, jsonl, kdebug, trace-text, "
                      "ftrace, tracedat, perfdata, perfetto, ctf)",
                      format);
}
