/* D-Bus messages in ftrace text (include/argus/decode/ftrace-internal.h,
 * docs/inputs/linux.md): the lines of argus-record's gdbus and libdbus
 * uprobes, paired hop by hop into ipc events across the bus daemon. */
#include "argus/decode/ftrace-internal.h"
#include "argus/stream/cli.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* ---- D-Bus messages (argus-record's gdbus and libdbus probes) ----------- */

/* A D-Bus message goes sender -> bus daemon -> receiver, and is known by
 * (the sender's unique name, its serial): the sender's set_serial gives
 * (process, serial, type), the daemon's set_sender (name, serial, type),
 * its send_preallocated (connection, serial, type) once per recipient,
 * and the receiver's from_blob / first get_reply_serial (serial, type).
 * Serials are small and reused by every connection, so each hop is
 * paired with the oldest pending one of the same (serial, type) that the
 * name <-> process and connection <-> process maps learnt so far allow
 * (tests/live/probes-notes.md 6.4; a process holds one name, and the
 * daemon one connection, per connection it opened: dbus_sender_fits says
 * which process a new name can be). Each hop becomes an ipc send/recv pair
 * with a msg of its own (IPC-MSG); the daemon's forward is joined to its
 * receipt, and the service's reply to the request it received, by
 * IPC-REPLY: every send carries a reply_port naming the next hop, and the
 * send that hop makes (the daemon's forward, the service's reply) goes to
 * that port. */
#define DBUS_PORT_BASE 0xdb50000000000000ull /* the conversation ports we number */


static struct dbus_state *dbus_state(argus_ft *d)
{
    if (!d->dbus)
        d->dbus = argus_xcalloc(1, sizeof *d->dbus, "D-Bus messages in flight");
    return d->dbus;
}

static void dbus_add(struct dbus_state *b, dbus_table *t, dbus_entry e)
{
    dbus_entry *slot = &t->v[t->next];
    t->next = (t->next + 1) % DBUS_PENDING;
    /* a message whose other end never came (the maps and the hints are
     * only forgotten) */
    if (slot->used && (t == &b->sent || t == &b->forwarded || t == &b->requests))
        b->n_dropped++;
    e.used = true;
    *slot = e;
}

typedef bool (*dbus_match)(const dbus_entry *e, const void *want);

/* The oldest entry of T that MATCH accepts, or NULL. */
static dbus_entry *dbus_oldest(dbus_table *t, dbus_match match, const void *want)
{
    for (uint32_t i = 0; i < DBUS_PENDING; i++) {
        dbus_entry *e = &t->v[(t->next + i) % DBUS_PENDING];
        if (e->used && match(e, want))
            return e;
    }
    return NULL;
}

/* The newest entry of T that MATCH accepts, or NULL. */
static dbus_entry *dbus_newest(dbus_table *t, dbus_match match, const void *want)
{
    for (uint32_t i = 1; i <= DBUS_PENDING; i++) {
        dbus_entry *e = &t->v[(t->next + DBUS_PENDING - i) % DBUS_PENDING];
        if (e->used && match(e, want))
            return e;
    }
    return NULL;
}

static bool same_pid_key_type(const dbus_entry *e, const void *want)
{
    const dbus_entry *w = want;
    return e->pid == w->pid && e->key == w->key && e->type == w->type;
}

static bool same_message(const dbus_entry *e, const void *want)
{
    const dbus_entry *w = want;
    return same_pid_key_type(e, want) && e->serial == w->serial;
}

static bool same_pid_key(const dbus_entry *e, const void *want)
{
    const dbus_entry *w = want;
    return e->pid == w->pid && e->key == w->key;
}

static bool same_daemon_key(const dbus_entry *e, const void *want)
{
    const dbus_entry *w = want;
    return e->daemon == w->daemon && e->key == w->key;
}

/* A bus daemon: a process that named a sender or forwarded a message
 * (or was seen doing it by the first pass), by its pid. */
struct dbus_daemon *argus_ft_dbus_daemon(const argus_ft *d, uint64_t pid)
{
    if (!d->dbus)
        return NULL;
    for (uint32_t i = 0; i < d->dbus->n_daemons; i++)
        if (d->dbus->daemons[i].pid == pid)
            return &d->dbus->daemons[i];
    return NULL;
}

struct dbus_daemon *argus_ft_dbus_add_daemon(argus_ft *d, uint64_t pid)
{
    struct dbus_daemon *x = argus_ft_dbus_daemon(d, pid);
    struct dbus_state *b = dbus_state(d);
    if (x || b->n_daemons == DBUS_DAEMONS)
        return x;
    x = &b->daemons[b->n_daemons++];
    x->pid = pid;
    return x;
}

