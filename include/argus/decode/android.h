/* Android's semantics in ftrace text (lib/decode/android.c): binder
 * transactions as ipc messages paired request -> reply, the atrace marks
 * of a main thread's Looper as run-loop phases, and deliverInputEvent as
 * the app's input. The ftrace decoder parses the lines and writes the
 * records (lib/decode/ftrace-android.c); this file keeps the state that
 * pairs them (the transactions in flight, each thread's slices open) and
 * says what each line means. docs/inputs/android.md has the mapping. */
#ifndef ARGUS_ANDROID_H
#define ARGUS_ANDROID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct argus_android argus_android;

/* The numbers the stream gives binder's messages: a transaction's `msg`
 * is MSG_BASE | its number, a call's reply port PORT_BASE | the call's
 * number (the resource of its caller's `binder` wait). */
#define ARGUS_BINDER_MSG_BASE  0xb1d0000000000000ull
#define ARGUS_BINDER_PORT_BASE 0xb1d1000000000000ull
/* Whether PORT is a call's reply port; *txn: the call's number. */
static inline bool argus_binder_call_of(uint64_t port, uint64_t *txn)
{
    *txn = port & 0xffffffffu;
    return (port & ~0xffffffffull) == ARGUS_BINDER_PORT_BASE;
}

argus_android *argus_android_new(void);
void argus_android_free(argus_android *a);

/* A binder_transaction line's fields (include/trace/events/binder.h). */
typedef struct argus_binder_txn {
    uint64_t id;           /* transaction= (the kernel's debug_id) */
    uint64_t dest_proc;    /* dest_proc= */
    uint64_t dest_thread;  /* dest_thread= (a reply: the caller's thread) */
    uint64_t flags, code;
    bool reply;            /* reply=1 */
} argus_binder_txn;

/* The ipc event a binder line is: a send (binder_transaction) or a recv
 * (binder_transaction_received). Zero fields are left out. */
typedef struct argus_binder_ipc {
    bool send;
    uint64_t msg;          /* the transaction, numbered for the stream */
    uint64_t port;         /* a reply: the reply port of the call it answers */
    uint64_t reply_port;   /* a synchronous call: where its reply goes */
    uint64_t peer;         /* the other side's process, when known */
    uint64_t code;         /* a call's code (the method) */
    bool oneway;           /* flags & TF_ONE_WAY: no reply, no wait */
    bool reply;            /* the reply of a call */
    uint64_t peer_tid;     /* recv: the thread that sent it (0: unknown) */
    uint64_t self_pid;     /* recv: the receiver's process, as the send named it */
} argus_binder_ipc;

/* binder_transaction by thread TID of process PID. */
void argus_android_binder_send(argus_android *a, uint64_t tid, uint64_t pid,
                               const argus_binder_txn *t, argus_binder_ipc *out);
/* binder_transaction_received of transaction ID by thread TID. */
void argus_android_binder_recv(argus_android *a, uint64_t tid, uint64_t id,
                               argus_binder_ipc *out);
/* Whether TID waits for the reply of a synchronous call it made: its
 * sleep is that wait, on the call's reply port (*port). */
bool argus_android_binder_waiting(const argus_android *a, uint64_t tid, uint64_t *port);

/* An atrace mark (tracing_mark_write's or print's text: "B|pid|name",
 * "E|pid", "E", "C|pid|name|value", ...) in Looper terms. */
typedef struct argus_android_mark {
    int loop;              /* +1: the Looper leaves its wait for a message
                            * (an outermost slice of a main thread begins);
                            * -1: back to its wait (that slice ends); 0 */
    bool input;            /* deliverInputEvent begins: the app's input */
    const char *name;      /* loop > 0: the slice's name (in the text) */
    size_t name_len;
    uint64_t pid;          /* B|pid|...: the thread's process (0: none) */
} argus_android_mark;

/* Mark TEXT of thread TID: false when the text is no atrace mark. */
bool argus_android_mark_parse(argus_android *a, uint64_t tid, const char *text, size_t n,
                              argus_android_mark *out);

/* Counts for -v. */
typedef struct argus_android_counts {
    uint64_t binder_sends, binder_recvs, binder_unknown_recvs, binder_dropped;
    uint64_t loop_messages, inputs;
} argus_android_counts;
const argus_android_counts *argus_android_counts_of(const argus_android *a);

#endif
