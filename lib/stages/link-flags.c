/* link-flags: links shared-flag writes to their reads, and CoreAnimation
 * needs-display marks to the display that draws them
 * (docs/stages/link-flags.md; the command line is filters/link-flags.c). */
#include "argus/stages/builtin.h"
#include "argus/stream/table.h"
#include "argus/stream/cli.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* ---- flag values ----------------------------------------------------------
 * Two values are equal when both are uints of the same value, both texts
 * with the same characters, or otherwise the same CBOR bytes. A text or
 * other value is kept as a 64-bit XXH3 fingerprint with its length, so a
 * write's state stays fixed-size. */
enum value_kind { VALUE_NONE, VALUE_UINT, VALUE_TEXT, VALUE_OTHER };

typedef struct flag_value {
    uint8_t kind;
    uint32_t len;
    uint64_t v;     /* the uint, or the fingerprint */
} flag_value;

static flag_value value_of(const argus_record *r)
{
    const argus_field *f = argus_get(r, ARGUS_K_VALUE);
    if (!f)
        return (flag_value){VALUE_NONE, 0, 0};
    if (f->kind == ARGUS_V_UINT)
        return (flag_value){VALUE_UINT, 0, f->u};
    if (f->kind == ARGUS_V_TEXT && f->s)
        return (flag_value){VALUE_TEXT, f->slen, XXH3_64bits(f->s, f->slen)};
    uint32_t len = f->end_off - f->val_off;
    return (flag_value){VALUE_OTHER, len, XXH3_64bits(r->raw + f->val_off, len)};
}

static bool values_conflict(flag_value a, flag_value b)
{
    if (a.kind == VALUE_NONE || b.kind == VALUE_NONE)
        return false;
    return a.kind != b.kind || a.len != b.len || a.v != b.v;
}

/* ---- FLAG-RW state: per (process, addr), the latest write and the latest
 * write by a thread other than that writer -------------------------------
 * Slots live in one array with stable indices; a table maps addr to the
 * first slot of that addr (a chain covers the rare addr shared by several
 * processes); a list in order of last write gives the oldest address to
 * drop when --max-pending addresses are held. */
#define NIL UINT32_MAX

typedef struct flag_write {
    uint64_t id, tid;
    flag_value value;
} flag_write;

typedef struct flag_slot {
    uint64_t pid, addr;
    flag_write latest, other;   /* other: by a thread != latest.tid */
    bool has_other;
    uint32_t older, newer;      /* order of last write */
    uint32_t next_same_addr;    /* chain; also the free list */
} flag_slot;

typedef struct flag_index {
    flag_slot *slots;
    uint32_t cap, used, free_head, live, max;
    uint32_t oldest, newest;
    argus_table by_addr;        /* addr -> uint32 first slot */
} flag_index;

static void flag_index_init(flag_index *x, uint64_t max)
{
    memset(x, 0, sizeof *x);
    x->max = max == 0 ? 1 : max > NIL - 1 ? NIL - 1 : (uint32_t)max;
    x->free_head = x->oldest = x->newest = NIL;
    argus_table_init(&x->by_addr, sizeof(uint32_t));
}

static void flag_index_free(flag_index *x)
{
    free(x->slots);
    argus_table_free(&x->by_addr);
}

static uint32_t flag_find(const flag_index *x, uint64_t pid, uint64_t addr)
{
    const uint32_t *first = argus_table_get(&x->by_addr, addr);
    for (uint32_t i = first ? *first : NIL; i != NIL; i = x->slots[i].next_same_addr)
        if (x->slots[i].pid == pid)
            return i;
    return NIL;
}

static void order_unlink(flag_index *x, uint32_t i)
{
    flag_slot *s = &x->slots[i];
    if (s->older != NIL) x->slots[s->older].newer = s->newer; else x->oldest = s->newer;
    if (s->newer != NIL) x->slots[s->newer].older = s->older; else x->newest = s->older;
}

static void order_append(flag_index *x, uint32_t i)
{
    flag_slot *s = &x->slots[i];
    s->newer = NIL;
    s->older = x->newest;
    if (x->newest != NIL) x->slots[x->newest].newer = i; else x->oldest = i;
    x->newest = i;
}