/* Whether T's process relays messages: a known daemon, or one by its name
 * before its first set_sender (its get_reply_serial comes before it). */
static bool dbus_relay(const argus_ft *d, const thread *t)
{
    return argus_ft_dbus_daemon(d, pid_of(t)) || strncmp(t->comm, "dbus-daemon", 11) == 0;
}

/* The D-Bus message types (1..4, as the probes read them), as the
 * specification names them (dbus-monitor prints them with spaces). */
static const char *const dbus_type_names[] = {"method_call", "method_return", "error",
                                              "signal"};

/* One hop of a D-Bus message: besides the pairing (msg, ports, peer), the
 * message's serial, as its sender numbered it (the same at every hop: the
 * daemon forwards it as it is), and its type. */
static void write_dbus_ipc(argus_ft *d, const line_slot *s, thread *t, bool send, uint64_t msg,
                           uint64_t peer, uint64_t port, uint64_t reply_port, uint64_t serial,
                           uint64_t type)
{
    BEGIN(d, s, t, "ipc", 5 + (peer != 0) + (port != 0) + (reply_port != 0));
    PUT_LIT(d->w, "dir");
    if (send)
        PUT_LIT(d->w, "send");
    else
        PUT_LIT(d->w, "recv");
    if (port)
        argus_ft_put_uint_kv(d, "port", port);
    argus_ft_put_uint_kv(d, "msg", msg);
    if (reply_port)
        argus_ft_put_uint_kv(d, "reply_port", reply_port);
    if (peer)
        argus_ft_put_uint_kv(d, "peer", peer);
    PUT_LIT(d->w, "via");
    PUT_LIT(d->w, "dbus");
    argus_ft_put_uint_kv(d, "serial", serial);
    argus_put_key(d->w, "dbus_type");
    argus_put_cstr(d->w, dbus_type_names[type - 1]);
    argus_end_record(d->w);
    d->dbus->n_ipc++;
    d->n_probe_events++;
}

/* The fields every D-Bus line has: msg (a pointer), serial, type. */
static bool dbus_fields(span body, uint64_t *msg, uint64_t *serial, uint64_t *type)
{
    return argus_ft_field_hex(body, "msg", msg) && argus_ft_field_dec(body, "serial", serial) &&
           argus_ft_field_dec(body, "type", type) && *serial != 0 && *type >= 1 && *type <= 4;
}

/* A client's set_serial: the message is sent (GDBus sets it on the
 * calling thread, before its worker writes it). A reply (type 2, error 3)
 * goes to the port of the request it answers: set_reply_serial named it
 * on the same message just before. The sender does not see which bus it
 * writes to, so the send names no peer. */
void argus_ft_map_dbus_set_serial(argus_ft *d, const line_slot *s, thread *cur, span body,
                                  bool libdbus)
{
    uint64_t msg, serial, type, pid = pid_of(cur);
    if (!dbus_fields(body, &msg, &serial, &type) || dbus_relay(d, cur))
        /* the daemon's own: its send_preallocated sends */
        return (void)argus_ft_write_raw(d, s, cur);
    struct dbus_state *b = dbus_state(d);
    if (libdbus)
        dbus_add(b, &b->seen, (dbus_entry){.pid = pid, .key = msg, .serial = serial, .type = type});
    uint64_t port = 0;
    /* the newest: a pointer reused since an older hint (a prebuilt
     * timeout error never sent) has a newer one */
    dbus_entry *hint = type == 2 || type == 3
                           ? dbus_newest(&b->hints, same_pid_key_type,
                                         &(dbus_entry){.pid = pid, .key = msg, .type = type})
                           : NULL;
    if (hint) {
        dbus_entry *req = dbus_oldest(&b->requests, same_pid_key,
                                      &(dbus_entry){.pid = pid, .key = hint->serial});
        hint->used = false;
        if (req) {
            port = req->port;
            req->used = false;
        }
    }
    uint64_t id = d->next_msg++, reply_port = DBUS_PORT_BASE + ++b->next_port;
    write_dbus_ipc(d, s, cur, true, id, 0, port, reply_port, serial, type);
    dbus_add(b, &b->sent,
             (dbus_entry){.pid = pid, .key = serial, .type = type, .msg = id, .port = reply_port});
}

/* set_reply_serial: the reply being built answers reply_serial. Only a
 * hint: libdbus also builds the timeout error of every call it sends, and
 * never sends it; it counts when the same message is then sent. */
