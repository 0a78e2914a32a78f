/* Reading an input file in large blocks, the one way every decoder and
 * the stream reader do it: a window [lo, hi) of unread bytes that moves to
 * the front and grows (up to a limit) when a record or line does not fit. */
#ifndef ARGUS_INPUT_H
#define ARGUS_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "argus/stream/channel.h"

typedef struct argus_input {
    int fd;
    char *name;          /* the path, or "<stdin>", for messages */
    uint8_t *buf;
    size_t cap, lo, hi;
    size_t max;          /* the buffer never grows past this */
    bool eof;
    argus_channel *channel; /* argus_input_channel: blocks come from there */
} argus_input;

/* Opens PATH (NULL or "-" for stdin); a missing or unreadable file reports
 * and exits 66. Nothing is read yet. */
void argus_input_open(argus_input *in, const char *path, size_t max);
/* Reads what a writer in another thread writes into CH
 * (argus_writer_channel), NAME naming it in messages. Its blocks become
 * the buffer as they are when all before them is read (no copy). */
void argus_input_channel(argus_input *in, argus_channel *ch, const char *name,
                         size_t max);
/* Reads more after hi, keeping the unread bytes. Returns false, reading
 * nothing, when the unread bytes fill a buffer already at its limit; a
 * read error reports and exits 74. Sets eof at the end of the input. */
bool argus_input_fill(argus_input *in);
void argus_input_close(argus_input *in);

#endif
