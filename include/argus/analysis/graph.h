/* A graph stream held in memory for the analysis programs (find-spinning,
 * similar, diff, report): segments as nodes, edges between them, threads
 * with their roles, and the analysis records already appended. Events
 * themselves are not kept: each segment keeps a summary (times, its final
 * wait, yields, its UI event, its SIM-SIG signature and, on request, a few
 * key events, with what each ipc event says of its message), so memory
 * grows with segments and edges, plus 4 bytes per event to map edge ends
 * to segments (in runs of nearly consecutive ids: never by the ids'
 * values), and while loading a few hundred bytes per thread
 * (docs/performance.md). */
#ifndef ARGUS_GRAPH_H
#define ARGUS_GRAPH_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "argus/stream/stream.h"
#include "argus/stream/table.h"

#define ARGUS_NONE UINT32_MAX
#define ARGUS_SIG_MAX 256       /* signature elements kept per segment */
#define ARGUS_KEY_EVENTS 12     /* key events kept per segment (report) */

typedef struct argus_gthread {
    uint64_t tid, pid;
    uint64_t parent;            /* the process that forked it, 0: not known */
    uint64_t exec_ts;           /* its latest exec in the trace, 0: none */
    uint32_t proc, name;        /* string offsets (argus_graph_str), 0 = none */
    bool main, kernel;
    uint32_t first_seg, last_seg;
} argus_gthread;

/* How the thread's final wait in a segment ended. */
enum argus_wake { ARGUS_WAKE_NONE, ARGUS_WAKE_AWAKENED, ARGUS_WAKE_TIMED_OUT,
                  ARGUS_WAKE_INTERRUPTED, ARGUS_WAKE_RESTART, ARGUS_WAKE_OTHER };

typedef struct argus_key_event {
    uint64_t id, ts;
    uint64_t aux;               /* peer pid, resource, flag addr, ... */
    uint32_t text;              /* what it says (string offset) */
    uint16_t type;              /* enum argus_type, ARGUS_T_OTHER */
    uint16_t extra;             /* msg_id low bits etc, free use */
} argus_key_event;

typedef struct argus_seg {
    uint64_t seg;               /* the stream's seg id */
    uint64_t first_id, last_id;
    uint64_t begin, end;        /* ts of first and last event */
    uint64_t resume;            /* ts the thread ran again after a final
                                   wait (UINT64_MAX: not in the trace, or
                                   no final wait; see argus_seg_until) */
    uint64_t wait_id;           /* the final wait's id, or UINT64_MAX */
    uint64_t runnable;          /* ns the thread then waited for a CPU
                                   (its woken's `runnable`, 0 if unknown) */
    uint64_t cpu_holder;        /* tid that held that CPU, 0 if unknown */
    uint64_t wait_resource;
    uint64_t ui_id;             /* first ui_event, UINT64_MAX if none */
    uint64_t send_id;           /* last ipc send, UINT64_MAX if none */
    uint64_t send_peer;         /* its peer's pid, UINT64_MAX if unknown */
    uint32_t ui_kind, wait_reason;          /* strings */
    uint32_t thread;            /* index into threads */
    uint32_t prev, next;        /* same thread, segment index */
    uint32_t nevents, nyields, ntimeouts;   /* ntimeouts: this wait's
                                               timed-out run on one resource */
    uint32_t sig_off, sig_len;  /* into sig_pool */
    uint32_t in_off, in_len;    /* incoming edges: in_edges[in_off..] */
    uint32_t out_off, out_len;
    /* rarer: its key events (argus_graph_seg_keys), preemptions
     * (argus_seg_preempts), inner waits (argus_seg_inner_waits) and
     * failed file-lock tries (argus_seg_lock_failed) are kept apart */
    uint8_t wake;               /* enum argus_wake of the final wait */
    bool ctx;                   /* an interrupt/maintenance window */
    bool woken_external;        /* the wait ended by resume (no waker) */
    bool cut_start;             /* its first event is the wait decode made
                                   up at the trace's first instant (the
                                   thread was asleep when it began) */
} argus_seg;

/* A file lock taken or released (a successful fcntl F_SETLK/F_SETLKW/
 * F_OFD_SETLK*, or flock): the trace shows neither which file nor which
 * way, only that the thread changed a lock then. */
typedef struct argus_lock_op {
    uint64_t ts;                /* the syscall's end */
    uint32_t seg;
} argus_lock_op;

