/* What every argus program shares on its command line: its name, its exit
 * codes and messages (docs/stream-format.md, "Exit status and messages"),
 * and the command line it appends to the stream header's "stages". */
#ifndef ARGUS_CLI_H
#define ARGUS_CLI_H

#include <stdbool.h>
#include <stdint.h>

#define ARGUS_VERSION "0.1.0"

enum {
    ARGUS_EX_OK = 0,
    ARGUS_EX_USAGE = 64,     /* bad command line */
    ARGUS_EX_DATAERR = 65,   /* malformed input */
    ARGUS_EX_NOINPUT = 66,   /* input file missing or unreadable */
    ARGUS_EX_IOERR = 74,     /* read or write error */
};

struct argus_writer;

/* Sets the program name from argv[0], restores the default SIGPIPE action
 * (a closed pipe ends the program silently), and records the command line
 * for "stages": the stage name without its "argus-" prefix, then the
 * arguments, quoted for the shell where they need it. */
void argus_cli_init(int argc, char **argv);
const char *argus_prog(void);
const char *argus_command_line(void);

/* A writer to flush before an error exits, so that every record written
 * before the error reaches the reader. */
void argus_cli_set_writer(struct argus_writer *w);

/* "PROGRAM: WHAT" on stderr, flush the writer, exit with CODE. */
void argus_die(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));
/* "PROGRAM: WHAT" and a hint to --help; exit 64. */
void argus_usage_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));
/* "PROGRAM: WHAT" on stderr, going on. */
void argus_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* For getopt_long's '?' (call with opterr = 0): names the bad option
 * (argv[optind - 1]) and exits 64. */
void argus_bad_option(char **argv) __attribute__((noreturn));

/* Flushes stdout for programs that print text with stdio; a write error
 * reports and exits 74. */
void argus_close_stdout(void);

/* Prints "PROGRAM VERSION" and exits 0. */
void argus_print_version(void) __attribute__((noreturn));

/* Parses a decimal or 0x-hex unsigned option value; a bad one is a usage
 * error naming the option. */
uint64_t argus_parse_uint_option(const char *option, const char *text);

#endif
