/* trace-cmd's trace.dat to an argus stream (include/argus/decode/tracedat.h):
 * libtracecmd reads the file (v6, v7, compressed sections), libtraceevent
 * renders each record through the event formats stored in it, as
 * `trace-cmd report -t` would print it, and the ftrace text decoder maps
 * the lines. One mapping for both forms of a trace: what the text decoder
 * knows (sched_switch, wakeups, syscalls, irqs, timers, workqueues,
 * argus-record's uprobes, ...) a trace.dat gives the same way, and the
 * same trace decodes to the same stream either way. */
#include "argus/decode/tracedat.h"
#include "argus/decode/decoder.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-cmd.h>
#include <trace-seq.h>

/* Exported by libtracecmd but declared only in its private header: the
 * file's flags, of which TRACECMD_FL_IN_USECS says the clock counts time
 * (ns), not cycles or a counter (trace-cmd report prints those as a bare
 * integer), and its CPU count (report's "cpus=N" line). */
unsigned long tracecmd_get_flags(struct tracecmd_input *handle);
int tracecmd_cpus(struct tracecmd_input *handle);
#define TD_FL_IN_USECS (1 << 2)

#define TD_MAGIC "\027\010Dtracing"
#define TD_MAGIC_LEN 10

bool argus_td_sniff(const uint8_t *buf, size_t len)
{
    return len >= TD_MAGIC_LEN && memcmp(buf, TD_MAGIC, TD_MAGIC_LEN) == 0;
}

/* libtracecmd 1.3 leaks a few bytes when a file's headers do not parse
 * (strings its sscanf allocated): not ours to free. libbabeltrace2 (the
 * CTF decoder, lib/decode/ctf.c) keeps its plugins loaded, with what GLib
 * allocated for them, to the end. LeakSanitizer (make check) asks the
 * program for its suppressions through this hook, one for the program.
 * libtraceevent's tep_parse_saved_cmdlines leaks the comm its sscanf
 * "%m" allocated for some lines of a valid file (sleep-v6.dat): the
 * sanitizers' default unwinder walks frame pointers, which glibc's
 * scanf does not keep, so that leak's stack ends in glibc and never
 * names the library; it is matched by glibc's scanf instead (argus
 * itself never has scanf allocate). */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libtracecmd.so\nleak:libtraceevent.so\nleak:libbabeltrace2.so\n"
           "leak:babeltrace-plugin-\nleak:libglib-2.0.so\nleak:__vfscanf_internal\n";
}

/* A leak suppressed above is no finding, and LeakSanitizer's table of
 * the suppressions used, printed at exit on stderr, would follow a bad
 * input's one message (stream-v1: `PROGRAM: FILE:PLACE: what`). */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
    return "print_suppressions=0";
}

/* ---- Opening ------------------------------------------------------------- */

/* A file's buffers: the top one, then its instances (trace-cmd record -B,
 * trace-cmd extract -B), each with the prefix trace-cmd report gives its
 * lines when there are instances ("NAME: ", the names right-aligned). */
typedef struct td_file {
    struct tracecmd_input *top;
    struct tracecmd_input **handles;
    char **prefixes;
    int n;
} td_file;

static void td_close(td_file *f)
{
    /* the instances' handles first: they hold a reference on the top */
    for (int i = 1; i < f->n; i++)
        tracecmd_close(f->handles[i]);
    if (f->top)
        tracecmd_close(f->top);
    for (int i = 0; i < f->n; i++)
        free(f->prefixes[i]);
    free(f->handles);
    free(f->prefixes);
    *f = (td_file){0};
}

static char *xstrdup_printf(int width, const char *name, const char *sep)
{
    char *s = NULL;
    if (asprintf(&s, "%*s%s", width, name, sep) < 0)
        abort(); /* the trial child runs this too: td_trial */
    return s;
}

/* Opens the trace.dat on FD (a descriptor of its own: tracecmd_close
 * closes it). Returns false when libtracecmd cannot read it. */
static bool td_open(td_file *f, int fd)
{
    *f = (td_file){0};
    f->top = tracecmd_open_fd(fd, 0);
    if (!f->top) {
        close(fd);
        return false;
    }
    int inst = tracecmd_buffer_instances(f->top);
    if (inst < 0)
        inst = 0;
    f->handles = calloc((size_t)inst + 1, sizeof *f->handles);
    f->prefixes = calloc((size_t)inst + 1, sizeof *f->prefixes);
    if (!f->handles || !f->prefixes)
        abort(); /* the trial child runs this too: td_trial */
    f->handles[f->n++] = f->top;
    int width = 0;
    for (int i = 0; i < inst; i++) {
        const char *name = tracecmd_buffer_instance_name(f->top, i);
        if (name && (int)strlen(name) > width)
            width = (int)strlen(name);
    }
    f->prefixes[0] = xstrdup_printf(inst ? width : 0, "", inst ? "  " : "");
    for (int i = 0; i < inst; i++) {
        const char *name = tracecmd_buffer_instance_name(f->top, i);
        struct tracecmd_input *h = name ? tracecmd_buffer_instance_handle(f->top, i) : NULL;
        if (!h)
            continue; /* as trace-cmd report: that buffer is left out */
        f->handles[f->n] = h;
        f->prefixes[f->n] = xstrdup_printf(width, name, ": ");
        f->n++;
    }
    for (int i = 0; i < f->n; i++) {
        tracecmd_set_private(f->handles[i], f->prefixes[i]);
        /* report -t: nanoseconds, which the text decoder keeps */
        tep_set_flag(tracecmd_get_tep(f->handles[i]), TEP_NSEC_OUTPUT);
    }
    return true;
}