/* A stretch a segment's thread waited for a CPU while it could run (its
 * `preempted` event: switched out runnable, back `runnable` ns later). */
typedef struct argus_preempt {
    uint64_t from, to;
    uint64_t holder;            /* tid that held the CPU, 0 if unknown */
    uint32_t seg;
} argus_preempt;

/* A wait inside a segment that did not end it (SEG-WAIT: inside a
 * callout, a main loop's handler blocked in a synchronous call), from
 * the wait to the thread's next own event. */
typedef struct argus_inner_wait {
    uint64_t wait_id;           /* the wait event */
    uint64_t from, to;          /* its ts, and when the thread ran again */
    uint64_t runnable;          /* ns of that it then waited for a CPU */
    uint64_t cpu_holder;        /* tid that held that CPU, 0 if unknown */
    uint64_t resource;
    uint32_t seg;
    uint32_t reason;            /* string */
    uint8_t wake;               /* enum argus_wake */
} argus_inner_wait;

typedef struct argus_gedge {
    uint64_t from, to;          /* event ids */
    uint32_t from_seg, to_seg;  /* segment indices, ARGUS_NONE if unknown */
    uint32_t kind;              /* string */
    bool weak;
} argus_gedge;

/* An ipc event and what it says of its message (keep_key_events: the
 * report names the message that explains a link of the wait chain; the
 * edges join events, they do not say what those were). */
typedef struct argus_ipc_info {
    uint64_t id, ts, tid, pid;
    uint64_t serial, msg_id;    /* UINT64_MAX when absent (serial: D-Bus) */
    uint64_t msg;               /* UINT64_MAX when absent (binder: the transaction) */
    uint32_t via, dbus_type;    /* strings, 0 when absent */
    bool recv;                  /* dir "recv" (else a send) */
    bool reply;                 /* `reply: true`: a binder reply */
} argus_ipc_info;

/* What a wait's file descriptor is, as decode found it in the trace
 * (DEC-FD: the wait's fd_origin fields): kept for the waits that have
 * them, so that the report names the fd. */
typedef struct argus_fd_info {
    uint64_t wait_id;           /* the wait event */
    uint64_t fd;                /* its resource */
    uint64_t ts, tid;           /* fd_origin_ts, fd_origin_tid */
    uint64_t listen;            /* fd_listen (accept), UINT64_MAX if absent */
    uint32_t how;               /* fd_origin (string) */
} argus_fd_info;

/* A record of a type the graph does not model (hang, path, match, ...),
 * kept as its CBOR bytes for argus_graph_parse_extra. */
typedef struct argus_extra {
    int type_len;
    char type[24];
    uint32_t off, len;          /* into extra_pool */
    uint64_t number;            /* its position in the stream, for messages */
} argus_extra;

typedef struct argus_graph {
    const char *name;           /* file name for messages */
    argus_gthread *threads; uint32_t nthreads;
    argus_seg *segs; uint32_t nsegs;
    argus_gedge *edges; uint32_t nedges;
    uint32_t *in_edges, *out_edges;         /* edge indices, CSR */
    uint32_t *thread_segs;      /* each thread's segments in order: thread
                                   t's are [seg_first[t], seg_first[t+1]) */
    uint32_t *seg_first;
    uint32_t *sig_pool; uint64_t sig_used;
    argus_key_event *keys; uint64_t nkeys;
    char *strings; uint64_t str_used;
    argus_extra *extras; uint32_t nextras;
    argus_lock_op *locks; uint32_t nlocks;  /* in ts order */
    argus_lock_op *accepts; uint32_t naccepts; /* accepts that returned a
                                   connection (ts: their end), in ts order */
    argus_preempt *preempts; uint32_t npreempts; /* by segment, then time */
    argus_inner_wait *inner_waits; uint32_t ninner_waits; /* by segment, then time */
    argus_ipc_info *ipcs; uint32_t nipcs;   /* keep_key_events: in id (and ts) order */
    argus_fd_info *fds; uint32_t nfds;      /* in id order */
    uint8_t *extra_pool; uint64_t extra_used;
    uint64_t t_first, t_last;   /* ts of the first and last event */
    uint64_t origin;            /* the header's "origin": ts + origin is the
                                   trace's own clock, in ns (0: none) */
    uint64_t nevents;
    /* private */
    struct argus_graph_priv *p;
} argus_graph;