static void flag_drop(flag_index *x, uint32_t i)
{
    flag_slot *s = &x->slots[i];
    order_unlink(x, i);
    uint32_t *first = argus_table_get(&x->by_addr, s->addr);
    if (*first == i) {
        if (s->next_same_addr == NIL)
            argus_table_remove(&x->by_addr, s->addr);
        else
            *first = s->next_same_addr;
    } else {
        uint32_t p = *first;
        while (x->slots[p].next_same_addr != i)
            p = x->slots[p].next_same_addr;
        x->slots[p].next_same_addr = s->next_same_addr;
    }
    s->next_same_addr = x->free_head;
    x->free_head = i;
    x->live--;
}

/* FLAG-RW for a write: the previous latest write becomes "other" when
 * this write's thread differs from its writer. */
static void flag_write_seen(flag_index *x, uint64_t pid, uint64_t addr,
                            flag_write w)
{
    uint32_t i = flag_find(x, pid, addr);
    if (i != NIL) {
        flag_slot *s = &x->slots[i];
        if (s->latest.tid != w.tid) {
            s->other = s->latest;
            s->has_other = true;
        }
        s->latest = w;
        order_unlink(x, i);
        order_append(x, i);
        return;
    }
    if (x->live >= x->max) {
        flag_drop(x, x->oldest);
        argus_count("flag addresses dropped (max-pending)", 1);
    }
    if (x->free_head != NIL) {
        i = x->free_head;
        x->free_head = x->slots[i].next_same_addr;
    } else {
        if (x->used == x->cap) {
            x->cap = x->cap ? x->cap * 2 : 256;
            x->slots = argus_xrealloc(x->slots, (size_t)x->cap * sizeof *x->slots, "flag slots");
        }
        i = x->used++;
    }
    flag_slot *s = &x->slots[i];
    s->pid = pid;
    s->addr = addr;
    s->latest = w;
    s->has_other = false;
    bool created;
    uint32_t *first = argus_table_put(&x->by_addr, addr, &created);
    s->next_same_addr = created ? NIL : *first;
    *first = i;
    order_append(x, i);
    x->live++;
}

/* FLAG-RW for a read: the write it is linked from, or NULL. */
static const flag_write *flag_read_source(const flag_index *x, uint64_t pid,
                                          uint64_t addr, uint64_t tid)
{
    uint32_t i = flag_find(x, pid, addr);
    if (i == NIL)
        return NULL;
    const flag_slot *s = &x->slots[i];
    if (s->latest.tid != tid)
        return &s->latest;
    return s->has_other ? &s->other : NULL;
}

/* ---- FLAG-CA state: the ids of the marks not yet displayed, per
 * (process, obj) -----------------------------------------------------------
 * A mark costs 8 bytes (its id in its object's array), not an argus_fifo
 * entry of 56: marks of an object that is never drawn pile up until
 * --max-pending, and bench/gen has such objects. Objects with marks are
 * kept in a min-heap on their oldest mark, so the oldest mark of all is
 * found for the oldest-first drop. An object with no marks left goes back
 * to a free list with its array, so the steady state allocates nothing. */
typedef struct mark_slot {
    uint64_t pid, obj;
    uint64_t *ids;              /* pending ids: ids[start .. start+count) */
    uint32_t start, count, cap;
    uint32_t heap_pos;
    uint32_t next_same_obj;     /* chain; also the free list */
} mark_slot;

typedef struct mark_index {
    mark_slot *slots;
    uint32_t nslots, cap, free_head;
    uint32_t *heap;             /* slots with marks, by oldest mark */
    uint32_t heap_len;
    uint64_t pending, max;
    argus_table by_obj;         /* obj -> uint32 first slot */
} mark_index;

static void mark_index_init(mark_index *x, uint64_t max)
{
    memset(x, 0, sizeof *x);
    /* 32-bit counts and capacities: an object's array never doubles past
     * 2^31 entries */
    x->max = max > INT32_MAX ? INT32_MAX : max;
    x->free_head = NIL;
    argus_table_init(&x->by_obj, sizeof(uint32_t));
}

static void mark_index_free(mark_index *x)
{
    for (uint32_t i = 0; i < x->nslots; i++)
        free(x->slots[i].ids);
    free(x->slots);
    free(x->heap);
    argus_table_free(&x->by_obj);
}

static uint64_t oldest_mark(const mark_index *x, uint32_t heap_pos)
{
    const mark_slot *s = &x->slots[x->heap[heap_pos]];
    return s->ids[s->start];
}