/* ---- Rendering ----------------------------------------------------------- */

typedef struct td_pass {
    argus_ft *d;
    bool prescan;          /* the first pass: argus_ft_prescan_line */
    struct trace_seq s;
    int rc;                /* argus_ft_line's, -1 stops the pass */
    /* the record before (its buffer, CPU and offset) */
    const struct tracecmd_input *last_h;
    int last_cpu;
    unsigned long long last_offset;
    bool looped;           /* the same record twice in a row */
} td_pass;

/* One line of report's text to the decoder (argus_each_line's EACH). */
static int td_line(void *pass, const char *line, size_t n)
{
    td_pass *p = pass;
    if (!p->d)
        return 0; /* a trial (td_trial): rendered, not decoded */
    if (p->prescan) {
        argus_ft_prescan_line(p->d, line, n);
        return 0;
    }
    return argus_ft_line(p->d, line, n) < 0 ? -1 : 0;
}

/* Each line of TEXT (an event's text may hold newlines: a stack trace, a
 * trace_printk) to the decoder, as a reader of report's text sees them. */
static int td_lines(td_pass *p, const char *text, size_t len)
{
    return argus_each_line(text, len, td_line, p);
}

/* trace-cmd report's padding of the event name: 20 columns at least. */
static void put_event_name(struct trace_seq *s, const struct tep_event *event)
{
    const char *name = event ? event->name : "(NULL)";
    int len = (int)strlen(name);
    trace_seq_printf(s, " %s: %*s", name, len < 20 ? 20 - len : 0, "");
}

/* One record as `trace-cmd report -t` prints it (trace-cmd 3.1's
 * trace_show_data, without its options): the buffer's prefix, a line for
 * events the kernel dropped before it, COMM-PID [CPU] TS: NAME: INFO.
 * The dropped line is trace_pipe's ("CPU:N [LOST M EVENTS]", where
 * trace-cmd prints "[M EVENTS DROPPED]"): the line the ftrace decoder
 * takes as a loss (DEC-LOSS). */
static int td_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
    td_pass *p = data;
    /* libtracecmd 1.3 gives a damaged record (its size negative) again
     * and again, forever, its time moving on (fuzz-tracedat's find): a
     * record's offset in its buffer is its own, in v6 and in v7's
     * decompressed pages alike */
    if (h == p->last_h && cpu == p->last_cpu && rec->offset == p->last_offset) {
        p->looped = true;
        return -1;
    }
    p->last_h = h;
    p->last_cpu = cpu;
    p->last_offset = rec->offset;
    struct tep_handle *tep = tracecmd_get_tep(h);
    const char *prefix = tracecmd_get_private(h);
    struct trace_seq *s = &p->s;
    trace_seq_reset(s);
    if (rec->missed_events > 0)
        trace_seq_printf(s, "CPU:%d [LOST %lld EVENTS]\n", rec->cpu,
                         (long long)rec->missed_events);
    else if (rec->missed_events < 0)
        trace_seq_printf(s, "CPU:%d [LOST EVENTS]\n", rec->cpu); /* how many not known */
    trace_seq_puts(s, prefix ? prefix : "");
    tep_print_event(tep, s, rec, "%16s-%-5d [%03d]", TEP_PRINT_COMM, TEP_PRINT_PID,
                    TEP_PRINT_CPU);
    tep_print_event(tep, s, rec, (tracecmd_get_flags(h) & TD_FL_IN_USECS) ? " %9.1d:" : "%12d:",
                    TEP_PRINT_TIME);
    put_event_name(s, tep_find_event_by_record(tep, rec));
    tep_print_event(tep, s, rec, "%s", TEP_PRINT_INFO);
    trace_seq_terminate(s);
    size_t len = (size_t)s->len;
    if (len && s->buffer[len - 1] == '\n')
        len--;
    p->rc = td_lines(p, s->buffer, len);
    return p->rc < 0 ? -1 : 0;
}

/* One pass over every record of F, the buffers merged in time order as
 * trace-cmd report merges them, after its "cpus=N" line. */
static int td_pass_run(td_pass *p, td_file *f)
{
    char cpus[32];
    int n = snprintf(cpus, sizeof cpus, "cpus=%d", tracecmd_cpus(f->top));
    if (td_lines(p, cpus, (size_t)n) < 0)
        return -1;
    tracecmd_iterate_events_multi(f->handles, f->n, td_record, p);
    return p->looped ? -1 : p->rc;
}

