#include "argus/stream/table.h"

#include "argus/stream/cli.h"
#include "argus/stream/stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* XXH3 of an 8-byte key, inlined: the same hash, so the same table
 * order, without a call into the library for every lookup */
#define XXH_INLINE_ALL
#include <xxhash.h>

static size_t slot_of(const argus_table *t, uint64_t key)
{
    return (size_t)XXH3_64bits(&key, sizeof key) & t->mask;
}

static void alloc_slots(argus_table *t, size_t slots)
{
    t->keys = calloc(slots, sizeof *t->keys);
    t->used = calloc(slots, 1);
    t->values = calloc(slots, t->value_size ? t->value_size : 1);
    if (!t->keys || !t->used || !t->values)
        argus_die(ARGUS_EX_IOERR, "out of memory (a table of %zu entries)", slots);
    t->mask = slots - 1;
}

void argus_table_init(argus_table *t, size_t value_size)
{
    memset(t, 0, sizeof *t);
    t->value_size = value_size;
    alloc_slots(t, 64);
}

void argus_table_free(argus_table *t)
{
    free(t->keys);
    free(t->used);
    free(t->values);
    memset(t, 0, sizeof *t);
}

void *argus_table_get(const argus_table *t, uint64_t key)
{
    if (t->has_last && t->last_key == key)
        return t->values + t->last_slot * t->value_size;
    for (size_t i = slot_of(t, key); t->used[i]; i = (i + 1) & t->mask) {
        if (t->keys[i] == key) {
            argus_table *memo = (argus_table *)t; /* the cache, not the content */
            memo->last_key = key;
            memo->last_slot = i;
            memo->has_last = true;
            return t->values + i * t->value_size;
        }
    }
    return NULL;
}

static void grow(argus_table *t)
{
    t->has_last = false;
    argus_table old = *t;
    alloc_slots(t, (old.mask + 1) * 2);
    for (size_t i = 0; i <= old.mask; i++) {
        if (!old.used[i])
            continue;
        size_t j = slot_of(t, old.keys[i]);
        while (t->used[j])
            j = (j + 1) & t->mask;
        t->used[j] = 1;
        t->keys[j] = old.keys[i];
        memcpy(t->values + j * t->value_size, old.values + i * old.value_size,
               t->value_size);
    }
    free(old.keys);
    free(old.used);
    free(old.values);
}

void *argus_table_put(argus_table *t, uint64_t key, bool *created)
{
    void *v = argus_table_get(t, key);
    if (created)
        *created = v == NULL;
    if (v)
        return v;
    if ((t->count + 1) * 4 > (t->mask + 1) * 3)
        grow(t);
    size_t i = slot_of(t, key);
    while (t->used[i])
        i = (i + 1) & t->mask;
    t->used[i] = 1;
    t->keys[i] = key;
    t->count++;
    v = t->values + i * t->value_size;
    memset(v, 0, t->value_size);
    return v;
}

bool argus_table_remove(argus_table *t, uint64_t key)
{
    size_t i = slot_of(t, key);
    for (; t->used[i]; i = (i + 1) & t->mask)
        if (t->keys[i] == key)
            break;
    if (!t->used[i])
        return false;
    t->has_last = false;
    /* backward shift: pull later members of the run into the hole */
    size_t hole = i;
    for (size_t j = (i + 1) & t->mask; t->used[j]; j = (j + 1) & t->mask) {
        size_t home = slot_of(t, t->keys[j]);
        /* j may move to hole if its home is not in (hole, j] */
        bool between = hole <= j ? (home > hole && home <= j)
                                 : (home > hole || home <= j);
        if (between)
            continue;
        t->keys[hole] = t->keys[j];
        memcpy(t->values + hole * t->value_size, t->values + j * t->value_size,
               t->value_size);
        hole = j;
    }
    t->used[hole] = 0;
    t->count--;
    return true;
}

bool argus_table_next(const argus_table *t, size_t *pos, uint64_t *key,
                      void **value)
{
    for (; *pos <= t->mask; (*pos)++) {
        if (t->used[*pos]) {
            *key = t->keys[*pos];
            *value = t->values + *pos * t->value_size;
            (*pos)++;
            return true;
        }
    }
    return false;
}

void argus_id_set_add(argus_id_set *s, uint64_t id)
{
    if (s->n && s->runs[s->n - 1].last + 1 == id) {
        s->runs[s->n - 1].last = id;
        return;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 1024;
        s->runs = realloc(s->runs, s->cap * sizeof *s->runs);
        if (!s->runs)
            argus_die(ARGUS_EX_IOERR, "out of memory (a set of %zu id runs)", s->cap);
    }
    s->runs[s->n++] = (struct argus_id_run){id, id};
}

bool argus_id_set_has(const argus_id_set *s, uint64_t id)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->runs[mid].last < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n && s->runs[lo].first <= id;
}

void argus_id_set_free(argus_id_set *s)
{
    free(s->runs);
    memset(s, 0, sizeof *s);
}

const char *argus_edge_unknown_end(const argus_id_set *s, const argus_record *r,
                                   char *buf, size_t size)
{
    static const int ends[2] = {ARGUS_K_FROM, ARGUS_K_TO};
    for (int i = 0; i < 2; i++) {
        uint64_t id = 0;
        argus_get_uint(r, ends[i], &id);
        if (!argus_id_set_has(s, id)) {
            snprintf(buf, size, "edge %s %llu: no event %llu earlier in the stream",
                     i ? "to" : "from", (unsigned long long)id, (unsigned long long)id);
            return buf;
        }
    }
    return NULL;
}
