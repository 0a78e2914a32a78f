/* argus-record: writing the trace: the instance's trace file as the kernel
 * writes it, with argus's header, thread and watch lines put in. */
#include "record.h"
#include "argus/stream/procname.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

/* The output: a file descriptor (rec.out.fd) and a buffer of our own, so
 * that a write blocked on a full pipe can be interrupted (a second stop
 * signal while writing abandons the output); -o FILE.gz or FILE.zst: the
 * trace compressed as it is written (every input of argus reads it as it
 * is, DEC-COMPRESSED); a recording of 7 s is 60 to 90 MB of text, a tenth
 * of that compressed. */
static struct {
    char buf[1 << 16];         /* what is not written yet */
    size_t len;
    enum { PLAIN, GZIP, ZSTD } codec;
    z_stream gz;               /* GZIP's compressor */
    ZSTD_CStream *zs;          /* ZSTD's */
    unsigned char packed[1 << 16]; /* the compressor's output */
} ob;

/* The file being written: FILE.partial until it is whole. */
const char *output_name(void)
{
    return rec.out.partial ? rec.out.partial
           : rec.opt.output && strcmp(rec.opt.output, "-") != 0 ? rec.opt.output : "stdout";
}

/* Checks for SIGINT/SIGTERM/SIGHUP arriving while writing: the second
 * stop request abandons the output. */
static void abandon_if_stopped_twice(void)
{
    if (rec.stop.count >= 2) {
        restore();
        argus_die(ARGUS_EX_SIGNALED + rec.stop.last, "interrupted while writing: %s is incomplete",
                  output_name());
    }
}