typedef struct argus_graph_options {
    bool keep_key_events;       /* fill keys[] and ipcs[] for the report */
    bool no_ipcs;               /* ... but not ipcs[] (a baseline: only
                                   the report's own graph names messages) */
    bool keys_lazily;           /* ... and where the reader reads a regular
                                   file, the key events not in keys[] but
                                   read again when argus_graph_seg_keys
                                   first asks for a segment's: the report
                                   shows a few segments of millions */
    argus_writer *pass;         /* write every record read here (or NULL) */
    /* called for every event and thread record after it is loaded
     * (indicators, main loops, the threads' names) */
    void (*on_event)(const argus_record *r, void *ctx);
    void *ctx;
} argus_graph_options;

/* P resized to hold at least NEED items of SIZE bytes, *CAP doubling
 * (from 16); exits 74 when memory runs out. P is never NULL after it. */
void *argus_grow(void *p, size_t *cap, size_t need, size_t size);
/* Appends a zeroed item to the growable array V of N items and capacity
 * CAP (a size_t); the expression is the new item. */
#define ARGUS_PUSH(v, n, cap)                                                \
    ((v) = argus_grow((v), &(cap), (size_t)(n) + 1, sizeof *(v)),            \
     memset(&(v)[(n)], 0, sizeof *(v)), &(v)[(n)++])

/* What event R says as a key event of its segment (the graph's keys[],
 * the report's "key events"): its text (syscall name, ui kind, callout
 * function, wait reason, "send msg_id N", "NAME = V", backtrace frames,
 * woken result) in BUF of SIZE bytes (at most SIZE - 1 of a field's
 * bytes), its length returned, and *AUX (peer pid, wait resource, flag
 * address, wakeup target); -1 for an event that is not a key event
 * (an end phase, a type the report does not show). */
int argus_key_event_text(const argus_record *r, char *buf, size_t size,
                         uint64_t *aux);
/* Segment SI's key events (*N of them): keys[] of a graph loaded with
 * keep_key_events, made on first use with keys_lazily (the same ones),
 * none otherwise. Valid as long as the graph. */
const argus_key_event *argus_graph_seg_keys(const argus_graph *g, uint32_t si, uint32_t *n);
/* Segment SI's preemptions and inner waits (*N of them), in time order. */
const argus_preempt *argus_seg_preempts(const argus_graph *g, uint32_t si, uint32_t *n);
const argus_inner_wait *argus_seg_inner_waits(const argus_graph *g, uint32_t si, uint32_t *n);
/* The ts of segment SI's last failed file-lock try (fcntl F_SETLK,
 * flock), 0: none. */
uint64_t argus_seg_lock_failed(const argus_graph *g, uint32_t si);
/* The ts of a connect in segment SI that returned EINPROGRESS (a
 * non-blocking socket's connection begun), 0: none. */
uint64_t argus_seg_connect_started(const argus_graph *g, uint32_t si);

/* Reads the whole stream of RD into G. Fails (exit 65, named by the
 * reader) on an event without seg: the stream was not segmented. */
void argus_graph_load(argus_graph *g, argus_reader *rd,
                      const argus_graph_options *opt);
/* What a baseline keeps of its key events: none, all in keys[] (as
 * keep_key_events), or only each event's place in the file, to read the
 * few asked for again (argus_graph_key_event): a key event costs time
 * and memory at every event, and a baseline's are asked for a handful of
 * times. A file that cannot be read twice (a pipe, a FIFO) keeps them. */
enum argus_key_mode { ARGUS_KEYS_NONE, ARGUS_KEYS_KEPT, ARGUS_KEYS_REREAD };
/* Opens FILE, loads it (nothing passed through), closes it: a baseline,
 * so with KEYS its key events but no ipcs[]. */
void argus_graph_load_file(argus_graph *g, const char *path, enum argus_key_mode keys);
/* The same in a new thread, while the caller reads its own input, then
 * THEN(G, CTX) there when THEN is not NULL: join THREAD before using G.
 * (Two graphs load in the time of one on two cores; an error in either
 * ends the program.) */
void argus_graph_load_file_async(argus_graph *g, const char *path,
                                 enum argus_key_mode keys,
                                 void (*then)(argus_graph *g, void *ctx), void *ctx,
                                 pthread_t *thread);
/* Event ID of segment SI as a key event (argus_key_event_text): *KE and
 * its text in BUF of SIZE bytes (ke->text is not set when it was read
 * again). Found among SI's kept key events, or read again from the file
 * (ARGUS_KEYS_REREAD: any event of SI); false when neither has it. */
