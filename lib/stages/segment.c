/* segment: divides every thread's events into execution segments, the
 * nodes of the event graph, and writes each event's segment id as "seg"
 * (docs/stages/segment.md; the command line is filters/segment.c). */
#include "argus/stages/builtin.h"
#include "argus/stream/table.h"
#include "argus/stream/cli.h"

#include <stdlib.h>

/* Why a segment was started; one cause per segment, counted with -v. */
enum cause {
    CAUSE_NONE,
    CAUSE_THREAD,   /* the thread's first event */
    CAUSE_WAIT,
    CAUSE_CALLOUT,
    CAUSE_RUNLOOP,
    CAUSE_UI,
    CAUSE_IPC,
    CAUSE_KERNEL,
    CAUSE_CTX,
    CAUSE_COUNT
};

static const char *const cause_counter[CAUSE_COUNT] = {
    [CAUSE_THREAD] = "segments started by a thread's first event",
    [CAUSE_WAIT] = "segments started after a wait (SEG-WAIT)",
    [CAUSE_CALLOUT] = "segments started by callouts (SEG-CALLOUT)",
    [CAUSE_RUNLOOP] = "segments started by run loop entry (SEG-RUNLOOP)",
    [CAUSE_UI] = "segments started by ui events (SEG-UI)",
    [CAUSE_IPC] = "segments started by a new IPC peer (SEG-IPC)",
    [CAUSE_KERNEL] = "segments started in kernel threads (SEG-KERNEL)",
    [CAUSE_CTX] = "interrupt and maintenance windows (SEG-CTX)",
};

/* A segment's IPC peer set is a small ring of pids: it only grows through
 * messages that share a process with it (vouchers), so a handful is
 * plenty. When full, the oldest pid makes room (counted). */
#define PEER_SET_MAX 8
/* voucher_pids read per message; more are left out (counted). */
#define VOUCHER_PIDS_MAX 16
#define VOUCHER_PIDS_MAX_TEXT "16"

typedef struct thread_state {
    uint64_t seg;              /* current segment, 0 before the first event */
    uint64_t ctx_seg;          /* segment of the ctx window, when in_ctx */
    uint64_t last_id;          /* last event of the current segment */
    uint64_t pid;              /* from the thread record or the latest event */
    uint64_t peers[PEER_SET_MAX];
    uint64_t woken_pid;        /* process of the segment's wakeups (kernel) */
    uint32_t callout_level;
    uint8_t npeers, peer_oldest;
    uint8_t pending;           /* enum cause: the next event starts a segment */
    bool in_ctx, kernel, has_woken_pid;
} thread_state;

typedef struct segmenter {
    argus_segment_options o;
    argus_table threads;       /* tid -> thread_state */
    uint64_t next_seg;
    /* Counted here rather than per event: argus_count looks its name up. */
    struct {
        uint64_t segments[CAUSE_COUNT];
        uint64_t split_edges, callout_end_without_begin, unknown_wakeup_target,
                 peer_set_full, voucher_pids_left_out;
    } counts;
} segmenter;

static bool peer_set_has(const thread_state *t, uint64_t pid)
{
    for (unsigned i = 0; i < t->npeers; i++)
        if (t->peers[i] == pid)
            return true;
    return false;
}

static void peer_set_add(segmenter *k, thread_state *t, uint64_t pid)
{
    if (peer_set_has(t, pid))
        return;
    if (t->npeers < PEER_SET_MAX) {
        t->peers[t->npeers++] = pid;
        return;
    }
    k->counts.peer_set_full++;
    t->peers[t->peer_oldest] = pid;
    t->peer_oldest = (uint8_t)((t->peer_oldest + 1) % PEER_SET_MAX);
}

/* P of SEG-IPC: the peer and the voucher's processes, leaving out unknown
 * values (absent, or not uints) and the thread's own process. */