void argus_ft_map_dbus_set_reply_serial(argus_ft *d, const line_slot *s, thread *cur, span body)
{
    uint64_t msg, reply_serial, type = 0;
    if (!argus_ft_field_hex(body, "msg", &msg) ||
        !argus_ft_field_dec(body, "reply_serial", &reply_serial) ||
        !argus_ft_field_dec(body, "type", &type) || dbus_relay(d, cur))
        return (void)argus_ft_write_raw(d, s, cur);
    struct dbus_state *b = dbus_state(d);
    dbus_add(b, &b->hints,
             (dbus_entry){.pid = pid_of(cur), .key = msg, .serial = reply_serial, .type = type});
    b->n_folded++;
}

struct dbus_sender_want {
    uint64_t serial, type, daemon, name; /* name: its hash, 0 for a Hello */
    const dbus_table *names;
};

/* A pending send of (serial, type) that a message stamped with a name the
 * map does not know yet can be. A Hello (NAME 0, stamped
 * ":not.active.yet") opens a new connection: any process may send one,
 * named on this bus or not (a second connection of one program: libdbus
 * and GDBus in it, or one library twice), and its second stamp gives that
 * process one more name. Another message with a new unique name: a
 * process with no other unique name on this bus (one that has a name would
 * have been stamped with it, unless the trace lacks the Hello of its
 * second connection: then it is not paired). Every name of the process
 * counts, whichever slot of the map holds it. */
static bool dbus_sender_fits(const dbus_entry *e, const void *want)
{
    const struct dbus_sender_want *w = want;
    if (e->key != w->serial || e->type != w->type)
        return false;
    if (!w->name)
        return true;
    for (uint32_t i = 0; i < DBUS_PENDING; i++) {
        const dbus_entry *n = &w->names->v[i];
        if (n->used && n->daemon == w->daemon && n->pid == e->pid && n->key != w->name)
            return false;
    }
    return true;
}

static void dbus_learn(struct dbus_state *b, dbus_table *t, uint64_t daemon, uint64_t key,
                       uint64_t pid)
{
    dbus_entry *known = dbus_oldest(t, same_daemon_key, &(dbus_entry){.daemon = daemon, .key = key});
    if (known)
        known->pid = pid;
    else
        dbus_add(b, t, (dbus_entry){.daemon = daemon, .key = key, .pid = pid});
}

/* The daemon's set_sender: it received a message and stamps its sender's
 * unique name. Its own messages (replies to the bus's methods, signals)
 * have sender org.freedesktop.DBus; a new connection's Hello is stamped
 * twice (":not.active.yet", then its name). */
void argus_ft_map_dbus_set_sender(argus_ft *d, const line_slot *s, thread *cur, span body)
{
    uint64_t msg, serial, type;
    span sender;
    uint64_t daemon_pid = pid_of(cur);
    struct dbus_daemon *x = argus_ft_dbus_add_daemon(d, daemon_pid);
    if (!dbus_fields(body, &msg, &serial, &type) || !argus_ft_field(body, "sender", &sender) || !x)
        return (void)argus_ft_write_raw(d, s, cur);
    if (sender.n >= 2 && sender.p[0] == '"' && sender.p[sender.n - 1] == '"')
        sender = (span){sender.p + 1, sender.n - 2};
    struct dbus_state *b = d->dbus;
    bool unique = sender.n >= 2 && sender.p[0] == ':' && is_digit(sender.p[1]);
    uint64_t name = unique ? XXH3_64bits_withSeed(sender.p, sender.n, daemon_pid) | 1 : 0;
    if (x->hello && x->msg == msg && x->serial == serial && x->type == type) {
        /* the same message stamped again: its sender's name at last */
        if (unique && x->sender)
            dbus_learn(b, &b->names, daemon_pid, name, x->sender);
        x->hello = false;
        b->n_folded++;
        return;
    }
    if (!unique && !(sender.n == 15 && memcmp(sender.p, ":not.active.yet", 15) == 0))
        return (void)argus_ft_write_raw(d, s, cur); /* the daemon's own message */
    dbus_entry *from = NULL;
    const dbus_entry *known =
        unique ? dbus_oldest(&b->names, same_daemon_key,
                             &(dbus_entry){.daemon = daemon_pid, .key = name})
               : NULL;
    if (known)
        from = dbus_oldest(&b->sent, same_pid_key_type,
                           &(dbus_entry){.pid = known->pid, .key = serial, .type = type});
    else
        from = dbus_oldest(&b->sent, dbus_sender_fits,
                           &(struct dbus_sender_want){serial, type, daemon_pid, name, &b->names});
    *x = (struct dbus_daemon){.pid = daemon_pid, .msg = msg, .serial = serial, .type = type,
                              .hello = !unique};
    if (!from) {
        b->n_unmatched++;
        return (void)argus_ft_write_raw(d, s, cur);
    }
    if (unique)
        dbus_learn(b, &b->names, daemon_pid, name, from->pid);
    x->sender = from->pid;
    x->act_port = from->port;
    from->used = false;
    write_dbus_ipc(d, s, cur, false, from->msg, from->pid, 0, 0, serial, type);
}

