/* Android's semantics in ftrace text (include/argus/decode/android.h).
 *
 * Binder: a call is a binder_transaction (reply=0) of the caller's thread,
 * received by a thread of the server (binder_transaction_received), which
 * answers it with a binder_transaction of its own (reply=1) that the
 * caller receives. The kernel numbers every transaction (debug_id) and
 * prints no link between a call and its reply; but a reply is always sent
 * by the thread that received the call (it answers the top of its
 * transaction stack), so each thread's calls received and not yet
 * answered give the pairing. Each transaction becomes one ipc send/recv
 * pair with a msg of its own (IPC-MSG); a synchronous call carries a
 * reply_port and its reply is sent to that port, so that link-ipc's
 * IPC-REPLY joins the server's receipt of the call to its reply, as for
 * D-Bus. A one-way call (TF_ONE_WAY) has no reply port: a send only.
 *
 * atrace: the outermost slice of a main thread (tid == pid) is one message
 * of its Looper (a Handler's message, Choreographer#doFrame, an input
 * event's native callback): the loop leaves its wait when it begins and
 * is back at it when it ends. deliverInputEvent is the app's input. */
#include "argus/decode/android.h"

#include "argus/stream/cli.h"
#include "argus/stream/table.h"

#include <stdlib.h>
#include <string.h>

#define BINDER_MSG_BASE ARGUS_BINDER_MSG_BASE
#define BINDER_PORT_BASE ARGUS_BINDER_PORT_BASE
#define BINDER_PENDING_MAX 65536  /* transactions in flight remembered */
#define TF_ONE_WAY 0x1
#define STACK_MAX 8               /* nested calls kept per thread */

/* A transaction sent, not yet received. */
struct pending {
    uint64_t sender_pid, sender_tid;
    uint64_t dest_pid;
    bool sync_call;        /* a call that waits for its reply */
    bool reply;
};

/* What a thread is in the middle of. */
struct android_thread {
    uint32_t depth;                /* atrace slices open (B not yet E) */
    bool loop_open;                /* its outermost slice is a Looper message */
    uint32_t n_answering;          /* calls received, reply not yet sent */
    uint64_t answering[STACK_MAX]; /* ... their ids, innermost last */
    uint32_t n_awaiting;           /* its own synchronous calls not yet answered */
    uint64_t awaiting[STACK_MAX];  /* ... their ids, innermost last */
};

struct argus_android {
    argus_table pending;   /* transaction id -> struct pending */
    argus_table threads;   /* tid -> struct android_thread */
    argus_android_counts n;
};

argus_android *argus_android_new(void)
{
    argus_android *a = argus_xcalloc(1, sizeof *a, "Android reader");
    argus_table_init(&a->pending, sizeof(struct pending));
    argus_table_init(&a->threads, sizeof(struct android_thread));
    return a;
}

void argus_android_free(argus_android *a)
{
    if (!a)
        return;
    argus_table_free(&a->pending);
    argus_table_free(&a->threads);
    free(a);
}

const argus_android_counts *argus_android_counts_of(const argus_android *a)
{
    return &a->n;
}

static struct android_thread *thread_of(argus_android *a, uint64_t tid)
{
    bool created;
    return argus_table_put(&a->threads, tid, &created);
}

/* Pushes ID on a stack of STACK_MAX; a deeper one drops the oldest. */
static void push(uint64_t *stack, uint32_t *n, uint64_t id)
{
    if (*n == STACK_MAX) {
        memmove(stack, stack + 1, (STACK_MAX - 1) * sizeof *stack);
        (*n)--;
    }
    stack[(*n)++] = id;
}

void argus_android_binder_send(argus_android *a, uint64_t tid, uint64_t pid,
                               const argus_binder_txn *t, argus_binder_ipc *out)
{
    memset(out, 0, sizeof *out);
    out->send = true;
    out->msg = BINDER_MSG_BASE | (t->id & 0xffffffffu);
    out->peer = t->dest_proc;
    struct android_thread *th = thread_of(a, tid);
    bool sync_call = false;
    if (t->reply) {
        /* it answers the call this thread received last */
        out->reply = true;
        if (th->n_answering > 0)
            out->port = BINDER_PORT_BASE | th->answering[--th->n_answering];
    } else {
        out->code = t->code;
        out->oneway = (t->flags & TF_ONE_WAY) != 0;
        if (!out->oneway) {
            sync_call = true;
            out->reply_port = BINDER_PORT_BASE | (t->id & 0xffffffffu);
            push(th->awaiting, &th->n_awaiting, t->id & 0xffffffffu);
        }
    }
    a->n.binder_sends++;
    if (a->pending.count >= BINDER_PENDING_MAX) { /* a trace that lost its receipts */
        a->n.binder_dropped++;
        return;
    }
    bool created;
    struct pending *p = argus_table_put(&a->pending, t->id & 0xffffffffu, &created);
    *p = (struct pending){.sender_pid = pid, .sender_tid = tid, .dest_pid = t->dest_proc,
                          .sync_call = sync_call, .reply = t->reply};
}

