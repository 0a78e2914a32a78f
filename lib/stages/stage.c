/* Shared stage plumbing (include/argus/stages/stage.h). */
#include "argus/stages/stage.h"
#include "argus/stream/cli.h"
#include "argus/stream/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- opening and closing ------------------------------------------------ */

void argus_stage_open(argus_stage *st, const char *path, bool verbose)
{
    st->verbose = verbose;
    st->out = argus_writer_stream();
    st->in = argus_reader_open(path);
    argus_write_header(st->out, argus_reader_header(st->in),
                       argus_command_line());
}

#define MAX_COUNTERS 32
struct argus_counters {
    int n;
    struct { const char *name; uint64_t n; } c[MAX_COUNTERS];
};
/* The program's counters; in a chain, the running stage's. */
static argus_counters own_counters;
static argus_counters *counting = &own_counters;

argus_counters *argus_counters_new(void)
{
    argus_counters *s = argus_xcalloc(1, sizeof *s, "counters");
    return s;
}

argus_counters *argus_counters_use(argus_counters *s)
{
    argus_counters *was = counting == &own_counters ? NULL : counting;
    counting = s ? s : &own_counters;
    return was;
}

void argus_counters_free(argus_counters *s) { free(s); }

void argus_count(const char *name, uint64_t n)
{
    argus_counters *set = counting;
    for (int i = 0; i < set->n; i++) {
        if (set->c[i].name == name || strcmp(set->c[i].name, name) == 0) {
            set->c[i].n += n;
            return;
        }
    }
    if (set->n < MAX_COUNTERS) {
        set->c[set->n].name = name;
        set->c[set->n++].n = n;
    }
}

void argus_counters_print(const argus_counters *set, const char *prog)
{
    for (int i = 0; i < set->n; i++)
        fprintf(stderr, "%s: %s: %llu\n", prog, set->c[i].name,
                (unsigned long long)set->c[i].n);
}

uint64_t argus_counters_get(const argus_counters *set, const char *name)
{
    for (int i = 0; i < set->n; i++)
        if (strcmp(set->c[i].name, name) == 0)
            return set->c[i].n;
    return 0;
}

void argus_stage_close(argus_stage *st)
{
    argus_writer_close(st->out);
    if (st->verbose)
        argus_counters_print(&own_counters, argus_prog());
    argus_reader_close(st->in);
    st->in = NULL;
    st->out = NULL;
}

/* ---- running stages: alone, or chained in one process ------------------- */

int argus_stage_main(const argus_stage_def *def, const void *options,
                     const char *path, const argus_options *common)
{
    argus_stage st;
    argus_stage_open(&st, path, common->verbose);
    void *self = def->start(options, common);
    const argus_record *r;
    while ((r = argus_read(st.in)))
        def->record(self, r, st.out);
    def->finish(self, st.out);
    argus_stage_close(&st);
    return ARGUS_EX_OK;
}

typedef struct chain_link {
    const argus_stage_def *def;
    char output_name[64];   /* "STAGE's output", in messages */
    void *self;
    argus_writer *out;      /* to the next link; the last one's, stdout */
    argus_counters *counters;
    bool have_header;
} chain_link;

/* A record reaches the stage of link CTX: the first is its input's header,
 * which it writes on with its name appended to "stages", as its program
 * run with no option would. */
static void chain_deliver(void *ctx, const argus_record *r)
{
    chain_link *k = ctx;
    argus_counters *was = argus_counters_use(k->counters);
    if (k->have_header) {
        k->def->record(k->self, r, k->out);
    } else {
        k->have_header = true;
        argus_write_header(k->out, r, k->def->name);
    }
    argus_counters_use(was);
}

int argus_stage_chain(const argus_stage_def *const *defs, int n,
                      const char *path, bool verbose)
{
    return argus_stage_chain_reader(defs, n, argus_reader_open(path), &verbose);
}

int argus_stage_chain_reader(const argus_stage_def *const *defs, int n,
                             argus_reader *in, const bool *verbose)
{
    chain_link *links = argus_xcalloc((size_t)n, sizeof *links, "chain link");
    argus_options common = ARGUS_OPTIONS_DEFAULT;
    common.verbose = *verbose;
    for (int i = n - 1; i >= 0; i--) {
        links[i].def = defs[i];
        snprintf(links[i].output_name, sizeof links[i].output_name,
                 "%s's output", defs[i]->name);
        links[i].out = i == n - 1 ? argus_writer_stream()
                                  : argus_writer_to(links[i].output_name,
                                                    chain_deliver, &links[i + 1]);
    }
    for (int i = 0; i < n; i++) {
        links[i].counters = argus_counters_new();
        argus_counters_use(links[i].counters);
        links[i].self = defs[i]->start(NULL, &common);
    }
    argus_counters_use(NULL);
    chain_deliver(&links[0], argus_reader_header(in));
    const argus_record *r;
    while ((r = argus_read(in)))
        chain_deliver(&links[0], r);
    for (int i = 0; i < n; i++) { /* each one's leftovers go through the rest */
        argus_counters_use(links[i].counters);
        defs[i]->finish(links[i].self, links[i].out);
    }
    argus_counters_use(NULL);
    for (int i = 0; i < n; i++)
        argus_writer_close(links[i].out);
    if (*verbose) {
        for (int i = 0; i < n; i++) {
            char prog[64];
            snprintf(prog, sizeof prog, "argus-%s", defs[i]->name);
            argus_counters_print(links[i].counters, prog);
        }
    }
    for (int i = 0; i < n; i++)
        argus_counters_free(links[i].counters);
    argus_reader_close(in);
    free(links);
    return ARGUS_EX_OK;
}

