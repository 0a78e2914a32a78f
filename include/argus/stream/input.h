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
    bool raw;            /* argus_input_open_raw: never decompressed */
    bool sniffed;        /* the first bytes were looked at for compression */
    struct argus_unpack *unpack; /* gzip or zstd being decompressed, or NULL */
} argus_input;

/* Opens PATH (NULL or "-" for stdin); a missing or unreadable file reports
 * and exits 66. Nothing is read yet. Input compressed with gzip or zstd
 * (told by its first bytes) is read decompressed: how traces are mailed
 * and attached; corrupt or cut compressed data reports and exits 65. */
void argus_input_open(argus_input *in, const char *path, size_t max);
/* The same, the bytes as they are in the file (a hash of the file). */
void argus_input_open_raw(argus_input *in, const char *path, size_t max);
/* The descriptor of the file when the bytes read are that regular file's
 * own (to seek or map it), else -1: stdin, a pipe, a channel, or
 * decompressed data. */
int argus_input_file_fd(const argus_input *in);
/* Opens IN's file again from its start into AGAIN (a buffer of up to MAX
 * bytes), read and decompressed as IN is: a first pass over a file that
 * leaves IN where it is. False when IN is no regular file (a pipe,
 * stdin from a pipe, a channel). */
bool argus_input_reopen(const argus_input *in, argus_input *again, size_t max);
/* "gzip" or "zstd" while reading compressed data, else NULL. */
const char *argus_input_compression(const argus_input *in);
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
/* A new descriptor of the whole input from its start, for readers that
 * seek or map (trace.dat, perf.data, Perfetto): the file's own, or an
 * unlinked file in $TMPDIR (a memory file where none can be made) holding
 * what a pipe, a channel or a decompressed file gives (read to its end).
 * -1 with errno set on failure. */
int argus_input_seekable_fd(argus_input *in);

#endif
