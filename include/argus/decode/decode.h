/* argus-decode's work as a library function, so that argus-chain can
 * decode in a thread of its own (docs/stages/chain.md): the checks of the
 * input, the format told from its first bytes, and the decoder of that
 * format writing the stream. Errors report and exit as argus-decode's do
 * (docs/stages/decode.md). */
#ifndef ARGUS_DECODE_H
#define ARGUS_DECODE_H

#include <stdbool.h>

#include "argus/decode/kdebug.h"
#include "argus/stream/input.h"
#include "argus/stream/stream.h"

/* The input buffer's limit (argus_input_open): a line may be this long. */
#define ARGUS_DECODE_MAX_LINE (256u << 20)

typedef struct argus_decode_options {
    argus_kd_options kd;  /* kdebug, trace-text (ftrace: its window) */
    bool kd_option;       /* one of --codes, --window, --timebase,
                             --record-size, --kdebug-v0 was given */
    bool codes_given;     /* --codes */
    bool verbose;         /* counters on stderr at the end */
    const char *command;  /* the header's "stages" entry */
} argus_decode_options;

/* What argus reads, for a message about an input that is none of it. */
#define ARGUS_DECODE_READS                                                             \
    "it reads a system trace: Linux ftrace text (argus record writes it), "            \
    "trace-cmd's trace.dat, perf.data, Perfetto, CTF (LTTng), macOS kdebug or trace "   \
    "text, JSON lines or an argus stream"

/* Refuses (64) a FORMAT decode does not read, saying the command that
 * reads INPUT (NULL: stdin); NULL (not given) passes. */
void argus_decode_need_format(const char *format, const char *input);
/* Refuses (65) an input no format can be: empty, or binary where FORMAT
 * (NULL: not given) is a text format. */
void argus_decode_check(argus_input *in, const char *format);
/* The format told from the first bytes; one it cannot tell is an error
 * (65). */
const char *argus_decode_detect(argus_input *in);
/* Whether PATH is a directory (a CTF trace's: argus_decode_dir reads it,
 * argus_input_open refuses it). */
bool argus_decode_is_dir(const char *path);
/* Decodes the CTF trace in the directory PATH into W; FORMAT, when given,
 * must be "ctf". A directory with no CTF trace is an error (65). */
void argus_decode_dir(const char *path, const char *format, argus_decode_options *o,
                      argus_writer *w);
/* Decodes IN, in FORMAT, into W ("ctf": IN is a metadata file, the trace
 * its directory). An option of O that FORMAT does not take
 * is a usage error (64). */
void argus_decode_run(argus_input *in, const char *format, argus_decode_options *o,
                      argus_writer *w);

#endif
