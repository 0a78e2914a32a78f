/* The reorder window every trace decoder merges its input through: a
 * bounded ring of records kept sorted by ts, so records that come a little
 * out of order (per-CPU buffers, concatenated traces) leave it in order.
 *
 * A record is an opaque slot of a fixed size whose first member is its
 * uint64_t ts. Slots are filled in place and moved by swapping whole
 * slots, so a record may own a buffer (a line's text) that travels with
 * it and is reused when its slot comes round again. */
#ifndef ARGUS_REORDER_H
#define ARGUS_REORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct argus_reorder {
    unsigned char *slots;
    size_t size;             /* bytes a slot */
    size_t cap, head, count; /* cap a power of two, > window */
    size_t window;           /* records held before the oldest leaves */
    uint64_t moved;          /* records that did not come in ts order */
} argus_reorder;

/* WINDOW records at most; slots start zeroed. */
void argus_reorder_init(argus_reorder *r, size_t slot_size, size_t window);
void argus_reorder_free(argus_reorder *r);

/* The free slot after the newest record, to fill in place (its old
 * contents, such as an owned buffer, are still there). */
static inline void *argus_reorder_tail(argus_reorder *r)
{
    return r->slots + ((r->head + r->count) & (r->cap - 1)) * r->size;
}
/* Sorts the filled tail slot in after the last record with ts <= its own
 * (stable). Returns true when the window is then over-full: the caller
 * takes the oldest out (argus_reorder_oldest, argus_reorder_pop). */
bool argus_reorder_commit(argus_reorder *r);
static inline void *argus_reorder_oldest(argus_reorder *r)
{
    return r->slots + r->head * r->size;
}
static inline void argus_reorder_pop(argus_reorder *r)
{
    r->head = (r->head + 1) & (r->cap - 1);
    r->count--;
}

#endif