static int ipc_processes(segmenter *k, const argus_record *r, uint64_t *p)
{
    int n = 0;
    uint64_t peer;
    if (argus_get_uint(r, ARGUS_K_PEER, &peer) && peer != r->pid)
        p[n++] = peer;
    uint64_t vp[VOUCHER_PIDS_MAX + 1];
    int nv = argus_get_uint_array(r, ARGUS_K_VOUCHER_PIDS, vp,
                                  VOUCHER_PIDS_MAX + 1);
    if (nv > VOUCHER_PIDS_MAX) {
        k->counts.voucher_pids_left_out++;
        nv = VOUCHER_PIDS_MAX;
    }
    for (int i = 0; i < nv; i++) {
        if (vp[i] == r->pid)
            continue;
        bool dup = false;
        for (int j = 0; j < n && !dup; j++)
            dup = p[j] == vp[i];
        if (!dup)
            p[n++] = vp[i];
    }
    return n;
}

static bool phase_is(const argus_record *r, const char *phase)
{
    return argus_text_is(r, ARGUS_K_PHASE, phase);
}

static bool is_callout(int type)
{
    return type == ARGUS_T_DISPATCH_INVOKE ||
           type == ARGUS_T_RUNLOOP_INVOKE || type == ARGUS_T_TIMER_FIRE;
}

static void write_with_seg(argus_writer *w, const argus_record *r,
                           uint64_t seg)
{
    argus_set set = {.key = ARGUS_K_SEG, .op = ARGUS_SET_UINT, .u = seg};
    argus_write_edited(w, r, &set, 1);
}

/* An event of the thread's own work (not in a ctx window). */
static void segment_event(segmenter *k, argus_writer *w, thread_state *t,
                          const argus_record *r)
{
    const argus_segment_options *o = &k->o;
    bool begin = false, end = false;
    if (is_callout(r->type)) {
        begin = phase_is(r, "begin");
        end = !begin && phase_is(r, "end");
    }

    /* A boundary left by the previous event comes first; otherwise the
     * start rules are tried in the order of the spec. */
    enum cause cause = t->seg == 0 ? CAUSE_THREAD : (enum cause)t->pending;

    if (!cause && begin && o->callout && t->callout_level == 0)
        cause = CAUSE_CALLOUT;
    if (!cause && o->runloop_split && r->type == ARGUS_T_RUNLOOP_PHASE &&
        argus_text_is(r, ARGUS_K_STAGE, "entry"))
        cause = CAUSE_RUNLOOP;
    if (!cause && o->ui_split && r->type == ARGUS_T_UI_EVENT &&
        t->callout_level == 0)
        cause = CAUSE_UI;

    uint64_t procs[1 + VOUCHER_PIDS_MAX];
    int nprocs = 0;
    if (o->ipc_split && r->type == ARGUS_T_IPC) {
        nprocs = ipc_processes(k, r, procs);
        if (!cause && nprocs > 0 && t->npeers > 0) {
            bool shared = false;
            for (int i = 0; i < nprocs && !shared; i++)
                shared = peer_set_has(t, procs[i]);
            if (!shared)
                cause = CAUSE_IPC;
        }
    }

    bool woken_known = false;
    uint64_t woken_pid = 0;
    if (o->kernel_split && t->kernel) {
        if (r->type == ARGUS_T_TIMER_FIRE && begin) {
            if (!cause)
                cause = CAUSE_KERNEL;
        } else if (r->type == ARGUS_T_WAKEUP) {
            uint64_t target;
            const thread_state *tt = NULL;
            if (argus_get_uint(r, ARGUS_K_TARGET, &target))
                tt = argus_table_get(&k->threads, target);
            if (!tt) {
                k->counts.unknown_wakeup_target++;
            } else {
                woken_known = true;
                woken_pid = tt->pid;
                if (!cause && t->has_woken_pid && t->woken_pid != woken_pid)
                    cause = CAUSE_KERNEL;
            }
        }
    }

    uint64_t split_from = t->last_id;
    if (cause) {
        k->counts.segments[cause]++;
        t->seg = k->next_seg++;
        t->pending = CAUSE_NONE;
        t->npeers = t->peer_oldest = 0;
        t->has_woken_pid = false;
    }

    /* What this event leaves to the segment, and to the next event. */
    for (int i = 0; i < nprocs; i++)
        peer_set_add(k, t, procs[i]);
    if (woken_known && !t->has_woken_pid) {
        t->woken_pid = woken_pid;
        t->has_woken_pid = true;
    }
    if (begin) {
        t->callout_level++;
    } else if (end) {
        if (t->callout_level > 0) {
            t->callout_level--;
        } else {
            /* the trace began inside the callout, or its begin was lost:
             * the end still closes the work that ran before it */
            k->counts.callout_end_without_begin++;
        }
        if (t->callout_level == 0 && o->callout)
            t->pending = CAUSE_CALLOUT;
    } else if (r->type == ARGUS_T_WAIT && t->callout_level == 0 &&
               o->wait_split) {
        t->pending = CAUSE_WAIT;
    }

    write_with_seg(w, r, t->seg);
    if ((cause == CAUSE_IPC || cause == CAUSE_KERNEL) && o->split_edges) {
        argus_put_edge(w, "split", split_from, r->id, true);
        k->counts.split_edges++;
    }
    t->last_id = r->id;
}