void argus_android_binder_recv(argus_android *a, uint64_t tid, uint64_t id,
                               argus_binder_ipc *out)
{
    memset(out, 0, sizeof *out);
    id &= 0xffffffffu;
    out->msg = BINDER_MSG_BASE | id;
    a->n.binder_recvs++;
    struct pending *p = argus_table_get(&a->pending, id);
    if (!p) { /* sent before the trace began (or not remembered) */
        a->n.binder_unknown_recvs++;
        return;
    }
    struct pending got = *p;
    argus_table_remove(&a->pending, id);
    out->peer = got.sender_pid;
    out->peer_tid = got.sender_tid;
    out->self_pid = got.dest_pid;
    out->reply = got.reply;
    struct android_thread *th = thread_of(a, tid);
    if (got.sync_call) {
        push(th->answering, &th->n_answering, id);
    } else if (got.reply) {
        /* the caller has its answer: the call it awaited is over (the
         * innermost: binder answers calls in order) */
        if (th->n_awaiting > 0)
            th->n_awaiting--;
    }
}

bool argus_android_binder_waiting(const argus_android *a, uint64_t tid, uint64_t *port)
{
    const struct android_thread *th = argus_table_get(&a->threads, tid);
    if (!th || th->n_awaiting == 0)
        return false;
    *port = BINDER_PORT_BASE | th->awaiting[th->n_awaiting - 1];
    return true;
}

/* The decimal number at *P (before END); *P moves past it. */
static bool number(const char **p, const char *end, uint64_t *v)
{
    const char *q = *p;
    uint64_t x = 0;
    while (q < end && *q >= '0' && *q <= '9' && q - *p < 10)
        x = x * 10 + (uint64_t)(*q++ - '0');
    if (q == *p)
        return false;
    *v = x;
    *p = q;
    return true;
}

/* "B|...", "E|...", "E", "C|...", "S|...", "F|...": an atrace mark. */
static bool is_mark(const char *p, size_t n)
{
    return n >= 1 && *p && strchr("BECSF", *p) && (n == 1 || p[1] == '|');
}

bool argus_android_mark_parse(argus_android *a, uint64_t tid, const char *text, size_t n,
                              argus_android_mark *out)
{
    memset(out, 0, sizeof *out);
    const char *p = text, *end = text + n;
    /* print's text may lead with the writer's symbol ("tracing_mark_write: ") */
    if (!is_mark(p, n)) {
        const char *colon = memchr(p, ':', n);
        if (!colon || colon + 2 > end || colon[1] != ' ')
            return false;
        p = colon + 2;
        n = (size_t)(end - p);
        if (!is_mark(p, n))
            return false;
    }
    char op = *p;
    p += n >= 2 ? 2 : 1;
    uint64_t pid = 0;
    bool have_pid = number(&p, end, &pid) && pid > 0;
    if (have_pid)
        out->pid = pid;
    struct android_thread *th = thread_of(a, tid);
    if (op == 'B') {
        const char *name = p < end && *p == '|' ? p + 1 : end;
        bool main = have_pid && pid == tid;
        if (main && th->depth == 0) {
            out->loop = 1;
            out->name = name;
            out->name_len = (size_t)(end - name);
            th->loop_open = true;
            a->n.loop_messages++;
        }
        if (th->depth < UINT32_MAX)
            th->depth++;
        static const char input[] = "deliverInputEvent";
        size_t len = (size_t)(end - name);
        if (main && len >= sizeof input - 1 && memcmp(name, input, sizeof input - 1) == 0 &&
            (len == sizeof input - 1 || name[sizeof input - 1] == ' ')) {
            out->input = true;
            a->n.inputs++;
        }
    } else if (op == 'E') {
        if (th->depth > 0 && --th->depth == 0 && th->loop_open) {
            out->loop = -1;
            th->loop_open = false;
            /* a call made in the message is over with it, though the
             * trace lost its reply */
            th->n_awaiting = 0;
        }
    }
    return true;
}
