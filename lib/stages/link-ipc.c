/* link-ipc: links each IPC receive to its send, and each request's
 * receive to the send of its reply (docs/stages/link-ipc.md; the command
 * line is filters/link-ipc.c). */
#include "argus/stages/builtin.h"
#include "argus/stream/cli.h"

#include <stdlib.h>
#include <string.h>

/* Counter names, each counted first (at 0) in this order so that -v
 * always prints the same lines. */
static const char C_IPC[] = "ipc edges";
static const char C_REPLY[] = "reply edges";
static const char C_RECV_ALONE[] = "recvs without send";
static const char C_INCOMPLETE[] = "ipc events without dir, or without both port and msg";
static const char C_SENDS_DROPPED[] = "pending sends dropped";
static const char C_REPLIES_DROPPED[] = "pending replies dropped";
static const char C_SENDS_FREED[] = "pending sends whose msg was freed";
static const char C_SENDS_REUSED[] = "pending sends whose msg was reused";
static const char C_SENDS_LEFT[] = "sends left unmatched";
static const char C_REPLIES_LEFT[] = "requests left without reply";

/* A pending send's process and peer, packed into one fifo word: bits 0-31
 * peer + 1, bits 32-61 pid + 1 (0: unknown; a pid that does not fit is
 * taken as unknown, so it filters nothing), bit 62: the send carries no
 * port (it matches by msg alone), bit 63: the send carries msg. */
#define HAS_MSG (UINT64_C(1) << 63)
#define PORTLESS (UINT64_C(1) << 62)
#define PEER_BITS UINT64_C(0xffffffff)
#define PID_BITS UINT64_C(0x3fffffff)

static uint64_t pid_code(uint64_t pid, bool known, uint64_t bits)
{
    return known && pid < bits ? pid + 1 : 0;
}

static uint64_t pack_send(uint64_t pid, uint64_t peer, bool has_peer,
                          bool has_msg, bool no_port)
{
    return pid_code(peer, has_peer, PEER_BITS) |
           pid_code(pid, true, PID_BITS) << 32 | (has_msg ? HAS_MSG : 0) |
           (no_port ? PORTLESS : 0);
}

/* What a receive asks of a candidate send. */
typedef struct recv_want {
    uint64_t pid_code, peer_code;   /* as packed above, 0: unknown */
    bool without_msg;               /* only a send that carries no msg */
} recv_want;

static bool send_fits(const argus_fifo_item *send, void *ctx)
{
    const recv_want *w = ctx;
    if (w->without_msg && (send->aux2 & HAS_MSG))
        return false;
    uint64_t send_peer = send->aux2 & PEER_BITS;
    uint64_t send_pid = send->aux2 >> 32 & PID_BITS;
    /* message buffers are reused: the same msg address can come back for
     * an unrelated message, so a named peer must agree */
    if (send_peer && w->pid_code && send_peer != w->pid_code)
        return false;
    if (w->peer_code && send_pid && w->peer_code != send_pid)
        return false;
    return true;
}

static bool same_id(const argus_fifo_item *item, void *ctx)
{
    return item->id == *(const uint64_t *)ctx;
}

static bool portless(const argus_fifo_item *send, void *ctx)
{
    (void)ctx;
    return send->aux2 & PORTLESS;
}

typedef struct linker {
    argus_writer *out;         /* of the record being handled */
    bool msg_match, reply;
    /* Every pending send, by port: aux = msg, aux2 = packed pids. */
    argus_fifo *by_port;
    /* Pending sends that carry msg, by msg: aux = handle in by_port. */
    argus_fifo *by_msg;
    /* Pending sends that carry reply_port, by send id: aux = reply port. */
    argus_fifo *requests;
    /* Requests received, waiting for their reply, by reply port: id =
     * the request's recv. */
    argus_fifo *replies;
} linker;

/* The port of sends and receives that name none (stock macOS kdebug
 * records carry the message, not the port): they match by msg only. */
#define NO_PORT UINT64_MAX

/* IPC-FREE, IPC-REUSE: drops the pending sends without a port that carry
 * MSG (the kernel message buffer): it was freed, so they are never
 * received. Each is counted under COUNTER. */
static void retire_portless(linker *k, uint64_t msg, const char *counter)
{
    argus_fifo_item send;
    while (argus_fifo_take(k->by_msg, msg, portless, NULL, &send)) {
        /* a send dropped from by_port leaves a stale entry here */
        if (!argus_fifo_remove(k->by_port, send.aux, NULL))
            continue;
        argus_fifo_item ignored;
        argus_fifo_take(k->requests, send.id, NULL, NULL, &ignored);
        argus_count(counter, 1);
    }
}

static void on_send(linker *k, const argus_record *r, uint64_t port)
{
    uint64_t msg = 0, peer = 0, reply_port = 0;
    bool has_msg = argus_get_uint(r, ARGUS_K_MSG, &msg);
    bool has_peer = argus_get_uint(r, ARGUS_K_PEER, &peer);
    bool has_reply_port = argus_get_uint(r, ARGUS_K_REPLY_PORT, &reply_port);

    argus_write_record(k->out, r);
    argus_fifo_item request;
    if (k->reply && argus_fifo_take(k->replies, port, NULL, NULL, &request)) {
        argus_put_edge(k->out, "reply", request.id, r->id, false);
        argus_count(C_REPLY, 1);
    }

    /* IPC-REUSE: a buffer is in one message at a time */
    bool no_port = port == NO_PORT;
    if (no_port)
        retire_portless(k, msg, C_SENDS_REUSED);
    uint64_t packed = pack_send(r->pid, peer, has_peer, has_msg, no_port);
    uint64_t handle = argus_fifo_push(k->by_port, port, r->id, msg, packed);
    if (k->msg_match && has_msg)
        argus_fifo_push(k->by_msg, msg, r->id, handle, packed);
    if (k->reply && has_reply_port)
        argus_fifo_push(k->requests, r->id, r->id, reply_port, 0);
}