/* ---- A trial in a child -------------------------------------------------- */

/* libtracecmd 1.3 crashes on some damaged files instead of failing: a
 * buffer instance whose data the file does not hold (a v6 file cut short)
 * makes tracecmd_buffer_instance_handle free what it shares with the top
 * handle (trace-cmd report itself dies of SIGSEGV on it). A child reads
 * the whole file first, rendering every record and writing nothing; when
 * it dies, the input is refused with a message, never a crash. Out of
 * memory in what the child runs (td_open) is an abort(), a death too:
 * argus_die there would run the parent's exit path (its writer's flush,
 * the output lock) in the child. */
#define TD_NO_OPEN 3 /* the child's exit when the file does not open */
#define TD_LOOPED 4  /* ... when libtracecmd gave one record over and over */

static int td_trial_pass(int fd)
{
    td_file f;
    if (!td_open(&f, fd))
        return TD_NO_OPEN;
    td_pass p = {.prescan = true};
    trace_seq_init(&p.s);
    p.d = NULL; /* td_lines sends nothing in a trial */
    td_pass_run(&p, &f);
    return p.looped ? TD_LOOPED : 0;
}

/* 0 when the child read it all, or could not open it (the parent's own
 * open says so then); TD_LOOPED when it stopped a pass that libtracecmd
 * gave one record over and over; -1 when it died. Under AddressSanitizer a
 * SIGSEGV is an exit with a report, not a signal: any other end is a
 * death, and the child's stderr goes nowhere (the parent gives the one
 * message). */
static int td_trial(int fd)
{
    pid_t pid = fork();
    if (pid < 0)
        return 0; /* no trial: read it in this process as it is */
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 2);
        _exit(td_trial_pass(fd));
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 0;
    if (!WIFEXITED(status))
        return -1;
    int code = WEXITSTATUS(status);
    return code == 0 || code == TD_NO_OPEN ? 0 : code == TD_LOOPED ? TD_LOOPED : -1;
}

static int td_looped(char *err, size_t errlen, const char *name)
{
    snprintf(err, errlen, "%s: not a trace.dat trace-cmd can read: libtracecmd reads one "
             "damaged record of it over and over", name);
    return -1;
}

/* ---- Reading ------------------------------------------------------------- */

/* libtracecmd says no more than that the file does not open (trace-cmd
 * report prints "error reading header"). */
static int td_fail(char *err, size_t errlen, const char *name)
{
    snprintf(err, errlen, "%s: not a trace.dat trace-cmd can read: libtracecmd cannot "
             "read its headers (a file cut short, or damaged)", name);
    return -1;
}

/* The two passes over the trace.dat on FD (closed here, as the handles
 * close theirs): libtracecmd reads a file once, so each pass opens it. */
static int td_passes(argus_ft *d, int fd, const char *name, char *err, size_t errlen)
{
    int fd2 = dup(fd);
    td_file f;
    if (fd2 < 0 || !td_open(&f, fd)) {
        if (fd2 >= 0)
            close(fd2);
        return td_fail(err, errlen, name);
    }
    td_pass p = {.d = d, .prescan = true};
    trace_seq_init(&p.s);
    td_pass_run(&p, &f); /* the first pass fails only by looping */
    td_close(&f);
    int rc = 0;
    if (p.looped) {
        close(fd2);
        rc = td_looped(err, errlen, name);
    } else if (lseek(fd2, 0, SEEK_SET) != 0 || !td_open(&f, fd2)) {
        rc = td_fail(err, errlen, name);
    } else {
        p.prescan = false;
        p.rc = 0;
        p.last_h = NULL;
        if (td_pass_run(&p, &f) < 0 || argus_ft_finish(d) < 0)
            rc = p.looped ? td_looped(err, errlen, name) : -2;
        td_close(&f);
    }
    trace_seq_destroy(&p.s);
    return rc;
}

int argus_td_read(argus_ft *d, argus_input *in, char *err, size_t errlen)
{
    /* libtracecmd's own warnings ("unknown option 116", "libtracecmd: No
     * such file or directory" on a damaged file) are not ours: a bad
     * file gets one message, decode's. Its setting is global: once for
     * the trial and both passes. */
    tracecmd_set_loglevel(TEP_LOG_NONE);
    int fd = argus_input_seekable_fd(in);
    if (fd < 0) {
        snprintf(err, errlen, "%s: read error: %s", in->name, strerror(errno));
        return -1;
    }
    int trial = td_trial(fd);
    if (trial == TD_LOOPED) {
        close(fd);
        return td_looped(err, errlen, in->name);
    }
    if (trial < 0 || lseek(fd, 0, SEEK_SET) != 0) {
        close(fd);
        snprintf(err, errlen, "%s: not a trace.dat trace-cmd can read: libtracecmd crashes "
                 "reading it (a file cut short or damaged)", in->name);
        return -1;
    }
    return td_passes(d, fd, in->name, err, errlen);
}