void argus_put_edge(argus_writer *w, const char *kind, uint64_t from,
                    uint64_t to, bool weak)
{
    argus_put_map(w, weak ? 5 : 4);
    argus_put_key(w, "type");
    argus_put_text(w, "edge", 4);
    argus_put_key(w, "kind");
    argus_put_cstr(w, kind);
    argus_put_key(w, "from");
    argus_put_uint(w, from);
    argus_put_key(w, "to");
    argus_put_uint(w, to);
    if (weak) {
        argus_put_key(w, "weak");
        argus_put_bool(w, true);
    }
    argus_end_record(w);
}

/* ---- bounded FIFO index ------------------------------------------------- */

#define NIL UINT32_MAX

typedef struct fifo_entry {
    argus_fifo_item item;
    uint32_t gen;             /* bumped on reuse, so stale handles miss */
    uint32_t prev, next;      /* arrival order, all keys */
    uint32_t key_prev, key_next;
    bool live;
} fifo_entry;

typedef struct { uint32_t head, tail; } key_queue;

struct argus_fifo {
    fifo_entry *e;
    uint32_t cap, used, free_head;
    uint32_t head, tail;      /* oldest and newest live entries */
    uint64_t live, max;
    argus_table keys;         /* key -> key_queue */
    const char *dropped_counter;
};

argus_fifo *argus_fifo_new(uint64_t max, const char *dropped_counter)
{
    argus_fifo *f = argus_xcalloc(1, sizeof *f, "fifo");
    f->max = max ? max : 1;
    if (f->max > NIL - 1)
        f->max = NIL - 1;
    f->free_head = f->head = f->tail = NIL;
    f->dropped_counter = dropped_counter;
    argus_table_init(&f->keys, sizeof(key_queue));
    return f;
}

void argus_fifo_free(argus_fifo *f)
{
    if (!f)
        return;
    free(f->e);
    argus_table_free(&f->keys);
    free(f);
}

uint64_t argus_fifo_pending(const argus_fifo *f) { return f->live; }

static void unlink_entry(argus_fifo *f, uint32_t i)
{
    fifo_entry *x = &f->e[i];
    if (x->prev != NIL) f->e[x->prev].next = x->next; else f->head = x->next;
    if (x->next != NIL) f->e[x->next].prev = x->prev; else f->tail = x->prev;
    key_queue *q = argus_table_get(&f->keys, x->item.key);
    if (x->key_prev != NIL) f->e[x->key_prev].key_next = x->key_next; else q->head = x->key_next;
    if (x->key_next != NIL) f->e[x->key_next].key_prev = x->key_prev; else q->tail = x->key_prev;
    if (q->head == NIL)
        argus_table_remove(&f->keys, x->item.key);
    x->live = false;
    x->gen++;
    x->next = f->free_head;
    f->free_head = i;
    f->live--;
}

uint64_t argus_fifo_push(argus_fifo *f, uint64_t key, uint64_t id,
                         uint64_t aux, uint64_t aux2)
{
    if (f->live >= f->max) {
        unlink_entry(f, f->head);
        if (f->dropped_counter)
            argus_count(f->dropped_counter, 1);
    }
    uint32_t i;
    if (f->free_head != NIL) {
        i = f->free_head;
        f->free_head = f->e[i].next;
    } else {
        if (f->used == f->cap) {
            f->cap = f->cap ? f->cap * 2 : 1024;
            f->e = argus_xrealloc(f->e, (size_t)f->cap * sizeof *f->e, "a pending table");
        }
        i = f->used++;
        f->e[i].gen = 0;
    }
    fifo_entry *x = &f->e[i];
    x->item = (argus_fifo_item){key, id, aux, aux2};
    x->live = true;
    x->next = NIL;
    x->prev = f->tail;
    if (f->tail != NIL) f->e[f->tail].next = i; else f->head = i;
    f->tail = i;
    bool created;
    key_queue *q = argus_table_put(&f->keys, key, &created);
    if (created)
        q->head = q->tail = NIL;
    x->key_next = NIL;
    x->key_prev = q->tail;
    if (q->tail != NIL) f->e[q->tail].key_next = i; else q->head = i;
    q->tail = i;
    f->live++;
    return (uint64_t)x->gen << 32 | i;
}

bool argus_fifo_take(argus_fifo *f, uint64_t key,
                     bool (*accept)(const argus_fifo_item *, void *),
                     void *ctx, argus_fifo_item *out)
{
    key_queue *q = argus_table_get(&f->keys, key);
    if (!q)
        return false;
    for (uint32_t i = q->head; i != NIL; i = f->e[i].key_next) {
        if (accept && !accept(&f->e[i].item, ctx))
            continue;
        *out = f->e[i].item;
        unlink_entry(f, i);
        return true;
    }
    return false;
}

bool argus_fifo_remove(argus_fifo *f, uint64_t handle, argus_fifo_item *out)
{
    uint32_t i = (uint32_t)handle;
    if (i >= f->used || !f->e[i].live || f->e[i].gen != (uint32_t)(handle >> 32))
        return false;
    if (out)
        *out = f->e[i].item;
    unlink_entry(f, i);
    return true;
}