static void heap_set(mark_index *x, uint32_t pos, uint32_t slot)
{
    x->heap[pos] = slot;
    x->slots[slot].heap_pos = pos;
}

static void heap_sift_up(mark_index *x, uint32_t pos)
{
    uint32_t slot = x->heap[pos];
    uint64_t key = oldest_mark(x, pos);
    while (pos > 0 && oldest_mark(x, (pos - 1) / 2) > key) {
        heap_set(x, pos, x->heap[(pos - 1) / 2]);
        pos = (pos - 1) / 2;
    }
    heap_set(x, pos, slot);
}

static void heap_sift_down(mark_index *x, uint32_t pos)
{
    uint32_t slot = x->heap[pos];
    uint64_t key = oldest_mark(x, pos);
    for (;;) {
        uint32_t child = 2 * pos + 1;
        if (child >= x->heap_len)
            break;
        if (child + 1 < x->heap_len && oldest_mark(x, child + 1) < oldest_mark(x, child))
            child++;
        if (oldest_mark(x, child) >= key)
            break;
        heap_set(x, pos, x->heap[child]);
        pos = child;
    }
    heap_set(x, pos, slot);
}

static uint32_t mark_find(const mark_index *x, uint64_t pid, uint64_t obj)
{
    const uint32_t *first = argus_table_get(&x->by_obj, obj);
    for (uint32_t i = first ? *first : NIL; i != NIL; i = x->slots[i].next_same_obj)
        if (x->slots[i].pid == pid)
            return i;
    return NIL;
}

/* Takes an object whose marks are all gone out of the heap and the
 * table, and keeps its slot (and array) for reuse. */
static void mark_release(mark_index *x, uint32_t i)
{
    mark_slot *s = &x->slots[i];
    uint32_t pos = s->heap_pos;
    uint32_t last = x->heap[--x->heap_len];
    if (pos < x->heap_len) {
        heap_set(x, pos, last);
        heap_sift_down(x, pos);
        heap_sift_up(x, x->slots[last].heap_pos);
    }
    uint32_t *first = argus_table_get(&x->by_obj, s->obj);
    if (*first == i) {
        if (s->next_same_obj == NIL)
            argus_table_remove(&x->by_obj, s->obj);
        else
            *first = s->next_same_obj;
    } else {
        uint32_t p = *first;
        while (x->slots[p].next_same_obj != i)
            p = x->slots[p].next_same_obj;
        x->slots[p].next_same_obj = s->next_same_obj;
    }
    if (s->cap > 1024) {   /* do not hold on to a rare large array */
        free(s->ids);
        s->ids = NULL;
        s->cap = 0;
    }
    s->next_same_obj = x->free_head;
    x->free_head = i;
}

static void mark_drop_oldest(mark_index *x)
{
    uint32_t i = x->heap[0];
    mark_slot *s = &x->slots[i];
    s->start++;
    s->count--;
    x->pending--;
    argus_count("ca_set marks dropped (max-pending)", 1);
    if (s->count == 0)
        mark_release(x, i);
    else
        heap_sift_down(x, 0);
}

static void mark_push(mark_index *x, uint64_t pid, uint64_t obj, uint64_t id)
{
    if (x->pending >= x->max)
        mark_drop_oldest(x);
    uint32_t i = mark_find(x, pid, obj);
    if (i == NIL) {
        if (x->free_head != NIL) {
            i = x->free_head;
            x->free_head = x->slots[i].next_same_obj;
        } else {
            if (x->nslots == x->cap) {
                x->cap = x->cap ? x->cap * 2 : 256;
                x->slots = argus_xrealloc(x->slots, (size_t)x->cap * sizeof *x->slots,
                                          "pending flag writes");
                x->heap = argus_xrealloc(x->heap, (size_t)x->cap * sizeof *x->heap,
                                         "pending flag writes");
            }
            i = x->nslots++;
            x->slots[i].ids = NULL;
            x->slots[i].cap = 0;
        }
        mark_slot *s = &x->slots[i];
        s->pid = pid;
        s->obj = obj;
        s->start = s->count = 0;
        bool created;
        uint32_t *first = argus_table_put(&x->by_obj, obj, &created);
        s->next_same_obj = created ? NIL : *first;
        *first = i;
    }
    mark_slot *s = &x->slots[i];
    if (s->start + s->count == s->cap) {
        if (s->start > 0) {
            memmove(s->ids, s->ids + s->start, (size_t)s->count * sizeof *s->ids);
            s->start = 0;
        } else {
            s->cap = s->cap ? s->cap * 2 : 4;
            s->ids = argus_xrealloc(s->ids, (size_t)s->cap * sizeof *s->ids, "flag writers");
        }
    }
    s->ids[s->start + s->count++] = id;
    x->pending++;
    if (s->count == 1) {
        x->heap_len++;
        heap_set(x, x->heap_len - 1, i);
        heap_sift_up(x, x->heap_len - 1);
    }
}