static void *segment_start(const void *options, const argus_options *common)
{
    static const argus_segment_options defaults = ARGUS_SEGMENT_DEFAULTS;
    (void)common;
    segmenter *k = argus_xcalloc(1, sizeof *k, "segmenter");
    k->o = options ? *(const argus_segment_options *)options : defaults;
    k->next_seg = 1;
    argus_table_init(&k->threads, sizeof(thread_state));
    return k;
}

static void segment_record(void *self, const argus_record *r, argus_writer *out)
{
    segmenter *k = self;
    if (r->type == ARGUS_T_THREAD) {
        /* tid -> pid for SEG-KERNEL's wakeup targets, and the kernel
         * flag; a later record for the tid updates both */
        uint64_t tid, pid;
        if (argus_get_uint(r, ARGUS_K_TID, &tid) &&
            argus_get_uint(r, ARGUS_K_PID, &pid)) {
            thread_state *t = argus_table_put(&k->threads, tid, NULL);
            bool kernel = false;
            argus_get_bool(r, ARGUS_K_KERNEL, &kernel);
            t->pid = pid;
            t->kernel = kernel;
        }
        argus_write_record(out, r);
        return;
    }
    if (!r->is_event) {
        argus_write_record(out, r);
        return;
    }
    thread_state *t = argus_table_put(&k->threads, r->tid, NULL);
    t->pid = r->pid;
    if (k->o.ctx_split && argus_get(r, ARGUS_K_CTX)) {
        /* the thread's own state waits untouched for the window's end */
        if (!t->in_ctx) {
            t->in_ctx = true;
            t->ctx_seg = k->next_seg++;
            k->counts.segments[CAUSE_CTX]++;
        }
        write_with_seg(out, r, t->ctx_seg);
        return;
    }
    t->in_ctx = false;
    segment_event(k, out, t, r);
}

static void segment_discard(void *self)
{
    segmenter *k = self;
    argus_table_free(&k->threads);
    free(k);
}

static void segment_finish(void *self, argus_writer *out)
{
    segmenter *k = self;
    (void)out;
    uint64_t total = 0;
    for (int i = CAUSE_THREAD; i < CAUSE_COUNT; i++)
        total += k->counts.segments[i];
    argus_count("segments", total);
    for (int i = CAUSE_THREAD; i < CAUSE_COUNT; i++)
        argus_count(cause_counter[i], k->counts.segments[i]);
    argus_count("split edges written (SEG-LINK)", k->counts.split_edges);
    argus_count("callout ends without begin", k->counts.callout_end_without_begin);
    argus_count("kernel wakeups of a thread of unknown process",
                k->counts.unknown_wakeup_target);
    argus_count("pids dropped from a full IPC peer set", k->counts.peer_set_full);
    argus_count("ipc events with voucher_pids past the first " VOUCHER_PIDS_MAX_TEXT,
                k->counts.voucher_pids_left_out);
    segment_discard(k);
}

const argus_stage_def argus_segment_stage = {
    "segment", segment_start, segment_record, segment_finish, segment_discard,
};
