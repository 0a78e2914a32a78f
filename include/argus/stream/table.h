/* A hash table from 64-bit keys (tids, ids, addresses) to fixed-size
 * values stored inline: open addressing, linear probing, XXH3 hashing,
 * deletion by backward shift so pending-match tables can shrink. */
#ifndef ARGUS_TABLE_H
#define ARGUS_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct argus_table {
    uint64_t *keys;
    uint8_t *used;
    unsigned char *values;
    size_t value_size;
    size_t mask;        /* slots - 1 */
    size_t count;
    /* The slot of the key found last: a stage asks for one thread's state
     * event after event. Cleared when slots move (grow, remove). */
    size_t last_slot;
    uint64_t last_key;
    bool has_last;
} argus_table;

void argus_table_init(argus_table *t, size_t value_size);
void argus_table_free(argus_table *t);
/* The value of KEY, or NULL. Valid until the next put or remove. */
void *argus_table_get(const argus_table *t, uint64_t key);
/* The value of KEY, made (zeroed) if absent; *created tells which. */
void *argus_table_put(argus_table *t, uint64_t key, bool *created);
bool argus_table_remove(argus_table *t, uint64_t key);
/* Iteration: for (size_t i = 0; argus_table_next(t, &i, &key, &val);) */
bool argus_table_next(const argus_table *t, size_t *pos, uint64_t *key,
                      void **value);

/* The event ids of a stream so far, as runs of consecutive ids: ids only
 * grow, so a new id extends the last run or starts one; memory grows
 * with the gaps, not with the ids' values. */
typedef struct argus_id_set {
    struct argus_id_run { uint64_t first, last; } *runs;
    size_t n, cap;
} argus_id_set;
void argus_id_set_add(argus_id_set *s, uint64_t id);
bool argus_id_set_has(const argus_id_set *s, uint64_t id);
void argus_id_set_free(argus_id_set *s);
/* For an edge record R: "edge from N: no event N earlier in the stream"
 * (or "edge to N: ...") in BUF when an end is not in S, else NULL. */
struct argus_record;
const char *argus_edge_unknown_end(const argus_id_set *s, const struct argus_record *r,
                                   char *buf, size_t size);

#endif
