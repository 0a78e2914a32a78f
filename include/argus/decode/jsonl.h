/* JSON lines to an argus stream (docs/stages/decode.md): the decoder
 * behind 'argus-decode --format jsonl', fed one line at a time so that
 * every message names its line and the fuzzer can drive it in memory. */
#ifndef ARGUS_JSONL_H
#define ARGUS_JSONL_H

#include <stddef.h>
#include <stdint.h>

#include "argus/stream/stream.h"

typedef struct argus_jsonl argus_jsonl;

/* A decoder writing to W. COMMAND is what a hand-written trace's new
 * header lists in "stages". */
argus_jsonl *argus_jsonl_new(argus_writer *w, const char *command);
/* One line, without its newline. Returns 0, or -1 on bad input with the
 * message in argus_jsonl_error() (records before it are written). */
int argus_jsonl_line(argus_jsonl *d, const char *line, size_t len);
/* End of input: writes the header of an empty hand-written trace. */
int argus_jsonl_finish(argus_jsonl *d);
const char *argus_jsonl_error(const argus_jsonl *d);
void argus_jsonl_free(argus_jsonl *d);

#endif
