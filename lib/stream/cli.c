#include "argus/stream/cli.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *prog = "argus";
static char *command_line;
/* argus_cli_thread_prog: the name this thread's messages carry (argus-chain
 * decodes in one thread as argus-decode) */
static _Thread_local const char *thread_prog;
/* argus_cli_on_die: each thread flushes its own writer */
static _Thread_local void (*die_flush)(void *);
static _Thread_local void *die_flush_arg;

/* Characters that need no quoting in a shell word. */
static bool shell_plain(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    "0123456789-_./:=,+@%", *s))
            return false;
    return true;
}

static void append(char **buf, size_t *len, size_t *cap, const char *s,
                   size_t n)
{
    if (*len + n + 1 > *cap) {
        *cap = (*len + n + 1) * 2;
        *buf = argus_xrealloc(*buf, *cap, "command line");
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[*len] = 0;
}

/* Output and a second thread (a baseline graph read in the background):
 * a flush holds this lock, and an error in the other thread takes it
 * before it exits, so the output never ends inside a half-written block. */
static pthread_mutex_t output_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t main_thread;

void argus_output_lock(void) { pthread_mutex_lock(&output_lock); }
void argus_output_unlock(void) { pthread_mutex_unlock(&output_lock); }

void argus_cli_init(int argc, char **argv)
{
    main_thread = pthread_self();
    /* A parent that ignores SIGPIPE would turn a closed pipe into write
     * errors; the contract says a program just ends. */
    signal(SIGPIPE, SIG_DFL);

    const char *base = argc > 0 ? strrchr(argv[0], '/') : NULL;
    prog = argc > 0 ? (base ? base + 1 : argv[0]) : "argus";
    const char *stage = prog;
    if (strncmp(stage, "argus-", 6) == 0)
        stage += 6;
    command_line = argus_shell_words(stage, argc > 0 ? argc - 1 : 0, argv + 1);
}

char *argus_shell_words(const char *first, int n, char *const *words)
{
    size_t len = 0, cap = 0;
    char *buf = NULL;
    append(&buf, &len, &cap, first, strlen(first));
    for (int i = 0; i < n; i++) {
        append(&buf, &len, &cap, " ", 1);
        const char *a = words[i];
        if (shell_plain(a)) {
            append(&buf, &len, &cap, a, strlen(a));
            continue;
        }
        append(&buf, &len, &cap, "'", 1);
        for (; *a; a++) {
            if (*a == '\'')
                append(&buf, &len, &cap, "'\\''", 4);
            else
                append(&buf, &len, &cap, a, 1);
        }
        append(&buf, &len, &cap, "'", 1);
    }
    return buf;
}

void argus_cli_thread_prog(const char *name) { thread_prog = name; }
const char *argus_cli_user_command(void)
{
    const char *u = getenv("ARGUS_USER_COMMAND");
    return u && *u ? u : NULL;
}
const char *argus_prog(void) { return thread_prog ? thread_prog : prog; }
const char *argus_command_line(void) { return command_line ? command_line : prog; }
void argus_cli_on_die(void (*flush)(void *), void *arg)
{
    die_flush = flush;
    die_flush_arg = arg;
}

static void vmessage(const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: ", argus_prog());
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void argus_die(int code, const char *fmt, ...)
{
    if (!pthread_equal(pthread_self(), main_thread)) {
        /* this thread's own writer first (whole records), then: the
         * other thread may be writing, let its flush finish, write no
         * more; what it wrote is whole records */
        void (*flush)(void *) = die_flush;
        die_flush = NULL;
        if (flush)
            flush(die_flush_arg);
        pthread_mutex_lock(&output_lock);
        va_list ap;
        va_start(ap, fmt);
        vmessage(fmt, ap);
        va_end(ap);
        _exit(code);
    }
    void (*flush)(void *) = die_flush;
    die_flush = NULL; /* a write error while flushing must not loop */
    if (flush)
        flush(die_flush_arg);
    va_list ap;
    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
    exit(code);
}

void argus_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try '%s --help' for more information.\n", argus_prog());
    exit(ARGUS_EX_USAGE);
}

static bool quiet;

void argus_cli_quiet(bool on) { quiet = on; }

void argus_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
}

void argus_note(const char *fmt, ...)
{
    if (quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
}

/* The result of an allocation for WHAT: P, or the end of the program. */
static void *got(void *p, const char *what)
{
    if (!p)
        argus_die(ARGUS_EX_IOERR, "out of memory (%s)", what);
    return p;
}

void argus_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(base, n, size, cmp);
}