bool argus_graph_key_event(const argus_graph *g, uint32_t si, uint64_t id,
                           argus_key_event *ke, char *buf, size_t size);
void argus_graph_free(argus_graph *g);

const char *argus_graph_str(const argus_graph *g, uint32_t off);
/* The same, but NULL for none (off 0): a finding's optional text. */
const char *argus_graph_opt_str(const argus_graph *g, uint32_t off);
uint32_t argus_graph_intern(argus_graph *g, const char *s, size_t len);
/* Process PID's command line, its arguments separated by '\n' (a thread
 * record's "cmdline"); NULL when the trace does not give it. */
const char *argus_graph_cmdline(const argus_graph *g, uint64_t pid);

/* Index of the first of N items (SIZE bytes each, in order of the
 * unsigned key of KEY_SIZE bytes, 4 or 8, at byte KEY_AT of each) whose
 * key is KEY or more; N if none. */
uint32_t argus_lower_bound(const void *items, uint32_t n, size_t size, size_t key_at,
                           size_t key_size, uint64_t key);
/* What wait WAIT_ID's fd is (DEC-FD), or NULL when the trace did not say. */
const argus_fd_info *argus_graph_fd_info(const argus_graph *g, uint64_t wait_id);

/* Segment index of stream seg id SEG, or ARGUS_NONE. */
uint32_t argus_graph_find_seg(const argus_graph *g, uint64_t seg);
/* Segment index holding event ID, or ARGUS_NONE. */
uint32_t argus_graph_seg_of(const argus_graph *g, uint64_t id);
/* The thread's segment ongoing at time T (a segment ending in a wait lasts
 * until its resume), else ARGUS_NONE. */
uint32_t argus_graph_seg_at(const argus_graph *g, uint32_t thread, uint64_t t);
/* The thread's latest segment (not an interrupt window) that began at or
 * before T, ongoing or not; ARGUS_NONE if none. */
uint32_t argus_graph_seg_before(const argus_graph *g, uint32_t thread,
                                uint64_t t);
/* The segment whose wakeup ended segment S's final wait (its "wait"
 * edge), ARGUS_NONE when none did. */
uint32_t argus_graph_waker(const argus_graph *g, uint32_t s);
/* Thread index of TID, or ARGUS_NONE. */
uint32_t argus_graph_thread(const argus_graph *g, uint64_t tid);
/* Threads of G playing OTHER's thread T's role (SIM-MATCH: same process
 * and thread name, or both main of the same process name): fills OUT (up
 * to MAX), returns the count. */
int argus_graph_role_peers(const argus_graph *g, const argus_graph *other,
                           uint32_t t, uint32_t *out, int max);
/* G's threads by process name, so that the same question is a look-up
 * rather than a pass over every thread (once per culprit: quadratic). */
typedef struct argus_role_index {
    const argus_graph *g;
    argus_table first;          /* XXH3 of the process name -> first thread */
    uint32_t *next;             /* the next thread of that hash, ARGUS_NONE */
} argus_role_index;
void argus_role_index_init(argus_role_index *ix, const argus_graph *g);
void argus_role_index_free(argus_role_index *ix);
/* argus_graph_role_peers of IX's graph, the same threads in the same order. */
int argus_role_index_peers(const argus_role_index *ix, const argus_graph *other, uint32_t t,
                           uint32_t *out, int max);
/* The time a segment stops counting as ongoing: resume or end. */
static inline uint64_t argus_seg_until(const argus_graph *g, const argus_seg *s)
{
    if (s->wait_id == UINT64_MAX)
        return s->end;
    return s->resume == UINT64_MAX ? g->t_last : s->resume;
}

/* Moment TS as the report and the evidence print it, in BUF of SIZE
 * bytes (24 are enough): seconds on the trace's own clock, the number its
 * lines carry (ORIGIN added to ts), to the microsecond; without an origin
 * (HAVE_ORIGIN false), seconds of ts (ts 0 is the trace's zero), to the
 * millisecond. */
void argus_moment_text(char *buf, size_t size, uint64_t ts, bool have_origin,
                       uint64_t origin);

/* Keeps R (a record the graph does not model) as the next extra record:
 * the loader does it for every such record it reads, and argus-analyze
 * for the records each stage writes, as the next program would read them. */
void argus_graph_add_extra(argus_graph *g, const argus_record *r);
/* The records a stage writes, kept in order until the stage is done:
 * then they join the graph's extra records, as the next program would
 * read them (a stage does not see its own). argus_findings_collect is the
 * DELIVER of an argus_writer_to. */
