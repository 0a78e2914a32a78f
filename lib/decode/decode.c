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
#include <strings.h>
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

#define READS ARGUS_DECODE_READS

/* The command the user typed (argus diagnose, from scripts/argus), else
 * this program: a message about the input is said by it and names it
 * in the command it suggests, never an internal program's name. */
static const char *user_command(void)
{
    const char *u = argus_cli_user_command();
    if (u)
        argus_cli_thread_prog(u);
    if (u || strcmp(argus_prog(), "argus-decode") == 0)
        return u ? u : "argus-decode";
    return "argus diagnose";    /* argus-chain, run alone: not a command for a trace */
}

/* What binary bytes are, for a message, when they are one of the files
 * given by mistake or a trace given with the wrong --format: "an ELF
 * executable" and the like, with the format argus reads it as (NULL:
 * none), else NULL. */
typedef struct { const char *what, *format; } binary_kind;
static binary_kind binary_kind_of(const uint8_t *b, size_t n)
{
    static const struct { const char *magic; size_t len; binary_kind kind; } kinds[] = {
        {"\177ELF", 4, {"an ELF executable or library", NULL}},
        {"BZh", 3, {"bzip2-compressed data (argus reads gzip and zstd, not bzip2)", NULL}},
        {"\3757zXZ", 6, {"xz-compressed data (argus reads gzip and zstd, not xz)", NULL}},
        {"\027\010Dtracing", 10, {"a trace-cmd trace.dat file", "tracedat"}},
        {"PERFILE2", 8, {"a perf.data file", "perfdata"}},
        {"\x57\x1d\xd1\x75", 4, {"a CTF trace's metadata", "ctf"}},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (n >= kinds[i].len && memcmp(b, kinds[i].magic, kinds[i].len) == 0)
            return kinds[i].kind;
    if (argus_kd_sniff(b, n))
        return (binary_kind){"a macOS kdebug file", "kdebug"};
    if (argus_pf_sniff(b, n))
        return (binary_kind){"a Perfetto trace", "perfetto"};
    return (binary_kind){NULL, NULL};
}

/* Ends (65) on an input that is WHAT (a Python program...), not a trace:
 * what argus reads, and the command that records one of PROGRAM (NULL:
 * the user's) running. */
static _Noreturn void not_a_trace_as(argus_input *in, const char *what, const char *format,
                                     const char *program)
{
    const char *user = user_command();
    (void)user;
    char isnt[64];
    if (format)
        snprintf(isnt, sizeof isnt, "neither %s text nor another trace", format);
    argus_die(ARGUS_EX_DATAERR,
              "%s: %s, %s argus reads (" READS "); record a trace %s: "
              "sudo argus record -o trace.txt -- %s",
              in->name, what, format ? isnt : "not a trace",
              program ? "of it running" : "while the program hangs",
              program ? program : "PROGRAM");
}

static _Noreturn void not_a_trace(argus_input *in, const char *what, const char *program)
{
    not_a_trace_as(in, what, NULL, program);
}

/* A compressed file argus does not read: the command that uncompresses it. */
static _Noreturn void compressed(argus_input *in, const char *what, const char *tool,
                                 const char *suffix)
{
    const char *user = user_command();
    size_t len = strlen(in->name), slen = strlen(suffix);
    int keep = (int)(len > slen && strcmp(in->name + len - slen, suffix) == 0 ? len - slen : len);
    argus_die(ARGUS_EX_DATAERR, "%s: %s: %s -k %s, then %s %.*s%s", in->name, what, tool,
              in->name, user, keep, in->name, keep == (int)len ? ".out" : "");
}

/* The first line that is not blank, in LINE (at most SIZE - 1 bytes). */
static void first_line(const uint8_t *b, size_t n, char *line, size_t size)
{
    size_t i = 0, k = 0;
    while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n'))
        i++;
    for (; i < n && b[i] != '\n' && b[i] != '\r' && k + 1 < size; i++)
        line[k++] = (char)b[i];
    line[k] = 0;
}

/* Whether B is a script or a program's source given as a trace: "a
 * python3 script" and how to run it (python3 FILE) in RUN, else false. */
static bool looks_like_program(const uint8_t *b, size_t n, const char *name, char *what,
                               size_t what_size, char *run, size_t run_size)
{
    char line[256];
    first_line(b, n, line, sizeof line);
    if (strncmp(line, "#!", 2) == 0) {
        /* #!/usr/bin/python3, #!/usr/bin/env python3: the interpreter's name */
        char *p = line + 2;
        while (*p == ' ')
            p++;
        char *end = p + strcspn(p, " \t");
        char *base = p;
        for (char *q = p; q < end; q++)
            if (*q == '/')
                base = q + 1;
        if ((size_t)(end - base) == 3 && memcmp(base, "env", 3) == 0) {
            base = end + strspn(end, " \t");
            end = base + strcspn(base, " \t");
        }
        int len = (int)(end - base);
        if (len <= 0)
            return false;
        snprintf(what, what_size, "a %.*s script", len, base);
        snprintf(run, run_size, "%.*s %s", len, base, name);
        return true;
    }
    static const char *const python[] = {"import ", "from ", "def ", "class ", "\"\"\""};
    for (size_t i = 0; i < sizeof python / sizeof *python; i++)
        if (strncmp(line, python[i], strlen(python[i])) == 0) {
            snprintf(what, what_size, "a Python program");
            snprintf(run, run_size, "python3 %s", name);
            return true;
        }
    return false;
}

/* An HTML page given as a trace: argus's own page (argus diagnose --html
 * wrote it) is shown in a browser; with OTHER, another page (one no
 * format took) is not a trace. */
static void refuse_html(argus_input *in, const uint8_t *b, size_t n, bool other)
{
    char line[32];
    first_line(b, n, line, sizeof line);
    if (strncasecmp(line, "<!doctype html", 14) != 0 && strncasecmp(line, "<html", 5) != 0)
        return;
    static const char generator[] = "<meta name=\"generator\" content=\"argus-export\">";
    if (!memmem(b, n, generator, sizeof generator - 1)) {
        /* systrace's HTML holds a trace: only one no format took is refused */
        if (!other)
            return;
        not_a_trace(in, "an HTML page", NULL);
    }
    const char *user = user_command();
    argus_die(ARGUS_EX_DATAERR,
              "%s: argus's own HTML page (argus diagnose --html wrote it), not a trace: open "
              "it in a browser (xdg-open %s); %s reads the trace the page was made from",
              in->name, in->name, strncmp(user, "argus-", 6) == 0 ? "argus diagnose" : user);
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
    if (n == 0 && user_command())
        argus_die(ARGUS_EX_DATAERR, "%s: empty input: no trace in it (0 bytes)", in->name);
    if (!format || strcmp(format, "kdebug") == 0 || strcmp(format, "argus") == 0 ||
        strcmp(format, "tracedat") == 0 || strcmp(format, "perfdata") == 0 ||
        strcmp(format, "perfetto") == 0 || strcmp(format, "ctf") == 0)
        return;
    if (!memchr(b, 0, n))
        return;
    binary_kind k = binary_kind_of(b, n);
    if (k.format) {
        /* a trace argus reads, with the wrong --format: it tells it alone */
        const char *user = user_command();
        argus_die(ARGUS_EX_DATAERR, "%s: %s, not %s text: argus tells its format without "
                  "--format: %s %s", in->name, k.what, format, user, in->name);
    }
    if (k.what && strstr(k.what, "bzip2"))
        compressed(in, k.what, "bunzip2", ".bz2");
    if (k.what && strstr(k.what, "xz-"))
        compressed(in, k.what, "unxz", ".xz");
    char what[96];
    snprintf(what, sizeof what, "binary data (a NUL byte at byte %zu)",
             (size_t)((const uint8_t *)memchr(b, 0, n) - b));
    not_a_trace_as(in, k.what ? k.what : what, format,
                   k.what && strncmp(k.what, "an ELF", 6) == 0 ? in->name : NULL);
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
    refuse_html(in, in->buf + in->lo, in->hi - in->lo, false);
    char what[96], run[320];
    if (looks_like_program(in->buf + in->lo, in->hi - in->lo, in->name, what, sizeof what, run,
                           sizeof run))
        not_a_trace(in, what, run);
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
    if (looks_like_perf_script(in->buf + in->lo, in->hi - in->lo) && user_command())
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
    if (memchr(b, 0, n)) {
        binary_kind k = binary_kind_of(b, n);
        if (k.what && strstr(k.what, "bzip2"))
            compressed(in, k.what, "bunzip2", ".bz2");
        if (k.what && strstr(k.what, "xz-"))
            compressed(in, k.what, "unxz", ".xz");
        not_a_trace(in, k.what ? k.what : "binary data",
                    k.what && strncmp(k.what, "an ELF", 6) == 0 ? in->name : NULL);
    }
    refuse_html(in, b, n, true);
    /* control bytes (other than tabs, line ends and a terminal's ESC) are
       no text */
    for (size_t i = 0; i < n; i++)
        if (b[i] < 0x20 && !strchr("\t\n\r\f\v\033", b[i]))
            not_a_trace(in, "binary data", NULL);
    not_a_trace(in, "text", NULL);
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
        char *copy = argus_xstrdup(in->name, "file name");
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

void argus_decode_need_format(const char *format, const char *input)
{
    static const char *const formats[] = {"argus", "jsonl", "kdebug", "trace-text",
                                          "ftrace", "tracedat", "perfdata", "perfetto",
                                          "ctf"};
    /* names a user may say for one of them */
    static const struct { const char *said, *format, *what; } aliases[] = {
        {"perf", "perfdata", "perf's perf.data"},
        {"perf.data", "perfdata", "perf's perf.data"},
        {"trace.dat", "tracedat", "trace-cmd's trace.dat"},
        {"trace-cmd", "tracedat", "trace-cmd's trace.dat"},
        {"lttng", "ctf", "an LTTng trace"},
        {"json", "jsonl", "JSON lines"},
        {"systrace", "ftrace", "Android's systrace"},
        {"atrace", "ftrace", "Android's atrace"},
        {"pftrace", "perfetto", "a Perfetto trace"},
        {"ktrace", "kdebug", "a macOS ktrace file"},
    };
    if (!format)
        return;
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
        if (strcmp(format, formats[i]) == 0)
            return;
    const char *user = user_command();
    const char *trace = input && strcmp(input, "-") != 0 ? input : "TRACE";
    for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
        if (strcasecmp(format, aliases[i].said) == 0)
            argus_usage_error("unknown format '%s': %s is --format %s, and argus tells it "
                              "without --format: %s %s",
                              format, aliases[i].what, aliases[i].format, user, trace);
    argus_usage_error("unknown format '%s' (the formats: argus, jsonl, kdebug, trace-text, "
                      "ftrace, tracedat, perfdata, perfetto, ctf); argus tells the format "
                      "from the trace itself: %s %s",
                      format, user, trace);
}
