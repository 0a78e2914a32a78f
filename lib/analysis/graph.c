/* The in-memory graph of the analysis programs (include/argus/analysis/graph.h):
 * one concern, loading a graph stream into memory (segments, edges,
 * threads, key events kept or read again lazily, the extras) and
 * answering questions of it, at 1.9k lines. */
#include "argus/analysis/graph.h"

#include "argus/stream/cbor.h"
#include "argus/stream/cli.h"
#include "argus/stream/input.h"
#include "argus/stream/table.h"
#include "argus/stream/text.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#define NO_ID UINT64_MAX

struct argus_graph_priv {
    argus_table seg_index;      /* seg id -> segment index (uint32), made
                                   only when seg ids come out of order */
    bool segs_sorted;           /* segs[] in increasing seg id: argus-segment
                                   numbers segments as they begin, so a
                                   binary search finds them */
    argus_table thread_index;   /* tid -> thread index (uint32) */
    argus_table pid_proc;       /* pid -> process name (string offset) */
    argus_table pid_cmdline;    /* pid -> its arguments, separated by '\n'
                                   (string offset) */
    argus_table str_index;      /* XXH3 of a string -> offset (chained by
                                   comparing, collisions fall back to a
                                   fresh copy) */
    /* Event id -> segment index: ids are increasing but may skip (a
     * stage dropped events), so the map is runs of nearly consecutive
     * ids, each a stretch of id_seg; memory follows the events, not the
     * ids' values. */
    uint32_t *id_seg;
    struct id_run {
        uint64_t first_id, at;
    } *id_runs;
    size_t id_len, nid_runs;
    uint64_t id_last;
    size_t id_cap, cap_id_runs, cap_threads, cap_segs, cap_edges, cap_sig, cap_keys,
        cap_str, cap_extras, cap_extra_pool, cap_locks, cap_accepts, cap_preempts, cap_inner_waits,
        cap_ipcs, cap_fds;
    argus_parser *parser;
    /* ARGUS_KEYS_REREAD and keys_lazily: where to read events again.
     * For each block of ID_BLOCK slots of id_seg, 1 + the stream offset
     * of its first event (0: none); an event is found by reading on from
     * there. The file to read (-1: none). */
    uint64_t *blk_off;
    size_t nblk, blk_cap;
    int reread_fd;
    argus_parser *reread_parser;
    uint8_t *reread_buf;
    size_t reread_cap;
    /* keys_lazily: a segment's key events, made when first asked for
     * (segment index -> struct lazy_keys *), and their texts, apart
     * from strings[] so that no text already handed out moves */
    bool lazy_keys;
    argus_table lazy_segs;
    /* keys kept (keep_key_events, not lazily): each segment's in keys[] */
    struct seg_keys { uint32_t off, len; } *seg_keys;
    size_t nseg_keys, cap_seg_keys;
    argus_table lock_failed;    /* segment index -> ts of its last failed
                                   file-lock try (few segments have one) */
    argus_table connect_started; /* segment index -> ts of a connect that
                                   returned EINPROGRESS in it */
    char **lazy_text;
    size_t nlazy_text, cap_lazy_text;
    argus_table lazy_text_index;
    void *mapped[24];           /* arrays grown in reserved address space */
    int nmapped;
};

/* Per thread while loading: the signature of the open segment, and the
 * segment blocked in its final wait. */
typedef struct loading_thread {
    uint64_t seg_id;            /* the segment of its last event ... */
    uint32_t seg, thread;       /* ... its index, and the thread's index */
    uint64_t other_seg_id;      /* the one before it (an interrupt window */
    uint32_t other_seg;         /* and back, ARGUS_NONE: none) */
    uint32_t blocked_seg;       /* segment whose last event so far is a wait */
    uint64_t wait_ts;           /* ... that wait's ts */
    bool in_lock;               /* in a file-lock syscall (fcntl, flock) */
    uint64_t syscall_name;      /* XXH3 of the open syscall's name, 0: none */
    uint32_t sig_seg;           /* segment whose signature is in sig */
    uint32_t sig_len;
    uint32_t *sig;              /* grown up to ARGUS_SIG_MAX: most threads
                                   of a long trace are short-lived */
    size_t sig_cap;
} loading_thread;

void *argus_grow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap && p)
        return p;
    size_t n = *cap ? *cap : 16;
    while (n < need) {
        if (n > SIZE_MAX / 2 / size)    /* doubling would wrap */
            argus_die(ARGUS_EX_IOERR, "out of memory (%zu items of %zu bytes)", need, size);
        n *= 2;
    }
    void *q = realloc(p, n * size);
    if (!q)
        argus_die(ARGUS_EX_IOERR, "out of memory (%zu items of %zu bytes)", n, size);
    *cap = n;
    return q;
}

/* The graph's arrays grow in place: the first growth of one reserves
 * address space for any size it could reach (pages are only mapped as
 * they are first written), so growing never copies or moves what is
 * loaded, and a copy never needs both sizes at once. Where the first
 * write to a page is dear (this machine's VM: about 7 us a 4 KiB page,
 * 40% of argus-analyze's time; a moved array pays it again), fewer
 * and larger pages matter most: see reserve(). Where the reservation is
 * refused (a ulimit -v), arrays grow by realloc. */
#define GRAPH_RESERVE ((size_t)1 << 38)

static bool graph_mapped(const struct argus_graph_priv *p, const void *a)
{
    for (int i = 0; i < p->nmapped; i++)
        if (p->mapped[i] == a)
            return true;
    return false;
}

/* GRAPH_RESERVE bytes of address space at a 2 MiB boundary, all but the
 * first 2 MiB in huge pages where the kernel has them for the asking
 * (transparent_hugepage "madvise"): a big array then takes one page
 * fault per 2 MiB, not 512, and a small one still costs 4 KiB pages.
 * NULL where the reservation is refused. */
#define HUGE_PAGE ((size_t)2 << 20)
static void *reserve(void)
{
    char *m = mmap(NULL, GRAPH_RESERVE + HUGE_PAGE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    char *a = (char *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    if (a > m)
        munmap(m, (size_t)(a - m));
    munmap(a + GRAPH_RESERVE, (size_t)(m + HUGE_PAGE - a));
    madvise(a + HUGE_PAGE, GRAPH_RESERVE - HUGE_PAGE, MADV_HUGEPAGE); /* a hint */
    return a;
}

static void *graph_grow(argus_graph *g, void *a, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap && a)
        return a;
    struct argus_graph_priv *p = g->p;
    if (a && graph_mapped(p, a))
        argus_die(ARGUS_EX_IOERR, "out of memory (%zu items of %zu bytes)", need, size);
    if (!a && p->nmapped < (int)(sizeof p->mapped / sizeof *p->mapped)) {
        void *m = reserve();
        if (m) {
            p->mapped[p->nmapped++] = m;
            *cap = GRAPH_RESERVE / size;
            if (need > *cap)
                argus_die(ARGUS_EX_IOERR, "out of memory (%zu items of %zu bytes)", need, size);
            return m;
        }
    }
    return argus_grow(a, cap, need, size);
}

static void graph_release(struct argus_graph_priv *p, void *a)
{
    for (int i = 0; a && i < p->nmapped; i++)
        if (p->mapped[i] == a) {
            munmap(a, GRAPH_RESERVE);
            p->mapped[i] = p->mapped[--p->nmapped];
            return;
        }
    free(a);
}

/* ---- strings ------------------------------------------------------------- */
/* A string offset with this bit: a key event's text made after the load
 * (keys_lazily), lazy_text[offset without it]. */
#define LAZY_TEXT 0x80000000u

const char *argus_graph_str(const argus_graph *g, uint32_t off)
{
    if (off & LAZY_TEXT)
        return g->p->lazy_text[off & ~LAZY_TEXT];
    return off ? g->strings + off : "";
}

const char *argus_graph_opt_str(const argus_graph *g, uint32_t off)
{
    return off ? argus_graph_str(g, off) : NULL;
}

uint32_t argus_graph_intern(argus_graph *g, const char *s, size_t len)
{
    if (!s || !len)
        return 0;
    uint64_t h = XXH3_64bits(s, len);
    uint32_t *slot = argus_table_get(&g->p->str_index, h);
    if (slot && strlen(g->strings + *slot) == len &&
        memcmp(g->strings + *slot, s, len) == 0)
        return *slot;
    if (g->str_used == 0)
        g->str_used = 1;        /* offset 0 is the empty string */
    g->strings = graph_grow(g, g->strings, &g->p->cap_str, g->str_used + len + 1, 1);
    uint32_t off = (uint32_t)g->str_used;
    memcpy(g->strings + off, s, len);
    g->strings[off + len] = 0;
    g->str_used += len + 1;
    if (!slot) {
        bool created;
        *(uint32_t *)argus_table_put(&g->p->str_index, h, &created) = off;
    }
    return off;
}

/* A name or kind from the stream is kept to its first TEXT_MAX bytes, cut
 * at a character boundary: the report writes it at each mention (a 100
 * MB process name made a 524 MB report). */
#define TEXT_MAX 255
static uint32_t intern_cut(argus_graph *g, const char *s, size_t len)
{
    return argus_graph_intern(g, s, argus_utf8_cut(s, len, TEXT_MAX));
}

static uint32_t intern_field(argus_graph *g, const argus_record *r, int key)
{
    size_t len;
    const char *s = argus_get_text(r, key, &len);
    return s ? intern_cut(g, s, len) : 0;
}

/* ---- lookups ------------------------------------------------------------- */
uint32_t argus_graph_find_seg(const argus_graph *g, uint64_t seg)
{
    if (!g->p->segs_sorted) {
        uint32_t *v = argus_table_get(&g->p->seg_index, seg);
        return v ? *v : ARGUS_NONE;
    }
    uint32_t lo = 0, hi = g->nsegs;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->segs[mid].seg < seg)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->nsegs && g->segs[lo].seg == seg ? lo : ARGUS_NONE;
}