void *argus_xmalloc(size_t n, const char *what) { return got(malloc(n ? n : 1), what); }

void *argus_xcalloc(size_t n, size_t size, const char *what)
{
    return got(calloc(n ? n : 1, size ? size : 1), what);
}

void *argus_xrealloc(void *p, size_t n, const char *what)
{
    return got(realloc(p, n ? n : 1), what);
}

char *argus_xstrdup(const char *s, const char *what) { return got(strdup(s), what); }

char *argus_xstrndup(const char *s, size_t n, const char *what) { return got(strndup(s, n), what); }

void argus_bad_option(char **argv)
{
    extern int optind, optopt;
    if (optopt > 0 && optopt < 128) /* a short option, maybe in a cluster like
                                       -qx; a long one's optopt is its value */
        argus_usage_error("bad option '-%c' (unknown, or missing its value)", optopt);
    argus_usage_error("bad option '%s' (unknown, or missing its value)",
                      argv[optind - 1]);
}

void argus_common_option(int c, const char *usage, argus_options *o,
                         char **argv)
{
    extern char *optarg;
    switch (c) {
    case 'h':
        fputs(usage, stdout);
        argus_close_stdout();
        exit(0);
    case ARGUS_OPT_VERSION:
        argus_print_version();
    case 'v':
        o->verbose = true;
        return;
    case ARGUS_OPT_MAX_PENDING:
        o->max_pending = argus_parse_uint_option("--max-pending", optarg, 1, UINT64_MAX, NULL);
        return;
    default:
        argus_bad_option(argv);
    }
}

const char *argus_input_arg(int argc, char **argv)
{
    extern int optind;
    if (argc - optind > 1)
        argus_usage_error("more than one input file");
    return optind < argc ? argv[optind] : NULL;
}

void argus_close_stdout(void)
{
    if (fflush(stdout) != 0 || ferror(stdout))
        argus_die(ARGUS_EX_IOERR, "write error: %s", strerror(errno));
}

void argus_print_version(void)
{
    printf("%s %s\n", argus_prog(), ARGUS_VERSION);
    exit(0);
}

argus_uint_parse argus_parse_uint(const char *text, uint64_t min, uint64_t max,
                                  uint64_t *out)
{
    /* by hand, not strtoull: no sign, no blanks, no octal ("010" is 10),
     * and a value past 2^64-1 is out of range, not "not a number" */
    unsigned base = 10;
    const char *p = text;
    if (!p || !*p)
        return ARGUS_UINT_NOT_A_NUMBER;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
        if (!*p)
            return ARGUS_UINT_NOT_A_NUMBER;
    }
    uint64_t v = 0;
    bool over = false;
    for (; *p; p++) {
        unsigned d;
        if (*p >= '0' && *p <= '9')
            d = (unsigned)(*p - '0');
        else if (base == 16 && *p >= 'a' && *p <= 'f')
            d = (unsigned)(*p - 'a' + 10);
        else if (base == 16 && *p >= 'A' && *p <= 'F')
            d = (unsigned)(*p - 'A' + 10);
        else
            return ARGUS_UINT_NOT_A_NUMBER;
        if (v > (UINT64_MAX - d) / base)
            over = true;
        else
            v = v * base + d;
    }
    if (over || v < min || v > max)
        return ARGUS_UINT_OUT_OF_RANGE;
    *out = v;
    return ARGUS_UINT_OK;
}

uint64_t argus_parse_uint_option(const char *option, const char *text, uint64_t min,
                                 uint64_t max, const char *unit)
{
    uint64_t v = 0;
    switch (argus_parse_uint(text, min, max, &v)) {
    case ARGUS_UINT_OK:
        return v;
    case ARGUS_UINT_NOT_A_NUMBER:
        argus_usage_error("%s: '%s' is not a number", option, text ? text : "");
    case ARGUS_UINT_OUT_OF_RANGE:
        /* below MIN with no upper bound; past 2^64-1 is named by the range */
        if (max == UINT64_MAX && argus_parse_uint(text, 0, UINT64_MAX, &v) == ARGUS_UINT_OK)
            argus_usage_error("%s: must be at least %llu%s", option, (unsigned long long)min,
                              unit ? unit : "");
        argus_usage_error("%s must be %llu..%llu%s", option, (unsigned long long)min,
                          (unsigned long long)max, unit ? unit : "");
    }
    abort();
}