typedef struct argus_findings {
    uint8_t *bytes;
    size_t len, cap;
    size_t *ends;
    size_t n, ends_cap;
} argus_findings;
void argus_findings_collect(void *findings, const argus_record *r);
/* The records collected so far join G's extras (and go to KEEP, unless
 * NULL); the collection is emptied. */
void argus_findings_add(argus_findings *f, argus_graph *g, argus_writer *keep);
void argus_findings_free(argus_findings *f);

/* Extra records: parse number I (valid until the next call). */
const argus_record *argus_graph_parse_extra(argus_graph *g, uint32_t i);
bool argus_extra_is(const argus_extra *x, const char *type);

/* SIM-SIG edit distance between two segments' signatures (of graphs A and
 * B), capped: returns CAP+1 when it is more than CAP. */
uint32_t argus_sig_distance(const argus_graph *a, const argus_seg *sa,
                            const argus_graph *b, const argus_seg *sb,
                            uint32_t cap);
/* The same over the first N elements of SA and M of SB. */
uint32_t argus_sig_distance_n(const argus_graph *a, const argus_seg *sa,
                              uint32_t n, const argus_graph *b,
                              const argus_seg *sb, uint32_t m, uint32_t cap);
/* The same over two element arrays: X's N elements and Y's M. */
uint32_t argus_sig_edits(const uint32_t *x, uint32_t n, const uint32_t *y, uint32_t m,
                         uint32_t cap);

/* SIM-MATCH: an index of one graph's segments by thread role and
 * signature size, so finding the nodes similar to one node looks only at
 * the candidates of its role and size window (not every node). */
typedef struct argus_sim_index argus_sim_index;
typedef struct argus_match {
    uint32_t seg;               /* segment index in the indexed graph */
    uint32_t distance;          /* signature edits */
    uint32_t percent;           /* distance * 100 / longer signature */
} argus_match;

argus_sim_index *argus_sim_index_new(const argus_graph *base);
/* argus_sim_index_new of BASE into *(argus_sim_index **)OUT: the hook
 * of argus_graph_load_file_async that builds the index in the loading
 * thread. */
void argus_sim_index_hook(argus_graph *base, void *out);
void argus_sim_index_free(argus_sim_index *ix);
/* Nodes of the indexed graph similar to segment SEG of G, best first
 * (fewest edits, then closest event count, then earliest): up to MAX in
 * OUT; returns how many. A node cut short by the end of its trace (its
 * thread's last segment, not in a wait: a hang that never ended) is
 * compared with the candidates' signatures cut to its own length. */
int argus_sim_find(const argus_sim_index *ix, const argus_graph *g,
                   uint32_t seg, argus_match *out, int max);
/* SIM-KINDS, the second tier, for a node argus_sim_find found nothing
 * for: the candidates of its role with its UI event kind whose element
 * kinds (distinct elements, order and counts left aside) are at least
 * half shared; distance: kinds in one but not the other, percent: of
 * the kinds of both. Best first, up to MAX in OUT; returns how many. */
int argus_sim_find_kinds(const argus_sim_index *ix, const argus_graph *g,
                         uint32_t seg, argus_match *out, int max);
/* Why a node has no match: ARGUS_SIM_NO_PROGRAM (no thread of its
 * process name in the indexed graph), ARGUS_SIM_NO_ROLE (none of its
 * role), or ARGUS_SIM_UNLIKE with the nearest candidate (fewest kinds
 * apart, as SIM-KINDS counts them) in *NEAREST. */
enum { ARGUS_SIM_NO_PROGRAM, ARGUS_SIM_NO_ROLE, ARGUS_SIM_UNLIKE };
int argus_sim_nearest(const argus_sim_index *ix, const argus_graph *g, uint32_t seg,
                      argus_match *nearest);
/* The similar stage: for each hang record of G (or each of the NSEGS
 * segment ids SEGS, which must be G's), up to MAX matches in BASE (IX
 * indexes it), written to OUT as match records naming BASE_NAME. */
void argus_similar_write(argus_graph *g, const uint64_t *segs, size_t nsegs,
                         uint64_t max, const argus_graph *base,
                         const argus_sim_index *ix, const char *base_name,
                         argus_writer *out);
/* similar's --max value (at least 1; else a usage error). */
uint64_t argus_similar_max(const char *arg);

#endif
