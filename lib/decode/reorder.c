/* The reorder window (include/argus/decode/reorder.h). */
#include "argus/decode/reorder.h"
#include "argus/stream/cli.h"

#include <stdlib.h>
#include <string.h>

void argus_reorder_init(argus_reorder *r, size_t slot_size, size_t window)
{
    memset(r, 0, sizeof *r);
    r->size = slot_size;
    r->window = window ? window : 1;
    r->cap = 1;
    while (r->cap < r->window + 1)
        r->cap <<= 1;
    /* one spare slot: the swap space of commit */
    r->slots = argus_xcalloc(r->cap + 1, slot_size, "reorder window");
}

void argus_reorder_free(argus_reorder *r)
{
    free(r->slots);
    r->slots = NULL;
}

static uint64_t ts_at(const argus_reorder *r, size_t pos)
{
    uint64_t ts;
    memcpy(&ts, r->slots + ((r->head + pos) & (r->cap - 1)) * r->size, sizeof ts);
    return ts;
}

bool argus_reorder_commit(argus_reorder *r)
{
    size_t mask = r->cap - 1, pos = r->count;
    uint64_t ts = ts_at(r, pos);
    if (pos > 0 && ts_at(r, pos - 1) > ts) {
        /* rotate the new record down past every later one: each slot's
         * contents (and any buffer it owns) move whole, none is lost */
        unsigned char *spare = r->slots + r->cap * r->size;
        memcpy(spare, r->slots + ((r->head + pos) & mask) * r->size, r->size);
        while (pos > 0 && ts_at(r, pos - 1) > ts) {
            memcpy(r->slots + ((r->head + pos) & mask) * r->size,
                   r->slots + ((r->head + pos - 1) & mask) * r->size, r->size);
            pos--;
        }
        memcpy(r->slots + ((r->head + pos) & mask) * r->size, spare, r->size);
        r->moved++;
    }
    r->count++;
    return r->count > r->window;
}