/* -o NAME ending in .gz or .zst: the output is written compressed so. */
static void compress_by_name(const char *name)
{
    size_t n = strlen(name);
    if (n > 3 && strcmp(name + n - 3, ".gz") == 0) {
        ob.codec = GZIP;
        /* windowBits 15 + 16: a gzip member, as gzip(1) writes */
        if (deflateInit2(&ob.gz, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
            argus_die(ARGUS_EX_IOERR, "out of memory (the gzip compressor)");
    } else if (n > 4 && strcmp(name + n - 4, ".zst") == 0) {
        ob.codec = ZSTD;
        ob.zs = ZSTD_createCStream();
        if (!ob.zs || ZSTD_isError(ZSTD_initCStream(ob.zs, 3)))
            argus_die(ARGUS_EX_IOERR, "out of memory (the zstd compressor)");
    }
}

void out_open(void)
{
    if (!rec.opt.output || strcmp(rec.opt.output, "-") == 0)
        return;
    /* a file is written as FILE.partial and renamed when whole: a killed
     * or failed recording never leaves a FILE that looks whole (a device
     * or a FIFO is written as it is) */
    struct stat sb;
    if (stat(rec.opt.output, &sb) != 0 || S_ISREG(sb.st_mode)) {
        size_t n = strlen(rec.opt.output) + sizeof ".partial";
        rec.out.partial = argus_xmalloc(n, "output file name");
        snprintf(rec.out.partial, n, "%s.partial", rec.opt.output);
    }
    rec.out.fd = open(output_name(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (rec.out.fd < 0) /* the name the user gave: FILE's directory refused */
        argus_die(ARGUS_EX_CANTCREAT, "%s: cannot create (%s)", rec.opt.output, strerror(errno));
    compress_by_name(rec.opt.output);
}

void out_close(void)
{
    if (rec.out.fd != STDOUT_FILENO && close(rec.out.fd) != 0)
        argus_die(ARGUS_EX_IOERR, "%s: write error (%s)", output_name(), strerror(errno));
    if (rec.out.partial) {
        if (rename(rec.out.partial, rec.opt.output) != 0)
            argus_die(ARGUS_EX_IOERR, "%s: cannot rename to %s (%s)", rec.out.partial,
                      rec.opt.output, strerror(errno));
        free(rec.out.partial);
        rec.out.partial = NULL;
    }
}

static void write_all(const unsigned char *p, size_t n);

/* The compressor's output for the bytes P..P+N (END: the stream's end). */
static void pack(const unsigned char *p, size_t n, bool end)
{
    if (ob.codec == GZIP) {
        ob.gz.next_in = (unsigned char *)p;
        ob.gz.avail_in = (uInt)n;
        int r;
        do {
            ob.gz.next_out = ob.packed;
            ob.gz.avail_out = sizeof ob.packed;
            r = deflate(&ob.gz, end ? Z_FINISH : Z_NO_FLUSH);
            write_all(ob.packed, sizeof ob.packed - ob.gz.avail_out);
        } while (ob.gz.avail_out == 0 || (end && r != Z_STREAM_END));
        if (end)
            deflateEnd(&ob.gz);
        return;
    }
    ZSTD_inBuffer in = {p, n, 0};
    size_t left;
    do {
        ZSTD_outBuffer o = {ob.packed, sizeof ob.packed, 0};
        left = ZSTD_compressStream2(ob.zs, &o, &in, end ? ZSTD_e_end : ZSTD_e_continue);
        if (ZSTD_isError(left))
            argus_die(ARGUS_EX_IOERR, "%s: zstd: %s", output_name(), ZSTD_getErrorName(left));
        write_all(ob.packed, o.pos);
    } while (end ? left != 0 : in.pos < in.size);
    if (end)
        ZSTD_freeCStream(ob.zs);
}

void out_flush(void)
{
    if (ob.codec != PLAIN)
        pack((const unsigned char *)ob.buf, ob.len, false);
    else
        write_all((const unsigned char *)ob.buf, ob.len);
    ob.len = 0;
}

/* The last bytes, and the compressed stream's end. */
void out_finish(void)
{
    out_flush();
    if (ob.codec != PLAIN)
        pack(NULL, 0, true);
}

static void write_all(const unsigned char *p, size_t n)
{
    for (size_t done = 0; done < n;) {
        ssize_t w = write(rec.out.fd, p + done, n - done);
        if (w > 0) {
            done += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR) {
            abandon_if_stopped_twice();
            continue;
        }
        if (w < 0 && errno == EPIPE) {
            /* the reader is gone: end quietly, as on SIGPIPE, restored */
            restore();
            signal(SIGPIPE, SIG_DFL);
            raise(SIGPIPE);
        }
        argus_die(ARGUS_EX_IOERR, "%s: write error (%s)", output_name(),
                  strerror(w < 0 ? errno : EIO));
    }
}

void out_write(const char *s, size_t n)
{
    while (n) {
        if (ob.len == sizeof ob.buf)
            out_flush();
        size_t k = sizeof ob.buf - ob.len < n ? sizeof ob.buf - ob.len : n;
        memcpy(ob.buf + ob.len, s, k);
        ob.len += k;
        s += k;
        n -= k;
    }
}

void out_printf(const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    /* a bug of ours: vsnprintf fails only past INT_MAX bytes or on wide
     * characters, which no format here has */
    if (n < 0)
        argus_die(ARGUS_EX_SOFTWARE, "internal error: a line of the trace cannot be formatted (%s)",
                  strerror(errno));
    if ((size_t)n < sizeof small) {
        out_write(small, (size_t)n);
        return;
    }
    char *big = argus_xmalloc((size_t)n + 1, "a line of the trace");
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    out_write(big, (size_t)n);
    free(big);
}

/* "# argus-cmdline:" of the launched command when it had ended by the
 * end's look at /proc: its own argv (at the start it was still the
 * recorder, held before its exec). */
static void write_command_cmdline(void)
{
    char args[4096], line[8192];
    size_t n = 0;
    for (char **a = rec.opt.cmd; *a && n < sizeof args; a++) {
        size_t len = strlen(*a) + 1;
        if (n + len > sizeof args)
            break;
        memcpy(args + n, *a, len);
        n += len;
    }
    if (argus_cmdline_escape(line, sizeof line, args, n) > 0)
        out_printf("# argus-cmdline: pid=%d %s\n", (int)rec.child.pid, line);
}

static void write_threads(const struct thread_list *start, const struct thread_list *end)
{
    /* one line per tid: the start's, then the threads only the end has */
    size_t i = 0, j = 0;
    while (i < start->n || j < end->n) {
        const struct thread_info *t;
        const char *cmdline, *at_end = NULL;
        if (j >= end->n || (i < start->n && start->v[i].tid <= end->v[j].tid)) {
            t = &start->v[i];
            cmdline = t->cmdline;
            if (j < end->n && end->v[j].tid == t->tid)
                at_end = end->v[j++].cmdline;
            i++;
        } else {
            t = &end->v[j++];
            cmdline = at_end = t->cmdline;
        }
        if (at_end)
            cmdline = at_end;   /* the end's command line: after any exec */
        /* a process's parent: whose child it is when the trace has no
         * fork for it (decode's DEC-PARENT) */
        if (t->tid == t->tgid && t->ppid > 0)
            out_printf("# argus-thread: tid=%d tgid=%d kernel=%d ppid=%d comm=%s\n", t->tid,
                       t->tgid, t->kernel ? 1 : 0, t->ppid, t->comm);
        else
            out_printf("# argus-thread: tid=%d tgid=%d kernel=%d comm=%s\n", t->tid, t->tgid,
                       t->kernel ? 1 : 0, t->comm);
        if (rec.opt.cmd && t->tid == rec.child.pid && !at_end)
            write_command_cmdline();
        else if (cmdline && t->tid == t->tgid)
            out_printf("# argus-cmdline: pid=%d %s\n", t->tid, cmdline);
        rec.out.threads++;
    }
}

void write_argus_header(const struct thread_list *start, const struct thread_list *end)
{
    out_printf("# recorded by argus-record %s: instance %s, trace_clock mono, %llu MB per CPU, overwrite, %zu events enabled\n",
               ARGUS_VERSION, rec.opt.instance_name, (unsigned long long)rec.opt.buffer_mb,
               rec.tfs.n_enabled);
    /* one moment on the trace's clock (mono) and on the wall clock: what
     * argus-decode sets the stream's t0 from (DEC-ORIGIN) */
    struct timespec mono, real;
    clock_gettime(CLOCK_MONOTONIC, &mono);
    clock_gettime(CLOCK_REALTIME, &real);
    out_printf("# argus-clock: mono=%lld.%09ld realtime=%lld.%09ld\n", (long long)mono.tv_sec,
               mono.tv_nsec, (long long)real.tv_sec, real.tv_nsec);
    /* the command it launched: what a user asks about first (SPIN-ORDER) */
    if (rec.opt.cmd && rec.child.pid > 0)
        out_printf("# argus-command: pid=%d\n", (int)rec.child.pid);
    /* the running processes --pid and --proc name: asked about like the
     * command (SPIN-ORDER, SPIN-IDLE) */
    for (size_t i = 0; i < rec.opt.n_focus; i++)
        out_printf("# argus-focus: pid=%d\n", rec.opt.focus[i]);
    write_probes_header();
    write_watch_header();
    write_threads(start, end);
}

void write_output(const struct thread_list *start, const struct thread_list *end)
{
    int fd = openat(rec.tfs.root_fd, ipath("trace"), O_RDONLY | O_CLOEXEC);
    FILE *trace = rec.tfs.trace = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!trace)
        argus_die(ARGUS_EX_IOERR, "%s/%s/trace: %s", rec.tfs.root, rec.tfs.instance,
                  strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    bool header_done = false;
    while ((len = getline(&line, &cap, trace)) > 0) {
        abandon_if_stopped_twice();
        if (!header_done && line[0] != '#') {
            /* argus's lines after the kernel's header, before any event */
            write_argus_header(start, end);
            out_printf("# argus-end: expected\n");    /* DEC-LOSS: see the last line */
            header_done = true;
        }
        uint64_t ns;
        if (header_done && trace_line_time(line, &ns)) {
            rec.out.hits += write_watch_hits(ns, start, end);
            rec.out.events++;
        } else if (!header_done) {
            uint64_t lost;
            if (trace_header_overwritten(line, &lost))
                rec.out.overwritten = lost;
        }
        out_write(line, (size_t)len);
    }
    bool read_error = ferror(trace);
    int read_errno = errno;
    free(line);
    fclose(trace);
    rec.tfs.trace = NULL;
    if (read_error)
        argus_die(ARGUS_EX_IOERR, "%s/%s/trace: read error (%s)", rec.tfs.root, rec.tfs.instance,
                  strerror(read_errno));
    if (!header_done) {
        write_argus_header(start, end); /* no event at all */
        out_printf("# argus-end: expected\n");
    }
    rec.out.hits += write_watch_hits(UINT64_MAX, start, end);
    /* the last line: the recording is whole (a killed or failed one
     * lacks it, and decode says so: DEC-LOSS) */
    out_printf("# argus-end: events=%llu overwritten=%llu\n", (unsigned long long)rec.out.events,
               (unsigned long long)rec.out.overwritten);
    out_finish();
}