/* The send of a receive, taken out of the pending tables. */
static bool match_recv(linker *k, const argus_record *r, uint64_t port,
                       uint64_t *send_id)
{
    uint64_t msg = 0, peer = 0;
    bool has_msg = argus_get_uint(r, ARGUS_K_MSG, &msg);
    bool has_peer = argus_get_uint(r, ARGUS_K_PEER, &peer);
    recv_want want = {
        .pid_code = pid_code(r->pid, true, PEER_BITS),
        .peer_code = pid_code(peer, has_peer, PID_BITS),
    };
    argus_fifo_item send;
    if (k->msg_match && has_msg) {
        while (argus_fifo_take(k->by_msg, msg, send_fits, &want, &send)) {
            /* a send dropped from by_port leaves a stale entry here */
            if (argus_fifo_remove(k->by_port, send.aux, NULL)) {
                *send_id = send.id;
                return true;
            }
        }
        /* a send with another msg is another message */
        want.without_msg = true;
    }
    if (port == NO_PORT || !argus_fifo_take(k->by_port, port, send_fits, &want, &send))
        return false;
    if (k->msg_match && (send.aux2 & HAS_MSG)) {
        argus_fifo_item ignored;
        argus_fifo_take(k->by_msg, send.aux, same_id, &send.id, &ignored);
    }
    *send_id = send.id;
    return true;
}

static void on_recv(linker *k, const argus_record *r, uint64_t port)
{
    uint64_t send_id;
    bool matched = match_recv(k, r, port, &send_id);
    argus_write_record(k->out, r);
    if (!matched) {
        argus_count(C_RECV_ALONE, 1);
        return;
    }
    argus_put_edge(k->out, "ipc", send_id, r->id, false);
    argus_count(C_IPC, 1);
    argus_fifo_item request;
    if (k->reply && argus_fifo_take(k->requests, send_id, NULL, NULL, &request))
        argus_fifo_push(k->replies, request.aux, r->id, 0, 0);
}

static void *link_ipc_start(const void *options, const argus_options *common)
{
    static const argus_link_ipc_options defaults = ARGUS_LINK_IPC_DEFAULTS;
    const argus_link_ipc_options *o = options ? options : &defaults;
    linker *k = argus_xcalloc(1, sizeof *k, "linker");
    k->msg_match = o->msg_match;
    k->reply = o->reply;
    const char *order[] = {C_IPC, C_REPLY, C_RECV_ALONE, C_INCOMPLETE,
                           C_SENDS_DROPPED, C_REPLIES_DROPPED, C_SENDS_FREED,
                           C_SENDS_REUSED};
    for (size_t i = 0; i < sizeof order / sizeof *order; i++)
        argus_count(order[i], 0);
    k->by_port = argus_fifo_new(common->max_pending, C_SENDS_DROPPED);
    /* by_msg and requests hold what by_port holds (or less), so their
     * drops are the sends already counted there */
    k->by_msg = argus_fifo_new(common->max_pending, NULL);
    k->requests = argus_fifo_new(common->max_pending, NULL);
    k->replies = argus_fifo_new(common->max_pending, C_REPLIES_DROPPED);
    return k;
}

static void link_ipc_record(void *self, const argus_record *r, argus_writer *out)
{
    linker *k = self;
    k->out = out;
    if (r->type != ARGUS_T_IPC) {
        argus_write_record(out, r);
        /* IPC-FREE: the kernel freed the message buffer msg (the kdebug
         * decoder's ipc_free, MACH_IPC_kmsg_free) */
        uint64_t msg;
        if (r->type == ARGUS_T_OTHER && k->msg_match && r->type_len == 8 &&
            memcmp(r->type_name, "ipc_free", 8) == 0 &&
            argus_get_uint(r, ARGUS_K_MSG, &msg))
            retire_portless(k, msg, C_SENDS_FREED);
        return;
    }
    uint64_t port;
    size_t dir_len = 0;
    const char *dir = argus_get_text(r, ARGUS_K_DIR, &dir_len);
    bool has_port = argus_get_uint(r, ARGUS_K_PORT, &port);
    uint64_t msg;
    if (!has_port && k->msg_match && argus_get_uint(r, ARGUS_K_MSG, &msg)) {
        port = NO_PORT;
        has_port = true;
    }
    if (has_port && dir && dir_len == 4 && memcmp(dir, "send", 4) == 0) {
        on_send(k, r, port);
    } else if (has_port && dir && dir_len == 4 && memcmp(dir, "recv", 4) == 0) {
        on_recv(k, r, port);
    } else {
        argus_count(C_INCOMPLETE, 1);
        argus_write_record(out, r);
    }
}

static void link_ipc_discard(void *self)
{
    linker *k = self;
    argus_fifo_free(k->by_port);
    argus_fifo_free(k->by_msg);
    argus_fifo_free(k->requests);
    argus_fifo_free(k->replies);
    free(k);
}

static void link_ipc_finish(void *self, argus_writer *out)
{
    linker *k = self;
    (void)out;
    argus_count(C_SENDS_LEFT, argus_fifo_pending(k->by_port));
    argus_count(C_REPLIES_LEFT, argus_fifo_pending(k->replies));
    link_ipc_discard(k);
}

const argus_stage_def argus_link_ipc_stage = {
    "link-ipc", link_ipc_start, link_ipc_record, link_ipc_finish, link_ipc_discard,
};
