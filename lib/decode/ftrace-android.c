/* Android's events in ftrace text (include/argus/decode/ftrace-internal.h,
 * docs/inputs/android.md): binder transactions and atrace marks written as
 * records; lib/decode/android.c keeps the state that pairs them and says
 * what each mark means. */
#include "argus/decode/ftrace-internal.h"
#include "argus/decode/android.h"

#include <stdint.h>

/* ---- Android: binder and atrace (lib/decode/android.c) ------------------- */

static argus_android *android_state(argus_ft *d)
{
    if (!d->android)
        d->android = argus_android_new();
    return d->android;
}

/* binder_transaction (SEND) and binder_transaction_received -> an ipc
 * event via binder (docs/inputs/android.md). */
void argus_ft_map_binder(argus_ft *d, const line_slot *s, thread *cur, span body, bool send)
{
    argus_binder_txn t = {0};
    argus_binder_ipc m;
    uint64_t reply = 0;
    if (!argus_ft_field_dec(body, "transaction", &t.id))
        return argus_ft_write_raw(d, s, cur);
    if (send) {
        if (!argus_ft_field_dec(body, "dest_proc", &t.dest_proc) ||
            !argus_ft_field_dec(body, "reply", &reply) ||
            !argus_ft_field_hex(body, "flags", &t.flags))
            return argus_ft_write_raw(d, s, cur);
        argus_ft_field_dec(body, "dest_thread", &t.dest_thread);
        argus_ft_field_hex(body, "code", &t.code);
        t.reply = reply != 0;
        argus_android_binder_send(android_state(d), cur->tid, pid_of(cur), &t, &m);
        /* a reply goes to the caller's thread: its process is told */
        if (t.reply && t.dest_thread && t.dest_proc && t.dest_proc <= INT32_MAX) {
            thread *caller = argus_ft_get_thread(d, t.dest_thread);
            if (caller->tgid < 0)
                argus_ft_set_tgid(caller, (int64_t)t.dest_proc);
        }
    } else {
        argus_android_binder_recv(android_state(d), cur->tid, t.id, &m);
        if (m.self_pid && m.self_pid <= INT32_MAX && cur->tgid < 0)
            argus_ft_set_tgid(cur, (int64_t)m.self_pid);
    }
    BEGIN(d, s, cur, "ipc", 3 + (m.port != 0) + (m.reply_port != 0) + (m.peer != 0) +
                                (m.code != 0 || (m.send && !m.reply)) + m.oneway + m.reply);
    PUT_LIT(d->w, "dir");
    if (m.send)
        PUT_LIT(d->w, "send");
    else
        PUT_LIT(d->w, "recv");
    if (m.port)
        argus_ft_put_uint_kv(d, "port", m.port);
    argus_ft_put_uint_kv(d, "msg", m.msg);
    if (m.reply_port)
        argus_ft_put_uint_kv(d, "reply_port", m.reply_port);
    if (m.peer)
        argus_ft_put_uint_kv(d, "peer", m.peer);
    PUT_LIT(d->w, "via");
    PUT_LIT(d->w, "binder");
    if (m.code != 0 || (m.send && !m.reply))
        argus_ft_put_uint_kv(d, "code", m.code);
    if (m.oneway) {
        PUT_LIT(d->w, "oneway");
        argus_put_bool(d->w, true);
    }
    if (m.reply) {
        PUT_LIT(d->w, "reply");
        argus_put_bool(d->w, true);
    }
    argus_end_record(d->w);
}

/* An atrace mark (tracing_mark_write, print): a main thread's outermost
 * slice is a message of its Looper (runloop_phase after_waiting and
 * runloop_invoke begin, then end and before_waiting), deliverInputEvent
 * the app's input (ui_event `input`); every other mark stays an ftrace
 * event with its text. */
void argus_ft_map_mark(argus_ft *d, const line_slot *s, thread *cur, span body)
{
    argus_android_mark m;
    if (!argus_android_mark_parse(android_state(d), cur->tid, body.p, body.n, &m))
        return argus_ft_write_raw(d, s, cur);
    /* atrace writes the process's pid: the thread's, when no column told it */
    if (m.pid && m.pid <= INT32_MAX && cur->tgid < 0)
        argus_ft_set_tgid(cur, (int64_t)m.pid);
    if (m.loop == 0 && !m.input)
        return argus_ft_write_raw(d, s, cur);
    if (m.loop > 0) {
        BEGIN(d, s, cur, "runloop_phase", 1);
        PUT_LIT(d->w, "stage");
        PUT_LIT(d->w, "after_waiting");
        argus_end_record(d->w);
        BEGIN(d, s, cur, "runloop_invoke", 3);
        argus_ft_put_phase(d, true);
        PUT_LIT(d->w, "kind");
        PUT_LIT(d->w, "message");
        argus_ft_put_span_kv(d, "name", (span){m.name, m.name_len});
        argus_end_record(d->w);
    }
    if (m.input) {
        BEGIN(d, s, cur, "ui_event", 1);
        PUT_LIT(d->w, "kind");
        PUT_LIT(d->w, "input");
        argus_end_record(d->w);
    }
    if (m.loop < 0) {
        BEGIN(d, s, cur, "runloop_invoke", 2);
        argus_ft_put_phase(d, false);
        PUT_LIT(d->w, "kind");
        PUT_LIT(d->w, "message");
        argus_end_record(d->w);
        BEGIN(d, s, cur, "runloop_phase", 1);
        PUT_LIT(d->w, "stage");
        PUT_LIT(d->w, "before_waiting");
        argus_end_record(d->w);
    }
}
