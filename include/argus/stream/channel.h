/* An in-process pipe: blocks of whole records handed from a writer in one
 * thread to a reader in another, with no system call and no copy. It is
 * how argus-chain decodes in one thread while its stages run in another
 * (docs/stages/chain.md): a pipe between two processes costs a copy into
 * the kernel and one out of it for every byte, and a run without it takes
 * 3 to 8% less CPU (docs/performance.md). */
#ifndef ARGUS_CHANNEL_H
#define ARGUS_CHANNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct argus_channel argus_channel;

/* A channel holding at most SLOTS blocks not yet read. */
argus_channel *argus_channel_new(int slots);
/* Frees it; both ends must be done with it. */
void argus_channel_free(argus_channel *ch);

/* The writer's end. Hands over the LEN bytes at *BUF, whose size is *CAP,
 * waiting while the channel is full, and puts in *BUF and *CAP an empty
 * block (one the reader is done with, or a new one) of at least MIN
 * bytes. */
void argus_channel_put(argus_channel *ch, uint8_t **buf, size_t *cap, size_t len,
                       size_t min);
/* FN(ARG), once, in the writer's thread, before its first block is handed
 * over: argus-chain starts its stages' thread there, so that what the
 * decoder does before writing (a trial in a forked child: lib/decode's
 * perfdata, tracedat and ctf) happens in a process of one thread. */
void argus_channel_on_first_put(argus_channel *ch, void (*fn)(void *), void *arg);
/* No more blocks: the reader sees the end once it has read those before. */
void argus_channel_close(argus_channel *ch);

/* The reader's end. Waits for the next block and puts it in *BUF, *CAP
 * and *LEN, taking back the block *BUF held (NULL: none); false at the
 * end, with *BUF unchanged. */
bool argus_channel_get(argus_channel *ch, uint8_t **buf, size_t *cap, size_t *len);
/* A block taken by argus_channel_get handed back, BUF of CAP bytes. */
void argus_channel_give_back(argus_channel *ch, uint8_t *buf, size_t cap);

#endif
