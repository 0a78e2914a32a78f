/* The names a user knows a process by (--proc NAME), and its command line
 * as a trace's comment line carries it ("# argus-cmdline: pid=P ARG...",
 * docs/stages/record.md). One matcher for argus-record, argus-watch and
 * find-spinning, so that a name finds the same process in each. */
#ifndef ARGUS_PROCNAME_H
#define ARGUS_PROCNAME_H

#include <stdbool.h>
#include <stddef.h>

/* Whether WANT names the process whose comm is COMM (NULL: unknown) and
 * whose command line is CMDLINE, its arguments separated by '\n' (NULL:
 * unknown). WANT names it when it is the comm, or starts with a 15-byte
 * comm (the kernel keeps 15 bytes); or when WANT's last path component
 * is, with or without its extension, the last path component of the
 * program (argv[0]) or of the first argument after it that is no option
 * (the script an interpreter runs: python3 -u app.py, sh run.sh). */
bool argus_proc_named(const char *want, const char *comm, const char *cmdline);

/* Appends to OUT (CAP bytes, NUL-terminated, cut at an argument if it
 * does not fit) the arguments ARGS (LEN bytes, each ended by a NUL, as
 * /proc/PID/cmdline holds them) as one line's words: separated by one
 * space, each byte that is a space, a control, '"' or '\' written \xHH,
 * an empty argument as "". Returns the length written. */
size_t argus_cmdline_escape(char *out, size_t cap, const char *args, size_t len);

/* Reads the words of an escaped command line (P, N bytes) into OUT (CAP
 * bytes): the arguments separated by '\n', each valid UTF-8 with a
 * control byte made '?'. Returns the length written (0: no argument). */
size_t argus_cmdline_unescape(char *out, size_t cap, const char *p, size_t n);

#endif
