/* The desktop's libraries in ftrace text (include/argus/decode/ftrace-internal.h,
 * docs/inputs/linux.md): the lines of argus-record's uprobes
 * (filters/record/probes.c) on GLib's and Tcl's main loops (their
 * dispatches and waits) and on GTK's, Qt's and Tk's input. D-Bus's probes
 * are lib/decode/ftrace-dbus.c's. */
#include "argus/decode/ftrace-internal.h"

#include <string.h>

/* ---- The desktop's libraries (argus-record's uprobes) -------------------- */

/* A main loop's dispatch of its ready sources (GLib's
 * g_main_context_dispatch: item = its context, which tells a nested
 * private loop from the default one) -> runloop_invoke begin/end. */
void argus_ft_map_loop_dispatch(argus_ft *d, const line_slot *s, thread *cur, span body, bool begin)
{
    uint64_t item = 0;
    bool have_item;
    if (begin) {
        have_item = argus_ft_field_hex(body, "ctx", &item);
        if (cur->loop_depth < sizeof cur->loop_item / sizeof *cur->loop_item)
            cur->loop_item[cur->loop_depth] = have_item ? item : 0;
        cur->loop_depth++;
    } else {
        /* a return probe sees no arguments: the item of its begin */
        if (cur->loop_depth > 0)
            cur->loop_depth--;
        have_item = cur->loop_depth < sizeof cur->loop_item / sizeof *cur->loop_item &&
                    (item = cur->loop_item[cur->loop_depth]) != 0;
    }
    BEGIN(d, s, cur, "runloop_invoke", 2 + have_item);
    argus_ft_put_phase(d, begin);
    PUT_LIT(d->w, "kind");
    PUT_LIT(d->w, "source");
    if (have_item)
        argus_ft_put_uint_kv(d, "item", item);
    argus_end_record(d->w);
    d->n_probe_events++;
}

bool argus_ft_loop_wait_deadline(const char *text, size_t len, uint64_t *ns)
{
    span body = {text, len};
    uint64_t ms, time, sec, usec;
    if (argus_ft_field_dec(body, "timeout", &ms)) {
        *ns = ms * 1000000u;
        return (int64_t)ms >= 0;        /* g_poll's -1: no deadline */
    }
    if (argus_ft_field_hex(body, "time", &time) && time != 0 &&
        argus_ft_field_dec(body, "sec", &sec) && argus_ft_field_dec(body, "usec", &usec) &&
        sec < 1000000000ull && usec < 1000000) {
        *ns = sec * 1000000000u + usec * 1000u; /* Tcl_Time; a NULL one: no deadline */
        return true;
    }
    return false;
}

/* The loop's wait for its sources (g_poll, Tcl_WaitForEvent) ->
 * runloop_phase before_waiting (with its timeout in ns, when it has one)
 * and after_waiting. */
void argus_ft_map_loop_poll(argus_ft *d, const line_slot *s, thread *cur, span body, bool before)
{
    uint64_t ns = 0;
    bool timeout = before && argus_ft_loop_wait_deadline(body.p, body.n, &ns);
    BEGIN(d, s, cur, "runloop_phase", 1 + timeout);
    PUT_LIT(d->w, "stage");
    if (before)
        PUT_LIT(d->w, "before_waiting");
    else
        PUT_LIT(d->w, "after_waiting");
    if (timeout)
        argus_ft_put_uint_kv(d, "timeout", ns);
    argus_end_record(d->w);
    d->n_probe_events++;
}

/* GTK 3's gtk_main_do_event: GdkEventType */
const struct input_kind argus_ft_gtk_kinds[] = {
    {3, "mouseMoved"}, {4, "mouseDown"}, {5, "mouseDown"}, {6, "mouseDown"},
    {7, "mouseUp"}, {8, "keyDown"}, {9, "keyUp"}, {31, "scrollWheel"},
    {37, "touchBegin"}, {39, "touchEnd"}, {0, NULL},
};
/* Tk's Tk_HandleEvent: the XEvent's type */
const struct input_kind argus_ft_x_kinds[] = {
    {2, "keyDown"}, {3, "keyUp"}, {4, "mouseDown"}, {5, "mouseUp"}, {0, NULL},
};
/* Qt 5's processKeyEvent and processMouseEvent: QEvent::Type */
const struct input_kind argus_ft_qt_kinds[] = {
    {2, "mouseDown"}, {3, "mouseUp"}, {4, "mouseDown"}, {6, "keyDown"}, {7, "keyUp"}, {0, NULL},
};

void argus_ft_map_input(argus_ft *d, const line_slot *s, thread *cur, span body,
                        const struct input_kind *kinds, const char *key_field)
{
    uint64_t type, key = 0;
    if (!argus_ft_field_dec(body, "type", &type))
        return (void)argus_ft_write_raw(d, s, cur);
    const char *kind = NULL;
    for (; kinds->kind && !kind; kinds++)
        if (kinds->type == type)
            kind = kinds->kind;
    if (!kind)
        return (void)argus_ft_write_raw(d, s, cur);
    bool has_key =
        key_field && strncmp(kind, "key", 3) == 0 && argus_ft_field_dec(body, key_field, &key);
    BEGIN(d, s, cur, "ui_event", 1 + has_key);
    argus_put_key(d->w, "kind");
    argus_put_text(d->w, kind, strlen(kind));
    if (has_key)
        argus_ft_put_uint_kv(d, "key", key);
    argus_end_record(d->w);
    d->n_probe_events++;
}
