/* What every argus program shares on its command line: its name, its exit
 * codes and messages (docs/stream-format.md, "Exit status and messages"),
 * and the command line it appends to the stream header's "stages". */
#ifndef ARGUS_CLI_H
#define ARGUS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARGUS_VERSION "0.1.0"

enum {
    ARGUS_EX_OK = 0,
    ARGUS_EX_USAGE = 64,     /* bad command line */
    ARGUS_EX_DATAERR = 65,   /* malformed input */
    ARGUS_EX_NOINPUT = 66,   /* input file missing or unreadable */
    ARGUS_EX_SOFTWARE = 70,  /* a bug of ours (sysexits' EX_SOFTWARE) */
    ARGUS_EX_IOERR = 74,     /* read or write error */
    /* those of the programs that set up tracing (argus-record, argus-watch;
     * docs/stages/record.md, "Exit status") */
    ARGUS_EX_UNAVAILABLE = 69, /* no tracefs, no sched_switch, no breakpoint slot */
    ARGUS_EX_CANTCREAT = 73,   /* an output file or folder cannot be created */
    ARGUS_EX_NOPERM = 77,      /* not root */
    ARGUS_EX_NOEXEC = 126,     /* a command to run is not executable (as a shell says) */
    ARGUS_EX_NOTFOUND = 127,   /* a command to run is not found (as a shell says) */
    ARGUS_EX_SIGNALED = 128,   /* + N: ended by signal N (as a shell says) */
};


/* Sets the program name from argv[0], restores the default SIGPIPE action
 * (a closed pipe ends the program silently), and records the command line
 * for "stages": the stage name without its "argus-" prefix, then the
 * arguments, quoted for the shell where they need it. */
void argus_cli_init(int argc, char **argv);
const char *argus_prog(void);
const char *argus_command_line(void);
/* The name the calling thread's messages carry instead of the program's
 * (argus-chain decodes in a thread of its own as argus-decode); NULL: the
 * program's. */
void argus_cli_thread_prog(const char *name);
/* The command the user typed when a front command runs this program
 * (scripts/argus sets ARGUS_USER_COMMAND, "argus diagnose"), else NULL:
 * what a message about the input names, and the command it suggests. */
const char *argus_cli_user_command(void);
/* FIRST, then the N WORDS, each quoted for the shell where it needs it,
 * joined by spaces (a command line of "stages"); the caller frees it. */
char *argus_shell_words(const char *first, int n, char *const *words);

/* What to do before an error exits (the stream writer flushes, so that
 * every record written before the error reaches the reader); NULL: none.
 * One for each thread: an error flushes the writer of the thread it
 * happens in. A callback, so that this layer needs nothing of the
 * stream's. */
void argus_cli_on_die(void (*flush)(void *), void *arg);

/* Held while output is written (argus_writer_flush). */
void argus_output_lock(void);
void argus_output_unlock(void);

/* "PROGRAM: WHAT" on stderr, flush the writer, exit with CODE. Called from
 * a second thread, it waits for a flush in progress and exits without
 * writing more. */
void argus_die(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));
/* "PROGRAM: WHAT" and a hint to --help; exit 64. */
void argus_usage_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));
/* "PROGRAM: WHAT" on stderr, going on: a problem the user must hear of. */
void argus_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same for what is only worth knowing (what was not recorded, the
 * events a trace says it lost, what was cleaned up): nothing after
 * argus_cli_quiet(true), a program's -q. */
void argus_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void argus_cli_quiet(bool on);

/* Allocation that does not come back empty: out of memory ends the
 * program as argus_die does, "PROGRAM: out of memory (WHAT)" and 74
 * (docs/reliability.md), WHAT saying what was growing. */
void *argus_xmalloc(size_t n, const char *what);
void *argus_xcalloc(size_t n, size_t size, const char *what);
void *argus_xrealloc(void *p, size_t n, const char *what);
char *argus_xstrdup(const char *s, const char *what);
char *argus_xstrndup(const char *s, size_t n, const char *what);

/* qsort, but an array of fewer than two elements is sorted as it is,
 * whatever BASE: qsort of a NULL array is undefined even with none. */
void argus_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* Options every program shares. getopt_long returns 'h', 'v' and the
 * ARGUS_OPT_* values for them; a program's switch hands every value it
 * does not handle itself to argus_common_option. */
enum { ARGUS_OPT_VERSION = 0x1000, ARGUS_OPT_MAX_PENDING };
#define ARGUS_OPTION_HELP {"help", no_argument, 0, 'h'}
#define ARGUS_OPTION_VERSION {"version", no_argument, 0, ARGUS_OPT_VERSION}
#define ARGUS_OPTION_VERBOSE {"verbose", no_argument, 0, 'v'}
#define ARGUS_OPTION_MAX_PENDING \
    {"max-pending", required_argument, 0, ARGUS_OPT_MAX_PENDING}

typedef struct argus_options {
    bool verbose;          /* -v: counters to stderr at the end */
    uint64_t max_pending;  /* --max-pending: bound of pending tables */
} argus_options;
#define ARGUS_OPTIONS_DEFAULT {false, 1000000}

/* -h prints USAGE and exits 0, --version prints the version, -v and
 * --max-pending (at least 1) set O; anything else is a usage error. */
void argus_common_option(int c, const char *usage, argus_options *o,
                         char **argv);
/* The input FILE after the options, or NULL (stdin) when there is none;
 * more than one is a usage error. */
const char *argus_input_arg(int argc, char **argv);

/* For getopt_long's '?' (call with opterr = 0): names the bad option
 * (argv[optind - 1]) and exits 64. */
void argus_bad_option(char **argv) __attribute__((noreturn));

/* Flushes stdout for programs that print text with stdio; a write error
 * reports and exits 74. */
void argus_close_stdout(void);

/* Prints "PROGRAM VERSION" and exits 0. */
void argus_print_version(void) __attribute__((noreturn));

/* The one parser of numeric option values: TEXT is a decimal or 0x-hex
 * unsigned integer (no sign, no blanks; leading zeros are decimal) in
 * MIN..MAX, stored in *OUT. A value past 2^64-1 is out of range. */
typedef enum {
    ARGUS_UINT_OK,
    ARGUS_UINT_NOT_A_NUMBER,
    ARGUS_UINT_OUT_OF_RANGE,
} argus_uint_parse;
argus_uint_parse argus_parse_uint(const char *text, uint64_t min, uint64_t max,
                                  uint64_t *out);
/* The value of OPTION, parsed so, checked before any narrowing; anything
 * else is a usage error (64) naming the option: "OPTION: 'TEXT' is not a
 * number", "OPTION must be MIN..MAX" ("OPTION: must be at least MIN" when
 * MAX is UINT64_MAX), UNIT (when not NULL) after the range. */
uint64_t argus_parse_uint_option(const char *option, const char *text, uint64_t min,
                                 uint64_t max, const char *unit);

#endif