/* Where event ID is in id_seg, or SIZE_MAX; its run in
 * *RUN_OUT when not NULL. */
static size_t id_slot(const argus_graph *g, uint64_t id, const struct id_run **run_out)
{
    const struct argus_graph_priv *p = g->p;
    size_t lo = 0, hi = p->nid_runs;
    while (lo < hi) {           /* the first run beginning after id */
        size_t mid = lo + (hi - lo) / 2;
        if (p->id_runs[mid].first_id <= id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return SIZE_MAX;
    const struct id_run *run = &p->id_runs[lo - 1];
    size_t end = lo < p->nid_runs ? p->id_runs[lo].at : p->id_len;
    if (id - run->first_id >= end - run->at)
        return SIZE_MAX;
    if (run_out)
        *run_out = run;
    return run->at + (id - run->first_id);
}

uint32_t argus_graph_seg_of(const argus_graph *g, uint64_t id)
{
    size_t at = id_slot(g, id, NULL);
    return at == SIZE_MAX ? ARGUS_NONE : g->p->id_seg[at];
}

uint32_t argus_graph_thread(const argus_graph *g, uint64_t tid)
{
    uint32_t *v = argus_table_get(&g->p->thread_index, tid);
    return v ? *v : ARGUS_NONE;
}

uint32_t argus_graph_seg_before(const argus_graph *g, uint32_t thread,
                                uint64_t t)
{
    const uint32_t *v = g->thread_segs + g->seg_first[thread];
    uint32_t lo = 0, hi = g->seg_first[thread + 1] - g->seg_first[thread];
    while (lo < hi) {           /* the first segment beginning after t */
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->segs[v[mid]].begin <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    while (lo > 0 && g->segs[v[lo - 1]].ctx)
        lo--;                   /* an interrupt window inside a segment */
    return lo ? v[lo - 1] : ARGUS_NONE;
}

uint32_t argus_graph_waker(const argus_graph *g, uint32_t s)
{
    const argus_seg *x = &g->segs[s];
    for (uint32_t k = 0; k < x->out_len; k++) {
        const argus_gedge *e = &g->edges[g->out_edges[x->out_off + k]];
        if (e->from == x->wait_id && e->to_seg != ARGUS_NONE &&
            strcmp(argus_graph_str(g, e->kind), "wait") == 0)
            return e->to_seg;
    }
    return ARGUS_NONE;
}

uint32_t argus_graph_seg_at(const argus_graph *g, uint32_t thread, uint64_t t)
{
    uint32_t i = argus_graph_seg_before(g, thread, t);
    return i != ARGUS_NONE && t <= argus_seg_until(g, &g->segs[i]) ? i : ARGUS_NONE;
}

static bool same_str(const argus_graph *a, uint32_t sa, const argus_graph *b,
                     uint32_t sb)
{
    return strcmp(argus_graph_str(a, sa), argus_graph_str(b, sb)) == 0;
}

/* Whether G's thread I plays OTHER's thread WANT's role, their process
 * names being the same. */
static bool plays_role(const argus_graph *g, uint32_t i, const argus_graph *other,
                       const argus_gthread *want)
{
    const argus_gthread *th = &g->threads[i];
    bool by_main = th->main && want->main;
    bool by_name = want->name && same_str(g, th->name, other, want->name);
    return by_main || by_name || (!want->name && !th->name && th->tid == want->tid);
}

int argus_graph_role_peers(const argus_graph *g, const argus_graph *other,
                           uint32_t t, uint32_t *out, int max)
{
    const argus_gthread *want = &other->threads[t];
    int n = 0;
    for (uint32_t i = 0; i < g->nthreads && n < max; i++)
        if (same_str(g, g->threads[i].proc, other, want->proc) && plays_role(g, i, other, want))
            out[n++] = i;
    return n;
}

static uint64_t proc_hash(const argus_graph *g, uint32_t str)
{
    const char *p = argus_graph_str(g, str);
    return XXH3_64bits(p, strlen(p));
}

void argus_role_index_init(argus_role_index *ix, const argus_graph *g)
{
    ix->g = g;
    argus_table_init(&ix->first, sizeof(uint32_t));
    ix->next = argus_xmalloc(((size_t)g->nthreads + 1) * sizeof *ix->next, "threads by process");
    /* from the last thread down: each list in thread order */
    for (uint32_t i = g->nthreads; i-- > 0;) {
        bool created;
        uint32_t *head = argus_table_put(&ix->first, proc_hash(g, g->threads[i].proc), &created);
        ix->next[i] = created ? ARGUS_NONE : *head;
        *head = i;
    }
}

void argus_role_index_free(argus_role_index *ix)
{
    argus_table_free(&ix->first);
    free(ix->next);
    ix->next = NULL;
}

int argus_role_index_peers(const argus_role_index *ix, const argus_graph *other, uint32_t t,
                           uint32_t *out, int max)
{
    const argus_graph *g = ix->g;
    const argus_gthread *want = &other->threads[t];
    const uint32_t *head = argus_table_get(&ix->first, proc_hash(other, want->proc));
    int n = 0;
    for (uint32_t i = head ? *head : ARGUS_NONE; i != ARGUS_NONE && n < max; i = ix->next[i])
        if (same_str(g, g->threads[i].proc, other, want->proc) && plays_role(g, i, other, want))
            out[n++] = i;
    return n;
}

/* ---- loading --------------------------------------------------------------- */
static uint32_t thread_for(argus_graph *g, uint64_t tid, uint64_t pid)
{
    bool created;
    uint32_t *v = argus_table_put(&g->p->thread_index, tid, &created);
    if (!created)
        return *v;
    g->threads = graph_grow(g, g->threads, &g->p->cap_threads, g->nthreads + 1,
                      sizeof *g->threads);
    argus_gthread *th = &g->threads[g->nthreads];
    memset(th, 0, sizeof *th);
    th->tid = tid;
    th->pid = pid;
    th->main = tid == pid;      /* until a thread record says otherwise */
    th->first_seg = th->last_seg = ARGUS_NONE;
    *v = g->nthreads++;
    return *v;
}

/* A thread record's "cmdline", an array of texts: joined by '\n' and
 * interned (a byte NUL or '\n' inside an argument made '?'); 0 when
 * absent or not such an array. */
static uint32_t intern_cmdline(argus_graph *g, const argus_record *r)
{
    argus_text args[256];
    int nargs = argus_get_named_text_array(r, "cmdline", args, 256);
    if (nargs <= 0)
        return 0;
    char buf[4096];
    size_t n = 0;
    for (int i = 0; i < nargs; i++) {
        if (n + args[i].len + 1 >= sizeof buf)
            break;              /* cut at an argument */
        if (i)
            buf[n++] = '\n';
        for (size_t k = 0; k < args[i].len; k++) {
            char c = args[i].s[k];
            buf[n++] = c == '\0' || c == '\n' ? '?' : c;
        }
    }
    return argus_graph_intern(g, buf, n);
}

static void load_thread(argus_graph *g, const argus_record *r)
{
    uint64_t tid = 0, pid = 0;
    argus_get_uint(r, ARGUS_K_TID, &tid);
    argus_get_uint(r, ARGUS_K_PID, &pid);
    uint32_t t = thread_for(g, tid, pid);     /* may move g->threads */
    argus_gthread *th = &g->threads[t];
    th->pid = pid;
    uint32_t s;
    if ((s = intern_field(g, r, ARGUS_K_PROC))) {
        bool created;
        th->proc = s;
        *(uint32_t *)argus_table_put(&g->p->pid_proc, pid, &created) = s;
    }
    if ((s = intern_field(g, r, ARGUS_K_NAME)))
        th->name = s;
    bool b;
    if (argus_get_bool(r, ARGUS_K_MAIN, &b))
        th->main = b;
    if (argus_get_bool(r, ARGUS_K_KERNEL, &b))
        th->kernel = b;
    const argus_field *parent = argus_get_named(r, "parent");
    if (parent && parent->kind == ARGUS_V_UINT)
        th->parent = parent->u;
    if ((s = intern_cmdline(g, r))) {
        bool created;
        *(uint32_t *)argus_table_put(&g->p->pid_cmdline, pid, &created) = s;
    }
}

const char *argus_graph_cmdline(const argus_graph *g, uint64_t pid)
{
    const uint32_t *s = argus_table_get(&g->p->pid_cmdline, pid);
    return s ? argus_graph_str(g, *s) : NULL;
}

static uint32_t segment_for(argus_graph *g, uint64_t seg, uint32_t thread,
                            const argus_record *r)
{
    struct argus_graph_priv *p = g->p;
    bool created;
    if (!p->segs_sorted || (g->nsegs && seg <= g->segs[g->nsegs - 1].seg)) {
        uint32_t found = argus_graph_find_seg(g, seg);
        if (found != ARGUS_NONE)
            return found;
        if (p->segs_sorted) {   /* out of order: index them all from here */
            p->segs_sorted = false;
            for (uint32_t k = 0; k < g->nsegs; k++)
                *(uint32_t *)argus_table_put(&p->seg_index, g->segs[k].seg, &created) = k;
        }
    }
    g->segs = graph_grow(g, g->segs, &p->cap_segs, g->nsegs + 1, sizeof *g->segs);
    uint32_t i = g->nsegs++;
    if (!p->segs_sorted)
        *(uint32_t *)argus_table_put(&p->seg_index, seg, &created) = i;
    argus_seg *s = &g->segs[i];
    memset(s, 0, sizeof *s);
    s->seg = seg;
    s->first_id = r->id;
    s->begin = r->ts;
    s->resume = NO_ID;
    s->wait_id = s->ui_id = s->send_id = s->send_peer = NO_ID;
    s->thread = thread;
    s->next = ARGUS_NONE;
    argus_gthread *th = &g->threads[thread];
    s->prev = th->last_seg;
    if (th->last_seg != ARGUS_NONE)
        g->segs[th->last_seg].next = i;
    else
        th->first_seg = i;
    th->last_seg = i;
    return i;
}

/* Whether system call N (LEN bytes) yields the CPU. */
static bool is_yield(const char *n, size_t len)
{
    static const char *const names[] = {"thread_switch", "swtch_pri", "swtch",
                                        "sched_yield", "yield", "pthread_yield"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strlen(names[i]) == len && memcmp(n, names[i], len) == 0)
            return true;
    return false;
}

/* SIM-SIG: one 32-bit element per checking event, from what is stable
 * across runs; 0 for an event that does not count. Peers are named by
 * process name, looked up when the event is read. */
static uint32_t sig_element(argus_graph *g, const argus_record *r)
{
    char buf[512];
    int n = 0;
    size_t len;
    const char *s;
#define ADD_TEXT(key) do { s = argus_get_text(r, key, &len);                 \
        if (s && len < 200) { memcpy(buf + n, s, len); n += (int)len; }      \
        buf[n++] = '|'; } while (0)
    if (r->type == ARGUS_T_OTHER)
        return 0;               /* not a checking event (and its type name
                                   may be longer than buf) */
    memcpy(buf, r->type_name, r->type_len);
    n = (int)r->type_len;
    buf[n++] = '|';
    uint64_t u;
    switch (r->type) {
    case ARGUS_T_IPC:
        /* the Linux decoder's pairs of a write and the read it woke: made
         * only when the reader happened to wait, like the wakeup itself */
        if (argus_text_is(r, ARGUS_K_VIA, "socket") || argus_text_is(r, ARGUS_K_VIA, "fd"))
            return 0;
        ADD_TEXT(ARGUS_K_DIR);
        if (argus_get_uint(r, ARGUS_K_PEER, &u)) {
            uint32_t *proc = argus_table_get(&g->p->pid_proc, u);
            const char *p = proc ? argus_graph_str(g, *proc) : "";
            size_t pl = strlen(p);
            if (pl < 200) {
                memcpy(buf + n, p, pl);
                n += (int)pl;
            }
        }
        buf[n++] = '|';
        if (argus_get_uint(r, ARGUS_K_MSG_ID, &u))
            n += snprintf(buf + n, 24, "%llu", (unsigned long long)u);
        break;
    case ARGUS_T_WAIT: {
        /* a thread the trace caught asleep: the wait decode made up at the
         * trace's first instant is named after the syscall it is in
         * (docs/inputs/linux.md), and stands for it, as its begin would */
        bool synth = false;
        if (argus_get_bool(r, ARGUS_K_SYNTH, &synth) && synth &&
            !argus_text_is(r, ARGUS_K_REASON, "sleeping")) {
            n = snprintf(buf, sizeof buf, "syscall|");
            ADD_TEXT(ARGUS_K_REASON);
            break;
        }
        ADD_TEXT(ARGUS_K_REASON);
        break;
    }
    case ARGUS_T_SYSCALL:
        if (argus_text_is(r, ARGUS_K_PHASE, "end"))
            return 0;
        ADD_TEXT(ARGUS_K_NAME);
        break;
    case ARGUS_T_UI_EVENT:
        ADD_TEXT(ARGUS_K_KIND);
        break;
    case ARGUS_T_FLAG_READ:
    case ARGUS_T_FLAG_WRITE:
        ADD_TEXT(ARGUS_K_NAME);
        break;
    case ARGUS_T_DISPATCH_ENQUEUE:
        break;
    case ARGUS_T_DISPATCH_INVOKE:
    case ARGUS_T_RUNLOOP_INVOKE:
        if (argus_text_is(r, ARGUS_K_PHASE, "end"))
            return 0;
        ADD_TEXT(ARGUS_K_KIND);
        ADD_TEXT(ARGUS_K_FUNC);
        break;
    case ARGUS_T_RUNLOOP_SUBMIT:
        break;
    case ARGUS_T_RUNLOOP_PHASE:
        ADD_TEXT(ARGUS_K_STAGE);
        break;
    default:
        return 0;
    }
#undef ADD_TEXT
    uint32_t h = (uint32_t)XXH3_64bits(buf, (size_t)n);
    return h ? h : 1;
}

/* SIM-SIG: a wait inside the syscall it is named after (a Linux trace's
 * blocking poll or futex) is that syscall's, already an element: whether
 * it blocked depends on timing, not on what the code did. Tracks the
 * thread's open syscall. */
static bool wait_of_syscall(loading_thread *lt, const argus_record *r)
{
    size_t len;
    const char *name;
    if (r->type == ARGUS_T_SYSCALL) {
        name = argus_get_text(r, ARGUS_K_NAME, &len);
        lt->syscall_name = name && argus_text_is(r, ARGUS_K_PHASE, "begin")
                               ? XXH3_64bits(name, len) | 1 : 0;
        return false;
    }
    if (r->type != ARGUS_T_WAIT || !lt->syscall_name)
        return false;
    name = argus_get_text(r, ARGUS_K_REASON, &len);
    return name && (XXH3_64bits(name, len) | 1) == lt->syscall_name;
}

/* Appends E to a signature, collapsing a repeat of the last run of 1..4
 * elements (so 5 and 500 turns of one loop read the same). */
static void sig_push(loading_thread *lt, uint32_t e)
{
    if (lt->sig_len == ARGUS_SIG_MAX)
        return;
    if (lt->sig_len == lt->sig_cap)
        lt->sig = argus_grow(lt->sig, &lt->sig_cap, lt->sig_len + 1, sizeof *lt->sig);
    lt->sig[lt->sig_len++] = e;
    for (bool again = true; again;) {
        again = false;
        for (uint32_t k = 1; k <= 4 && 2 * k <= lt->sig_len; k++) {
            uint32_t *a = lt->sig + lt->sig_len - 2 * k;
            if (memcmp(a, a + k, k * sizeof *a) == 0) {
                lt->sig_len -= k;
                again = true;
                break;
            }
        }
    }
}

static void sig_close(argus_graph *g, loading_thread *lt)
{
    if (lt->sig_seg == ARGUS_NONE)
        return;
    argus_seg *s = &g->segs[lt->sig_seg];
    g->sig_pool = graph_grow(g, g->sig_pool, &g->p->cap_sig, g->sig_used + lt->sig_len,
                       sizeof *g->sig_pool);
    if (lt->sig_len)            /* else there may be no buffer */
        memcpy(g->sig_pool + g->sig_used, lt->sig, lt->sig_len * sizeof *lt->sig);
    s->sig_off = (uint32_t)g->sig_used;
    s->sig_len = lt->sig_len;
    g->sig_used += lt->sig_len;
    lt->sig_seg = ARGUS_NONE;
    lt->sig_len = 0;
    /* given back: a thread holds what its open segment needs, not the
     * most a long segment of its past took */
    free(lt->sig);
    lt->sig = NULL;
    lt->sig_cap = 0;
}

/* Key events of a segment, for the report: kept in segment order in one
 * pool per segment run. Segments of different threads interleave, so each
 * segment's keys are gathered per thread first (the open segment). */
/* A segment's key events while it loads: the first half of
 * ARGUS_KEY_EVENTS and the latest ones. Room for twice as many, so that
 * the middle is dropped once every few events, not at every one. */
#define KEY_BUF_CAP (ARGUS_KEY_EVENTS * 2)
typedef struct key_buf {
    uint32_t seg;
    uint32_t n;
    argus_key_event *ev;        /* grown up to KEY_BUF_CAP */
    size_t cap;
} key_buf;

/* Keeps the first ARGUS_KEY_EVENTS / 2 and the LATEST last ones. */
static void key_compact(key_buf *kb, uint32_t latest)
{
    uint32_t half = ARGUS_KEY_EVENTS / 2;
    if (kb->n <= half + latest)
        return;
    memmove(kb->ev + half, kb->ev + kb->n - latest, latest * sizeof *kb->ev);
    kb->n = half + latest;
}

static void key_close(argus_graph *g, key_buf *kb)
{
    if (kb->seg == ARGUS_NONE)
        return;
    key_compact(kb, ARGUS_KEY_EVENTS - ARGUS_KEY_EVENTS / 2);
    g->keys = graph_grow(g, g->keys, &g->p->cap_keys, g->nkeys + kb->n, sizeof *g->keys);
    if (kb->n)
        memcpy(g->keys + g->nkeys, kb->ev, kb->n * sizeof *kb->ev);
    struct argus_graph_priv *p = g->p;
    if (kb->seg >= p->nseg_keys) {
        p->seg_keys = graph_grow(g, p->seg_keys, &p->cap_seg_keys, (size_t)kb->seg + 1,
                                 sizeof *p->seg_keys);
        memset(p->seg_keys + p->nseg_keys, 0,
               (kb->seg + 1 - p->nseg_keys) * sizeof *p->seg_keys);
        p->nseg_keys = (size_t)kb->seg + 1;
    }
    p->seg_keys[kb->seg] = (struct seg_keys){(uint32_t)g->nkeys, kb->n};
    g->nkeys += kb->n;
    kb->seg = ARGUS_NONE;
    kb->n = 0;
    free(kb->ev);               /* as sig_close does a signature's */
    kb->ev = NULL;
    kb->cap = 0;
}

int argus_key_event_text(const argus_record *r, char *buf, size_t size,
                         uint64_t *aux_out)
{
    uint64_t aux = 0, u;
    size_t len = 0;
    const char *s = NULL;       /* the text, when it is one field as is */
    int key = -1;
    buf[0] = 0;
    bool end = argus_text_is(r, ARGUS_K_PHASE, "end");
    switch (r->type) {
    case ARGUS_T_SYSCALL:
        if (end)
            return -1;
        key = ARGUS_K_NAME;
        break;
    case ARGUS_T_BACKTRACE: {
        argus_text fr[3];
        int n = argus_get_text_array(r, ARGUS_K_FRAMES, fr, 3);
        int at = 0;
        for (int i = 0; i < n && at < (int)size - 8; i++)
            at += snprintf(buf + at, size - (size_t)at, "%s%.*s",
                           i ? " < " : "", (int)argus_utf8_cut(fr[i].s, fr[i].len, 80),
                           fr[i].s);
        break;
    }
    case ARGUS_T_UI_EVENT:
        key = ARGUS_K_KIND;
        break;
    case ARGUS_T_RUNLOOP_INVOKE:
    case ARGUS_T_DISPATCH_INVOKE:
    case ARGUS_T_TIMER_ARM:
        if (end)
            return -1;
        key = ARGUS_K_FUNC;
        break;
    case ARGUS_T_WAIT:
        key = ARGUS_K_REASON;
        argus_get_uint(r, ARGUS_K_RESOURCE, &aux);
        break;
    case ARGUS_T_IPC:
        s = argus_get_text(r, ARGUS_K_DIR, &len);
        if (argus_get_uint(r, ARGUS_K_MSG_ID, &u))
            snprintf(buf, size, "%.*s msg_id %llu",
                     s ? (int)argus_utf8_cut(s, len, size - 32) : 0, s ? s : "",
                     (unsigned long long)u);
        else
            key = ARGUS_K_DIR;
        if (!argus_get_uint(r, ARGUS_K_PEER, &aux))
            aux = NO_ID;
        break;
    case ARGUS_T_FLAG_WRITE:
    case ARGUS_T_FLAG_READ:
        if (argus_get_uint(r, ARGUS_K_VALUE, &u)) {
            s = argus_get_text(r, ARGUS_K_NAME, &len);
            snprintf(buf, size, "%.*s = %llu",
                     s ? (int)argus_utf8_cut(s, len, size - 24) : 0, s ? s : "",
                     (unsigned long long)u);
        } else {
            key = ARGUS_K_NAME;
        }
        argus_get_uint(r, ARGUS_K_ADDR, &aux);
        break;
    case ARGUS_T_WAKEUP:
        argus_get_uint(r, ARGUS_K_TARGET, &aux);
        break;
    case ARGUS_T_WOKEN:
        key = ARGUS_K_RESULT;
        break;
    case ARGUS_T_DISPATCH_ENQUEUE:
    case ARGUS_T_TIMER_FIRE:
    case ARGUS_T_TIMER_CANCEL:
    case ARGUS_T_RUNLOOP_SUBMIT:
        if (end)
            return -1;
        break;
    default:
        return -1;
    }
    *aux_out = aux;
    s = NULL;
    if (key >= 0)
        s = argus_get_text(r, key, &len);
    if (!s)
        return (int)strlen(buf);
    len = argus_utf8_cut(s, len, size - 1);
    memcpy(buf, s, len);
    buf[len] = 0;
    return (int)len;
}

/* Adds event R to KB, its text made a string of G by INTERN. */
static void key_add(argus_graph *g, key_buf *kb, const argus_record *r,
                    uint32_t (*intern)(argus_graph *g, const char *s, size_t len))
{
    char buf[256];
    uint64_t aux;
    int n = argus_key_event_text(r, buf, sizeof buf, &aux);
    if (n < 0)
        return;
    uint32_t text = intern(g, buf, (size_t)n);
    if (kb->n) {                /* a repeat of the last one: count it */
        argus_key_event *last = &kb->ev[kb->n - 1];
        if (last->type == r->type && last->text == text && last->aux == aux) {
            if (last->extra < UINT16_MAX)
                last->extra++;
            return;
        }
    }
    if (kb->n == KEY_BUF_CAP) /* keep the first ones and the last: the end
                                 says how it blocked */
        key_compact(kb, ARGUS_KEY_EVENTS - ARGUS_KEY_EVENTS / 2 - 1);
    if (kb->n == kb->cap) {
        if (!kb->ev)
            kb->cap = 4;        /* argus_grow's first 16 are 512 bytes, and
                                   most segments have a few events */
        kb->ev = argus_grow(kb->ev, &kb->cap, kb->n + 1, sizeof *kb->ev);
    }
    kb->ev[kb->n++] = (argus_key_event){r->id, r->ts, aux, text,
                                        (uint16_t)r->type, 1};
}

/* ---- reading events again ---------------------------------------------------- */
/* Slots of id_seg per block whose first event's offset is kept: an
 * event is read again by reading on from there, past at most this many
 * events (and the records between them). */
#define ID_BLOCK 64

/* Reading the file on from OFF, one record after another, through the
 * graph's reread buffer and parser (argus_graph_parse_extra's records
 * stay valid). */
typedef struct file_cursor {
    uint64_t off;               /* stream offset of buf[lo] */
    size_t lo, hi;
} file_cursor;

static const argus_record *cursor_next(const argus_graph *g, file_cursor *c)
{
    struct argus_graph_priv *p = g->p;
    if (!p->reread_parser)
        p->reread_parser = argus_parser_new();
    for (;;) {
        if (c->hi > c->lo) {
            argus_record *r;
            /* the head only, as the reader does: most records read on
             * the way are not asked for */
            long len = argus_scan_record(p->reread_parser, p->reread_buf + c->lo,
                                         c->hi - c->lo, &r);
            if (len < 0) {
                char err[256];
                len = argus_parse_record(p->reread_parser, p->reread_buf + c->lo,
                                         c->hi - c->lo, &r, err, sizeof err);
            }
            if (len < 0)
                return NULL;    /* the file changed since it loaded */
            if (len > 0) {
                r->offset = c->off;
                c->lo += (size_t)len;
                c->off += (uint64_t)len;
                return r;
            }
        }
        size_t rest = c->hi - c->lo;
        if (c->lo)
            memmove(p->reread_buf, p->reread_buf + c->lo, rest);
        c->lo = 0;
        c->hi = rest;
        if (rest == p->reread_cap) {
            size_t want = p->reread_cap ? p->reread_cap * 2 : 65536;
            if (p->reread_cap >= ARGUS_MAX_RECORD)
                return NULL;
            p->reread_buf = argus_xrealloc(p->reread_buf, want, "records read again");
            p->reread_cap = want;
        }
        ssize_t n = pread(p->reread_fd, p->reread_buf + rest, p->reread_cap - rest,
                          (off_t)(c->off + rest));
        if (n <= 0)
            return NULL;
        c->hi += (size_t)n;
    }
}

/* A cursor at the block of id_seg's slot AT, or false. */
static bool cursor_at_slot(const argus_graph *g, size_t at, file_cursor *c)
{
    const struct argus_graph_priv *p = g->p;
    size_t b = at / ID_BLOCK;
    if (p->reread_fd < 0 || b >= p->nblk || !p->blk_off[b])
        return false;
    *c = (file_cursor){.off = p->blk_off[b] - 1};
    return true;
}

/* Event ID read again from the file. */
static const argus_record *reread_event(const argus_graph *g, uint64_t id)
{
    size_t at = id_slot(g, id, NULL);
    file_cursor c;
    if (at == SIZE_MAX || g->p->id_seg[at] == ARGUS_NONE || !cursor_at_slot(g, at, &c))
        return NULL;
    const argus_record *r;
    while ((r = cursor_next(g, &c)))
        if (r->is_event && r->id >= id)
            return r->id == id ? r : NULL;
    return NULL;
}

/* A text of a key event made after the load, kept apart from strings[]
 * (whose texts the caller may hold) and marked by LAZY_TEXT. */
static uint32_t lazy_intern(argus_graph *g, const char *s, size_t len)
{
    struct argus_graph_priv *p = g->p;
    if (!s || !len)
        return 0;
    uint64_t h = XXH3_64bits(s, len);
    uint32_t *slot = argus_table_get(&p->lazy_text_index, h);
    if (slot && strlen(p->lazy_text[*slot]) == len && memcmp(p->lazy_text[*slot], s, len) == 0)
        return LAZY_TEXT | *slot;
    if (p->nlazy_text >= LAZY_TEXT - 1)
        return 0;
    p->lazy_text = argus_grow(p->lazy_text, &p->cap_lazy_text, p->nlazy_text + 1,
                              sizeof *p->lazy_text);
    char *copy = argus_xstrndup(s, len, "a key event's text");
    uint32_t at = (uint32_t)p->nlazy_text++;
    p->lazy_text[at] = copy;
    if (!slot) {
        bool created;
        *(uint32_t *)argus_table_put(&p->lazy_text_index, h, &created) = at;
    }
    return LAZY_TEXT | at;
}

/* A segment's key events made when first asked for (keys_lazily). */
struct lazy_keys {
    uint32_t n;
    argus_key_event ev[];
};

/* Segment SI's key events, as the load would have kept them: its events
 * read again, from its first to its last, through key_add. */
static struct lazy_keys *lazy_keys_make(argus_graph *g, uint32_t si)
{
    const argus_seg *s = &g->segs[si];
    key_buf kb = {.seg = si};
    size_t at = id_slot(g, s->first_id, NULL);
    file_cursor c;
    if (at != SIZE_MAX && cursor_at_slot(g, at, &c)) {
        const argus_record *r;
        while ((r = cursor_next(g, &c))) {
            if (!r->is_event || r->id < s->first_id)
                continue;
            if (r->id > s->last_id)
                break;
            if (argus_graph_seg_of(g, r->id) == si &&
                argus_graph_thread(g, r->tid) == s->thread)
                key_add(g, &kb, r, lazy_intern);
        }
    }
    key_compact(&kb, ARGUS_KEY_EVENTS - ARGUS_KEY_EVENTS / 2);
    struct lazy_keys *k = argus_xmalloc(sizeof *k + kb.n * sizeof *kb.ev, "key events");
    k->n = kb.n;
    if (kb.n)
        memcpy(k->ev, kb.ev, kb.n * sizeof *kb.ev);
    free(kb.ev);
    return k;
}

const argus_key_event *argus_graph_seg_keys(const argus_graph *g, uint32_t si, uint32_t *n)
{
    struct argus_graph_priv *p = g->p;
    if (!p->lazy_keys) {
        /* seg_keys[] grows as segments close: a segment past it has none */
        *n = si < p->nseg_keys ? p->seg_keys[si].len : 0;
        return *n ? g->keys + p->seg_keys[si].off : NULL;
    }
    bool created;
    struct lazy_keys **k = argus_table_put(&p->lazy_segs, si, &created);
    if (created)                /* g is the caller's, made once per segment */
        *k = lazy_keys_make((argus_graph *)g, si);
    *n = (*k)->n;
    return (*k)->ev;
}

bool argus_graph_key_event(const argus_graph *g, uint32_t si, uint64_t id,
                           argus_key_event *ke, char *buf, size_t size)
{
    uint32_t n;
    const argus_key_event *keys = argus_graph_seg_keys(g, si, &n);
    for (uint32_t k = 0; k < n; k++)
        if (keys[k].id == id) {
            *ke = keys[k];
            snprintf(buf, size, "%s", argus_graph_str(g, ke->text));
            return true;
        }
    /* a graph keys_lazily gives what one with its keys kept would */
    if (g->p->reread_fd < 0 || g->p->lazy_keys || argus_graph_seg_of(g, id) != si)
        return false;
    const argus_record *r = reread_event(g, id);
    uint64_t aux;
    if (!r || argus_key_event_text(r, buf, size, &aux) < 0)
        return false;
    *ke = (argus_key_event){.id = id, .ts = r->ts, .aux = aux,
                            .type = (uint16_t)r->type, .extra = 1};
    return true;
}

#define GRAPH_PUSH(g, v, n, cap)                                            \
    ((v) = graph_grow((g), (v), &(cap), (size_t)(n) + 1, sizeof *(v)),       \
     memset(&(v)[(n)], 0, sizeof *(v)), &(v)[(n)++])

/* A gap of at most this many ids is filled (ids a stage dropped); a
 * longer one starts a new run. */
#define ID_GAP_FILL 64

static void map_id(argus_graph *g, uint64_t id, uint32_t seg, uint64_t offset)
{
    struct argus_graph_priv *p = g->p;
    uint64_t gap = id - p->id_last - 1;
    if (p->nid_runs == 0 || id <= p->id_last || gap > ID_GAP_FILL) {
        struct id_run *run = GRAPH_PUSH(g, p->id_runs, p->nid_runs, p->cap_id_runs);
        run->first_id = id;
        run->at = p->id_len;
        gap = 0;
    }
    p->id_seg = graph_grow(g, p->id_seg, &p->id_cap, p->id_len + gap + 1, sizeof *p->id_seg);
    for (uint64_t i = 0; i < gap; i++)
        p->id_seg[p->id_len++] = ARGUS_NONE;
    if (p->reread_fd >= 0) {
        size_t b = p->id_len / ID_BLOCK;
        if (b >= p->nblk) {
            p->blk_off = graph_grow(g, p->blk_off, &p->blk_cap, b + 1, sizeof *p->blk_off);
            memset(p->blk_off + p->nblk, 0, (b + 1 - p->nblk) * sizeof *p->blk_off);
            p->nblk = b + 1;
        }
        if (!p->blk_off[b])
            p->blk_off[b] = offset + 1;
    }
    p->id_seg[p->id_len++] = seg;
    p->id_last = id;
}

static enum argus_wake wake_of(const argus_record *r)
{
    size_t len;
    const char *s = argus_get_text(r, ARGUS_K_RESULT, &len);
    if (!s)
        return ARGUS_WAKE_AWAKENED;
#define IS(w) (len == sizeof w - 1 && memcmp(s, w, len) == 0)
    if (IS("awakened")) return ARGUS_WAKE_AWAKENED;
    if (IS("timed_out")) return ARGUS_WAKE_TIMED_OUT;
    if (IS("interrupted")) return ARGUS_WAKE_INTERRUPTED;
    if (IS("restart")) return ARGUS_WAKE_RESTART;
#undef IS
    return ARGUS_WAKE_OTHER;
}

/* File locks: fcntl with F_SETLK, F_SETLKW (6, 7) or F_OFD_SETLK(W) (37,
 * 38), and flock. A failed try marks its segment; a success is a lock
 * op. */
static void track_lock(argus_graph *g, loading_thread *lt, uint32_t si,
                       const argus_record *r, const char *name, size_t len)
{
    bool flock = len == 5 && memcmp(name, "flock", 5) == 0;
    if (!flock && (len != 5 || memcmp(name, "fcntl", 5) != 0))
        return;
    if (argus_text_is(r, ARGUS_K_PHASE, "begin")) {
        uint64_t args[2];
        lt->in_lock = flock || (argus_get_uint_array(r, ARGUS_K_ARGS, args, 2) == 2 &&
                                (args[1] == 6 || args[1] == 7 || args[1] == 37 || args[1] == 38));
        return;
    }
    if (!lt->in_lock)
        return;
    lt->in_lock = false;
    int64_t ret;
    if (!argus_get_int(r, ARGUS_K_RET, &ret))
        return;
    if (ret < 0) {
        bool created;
        *(uint64_t *)argus_table_put(&g->p->lock_failed, si, &created) = r->ts;
        return;
    }
    argus_lock_op *op = GRAPH_PUSH(g, g->locks, g->nlocks, g->p->cap_locks);
    op->ts = r->ts;
    op->seg = si;
}

/* Sockets: an accept that returned a connection, and a connect that
 * returned EINPROGRESS (its segment marked), for SPIN-ACCEPT. */
static void track_socket(argus_graph *g, uint32_t si, const argus_record *r,
                         const char *name, size_t len)
{
    int64_t ret;
    if (!argus_text_is(r, ARGUS_K_PHASE, "end") || !argus_get_int(r, ARGUS_K_RET, &ret))
        return;
    if (((len == 6 && memcmp(name, "accept", 6) == 0) ||
         (len == 7 && memcmp(name, "accept4", 7) == 0)) && ret >= 0) {
        argus_lock_op *op = GRAPH_PUSH(g, g->accepts, g->naccepts, g->p->cap_accepts);
        op->ts = r->ts;
        op->seg = si;
    } else if (len == 7 && memcmp(name, "connect", 7) == 0 && ret == -115) {
        bool created;
        *(uint64_t *)argus_table_put(&g->p->connect_started, si, &created) = r->ts;
    }
}

/* Segment SI's wait (its latest event so far) did not end it: a wait
 * inside a callout, over when the thread ran again at RESUME. */
static void add_inner_wait(argus_graph *g, const loading_thread *lt, uint32_t si,
                           uint64_t resume)
{
    argus_seg *s = &g->segs[si];
    if (s->wait_id == NO_ID || resume < lt->wait_ts)
        return;
    argus_inner_wait *w = GRAPH_PUSH(g, g->inner_waits, g->ninner_waits, g->p->cap_inner_waits);
    *w = (argus_inner_wait){.wait_id = s->wait_id, .from = lt->wait_ts, .to = resume,
                            .runnable = s->runnable <= resume - lt->wait_ts ? s->runnable : 0,
                            .cpu_holder = s->cpu_holder, .seg = si,
                            .resource = s->wait_resource, .reason = s->wait_reason,
                            .wake = s->wake ? s->wake : (uint8_t)ARGUS_WAKE_AWAKENED};
}

static uint32_t intern_named(argus_graph *g, const argus_record *r, const char *key)
{
    const argus_field *f = argus_get_named(r, key);
    if (!f || f->kind != ARGUS_V_TEXT || !f->s || f->slen == 0)
        return 0;
    return intern_cut(g, f->s, f->slen);
}

/* An ipc event's message, for the report (argus_ipc_info). */
static void keep_ipc(argus_graph *g, const argus_record *r)
{
    argus_ipc_info *m = GRAPH_PUSH(g, g->ipcs, g->nipcs, g->p->cap_ipcs);
    m->id = r->id;
    m->ts = r->ts;
    m->tid = r->tid;
    m->pid = r->pid;
    m->recv = argus_text_is(r, ARGUS_K_DIR, "recv");
    if (!argus_get_uint(r, ARGUS_K_MSG_ID, &m->msg_id))
        m->msg_id = NO_ID;
    const argus_field *f = argus_get_named(r, "serial");
    m->serial = f && f->kind == ARGUS_V_UINT ? f->u : NO_ID;
    if (!argus_get_uint(r, ARGUS_K_MSG, &m->msg))
        m->msg = NO_ID;
    const argus_field *rf = argus_get_named(r, "reply");
    m->reply = rf && rf->kind == ARGUS_V_BOOL && rf->u;
    m->via = intern_named(g, r, "via");
    m->dbus_type = intern_named(g, r, "dbus_type");
}

/* A wait's fd_origin fields (DEC-FD), when it has them. */
static void keep_fd_info(argus_graph *g, const argus_record *r, uint64_t fd)
{
    uint32_t how = intern_named(g, r, "fd_origin");
    const argus_field *ts = argus_get_named(r, "fd_origin_ts");
    const argus_field *tid = argus_get_named(r, "fd_origin_tid");
    if (!how || !ts || ts->kind != ARGUS_V_UINT || !tid || tid->kind != ARGUS_V_UINT)
        return;
    const argus_field *l = argus_get_named(r, "fd_listen");
    argus_fd_info *f = GRAPH_PUSH(g, g->fds, g->nfds, g->p->cap_fds);
    *f = (argus_fd_info){.wait_id = r->id, .fd = fd, .ts = ts->u, .tid = tid->u,
                         .listen = l && l->kind == ARGUS_V_UINT ? l->u : NO_ID, .how = how};
}

/* The key of size KEY_SIZE (4 or 8) at P. */
static uint64_t key_at_p(const char *p, size_t key_size)
{
    if (key_size == sizeof(uint32_t)) {
        uint32_t k;
        memcpy(&k, p, sizeof k);
        return k;
    }
    uint64_t k;
    memcpy(&k, p, sizeof k);
    return k;
}

uint32_t argus_lower_bound(const void *items, uint32_t n, size_t size, size_t key_at,
                           size_t key_size, uint64_t key)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (key_at_p((const char *)items + (size_t)mid * size + key_at, key_size) < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const argus_fd_info *argus_graph_fd_info(const argus_graph *g, uint64_t wait_id)
{
    uint32_t at = argus_lower_bound(g->fds, g->nfds, sizeof *g->fds,
                                    offsetof(argus_fd_info, wait_id), sizeof(uint64_t), wait_id);
    return at < g->nfds && g->fds[at].wait_id == wait_id ? &g->fds[at] : NULL;
}

/* The loading state of each thread, by thread index (as g->threads). */
typedef struct loader {
    loading_thread *threads;
    key_buf *keys;              /* keep_key_events only */
    size_t cap_threads, cap_keys;
    uint32_t n;                 /* threads with their state made */
    bool keep_keys, keep_ipcs;
    /* tid to thread index, of the threads seen last: each event asks */
    struct tid_slot { uint64_t tid; uint32_t index_1; } tids[256]; /* 0: empty */
} loader;

static uint32_t loader_thread(argus_graph *g, loader *ld, uint64_t tid, uint64_t pid)
{
    struct tid_slot *c = &ld->tids[(tid ^ tid >> 8) & 255];
    if (c->index_1 && c->tid == tid)
        return c->index_1 - 1;
    uint32_t t = thread_for(g, tid, pid);
    c->tid = tid;
    c->index_1 = t + 1;
    return t;
}

static loading_thread *loading_state(loader *ld, uint32_t t)
{
    if (t >= ld->n) {
        ld->threads = argus_grow(ld->threads, &ld->cap_threads, (size_t)t + 1,
                                 sizeof *ld->threads);
        if (ld->keep_keys)
            ld->keys = argus_grow(ld->keys, &ld->cap_keys, (size_t)t + 1, sizeof *ld->keys);
        for (uint32_t i = ld->n; i <= t; i++) {
            ld->threads[i] = (loading_thread){.seg = ARGUS_NONE, .thread = i,
                                              .other_seg = ARGUS_NONE,
                                              .blocked_seg = ARGUS_NONE,
                                              .sig_seg = ARGUS_NONE};
            if (ld->keep_keys)
                ld->keys[i] = (key_buf){.seg = ARGUS_NONE};
        }
        ld->n = t + 1;
    }
    return &ld->threads[t];
}

static void load_event(argus_graph *g, const argus_record *r,
                       argus_reader *rd, loader *ld)
{
    uint64_t segid;
    if (!argus_get_uint(r, ARGUS_K_SEG, &segid))
        argus_record_fail(rd, r, "event %llu has no seg: run argus-segment "
                          "(argus graph) before the analysis",
                          (unsigned long long)r->id);
    loading_thread *lt = loading_state(ld, loader_thread(g, ld, r->tid, r->pid));
    if (lt->seg == ARGUS_NONE || lt->seg_id != segid) {
        uint32_t before = lt->seg;
        uint64_t before_id = lt->seg_id;
        /* back from an interrupt window: no search among all segments */
        lt->seg = lt->other_seg != ARGUS_NONE && lt->other_seg_id == segid
                      ? lt->other_seg
                      : segment_for(g, segid, lt->thread, r);
        lt->seg_id = segid;
        lt->other_seg = before;
        lt->other_seg_id = before_id;
    }
    uint32_t si = lt->seg;
    argus_seg *s = &g->segs[si];
    if (g->nevents == 0)
        g->t_first = r->ts;
    g->nevents++;
    g->t_last = r->ts;
    map_id(g, r->id, si, r->offset);
    s->last_id = r->id;
    s->end = r->ts;
    s->nevents++;
    bool ctx = argus_get(r, ARGUS_K_CTX) != NULL;
    if (ctx)
        s->ctx = true;
    if (!ctx) {
        /* The thread runs again: the wait that blocked it is over. */
        if (lt->blocked_seg != ARGUS_NONE) {
            argus_seg *b = &g->segs[lt->blocked_seg];
            if (lt->blocked_seg == si && r->type != ARGUS_T_WOKEN) {
                add_inner_wait(g, lt, si, r->ts); /* a wait inside a callout */
                b->wait_id = NO_ID;
            } else if (b->resume == NO_ID) {
                b->resume = r->ts;
                if (r->type == ARGUS_T_WOKEN) {
                    b->wake = (uint8_t)wake_of(r);
                    if (!argus_get_uint(r, ARGUS_K_RUNNABLE, &b->runnable) ||
                        b->runnable > r->ts - b->end)
                        b->runnable = 0;
                    if (!argus_get_uint(r, ARGUS_K_CPU_HOLDER, &b->cpu_holder))
                        b->cpu_holder = 0;
                    if (b->wake == ARGUS_WAKE_TIMED_OUT) {
                        b->ntimeouts = 1;
                        if (b->prev != ARGUS_NONE) {
                            const argus_seg *pb = &g->segs[b->prev];
                            if (pb->wake == ARGUS_WAKE_TIMED_OUT &&
                                pb->wait_resource == b->wait_resource)
                                b->ntimeouts = pb->ntimeouts + 1;
                        }
                    }
                } else {
                    b->wake = ARGUS_WAKE_AWAKENED;
                }
            }
            lt->blocked_seg = ARGUS_NONE;
        }
        if (r->type == ARGUS_T_WAIT) {
            bool synth = false;
            if (s->nevents == 1 && argus_get_bool(r, ARGUS_K_SYNTH, &synth) && synth)
                s->cut_start = true;    /* SIM-MATCH: begun before the trace */
            s->wait_id = r->id;
            s->wait_resource = 0;
            argus_get_uint(r, ARGUS_K_RESOURCE, &s->wait_resource);
            s->wait_reason = intern_field(g, r, ARGUS_K_REASON);
            if (s->wait_resource)
                keep_fd_info(g, r, s->wait_resource);
            lt->blocked_seg = si;
            lt->wait_ts = r->ts;
        } else if (s->wait_id != NO_ID && r->type != ARGUS_T_WOKEN) {
            /* the segment goes on: that wait was not its final one */
            add_inner_wait(g, lt, si, s->resume != NO_ID ? s->resume : r->ts);
            s->wait_id = NO_ID;
            s->resume = NO_ID;
            s->runnable = s->cpu_holder = 0;
            s->wake = ARGUS_WAKE_NONE;
            s->ntimeouts = 0;
            s->woken_external = false;
        }
    }
    if (r->type == ARGUS_T_IPC && argus_text_is(r, ARGUS_K_DIR, "send")) {
        s->send_id = r->id;
        if (!argus_get_uint(r, ARGUS_K_PEER, &s->send_peer))
            s->send_peer = NO_ID;
    }
    size_t len;
    const char *name;
    if (r->type == ARGUS_T_SYSCALL && (name = argus_get_text(r, ARGUS_K_NAME, &len))) {
        if (is_yield(name, len))
            s->nyields++;
        track_lock(g, lt, si, r, name, len);
        track_socket(g, si, r, name, len);
    } else if (r->type == ARGUS_T_OTHER && r->type_len == 4 &&
               memcmp(r->type_name, "exec", 4) == 0) {
        g->threads[lt->thread].exec_ts = r->ts;
    } else if (r->type == ARGUS_T_OTHER && r->type_len == 9 &&
               memcmp(r->type_name, "preempted", 9) == 0) {
        uint64_t runnable;
        if (argus_get_uint(r, ARGUS_K_RUNNABLE, &runnable) && runnable <= r->ts) {
            argus_preempt *pr = GRAPH_PUSH(g, g->preempts, g->npreempts, g->p->cap_preempts);
            pr->from = r->ts - runnable;
            pr->to = r->ts;
            pr->seg = si;
            if (!argus_get_uint(r, ARGUS_K_CPU_HOLDER, &pr->holder))
                pr->holder = 0;
        }
    }
    if (r->type == ARGUS_T_UI_EVENT && s->ui_id == NO_ID) {
        s->ui_id = r->id;
        s->ui_kind = intern_field(g, r, ARGUS_K_KIND);
    }
    if (lt->sig_seg != si) {
        sig_close(g, lt);
        lt->sig_seg = si;
        /* a segment interrupted by a ctx window and taken up again keeps
         * its signature so far */
        if (s->sig_len) {
            lt->sig = argus_grow(lt->sig, &lt->sig_cap, s->sig_len, sizeof *lt->sig);
            memcpy(lt->sig, g->sig_pool + s->sig_off, s->sig_len * sizeof *lt->sig);
            lt->sig_len = s->sig_len;
        }
    }
    uint32_t e = sig_element(g, r);
    if (e && !wait_of_syscall(lt, r))
        sig_push(lt, e);
    /* a segment's key events are its thread's (another thread's events
     * in it, in a stream that is not one, are not shown) */
    if (ld->keep_keys && s->thread == lt->thread) {
        key_buf *kb = &ld->keys[lt->thread];
        if (kb->seg != si) {
            key_close(g, kb);
            kb->seg = si;
            uint32_t n;
            const argus_key_event *kept = argus_graph_seg_keys(g, si, &n);
            if (n) {
                kb->ev = argus_grow(kb->ev, &kb->cap, n, sizeof *kb->ev);
                memcpy(kb->ev, kept, n * sizeof *kb->ev);
                kb->n = n;
            }
        }
        key_add(g, kb, r, argus_graph_intern);
    }
    if (r->type == ARGUS_T_IPC && ld->keep_ipcs)
        keep_ipc(g, r);
}

static void load_edge(argus_graph *g, const argus_record *r)
{
    uint64_t from = 0, to = 0;
    argus_get_uint(r, ARGUS_K_FROM, &from);
    argus_get_uint(r, ARGUS_K_TO, &to);
    g->edges = graph_grow(g, g->edges, &g->p->cap_edges, g->nedges + 1, sizeof *g->edges);
    argus_gedge *e = &g->edges[g->nedges++];
    e->from = from;
    e->to = to;
    e->from_seg = argus_graph_seg_of(g, from);
    e->to_seg = argus_graph_seg_of(g, to);
    e->kind = intern_field(g, r, ARGUS_K_KIND);
    bool weak = false;
    argus_get_bool(r, ARGUS_K_WEAK, &weak);
    e->weak = weak;
    if (e->from_seg != ARGUS_NONE &&
        strcmp(argus_graph_str(g, e->kind), "resume") == 0)
        g->segs[e->from_seg].woken_external = true;
}

void argus_graph_add_extra(argus_graph *g, const argus_record *r)
{
    g->extras = graph_grow(g, g->extras, &g->p->cap_extras, g->nextras + 1,
                     sizeof *g->extras);
    argus_extra *x = &g->extras[g->nextras++];
    x->type_len = r->type_len < sizeof x->type - 1 ? (int)r->type_len
                                                    : (int)sizeof x->type - 1;
    memcpy(x->type, r->type_name, (size_t)x->type_len);
    x->type[x->type_len] = 0;
    g->extra_pool = graph_grow(g, g->extra_pool, &g->p->cap_extra_pool,
                         g->extra_used + r->raw_len, 1);
    memcpy(g->extra_pool + g->extra_used, r->raw, r->raw_len);
    x->off = (uint32_t)g->extra_used;
    x->len = (uint32_t)r->raw_len;
    x->number = r->number;
    g->extra_used += r->raw_len;
}

void argus_findings_collect(void *findings, const argus_record *r)
{
    argus_findings *f = findings;
    f->bytes = argus_grow(f->bytes, &f->cap, f->len + r->raw_len, 1);
    memcpy(f->bytes + f->len, r->raw, r->raw_len);
    f->len += r->raw_len;
    *ARGUS_PUSH(f->ends, f->n, f->ends_cap) = f->len;
}

void argus_findings_add(argus_findings *f, argus_graph *g, argus_writer *keep)
{
    argus_parser *p = argus_parser_new();
    size_t start = 0;
    for (size_t i = 0; i < f->n; i++) {
        argus_record *r;
        char err[256];
        long n = argus_parse_record(p, f->bytes + start, f->ends[i] - start, &r,
                                    err, sizeof err);
        if (n != (long)(f->ends[i] - start))
            argus_die(ARGUS_EX_SOFTWARE, "internal error: a stage wrote a "
                      "record it cannot read back (%s)", n < 0 ? err : "short");
        r->number = g->nextras + 1;
        argus_graph_add_extra(g, r);
        if (keep)
            argus_write_record(keep, r);
        start = f->ends[i];
    }
    argus_parser_free(p);
    f->len = f->n = 0;
}

void argus_findings_free(argus_findings *f)
{
    free(f->bytes);
    free(f->ends);
    memset(f, 0, sizeof *f);
}

/* ITEMS (N of SIZE bytes, each with its segment index at SEG_AT) in
 * segment order, keeping their order within a segment (a counting
 * sort). Frees ITEMS, returns the new array. */
static void *group_by_seg(argus_graph *g, void *items, uint32_t n, size_t size, size_t seg_at)
{
    if (!n)
        return items;
    uint32_t *next = argus_xcalloc((size_t)g->nsegs + 1, sizeof *next, "grouping by segment");
    char *sorted = argus_xmalloc((size_t)n * size, "grouping by segment");
#define ITEM_SEG(item) (*(const uint32_t *)((const char *)(item) + seg_at))
    for (uint32_t k = 0; k < n; k++)
        next[ITEM_SEG((const char *)items + (size_t)k * size) + 1]++;
    for (uint32_t i = 0; i < g->nsegs; i++)
        next[i + 1] += next[i];
    for (uint32_t k = 0; k < n; k++) {
        const char *item = (const char *)items + (size_t)k * size;
        memcpy(sorted + (size_t)next[ITEM_SEG(item)]++ * size, item, size);
    }
#undef ITEM_SEG
    free(next);
    graph_release(g->p, items);
    return sorted;
}

/* Where segment SI's items begin in ITEMS (N of SIZE bytes, grouped by
 * segment, the segment index at SEG_AT), and *COUNT of them. */
static uint32_t seg_items(const void *items, uint32_t n, size_t size, size_t seg_at,
                          uint32_t si, uint32_t *count)
{
    uint32_t lo = argus_lower_bound(items, n, size, seg_at, sizeof(uint32_t), si);
    uint32_t end = lo;          /* items is NULL when N is 0: no pointer made */
    while (end < n &&
           key_at_p((const char *)items + (size_t)end * size + seg_at, sizeof(uint32_t)) == si)
        end++;
    *count = end - lo;
    return lo;
}

const argus_preempt *argus_seg_preempts(const argus_graph *g, uint32_t si, uint32_t *n)
{
    uint32_t at = seg_items(g->preempts, g->npreempts, sizeof *g->preempts,
                            offsetof(argus_preempt, seg), si, n);
    return *n ? g->preempts + at : NULL;
}

const argus_inner_wait *argus_seg_inner_waits(const argus_graph *g, uint32_t si, uint32_t *n)
{
    uint32_t at = seg_items(g->inner_waits, g->ninner_waits, sizeof *g->inner_waits,
                            offsetof(argus_inner_wait, seg), si, n);
    return *n ? g->inner_waits + at : NULL;
}

uint64_t argus_seg_lock_failed(const argus_graph *g, uint32_t si)
{
    const uint64_t *ts = argus_table_get(&g->p->lock_failed, si);
    return ts ? *ts : 0;
}

uint64_t argus_seg_connect_started(const argus_graph *g, uint32_t si)
{
    const uint64_t *ts = argus_table_get(&g->p->connect_started, si);
    return ts ? *ts : 0;
}

/* Each thread's segments as one array, for binary search by time: a
 * counting sort of the segments by thread (a thread's come in the order
 * they began, as its prev/next chain has them), reading segs in order. */
static void index_threads(argus_graph *g)
{
    g->seg_first = argus_xcalloc((size_t)g->nthreads + 1, sizeof *g->seg_first, "thread index");
    g->thread_segs =
        argus_xmalloc(((size_t)g->nsegs + 1) * sizeof *g->thread_segs, "thread index");
    uint32_t *next = argus_xcalloc((size_t)g->nthreads + 1, sizeof *next, "thread index");
    for (uint32_t i = 0; i < g->nsegs; i++)
        next[g->segs[i].thread]++;
    uint32_t at = 0;
    for (uint32_t t = 0; t < g->nthreads; t++) {
        g->seg_first[t] = at;
        at += next[t];
        next[t] = g->seg_first[t];      /* where its next one goes */
    }
    g->seg_first[g->nthreads] = at;
    for (uint32_t i = 0; i < g->nsegs; i++)
        g->thread_segs[next[g->segs[i].thread]++] = i;
    free(next);
}

/* Incoming and outgoing edge lists per segment (CSR), counted in arrays
 * of their own: the segments are big, and an edge's ends are anywhere. */
static void index_edges(argus_graph *g)
{
    uint32_t *nin = argus_xcalloc((size_t)g->nsegs + 1, sizeof *nin, "edge index");
    uint32_t *nout = argus_xcalloc((size_t)g->nsegs + 1, sizeof *nout, "edge index");
    for (uint32_t i = 0; i < g->nedges; i++) {
        const argus_gedge *e = &g->edges[i];
        if (e->from_seg == ARGUS_NONE || e->to_seg == ARGUS_NONE)
            continue;
        nin[e->to_seg]++;
        nout[e->from_seg]++;
    }
    uint32_t in = 0, out = 0;
    for (uint32_t i = 0; i < g->nsegs; i++) {
        argus_seg *s = &g->segs[i];
        s->in_off = in;
        s->out_off = out;
        s->in_len = nin[i];
        s->out_len = nout[i];
        nin[i] = in;            /* from here on: where the next one goes */
        nout[i] = out;
        in += s->in_len;
        out += s->out_len;
    }
    g->in_edges = argus_xmalloc((in + 1) * sizeof *g->in_edges, "edge index");
    g->out_edges = argus_xmalloc((out + 1) * sizeof *g->out_edges, "edge index");
    for (uint32_t i = 0; i < g->nedges; i++) {
        const argus_gedge *e = &g->edges[i];
        if (e->from_seg == ARGUS_NONE || e->to_seg == ARGUS_NONE)
            continue;
        g->in_edges[nin[e->to_seg]++] = i;
        g->out_edges[nout[e->from_seg]++] = i;
    }
    free(nin);
    free(nout);
}

/* argus_graph_load, with REREAD_FD (or -1) the file RD reads, when its
 * key events are to be read again from it (ARGUS_KEYS_REREAD). */
static void graph_load(argus_graph *g, argus_reader *rd, const argus_graph_options *opt,
                       int reread_fd)
{
    memset(g, 0, sizeof *g);
    g->p = argus_xcalloc(1, sizeof *g->p, "a graph");
    g->p->reread_fd = reread_fd;
    g->name = argus_reader_name(rd);
    argus_reader_sparse(rd); /* a few fields of each event: GRAPH-LOAD */
    const argus_field *origin = argus_get_named(argus_reader_header(rd), "origin");
    if (origin && origin->kind == ARGUS_V_UINT)
        g->origin = origin->u;
    argus_table_init(&g->p->seg_index, sizeof(uint32_t));
    g->p->segs_sorted = true;
    argus_table_init(&g->p->thread_index, sizeof(uint32_t));
    argus_table_init(&g->p->pid_proc, sizeof(uint32_t));
    argus_table_init(&g->p->pid_cmdline, sizeof(uint32_t));
    argus_table_init(&g->p->str_index, sizeof(uint32_t));
    argus_table_init(&g->p->lock_failed, sizeof(uint64_t));
    argus_table_init(&g->p->connect_started, sizeof(uint64_t));
    bool keep_keys = opt && opt->keep_key_events;
    if (keep_keys && opt->keys_lazily && reread_fd < 0) {
        int fd = argus_reader_file(rd);
        if (fd >= 0 && (fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) >= 0) {
            g->p->reread_fd = fd;
            g->p->lazy_keys = true;
            argus_table_init(&g->p->lazy_segs, sizeof(struct lazy_keys *));
            argus_table_init(&g->p->lazy_text_index, sizeof(uint32_t));
        }
    }
    loader ld = {.keep_keys = keep_keys && !g->p->lazy_keys,
                 .keep_ipcs = keep_keys && !opt->no_ipcs};
    const argus_record *r;
    while ((r = argus_read(rd))) {
        /* loaded first: a record it refuses is not passed through */
        if (r->is_event) {
            load_event(g, r, rd, &ld);
            if (opt && opt->on_event)
                opt->on_event(r, opt->ctx);
        } else if (r->type == ARGUS_T_THREAD) {
            load_thread(g, r);
            if (opt && opt->on_event)
                opt->on_event(r, opt->ctx);
        } else if (r->type == ARGUS_T_EDGE) {
            load_edge(g, r);
        } else if (r->type != ARGUS_T_STREAM) {
            argus_graph_add_extra(g, r);
        }
        if (opt && opt->pass)
            argus_write_record(opt->pass, r);
    }
    for (uint32_t t = 0; t < ld.n; t++) {  /* each frees its buffer */
        sig_close(g, &ld.threads[t]);
        if (ld.keep_keys)
            key_close(g, &ld.keys[t]);
    }
    free(ld.threads);
    free(ld.keys);
    index_edges(g);
    index_threads(g);
    g->preempts = group_by_seg(g, g->preempts, g->npreempts, sizeof *g->preempts,
                               offsetof(argus_preempt, seg));
    g->inner_waits = group_by_seg(g, g->inner_waits, g->ninner_waits, sizeof *g->inner_waits,
                                  offsetof(argus_inner_wait, seg));
}

void argus_graph_load(argus_graph *g, argus_reader *rd,
                      const argus_graph_options *opt)
{
    graph_load(g, rd, opt, -1);
}

typedef struct async_load {
    argus_graph *g;
    const char *path;           /* the caller's, for messages */
    argus_input in;             /* opened by the caller's thread */
    enum argus_key_mode keys;
    void (*then)(argus_graph *g, void *ctx);
    void *ctx;
} async_load;

/* Loads G from IN (opened on PATH), nothing passed through, and closes
 * it. ARGUS_KEYS_REREAD keeps the file open when it is a regular file;
 * any other (a pipe, a FIFO) cannot be read twice, and keeps its key
 * events instead. */
static void load_input(argus_graph *g, argus_input *in, const char *path,
                       enum argus_key_mode keys)
{
    int fd = -1;
    struct stat st;
    if (keys == ARGUS_KEYS_REREAD && fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode))
        fd = fcntl(in->fd, F_DUPFD_CLOEXEC, 0);
    argus_graph_options opt = {.keep_key_events = keys != ARGUS_KEYS_NONE && fd < 0,
                               .no_ipcs = true};
    argus_reader *rd = argus_reader_from_input(in);
    graph_load(g, rd, &opt, fd);
    g->name = path;
    argus_reader_close(rd);
}

static void *load_thread_main(void *arg)
{
    async_load *a = arg;
    load_input(a->g, &a->in, a->path, a->keys);
    if (a->then)
        a->then(a->g, a->ctx);
    free(a);
    return NULL;
}

void argus_graph_load_file_async(argus_graph *g, const char *path,
                                 enum argus_key_mode keys,
                                 void (*then)(argus_graph *g, void *ctx), void *ctx,
                                 pthread_t *thread)
{
    /* the reader's name index is built on first use: build it here,
     * before two readers race for it */
    argus_key_lookup("type", 4);
    async_load *a = argus_xmalloc(sizeof *a, "async load");
    /* opened here, once: a missing file fails before the caller writes
     * anything, and a FIFO (a process substitution) is read by the
     * thread, not opened twice ("-" is a file of that name: stdin is the
     * caller's input) */
    a->g = g;
    a->path = path;
    a->keys = keys;
    a->then = then;
    a->ctx = ctx;
    argus_input_open(&a->in, strcmp(path, "-") == 0 ? "./-" : path, SIZE_MAX);
    if (pthread_create(thread, NULL, load_thread_main, a) != 0) {
        free(a);
        argus_die(ARGUS_EX_IOERR, "cannot start a thread to read %s", path);
    }
}

void argus_graph_load_file(argus_graph *g, const char *path, enum argus_key_mode keys)
{
    argus_input in;
    argus_input_open(&in, path, SIZE_MAX);
    load_input(g, &in, path, keys);
}

void argus_graph_free(argus_graph *g)
{
    struct argus_graph_priv *p = g->p;
    if (!p)
        return;
    argus_table_free(&p->seg_index);
    argus_table_free(&p->thread_index);
    argus_table_free(&p->pid_proc);
    argus_table_free(&p->pid_cmdline);
    argus_table_free(&p->str_index);
    argus_table_free(&p->lock_failed);
    argus_table_free(&p->connect_started);
    if (p->parser)
        argus_parser_free(p->parser);
    if (p->reread_parser)
        argus_parser_free(p->reread_parser);
    free(p->reread_buf);
    if (p->reread_fd >= 0)
        close(p->reread_fd);
    if (p->lazy_keys) {
        uint64_t si;
        void *v;
        for (size_t i = 0; argus_table_next(&p->lazy_segs, &i, &si, &v);)
            free(*(struct lazy_keys **)v);
        argus_table_free(&p->lazy_segs);
        for (size_t i = 0; i < p->nlazy_text; i++)
            free(p->lazy_text[i]);
        free(p->lazy_text);
        argus_table_free(&p->lazy_text_index);
    }
    void *arrays[] = {p->id_seg, p->blk_off, p->id_runs, p->seg_keys, g->threads, g->segs, g->edges,
                      g->sig_pool, g->keys, g->strings, g->extras, g->extra_pool,
                      g->locks, g->accepts, g->preempts, g->ipcs, g->inner_waits, g->fds};
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++)
        graph_release(p, arrays[i]);
    free(p);
    free(g->in_edges);
    free(g->out_edges);
    free(g->thread_segs);
    free(g->seg_first);
    memset(g, 0, sizeof *g);
}

void argus_moment_text(char *buf, size_t size, uint64_t ts, bool have_origin,
                       uint64_t origin)
{
    if (have_origin) {
        uint64_t t = ts + origin, us = t / 1000u + (t % 1000u >= 500u);
        snprintf(buf, size, "%llu.%06llu", (unsigned long long)(us / 1000000u),
                 (unsigned long long)(us % 1000000u));
        return;
    }
    uint64_t ms = ts / 1000000u + (ts % 1000000u >= 500000u);
    snprintf(buf, size, "%llu.%03llu", (unsigned long long)(ms / 1000u),
             (unsigned long long)(ms % 1000u));
}

/* ---- extra records ----------------------------------------------------------- */
bool argus_extra_is(const argus_extra *x, const char *type)
{
    return strcmp(x->type, type) == 0;
}

const argus_record *argus_graph_parse_extra(argus_graph *g, uint32_t i)
{
    if (!g->p->parser)
        g->p->parser = argus_parser_new();
    argus_record *r = NULL;
    char err[200];
    const argus_extra *x = &g->extras[i];
    if (argus_parse_record(g->p->parser, g->extra_pool + x->off, x->len, &r,
                           err, sizeof err) <= 0)
        return NULL;            /* it was read by the same parser once */
    r->number = x->number;      /* its place in the stream, not in the pool */
    return r;
}

/* ---- signatures ------------------------------------------------------------ */
uint32_t argus_sig_distance(const argus_graph *a, const argus_seg *sa,
                            const argus_graph *b, const argus_seg *sb,
                            uint32_t cap)
{
    return argus_sig_distance_n(a, sa, sa->sig_len, b, sb, sb->sig_len, cap);
}

uint32_t argus_sig_distance_n(const argus_graph *a, const argus_seg *sa,
                              uint32_t n, const argus_graph *b,
                              const argus_seg *sb, uint32_t m, uint32_t cap)
{
    return argus_sig_edits(a->sig_pool + sa->sig_off, n, b->sig_pool + sb->sig_off, m, cap);
}

uint32_t argus_sig_edits(const uint32_t *x, uint32_t n, const uint32_t *y, uint32_t m,
                         uint32_t cap)
{
    if ((n > m ? n - m : m - n) > cap)
        return cap + 1;
    /* Levenshtein with two rows; rows are at most ARGUS_SIG_MAX + 1 */
    uint32_t row0[ARGUS_SIG_MAX + 1], row1[ARGUS_SIG_MAX + 1];
    uint32_t *prev = row0, *cur = row1;
    for (uint32_t j = 0; j <= m; j++)
        prev[j] = j;
    for (uint32_t i = 1; i <= n; i++) {
        cur[0] = i;
        uint32_t best = cur[0];
        for (uint32_t j = 1; j <= m; j++) {
            uint32_t d = prev[j - 1] + (x[i - 1] != y[j - 1]);
            if (prev[j] + 1 < d)
                d = prev[j] + 1;
            if (cur[j - 1] + 1 < d)
                d = cur[j - 1] + 1;
            cur[j] = d;
            if (d < best)
                best = d;
        }
        if (best > cap)
            return cap + 1;
        uint32_t *t = prev;
        prev = cur;
        cur = t;
    }
    return prev[m] > cap ? cap + 1 : prev[m];
}