/* The daemon's send_preallocated: it sends a message to the connection
 * conn, once per recipient. It acts on the message it received last (a
 * forward, or its own answer to a call to the bus): the send goes to that
 * message's reply_port. A method call's receiver will answer it: a port
 * for that. */
void argus_ft_map_dbus_send_prealloc(argus_ft *d, const line_slot *s, thread *cur, span body)
{
    uint64_t msg, serial, type, conn;
    uint64_t daemon_pid = pid_of(cur);
    struct dbus_daemon *x = argus_ft_dbus_add_daemon(d, daemon_pid);
    if (!dbus_fields(body, &msg, &serial, &type) || !argus_ft_field_hex(body, "conn", &conn) || !x)
        return (void)argus_ft_write_raw(d, s, cur);
    struct dbus_state *b = d->dbus;
    const dbus_entry *to =
        dbus_oldest(&b->conns, same_daemon_key, &(dbus_entry){.daemon = daemon_pid, .key = conn});
    uint64_t id = d->next_msg++, reply_port = type == 1 ? DBUS_PORT_BASE + ++b->next_port : 0;
    write_dbus_ipc(d, s, cur, true, id, to ? to->pid : 0, x->act_port, reply_port, serial,
                   type);
    dbus_add(b, &b->forwarded,
             (dbus_entry){.daemon = daemon_pid, .conn = conn, .key = serial, .type = type,
                          .msg = id, .port = reply_port});
}

struct dbus_receiver_want {
    uint64_t serial, type, pid;
    const dbus_table *conns;
};

/* A forward of (serial, type) to a connection that is the receiver's, or
 * not known to be another process's (a process may have several
 * connections: each is its own entry). Every entry of the connection
 * counts, whichever slot holds it (dbus_learn keeps one). */
static bool dbus_receiver_fits(const dbus_entry *e, const void *want)
{
    const struct dbus_receiver_want *w = want;
    if (e->key != w->serial || e->type != w->type)
        return false;
    for (uint32_t i = 0; i < DBUS_PENDING; i++) {
        const dbus_entry *c = &w->conns->v[i];
        if (c->used && c->daemon == e->daemon && c->key == e->conn && c->pid != w->pid)
            return false;
    }
    return true;
}

/* A client receives a message: GDBus's new_from_blob (once a message, on
 * its worker thread), libdbus's first get_reply_serial of it (the daemon's
 * own are its receipts before set_sender: left out). */
void argus_ft_map_dbus_recv(argus_ft *d, const line_slot *s, thread *cur, span body, bool libdbus)
{
    uint64_t msg, serial, type, pid = pid_of(cur);
    if (libdbus && dbus_relay(d, cur)) {
        dbus_state(d)->n_folded++;
        return;
    }
    if (!dbus_fields(body, &msg, &serial, &type))
        return (void)argus_ft_write_raw(d, s, cur);
    struct dbus_state *b = dbus_state(d);
    if (libdbus) {
        dbus_entry want = {.pid = pid, .key = msg, .serial = serial, .type = type};
        if (dbus_oldest(&b->seen, same_message, &want)) {
            b->n_folded++;
            return;
        }
        dbus_add(b, &b->seen, want);
    }
    dbus_entry *from = dbus_oldest(&b->forwarded, dbus_receiver_fits,
                                   &(struct dbus_receiver_want){serial, type, pid, &b->conns});
    if (!from) {
        b->n_unmatched++;
        return (void)argus_ft_write_raw(d, s, cur);
    }
    dbus_learn(b, &b->conns, from->daemon, from->conn, pid);
    from->used = false;
    write_dbus_ipc(d, s, cur, false, from->msg, from->daemon, 0, 0, serial, type);
    if (type == 1 && from->port)
        dbus_add(b, &b->requests, (dbus_entry){.pid = pid, .key = serial, .port = from->port});
}