/* FLAG-CA for a display: writes an edge from every pending mark of the
 * object, oldest first; returns how many. */
static uint64_t mark_display(mark_index *x, argus_writer *out, uint64_t pid,
                             uint64_t obj, uint64_t display_id)
{
    uint32_t i = mark_find(x, pid, obj);
    if (i == NIL)
        return 0;
    mark_slot *s = &x->slots[i];
    uint64_t n = s->count;
    for (uint32_t k = 0; k < s->count; k++)
        argus_put_edge(out, "display", s->ids[s->start + k], display_id, false);
    x->pending -= n;
    s->count = 0;
    mark_release(x, i);
    return n;
}

typedef struct flag_linker {
    argus_link_flags_options o;
    flag_index writes;
    mark_index marks;
} flag_linker;

static void *link_flags_start(const void *options, const argus_options *common)
{
    static const argus_link_flags_options defaults = ARGUS_LINK_FLAGS_DEFAULTS;
    flag_linker *k = argus_xcalloc(1, sizeof *k, "flag linker");
    k->o = options ? *(const argus_link_flags_options *)options : defaults;
    flag_index_init(&k->writes, common->max_pending);
    mark_index_init(&k->marks, common->max_pending);
    return k;
}

static void link_flags_record(void *self, const argus_record *r, argus_writer *out)
{
    flag_linker *k = self;
    argus_write_record(out, r);
    if (!r->is_event)
        return;
    uint64_t pid = k->o.same_process ? r->pid : 0;
    switch (r->type) {
    case ARGUS_T_FLAG_WRITE:
    case ARGUS_T_FLAG_READ: {
        if (!k->o.rw)
            break;
        uint64_t addr;
        if (!argus_get_uint(r, ARGUS_K_ADDR, &addr)) {
            argus_count("flag events without addr", 1);
            break;
        }
        flag_write w = {r->id, r->tid, value_of(r)};
        if (r->type == ARGUS_T_FLAG_WRITE) {
            flag_write_seen(&k->writes, pid, addr, w);
            break;
        }
        const flag_write *src = flag_read_source(&k->writes, pid, addr, r->tid);
        if (!src) {
            argus_count("flag reads with no write by another thread", 1);
        } else if (values_conflict(src->value, w.value)) {
            argus_count("flag reads of another value", 1);
        } else {
            argus_put_edge(out, "flag", src->id, r->id, false);
            argus_count("flag edges", 1);
        }
        break;
    }
    case ARGUS_T_CA_SET:
    case ARGUS_T_CA_DISPLAY: {
        if (!k->o.ca)
            break;
        uint64_t obj;
        if (!argus_get_uint(r, ARGUS_K_OBJ, &obj)) {
            argus_count("ca events without obj", 1);
            break;
        }
        if (r->type == ARGUS_T_CA_SET) {
            mark_push(&k->marks, pid, obj, r->id);
            break;
        }
        /* a display with a phase is linked at its begin only: marks
         * made while it draws wait for the next display */
        if (argus_get(r, ARGUS_K_PHASE) && !argus_text_is(r, ARGUS_K_PHASE, "begin"))
            break;
        uint64_t linked = mark_display(&k->marks, out, pid, obj, r->id);
        if (linked)
            argus_count("display edges", linked);
        else
            argus_count("ca_display with no ca_set", 1);
        break;
    }
    default:
        break;
    }
}

static void link_flags_discard(void *self)
{
    flag_linker *k = self;
    mark_index_free(&k->marks);
    flag_index_free(&k->writes);
    free(k);
}

static void link_flags_finish(void *self, argus_writer *out)
{
    flag_linker *k = self;
    (void)out;
    if (k->marks.pending)
        argus_count("ca_set marks left without display", k->marks.pending);
    link_flags_discard(k);
}

const argus_stage_def argus_link_flags_stage = {
    "link-flags", link_flags_start, link_flags_record, link_flags_finish, link_flags_discard,
};
