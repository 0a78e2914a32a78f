/* The kernel's events in ftrace text (include/argus/decode/ftrace-internal.h,
 * docs/inputs/linux.md): argus_ft_map_line reads a line's event name and hands it
 * to its vocabulary (this file's, the desktop's probes, D-Bus, Android);
 * here are the scheduler's switches and wakeups (waits, woken, preempted,
 * the CPU's holder), syscalls in their three shapes and the fds they name
 * (DEC-FD), interrupts and the interrupt context of each CPU, workqueues,
 * timers, task lifetimes, and argus-watch's flag lines. */
#include "argus/decode/ftrace-internal.h"
#include "argus/stream/cli.h"
#include "argus/stream/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define RUN_RING 256       /* run slices kept per cpu */
#define PREEMPTED_MIN 1000000 /* a CPU wait of 1 ms matters (preempted, cpu_holder) */

/* The woken that ends T's wait (DEC-WOKEN): at the switch that runs it
 * again (HOLDER: the thread the CPU ran before it), or SYNTH at its own
 * next line. A wakeup came for it: `awakened`, or `timed_out` when it came
 * from the expiry of its own timer (TIMED_OUT: a line of its own says the
 * wait timed out); `runnable` is how long it then waited for a CPU. */
static void write_woken(argus_ft *d, const line_slot *s, thread *t, bool synth,
                        const thread *holder, bool timed_out)
{
    bool result = t->woken_by_wakeup || timed_out;
    timed_out = timed_out || t->woken_by_timer;
    bool runnable = t->woken_by_wakeup && !synth && s->ts >= t->wakeup_ts;
    bool has_holder = runnable && holder && holder->tid != 0 && holder != t;
    BEGIN(d, s, t, "woken", result + synth + runnable + has_holder);
    if (result) {
        PUT_LIT(d->w, "result");
        if (timed_out)
            PUT_LIT(d->w, "timed_out");
        else
            PUT_LIT(d->w, "awakened");
    }
    if (synth) {
        PUT_LIT(d->w, "synth");
        argus_put_bool(d->w, true);
    }
    if (runnable)
        argus_ft_put_uint_kv(d, "runnable", s->ts - t->wakeup_ts);
    if (has_holder)
        argus_ft_put_uint_kv(d, "cpu_holder", holder->tid);
    argus_end_record(d->w);
    t->waiting = false;
    t->woken_by_wakeup = false;
    t->woken_by_timer = false;
    if (synth)
        d->n_synth_woken++;
    else
        d->n_woken++;
}

/* ---- Syscalls ------------------------------------------------------------ */

static bool name_in(const char *name, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(name, *list) == 0)
            return true;
    return false;
}

/* Syscalls whose first argument names what a wait in them waits on: a
 * futex word, or a file descriptor. */
static const char *const fd_syscalls[] = {
    "read", "write", "readv", "writev", "pread64", "pwrite64", "recvfrom",
    "recvmsg", "recvmmsg", "sendto", "sendmsg", "sendmmsg", "accept",
    "accept4", "connect", "epoll_wait", "epoll_pwait", "epoll_pwait2", NULL};

bool argus_ft_fd_syscall(const char *name)
{
    return name && name_in(name, fd_syscalls);
}
/* Syscalls that hand data to another thread, and those that take it. */
static const char *const send_syscalls[] = {"write", "writev", "sendto",
                                            "sendmsg", "sendmmsg", NULL};
static const char *const recv_syscalls[] = {
    "read", "readv", "recvfrom", "recvmsg", "recvmmsg", "poll", "ppoll",
    "select", "pselect6", "epoll_wait", "epoll_pwait", "epoll_pwait2", NULL};

/* Arguments "a: 0x1, b: 0x2" (or "(a: 1, b: 2)" without 0x), up to 6. */
/* Arguments as key=value fields (trace-cmd report -R, and its futex
 * plugin's "op=FUTEX_WAKE uaddr=0x..."): the numbers in the order given,
 * __syscall_nr and symbolic values left out. */
static size_t parse_kv_args(span s, uint64_t *args)
{
    size_t n = 0;
    span k, v;
    while (n < 6 && argus_ft_next_field(&s, &k, &v)) {
        if (key_is(k, "__syscall_nr"))
            continue;
        /* 0x... is hex, digits alone decimal; a value is taken whole */
        size_t len = 0;
        bool hex = v.n > 2 && v.p[0] == '0' && v.p[1] == 'x';
        for (len = hex ? 2 : 0; len < v.n; len++)
            if (hex ? hex_value(v.p[len]) < 0 : !is_digit(v.p[len]))
                break;
        if (len == v.n && (hex ? argus_ft_span_hex(v, &args[n]) : argus_ft_span_dec(v, &args[n])))
            n++;
    }
    return n;
}

static size_t parse_args(span s, uint64_t *args)
{
    const char *eq = memchr(s.p, '=', s.n), *colon = memchr(s.p, ':', s.n);
    if (eq && (!colon || eq < colon))
        return parse_kv_args(s, args);
    size_t n = 0;
    const char *p = s.p, *end = s.p + s.n;
    while (p < end && n < 6) {
        const char *colon = memchr(p, ':', (size_t)(end - p));
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *v = p;
        if (colon && (!comma || colon < comma))
            v = colon + 1;
        while (v < end && *v == ' ')
            v++;
        uint64_t x;
        if (!argus_ft_span_hex((span){v, (size_t)(end - v)}, &x))
            break;
        args[n++] = x;
        if (!comma)
            break;
        p = comma + 1;
    }
    return n;
}

/* ---- What a file descriptor is (DEC-FD) -------------------------------- */

/* The key of fd FD of process PID in d->fds; false for a number no fd
 * has (negative, or past 2^31). */
static bool fd_key(uint64_t pid, uint64_t fd, uint64_t *key)
{
    if (fd >= 1u << 31 || pid >= 1ull << 32)
        return false;
    *key = pid << 32 | fd;
    return true;
}

static void fd_forget(argus_ft *d, uint64_t pid, uint64_t fd)
{
    uint64_t key;
    if (fd_key(pid, fd, &key) && argus_table_remove(&d->fds, key))
        d->n_fd_forgotten++;
}

/* Every fd of process PID from FIRST to LAST (close_range, exec, exit). */
static void fd_forget_range(argus_ft *d, uint64_t pid, uint64_t first, uint64_t last)
{
    if (pid >= 1ull << 32 || first > last || !d->fds.count)
        return;
    if (last - first < 64) { /* close_range of a few */
        for (uint64_t fd = first; fd <= last && fd < 1u << 31; fd++)
            fd_forget(d, pid, fd);
        return;
    }
    uint64_t key, gone[64];
    void *val;
    size_t n;
    do { /* the table's entries are not removed while it is walked */
        n = 0;
        for (size_t pos = 0; n < 64 && argus_table_next(&d->fds, &pos, &key, &val);)
            if (key >> 32 == pid && (key & 0xffffffffu) >= first && (key & 0xffffffffu) <= last)
                gone[n++] = key;
        for (size_t i = 0; i < n; i++)
            argus_table_remove(&d->fds, gone[i]);
        d->n_fd_forgotten += n;
    } while (n == 64);
}

static void fd_name(argus_ft *d, const thread *t, uint64_t fd, uint8_t how, uint64_t listen)
{
    uint64_t key;
    if (!fd_key(pid_of(t), fd, &key))
        return;
    bool created;
    struct fd_origin *o = argus_table_put(&d->fds, key, &created);
    *o = (struct fd_origin){.ts = t->sys_ts, .tid = t->tid, .listen = listen, .how = how};
    d->n_fd_named++;
}

/* A syscall's enter: the fds it closes are forgotten, whatever it then
 * returns (Linux closes the fd even when close fails with EINTR). */
static void fd_enter(argus_ft *d, const thread *t, const char *sys, const uint64_t *args,
                     size_t nargs)
{
    if (strcmp(sys, "close") == 0 && nargs >= 1)
        fd_forget(d, pid_of(t), args[0]);
    else if ((strcmp(sys, "dup2") == 0 || strcmp(sys, "dup3") == 0) && nargs >= 2)
        fd_forget(d, pid_of(t), args[1]); /* the new fd: whatever it was is closed */
    else if (strcmp(sys, "close_range") == 0 && nargs >= 2)
        fd_forget_range(d, pid_of(t), args[0], args[1]);
}

/* A syscall's exit with its return value: the fd it gave a meaning. */
static void fd_exit(argus_ft *d, const thread *t, uint64_t ret)
{
    int64_t r = (int64_t)ret;
    const char *sys = t->sys;
    if (strcmp(sys, "accept") == 0 || strcmp(sys, "accept4") == 0) {
        if (r >= 0)
            fd_name(d, t, ret, FD_ACCEPT, t->sys_arg0);
    } else if (strcmp(sys, "connect") == 0) {
        if (r == 0)
            fd_name(d, t, t->sys_arg0, FD_CONNECT, 0);
        else if (r == -115) /* EINPROGRESS: a non-blocking socket's connect begun */
            fd_name(d, t, t->sys_arg0, FD_CONNECTING, 0);
        /* else it failed: the program will likely close it; say nothing */
    } else if (strcmp(sys, "flock") == 0) {
        if (r == 0 && (t->sys_arg1 & 3)) /* LOCK_SH or LOCK_EX taken */
            fd_name(d, t, t->sys_arg0, FD_FLOCK, 0);
    }
}

/* The fields of a wait in SYS on fd FD of T's process, when the trace
 * showed what FD is: their count, and written when WRITE. */
static unsigned put_fd_origin(argus_ft *d, const thread *t, uint64_t fd, bool write)
{
    uint64_t key;
    const struct fd_origin *o;
    if (!fd_key(pid_of(t), fd, &key) || !(o = argus_table_get(&d->fds, key)))
        return 0;
    if (!write)
        return 3 + (o->how == FD_ACCEPT);
    static const char *const how[] = {NULL, "connect", "connect_started", "accept", "flock"};
    argus_put_key(d->w, "fd_origin");
    argus_put_cstr(d->w, how[o->how]);
    argus_ft_put_uint_kv(d, "fd_origin_ts", o->ts);
    argus_ft_put_uint_kv(d, "fd_origin_tid", o->tid);
    if (o->how == FD_ACCEPT)
        argus_ft_put_uint_kv(d, "fd_listen", o->listen);
    return 0;
}

static void write_syscall(argus_ft *d, const line_slot *s, thread *t, span name,
                          bool begin, const uint64_t *args, size_t nargs,
                          bool have_ret, uint64_t ret)
{
    if (begin) {
        t->in_syscall = true;
        argus_utf8_copy(t->sys, sizeof t->sys, name.p, name.n);
        t->sys_arg0 = nargs ? args[0] : 0;
        t->sys_arg1 = nargs > 1 ? args[1] : 0;
        t->sys_ts = s->ts - d->zero;
        fd_enter(d, t, t->sys, args, nargs);
    } else if (t->in_syscall) {
        if (have_ret && name.n == strlen(t->sys) && memcmp(name.p, t->sys, name.n) == 0)
            fd_exit(d, t, ret);
        if (t->ipc_msg) {
            /* the data a sender handed over while this syscall waited */
            BEGIN(d, s, t, "ipc", 4);
            PUT_LIT(d->w, "dir");
            PUT_LIT(d->w, "recv");
            argus_ft_put_uint_kv(d, "msg", t->ipc_msg);
            argus_ft_put_uint_kv(d, "peer", t->ipc_peer);
            argus_put_key(d->w, "via");
            argus_put_cstr(d->w, t->ipc_via);
            argus_end_record(d->w);
            t->ipc_msg = 0;
            d->n_ipc++;
        }
        t->in_syscall = false;
    }
    BEGIN(d, s, t, "syscall", 2 + (begin ? 1 : have_ret));
    argus_ft_put_span_kv(d, "name", name);
    argus_ft_put_phase(d, begin);
    if (begin) {
        PUT_LIT(d->w, "args");
        argus_put_array(d->w, nargs);
        for (size_t i = 0; i < nargs; i++)
            argus_put_uint(d->w, args[i]);
    } else if (have_ret) {
        PUT_LIT(d->w, "ret");
        argus_put_int(d->w, (int64_t)ret);
    }
    argus_end_record(d->w);
}

/* The interrupt context of CPU (grown on demand). */
struct cpu_ctx *argus_ft_cpu_ctx(argus_ft *d, uint32_t cpu)
{
    if (cpu >= d->ncpus) {
        uint32_t n = cpu + 1 > 2 * d->ncpus ? cpu + 1 : 2 * d->ncpus;
        struct cpu_ctx *c = argus_xrealloc(d->cpus, n * sizeof *c, "CPU table");
        memset(c + d->ncpus, 0, (n - d->ncpus) * sizeof *c);
        d->cpus = c;
        d->ncpus = n;
    }
    return &d->cpus[cpu];
}

/* ---- Mapping ------------------------------------------------------------- */


/* The wait of a blocking prev_state: false for runnable (preempted) or
 * dead states. Letters (S, D, "D|K", I, ...) or the raw number trace-cmd
 * report prints when it cannot format it: bits 1 S, 2 D, 4 T, 8 t, 128 I
 * (kernels since 4.14); 0 is running, 16/32/64 dead or parked, 256 and
 * up the preemption mark. */
static bool blocking_state(span st, const char **word)
{
    if (st.n == 0)
        return false;
    if (is_digit(st.p[0])) {
        uint64_t v;
        if (!argus_ft_span_dec(st, &v))
            return false;
        if (v & 1) { *word = "sleeping"; return true; }
        if (v & 2) { *word = "disk"; return true; }
        if (v & 4) { *word = "stopped"; return true; }
        if (v & 8) { *word = "traced"; return true; }
        if (v == 128) { *word = "idle"; return true; }
        return false;
    }
    switch (st.p[0]) {
    case 'S': *word = "sleeping"; return true;
    case 'D': *word = "disk"; return true;
    case 'I': *word = "idle"; return true;
    case 'T': *word = "stopped"; return true;
    case 't': *word = "traced"; return true;
    case 'P': *word = "parked"; return true;
    case 'K': *word = "killable"; return true;
    /* trace-cmd's sched plugin prints TASK_IDLE (0x80) as W */
    case 'W': *word = "idle"; return true;
    default: return false; /* R, R+, X, Z, x */
    }
}

/* "COMM:PID [PRIO]" at the start of S (trace-cmd report's sched plugin):
 * the comm runs to the last ':' before " [" (kworker/1:2:3540). AFTER is
 * what follows the "]". */
bool argus_ft_plugin_task(span s, span *comm, uint64_t *pid, span *after)
{
    const char *end = s.p + s.n;
    const char *b = memmem(s.p, s.n, " [", 2);
    if (!b)
        return false;
    const char *c = memrchr(s.p, ':', (size_t)(b - s.p));
    const char *close = memchr(b, ']', (size_t)(end - b));
    if (!c || !close || c + 1 == b)
        return false;
    for (const char *q = c + 1; q < b; q++)
        if (!is_digit(*q))
            return false;
    argus_ft_span_dec((span){c + 1, (size_t)(b - c - 1)}, pid);
    *comm = (span){s.p, (size_t)(c - s.p)};
    const char *a = close + 1;
    while (a < end && *a == ' ')
        a++;
    *after = (span){a, (size_t)(end - a)};
    return true;
}

/* "PREV:PID [PRIO] STATE ==> NEXT:PID [PRIO]" (trace-cmd report's sched
 * plugin) into the fields of the key=value form. */
bool argus_ft_plugin_switch(span body, span *prev_comm, uint64_t *prev_pid, span *prev_state,
                            span *next_comm, uint64_t *next_pid)
{
    const char *arrow = memmem(body.p, body.n, " ==> ", 5);
    span after, rest;
    if (!arrow ||
        !argus_ft_plugin_task((span){body.p, (size_t)(arrow - body.p)}, prev_comm, prev_pid,
                              &after) ||
        !argus_ft_plugin_task((span){arrow + 5, body.n - (size_t)(arrow + 5 - body.p)}, next_comm,
                              next_pid, &rest))
        return false;
    const char *q = after.p;
    while (q < after.p + after.n && *q != ' ')
        q++;
    *prev_state = (span){after.p, (size_t)(q - after.p)};
    return true;
}

/* The thread that ran longest on CPU C in [FROM, TO], of the slices
 * kept: who held the CPU that T, woken, waited for. Asked when the wait
 * for the CPU was long enough to matter (1 ms). */
static const thread *cpu_holder(argus_ft *d, const struct cpu_ctx *c, const thread *t,
                                uint64_t from, uint64_t to)
{
    if (to - from < PREEMPTED_MIN || !c->run)
        return NULL;
    struct { uint64_t tid, total; } seen[32];
    uint32_t nseen = 0, n = c->run_next < RUN_RING ? c->run_next : RUN_RING;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t a = c->run[i].from > from ? c->run[i].from : from;
        uint64_t b = c->run[i].to < to ? c->run[i].to : to;
        uint64_t tid = c->run[i].tid;
        if (b <= a || tid == 0 || tid == t->tid)
            continue;
        uint32_t k = 0;
        while (k < nseen && seen[k].tid != tid)
            k++;
        if (k == nseen) {
            if (nseen == 32)
                continue;
            seen[nseen].tid = tid;
            seen[nseen++].total = 0;
        }
        seen[k].total += b - a;
    }
    uint32_t best = 0;
    for (uint32_t k = 1; k < nseen; k++)
        if (seen[k].total > seen[best].total)
            best = k;
    return nseen ? argus_ft_find_thread(d, seen[best].tid) : NULL;
}

/* A prev_state of a task switched out while it could still run:
 * preempted (R, R+; 0, or the preemption mark 256 and up alone). */
static bool preempted_state(span st)
{
    if (st.n == 0)
        return false;
    if (is_digit(st.p[0])) {
        uint64_t v;
        return argus_ft_span_dec(st, &v) && (v & 255) == 0;
    }
    return st.p[0] == 'R';
}

static void map_switch(argus_ft *d, const line_slot *s, thread *cur, span body)
{
    span k, v, prev_state = {0}, next_comm = {0}, prev_comm = {0};
    uint64_t prev_pid = cur->tid, next_pid = 0;
    bool have_next = false, have_prev_comm = false;
    span rest = body;
    while (argus_ft_next_field(&rest, &k, &v)) {
        if (key_is(k, "prev_comm"))
            prev_comm = v, have_prev_comm = true;
        else if (key_is(k, "prev_pid"))
            argus_ft_span_dec(v, &prev_pid);
        else if (key_is(k, "prev_state"))
            prev_state = v;
        else if (key_is(k, "next_comm"))
            next_comm = v;
        else if (key_is(k, "next_pid"))
            have_next = argus_ft_span_dec(v, &next_pid);
    }
    if (!have_next && !have_prev_comm)
        have_next = have_prev_comm =
            argus_ft_plugin_switch(body, &prev_comm, &prev_pid, &prev_state, &next_comm, &next_pid);
    if (!have_next) /* a broken line: kept whole */
        return argus_ft_write_raw(d, s, cur);
    thread *prev = prev_pid == cur->tid ? cur : argus_ft_get_thread(d, prev_pid);
    if (have_prev_comm)
        argus_ft_set_comm(prev, prev_comm.p, prev_comm.n);
    const char *word;
    /* the idle task (tid 0, one for every CPU) does not wait, whatever
     * state some kernels print for it */
    if (prev->tid != 0 && blocking_state(prev_state, &word) && !prev->waiting) {
        const char *reason = prev->in_syscall ? prev->sys : word;
        bool resource = prev->in_syscall &&
                        (strcmp(prev->sys, "futex") == 0 || name_in(prev->sys, fd_syscalls));
        /* a binder call's caller asleep for its reply: resource the call's
         * reply port (its ioctl, which atrace does not trace) */
        uint64_t binder_port = 0;
        if (!resource && d->android &&
            argus_android_binder_waiting(d->android, prev->tid, &binder_port)) {
            reason = "binder";
            resource = true;
        }
        bool fd = resource && strcmp(prev->sys, "futex") != 0;
        unsigned origin = fd ? put_fd_origin(d, prev, prev->sys_arg0, false) : 0;
        BEGIN(d, s, prev, "wait", 1 + resource + origin);
        argus_put_key(d->w, "reason");
        argus_put_cstr(d->w, reason);
        if (resource)
            argus_ft_put_uint_kv(d, "resource", binder_port ? binder_port : prev->sys_arg0);
        if (origin)
            put_fd_origin(d, prev, prev->sys_arg0, true);
        argus_end_record(d->w);
        prev->waiting = true;
    }
    else if (prev->tid != 0 && preempted_state(prev_state)) {
        prev->preempted = true;
        prev->preempted_ts = s->ts;
    }
    thread *next = argus_ft_get_thread(d, next_pid);
    argus_ft_set_comm(next, next_comm.p, next_comm.n);
    const thread *holder = NULL;
    if (s->cpu < CPU_CTX_MAX) {
        struct cpu_ctx *c = argus_ft_cpu_ctx(d, s->cpu);
        if (!c->run)
            c->run = argus_xcalloc(RUN_RING, sizeof *c->run, "a CPU's recent threads");
        c->run[c->run_next % RUN_RING].tid = prev->tid;
        c->run[c->run_next % RUN_RING].from = c->running_since;
        c->run[c->run_next % RUN_RING].to = s->ts;
        c->run_next++;
        c->running_since = s->ts;
        if (next->waiting && next->woken_by_wakeup)
            holder = cpu_holder(d, c, next, next->wakeup_ts, s->ts);
        if (next->preempted && s->ts >= next->preempted_ts + PREEMPTED_MIN) {
            /* it waited for a CPU long enough to matter: how long, and
             * who held the CPU then */
            const thread *h = cpu_holder(d, c, next, next->preempted_ts, s->ts);
            BEGIN(d, s, next, "preempted", 1 + (h != NULL));
            argus_ft_put_uint_kv(d, "runnable", s->ts - next->preempted_ts);
            if (h)
                argus_ft_put_uint_kv(d, "cpu_holder", h->tid);
            argus_end_record(d->w);
            d->n_preempted++;
        }
    }
    next->preempted = false;
    if (next->waiting)
        write_woken(d, s, next, false, holder, false);
}

static void map_wakeup(argus_ft *d, const line_slot *s, thread *cur, span body,
                       ev_kind kind)
{
    uint64_t pid = 0, success = 1;
    span comm = {0}, k, v, rest = body;
    bool have_pid = false;
    while (argus_ft_next_field(&rest, &k, &v)) {
        if (key_is(k, "pid"))
            have_pid = argus_ft_span_dec(v, &pid);
        else if (key_is(k, "comm"))
            comm = v;
        else if (key_is(k, "success"))
            argus_ft_span_dec(v, &success);
    }
    span after;
    /* "COMM:PID [PRIO] CPU:N" */
    if (!have_pid && argus_ft_plugin_task(body, &comm, &pid, &after)) {
        have_pid = true;
        if (memmem(after.p, after.n, "success=0", 9))
            success = 0;
    }
    if (!have_pid)
        return (void)argus_ft_write_raw(d, s, cur);
    if (success == 0) {
        d->n_failed_wakeups++;
        return;
    }
    thread *target = argus_ft_get_thread(d, pid);
    argus_ft_set_comm(target, comm.p, comm.n);
    /* sched_waking, then sched_wakeup for the same wakeup: one counts */
    if (kind == EV_WAKEUP && target->waking_pending) {
        target->waking_pending = false;
        d->n_pair_wakeups++;
        return;
    }
    target->waking_pending = kind == EV_WAKING;
    /* from a timer's expiry: a sleep's or a timeout's (hrtimer_wakeup,
     * process_timeout), or a timer the target's own process armed (an
     * itimer's signal, a timerfd): its wait timed out, nobody woke it */
    const struct cpu_ctx *c = d->line_cpu;
    bool by_timer = c && c->in_timer &&
                    (c->timer_timeout || (c->timer_armer >= 0 &&
                                          (uint64_t)c->timer_armer == pid_of(target)));
    if (by_timer)
        d->n_timer_wakeups++;
    if (target->waiting) {
        target->woken_by_wakeup = true;
        target->woken_by_timer = by_timer;
        target->wakeup_ts = s->ts;
    }
    /* a sender waking a receiver inside their syscalls: the data went
     * from one to the other (not a wakeup an interrupt made while the
     * sender happened to be in a write). To or from a D-Bus daemon seen in
     * the D-Bus probes, the D-Bus pair wins: it names the message and
     * joins the thread that made the call (GDBus's worker only writes
     * it), and one write as two ipc pairs would count it twice (SEG-IPC,
     * SIM-SIG). */
    if (d->line_ctx != CTX_IRQ && cur->in_syscall && target->in_syscall && target != cur &&
        name_in(cur->sys, send_syscalls) && name_in(target->sys, recv_syscalls) &&
        !argus_ft_dbus_daemon(d, pid_of(cur)) && !argus_ft_dbus_daemon(d, pid_of(target))) {
        bool socket = strncmp(cur->sys, "send", 4) == 0 ||
                      strncmp(target->sys, "recv", 4) == 0;
        const char *via = socket ? "socket" : "fd";
        uint64_t msg = d->next_msg++;
        uint64_t peer = pid_of(target);
        BEGIN(d, s, cur, "ipc", 4);
        PUT_LIT(d->w, "dir");
        PUT_LIT(d->w, "send");
        argus_ft_put_uint_kv(d, "msg", msg);
        argus_ft_put_uint_kv(d, "peer", peer);
        argus_put_key(d->w, "via");
        argus_put_cstr(d->w, via);
        argus_end_record(d->w);
        target->ipc_msg = msg;
        target->ipc_peer = pid_of(cur);
        target->ipc_via = via;
        d->n_ipc++;
    }
    BEGIN(d, s, cur, "wakeup", 1 + by_timer);
    argus_ft_put_uint_kv(d, "target", pid);
    if (by_timer) {
        PUT_LIT(d->w, "result");
        PUT_LIT(d->w, "timed_out");
    }
    argus_end_record(d->w);
}

/* An interrupt: hard (irq=N name=X) or soft (vec=N [action=X]). */
static void map_interrupt(argus_ft *d, const line_slot *s, thread *cur, span body,
                          bool begin, bool soft)
{
    uint64_t n;
    span name = {0};
    if (!argus_ft_field_dec(body, soft ? "vec" : "irq", &n))
        return (void)argus_ft_write_raw(d, s, cur);
    if (soft) {
        const char *a = memmem(body.p, body.n, "action=", 7);
        if (a) {
            name.p = a + 7;
            const char *e = body.p + body.n, *q = name.p;
            while (q < e && *q != ']' && *q != ' ')
                q++;
            name.n = (size_t)(q - name.p);
        }
    } else if (begin) {
        argus_ft_field(body, "name", &name);
    }
    bool own = soft && d->line_own_irq;
    BEGIN(d, s, cur, "interrupt", 2 + (name.n > 0) + soft + own);
    argus_ft_put_phase(d, begin);
    argus_ft_put_uint_kv(d, "irq", n);
    if (name.n)
        argus_ft_put_span_kv(d, "name", name);
    if (soft) {
        PUT_LIT(d->w, "softirq");
        argus_put_bool(d->w, true);
    }
    if (own) { /* run by the thread's own system call (CULL-SYSCALL) */
        PUT_LIT(d->w, "in_syscall");
        argus_put_cstr(d->w, cur->sys);
    }
    argus_end_record(d->w);
}

/* A workqueue: "work struct=W function=F workqueue=Q ..." (enqueue),
 * "work struct W: function F" (start), "work struct W[: function F]"
 * (end). The queue is the workqueue's address, or a hash of its name. */
static void map_work(argus_ft *d, const line_slot *s, thread *cur, span body,
                     ev_kind kind)
{
    uint64_t item;
    span func = {0}, qname = {0};
    /* "work struct=W" (tracefs), "work=W" (trace-cmd report -R) */
    bool kv = body.n > 5 && memcmp(body.p, "work=", 5) == 0;
    if (kind == EV_WQ_QUEUE) {
        if (!argus_ft_field_hex(body, kv ? "work" : "struct", &item))
            return (void)argus_ft_write_raw(d, s, cur);
        argus_ft_field(body, "function", &func);
        argus_ft_field(body, "workqueue", &qname);
        uint64_t queue;
        if (!argus_ft_span_hex_whole(qname, &queue) || qname.n < 8)
            queue = XXH3_64bits(qname.p, qname.n);
        bool created;
        *(uint64_t *)argus_table_put(&d->work_queue, item, &created) = queue;
        BEGIN(d, s, cur, "dispatch_enqueue", 2 + (func.n > 0) + (qname.n > 0));
        argus_ft_put_uint_kv(d, "queue", queue);
        argus_ft_put_uint_kv(d, "item", item);
        if (func.n)
            argus_ft_put_span_kv(d, "func", func);
        if (qname.n)
            argus_ft_put_span_kv(d, "queue_name", qname);
        argus_end_record(d->w);
        return;
    }
    const char *p = body.p, *end = body.p + body.n;
    if (kv) {
        if (!argus_ft_field_hex(body, "work", &item))
            return (void)argus_ft_write_raw(d, s, cur);
        argus_ft_field(body, "function", &func);
    } else if (body.n < 12 || memcmp(p, "work struct ", 12) != 0 ||
               !argus_ft_span_hex((span){p + 12, body.n - 12}, &item)) {
        return (void)argus_ft_write_raw(d, s, cur);
    }
    const char *f = kv ? NULL : memmem(p, (size_t)(end - p), "function ", 9);
    if (f) {
        func.p = f + 9;
        const char *q = func.p;
        while (q < end && *q != ' ')
            q++;
        func.n = (size_t)(q - func.p);
    }
    bool begin = kind == EV_WQ_START;
    const uint64_t *queue = argus_table_get(&d->work_queue, item);
    bool have_queue = queue != NULL;
    uint64_t q = queue ? *queue : 0;
    if (begin) {
        if (queue)
            argus_table_remove(&d->work_queue, item);
        cur->in_work = have_queue; /* for the end: the item may be queued again meanwhile */
        cur->work_item = item;
        cur->work_queue = q;
    } else if (cur->in_work && cur->work_item == item) {
        have_queue = true;
        q = cur->work_queue;
        cur->in_work = false;
    }
    BEGIN(d, s, cur, "dispatch_invoke", 2 + have_queue + (func.n > 0));
    argus_ft_put_phase(d, begin);
    if (have_queue)
        argus_ft_put_uint_kv(d, "queue", q);
    argus_ft_put_uint_kv(d, "item", item);
    if (func.n)
        argus_ft_put_span_kv(d, "func", func);
    argus_end_record(d->w);
}

/* Who armed which timer, and which timer's callback runs on the line's
 * CPU: a wakeup made inside it is the expiry of a sleep or a timeout
 * (map_wakeup). Only an arm made in a thread's own context names its
 * process (the tick re-arms itself in interrupts). OP: 0 start, 1
 * expire entry, 2 expire exit, 3 cancel. */
static void track_timer(argus_ft *d, const line_slot *s, const thread *cur, int op,
                        uint64_t timer, span func)
{
    if (op == 0) {
        bool created;
        uint64_t *armer = argus_table_put(&d->timer_armer, timer, &created);
        *armer = d->line_ctx == CTX_IRQ || cur->tid == 0 ? 0 : pid_of(cur) + 1;
        return;
    }
    if (op == 3 || s->cpu >= CPU_CTX_MAX)
        return;
    struct cpu_ctx *c = argus_ft_cpu_ctx(d, s->cpu);
    c->in_timer = op == 1;
    if (op == 1) {
        static const char *const timeouts[] = {"hrtimer_wakeup", "process_timeout", NULL};
        char fn[40];
        argus_utf8_copy(fn, sizeof fn, func.p, func.n);
        c->timer_timeout = name_in(fn, timeouts);
        const uint64_t *armer = argus_table_get(&d->timer_armer, timer);
        c->timer_armer = armer && *armer ? (int64_t)(*armer - 1) : -1;
    }
}

/* hrtimer_* (hrtimer=A function=F expires=NS) and timer_* (timer=A
 * function=F expires=JIFFIES). */
static void map_timer(argus_ft *d, const line_slot *s, thread *cur, span body,
                      ev_kind kind)
{
    bool hr = kind >= EV_HRTIMER_START && kind <= EV_HRTIMER_CANCEL;
    uint64_t timer, expires = 0;
    span func = {0};
    if (!argus_ft_field_hex(body, hr ? "hrtimer" : "timer", &timer))
        return (void)argus_ft_write_raw(d, s, cur);
    argus_ft_field(body, "function", &func);
    /* trace-cmd report prints "tick_nohz_handler/0x0" */
    const char *slash = func.n ? memchr(func.p, '/', func.n) : NULL;
    if (slash && func.p + func.n - slash > 2 && slash[1] == '0' && slash[2] == 'x')
        func.n = (size_t)(slash - func.p);
    int op = kind - (hr ? EV_HRTIMER_START : EV_TIMER_START); /* start, entry, exit, cancel */
    track_timer(d, s, cur, op, timer, func);
    switch (op) {
    case 0: {
        /* an hrtimer's expiry is in ns of its clock, the trace's clock for
         * mono/local traces; a timer's is in jiffies: left out */
        bool deadline = hr && argus_ft_field_dec(body, "expires", &expires);
        BEGIN(d, s, cur, "timer_arm", 1 + deadline + (func.n > 0));
        argus_ft_put_uint_kv(d, "timer", timer);
        if (deadline)
            argus_ft_put_uint_kv(d, "deadline", expires > d->zero ? expires - d->zero : 0);
        if (func.n)
            argus_ft_put_span_kv(d, "func", func);
        break;
    }
    case 1:
    case 2:
        BEGIN(d, s, cur, "timer_fire", 2 + (func.n > 0));
        argus_ft_put_phase(d, op == 1);
        argus_ft_put_uint_kv(d, "timer", timer);
        if (func.n)
            argus_ft_put_span_kv(d, "func", func);
        break;
    default:
        BEGIN(d, s, cur, "timer_cancel", 1);
        argus_ft_put_uint_kv(d, "timer", timer);
        break;
    }
    argus_end_record(d->w);
}

/* Task lifetimes: thread records, and exec/exit events. */
static void map_task(argus_ft *d, const line_slot *s, thread *cur, span body,
                     ev_kind kind)
{
    uint64_t pid = 0, flags = 0;
    span comm = {0}, v;
    switch (kind) {
    case EV_NEWTASK: {
        if (!argus_ft_field_dec(body, "pid", &pid))
            return (void)argus_ft_write_raw(d, s, cur);
        argus_ft_field(body, "comm", &comm);
        thread *t = argus_ft_get_thread(d, pid);
        argus_ft_set_comm(t, comm.p, comm.n);
        /* CLONE_THREAD: a thread of the creator's process */
        if (argus_ft_field_hex(body, "clone_flags", &flags) && (flags & 0x10000))
            argus_ft_set_tgid(t, cur->tgid); /* when known */
        else
            argus_ft_set_tgid(t, (int64_t)pid);
        return;
    }
    case EV_FORK: {
        if (!argus_ft_field_dec(body, "child_pid", &pid))
            return (void)argus_ft_write_raw(d, s, cur);
        argus_ft_field(body, "child_comm", &comm);
        thread *t = argus_ft_get_thread(d, pid);
        argus_ft_set_comm(t, comm.p, comm.n);
        /* DEC-PARENT: the process that forked it */
        if (pid != 0 && t->parent != pid_of(cur)) {
            t->parent = pid_of(cur);
            t->announced = false;
        }
        return;
    }
    case EV_RENAME: {
        if (!argus_ft_field_dec(body, "pid", &pid) || !argus_ft_field(body, "newcomm", &comm))
            return (void)argus_ft_write_raw(d, s, cur);
        argus_ft_set_comm(argus_ft_get_thread(d, pid), comm.p, comm.n);
        return;
    }
    case EV_EXEC: {
        span file = {0};
        argus_ft_field(body, "filename", &file);
        if (file.n) {
            /* the new name, as the kernel sets it (when no task_rename
             * line says it): the file's base name, 15 bytes at most */
            const char *slash = memrchr(file.p, '/', file.n);
            const char *base = slash ? slash + 1 : file.p;
            size_t n = (size_t)(file.p + file.n - base);
            argus_ft_set_comm(cur, base, n > 15 ? 15 : n);
        }
        /* its fds opened close-on-exec are closed now, and the trace
         * does not say which: none is named any more (DEC-FD) */
        fd_forget_range(d, pid_of(cur), 0, (1u << 31) - 1);
        BEGIN(d, s, cur, "exec", file.n > 0);
        if (file.n)
            argus_ft_put_span_kv(d, "filename", file);
        argus_end_record(d->w);
        return;
    }
    default: { /* EV_EXIT */
        thread *t = cur;
        if (argus_ft_field_dec(body, "pid", &pid) && pid != cur->tid)
            t = argus_ft_get_thread(d, pid);
        if (argus_ft_field(body, "comm", &v))
            argus_ft_set_comm(t, v.p, v.n);
        if (t->tid == pid_of(t)) /* the process ends (its leader) */
            fd_forget_range(d, pid_of(t), 0, (1u << 31) - 1);
        BEGIN(d, s, t, "exit", 0);
        argus_end_record(d->w);
        return;
    }
    }
}

static void map_flag(argus_ft *d, const line_slot *s, thread *cur, span body,
                     bool write)
{
    uint64_t addr, value = 0;
    span name = {0};
    if (!argus_ft_field_hex(body, "addr", &addr))
        return (void)argus_ft_write_raw(d, s, cur);
    bool have_value = argus_ft_field_hex(body, "value", &value);
    argus_ft_field(body, "name", &name);
    if (write)
        BEGIN(d, s, cur, "flag_write", 1 + have_value + (name.n > 0));
    else
        BEGIN(d, s, cur, "flag_read", 1 + have_value + (name.n > 0));
    argus_ft_put_uint_kv(d, "addr", addr);
    if (have_value)
        argus_ft_put_uint_kv(d, "value", value);
    if (name.n)
        argus_ft_put_span_kv(d, "name", name);
    argus_end_record(d->w);
}

/* raw_syscalls: "NR 202 (7f.., 80, ...)" and "NR 202 = 0": no names
 * (the numbers are the architecture's), "NR_202". */
static void map_raw_syscall(argus_ft *d, const line_slot *s, thread *cur, span body,
                            bool begin)
{
    uint64_t nr, args[6], ret = 0;
    if (body.n < 4 || memcmp(body.p, "NR ", 3) != 0 ||
        !argus_ft_span_dec((span){body.p + 3, body.n - 3}, &nr))
        return (void)argus_ft_write_raw(d, s, cur);
    char name[32];
    int n = snprintf(name, sizeof name, "NR_%llu", (unsigned long long)nr);
    size_t nargs = 0;
    bool have_ret = false;
    if (begin) {
        const char *o = memchr(body.p, '(', body.n);
        if (o)
            nargs = parse_args((span){o + 1, body.n - (size_t)(o + 1 - body.p)}, args);
    } else {
        const char *eq = memmem(body.p, body.n, "= ", 2);
        have_ret =
            eq && argus_ft_span_dec((span){eq + 2, body.n - (size_t)(eq + 2 - body.p)}, &ret);
    }
    write_syscall(d, s, cur, (span){name, (size_t)n}, begin, args, nargs, have_ret, ret);
}

/* Whether line S (event NAME, Q just after it) ends a system call whose
 * wait timed out: a sleep that returned 0, a poll/select/epoll that
 * returned 0 (nothing ready), any that returned -ETIMEDOUT. */
static bool line_says_timed_out(const line_slot *s, span name, const char *q)
{
    static const char *const sleeps_and_polls[] = {
        "nanosleep", "clock_nanosleep", "poll", "ppoll", "select", "pselect6",
        "epoll_wait", "epoll_pwait", "epoll_pwait2", NULL};
    const char *end = s->text + s->len;
    span sys, ret;
    if (name.n > 9 && memcmp(name.p, "sys_exit_", 9) == 0 && q < end) {
        sys = (span){name.p + 9, name.n - 9};   /* "sys_exit_X: 0x0", "... ret=0" */
        ret = (span){q + 1, (size_t)(end - q - 1)};
        while (ret.n && *ret.p == ' ')
            ret.p++, ret.n--;
    } else if (name.n > 4 && memcmp(name.p, "sys_", 4) == 0 && end - q >= 4 &&
               memcmp(q, " -> ", 4) == 0) {
        sys = (span){name.p + 4, name.n - 4};   /* "sys_X -> 0x0" */
        ret = (span){q + 4, (size_t)(end - q - 4)};
    } else {
        return false;
    }
    uint64_t v;
    if (!argus_ft_span_hex(ret, &v) && !argus_ft_field_hex(ret, "ret", &v))
        return false;
    if ((int64_t)v == -110)
        return true;
    char n[SYSNAME_MAX];
    argus_utf8_copy(n, sizeof n, sys.p, sys.n);
    return v == 0 && name_in(n, sleeps_and_polls);
}

/* A synthetic interrupt window on thread TID. */
void argus_ft_synth_irq(argus_ft *d, const line_slot *s, uint64_t tid, bool begin, char ctx)
{
    thread *t = argus_ft_get_thread(d, tid);
    BEGIN(d, s, t, "interrupt", 2);
    argus_ft_put_phase(d, begin);
    PUT_LIT(d->w, "name");
    argus_put_cstr(d->w, ctx == 's' ? "softirq context" : "hardirq context");
    argus_end_record(d->w);
    if (begin)
        d->n_synth_irq++;
}

/* A NET_RX or NET_TX softirq (by its action, else its vector). */
static bool net_softirq(const line_slot *s)
{
    span body = {s->text + s->body_off, s->len - s->body_off};
    if (memmem(body.p, body.n, "action=NET_", 11))
        return true;
    uint64_t vec;
    return !memmem(body.p, body.n, "action=", 7) && argus_ft_field_dec(body, "vec", &vec) &&
           (vec == 2 || vec == 3);
}

/* The context of line S, and the interrupt windows of its CPU.
 *
 * A softirq is the running thread's own work when its system call ran it
 * (CULL-SYSCALL): loopback TCP hands a packet to NET_RX inside the
 * sender's write or sendto, on the sender's thread, and the receiver's
 * wakeup happens there. That is a network softirq that opens on a thread
 * (not the idle task, not a kernel thread: ksoftirqd runs them for
 * interrupts) that is in a system call, with no interrupt open and the
 * CPU's previous line that thread's own, in task context (not right after
 * a hardirq, whose exit runs softirqs too).
 *
 * Lines in hardirq/softirq context by their flags outside irq_handler and
 * softirq events (the local timer's hrtimers, IPIs, their wakeups) go in
 * a synthetic interrupt window of the thread they interrupted, so that
 * they are not taken for its own work. */
static void track_irq_ctx(argus_ft *d, const line_slot *s, ev_kind kind)
{
    bool hard_flag = s->irq_ctx == 'h' || s->irq_ctx == 'H';
    d->line_own_irq = false;
    d->line_cpu = NULL;
    d->line_ctx = hard_flag || (s->irq_ctx && s->irq_ctx != '.') ? CTX_IRQ : CTX_TASK;
    if (s->cpu >= CPU_CTX_MAX)
        return;
    struct cpu_ctx *c = argus_ft_cpu_ctx(d, s->cpu);
    d->line_cpu = c;
    bool real_edge = kind == EV_IRQ_ENTRY || kind == EV_IRQ_EXIT ||
                     kind == EV_SOFTIRQ_ENTRY || kind == EV_SOFTIRQ_EXIT;
    bool in_irq = s->irq_ctx && s->irq_ctx != '.';
    /* a line in task context: no irq is open on this cpu (its exit line
     * may be lost, or the trace began inside it) */
    if (s->irq_ctx == '.')
        c->real_depth = 0;
    /* leave a synthetic window when the cpu is back in task context, at a
     * real interrupt's own events, or on another thread */
    if (c->synth_open && (!in_irq || real_edge || s->tid != c->synth_tid)) {
        argus_ft_synth_irq(d, s, c->synth_tid, false, c->synth_ctx);
        c->synth_open = false;
    }
    if (in_irq && !real_edge && c->real_depth == 0) {
        if (!c->synth_open) {
            argus_ft_synth_irq(d, s, s->tid, true, s->irq_ctx);
            c->synth_ctx = s->irq_ctx;
        }
        c->synth_open = true;
        c->synth_tid = s->tid;
    }
    uint32_t bit = c->real_depth < 32 ? 1u << c->real_depth : 0;
    if (kind == EV_SOFTIRQ_ENTRY) {
        const thread *t = argus_ft_get_thread(d, s->tid);
        bool own = c->real_depth == 0 && s->tid != 0 && t->in_syscall &&
                   !argus_ft_thread_is_kernel(t) && !c->last_hard && c->last_tid == s->tid &&
                   net_softirq(s);
        c->own_mask = own ? c->own_mask | bit : c->own_mask & ~bit;
        d->n_own_softirq += own;
    }
    if (kind == EV_IRQ_ENTRY || kind == EV_SOFTIRQ_ENTRY)
        c->real_depth++;
    /* the innermost window open now (an exit's is the one it closes) */
    if (c->real_depth > 0 && c->real_depth <= 32) {
        bool own = c->own_mask >> (c->real_depth - 1) & 1;
        d->line_own_irq = own && (kind == EV_SOFTIRQ_ENTRY || kind == EV_SOFTIRQ_EXIT);
        d->line_ctx = own && !hard_flag ? CTX_OWN_SOFTIRQ : CTX_IRQ;
    } else if (c->real_depth > 32) {
        d->line_ctx = CTX_IRQ;
    }
    if ((kind == EV_IRQ_EXIT || kind == EV_SOFTIRQ_EXIT) && c->real_depth > 0)
        c->real_depth--;
    c->last_tid = s->tid;
    c->last_hard = hard_flag || kind == EV_IRQ_ENTRY || kind == EV_IRQ_EXIT;
}

void argus_ft_map_line(argus_ft *d, line_slot *s)
{
    thread *cur = argus_ft_get_thread(d, s->tid);
    /* the head's name comes from the kernel's cache of names (it may be
     * stale: Android shows one thread under two names); the names events
     * carry (prev_comm, comm=, newcomm) win */
    if (!cur->comm[0])
        argus_ft_set_comm(cur, s->text + s->comm_off, s->comm_len);
    argus_ft_set_tgid(cur, s->tgid);
    const char *p = s->text + s->body_off, *end = s->text + s->len;
    const char *q = p;
    while (q < end && is_ident(*q))
        q++;
    span name = {p, (size_t)(q - p)};
    bool named = q < end && *q == ':' && name.n;
    ev_kind kind = named ? argus_ft_event_kind(d, name.p, name.n) : EV_OTHER;
    if (cur->waiting) /* its own event before a switch-in */
        write_woken(d, s, cur, true, NULL, line_says_timed_out(s, name, q));
    /* a uprobe's line ("NAME: (0x7f..) ..."): it ran in the thread's own
     * context, whatever its flags say (6.18 prints "DBZff" there) */
    if (named && end - q >= 5 && memcmp(q, ": (0x", 5) == 0)
        s->irq_ctx = s->irq_ctx ? '.' : 0;
    track_irq_ctx(d, s, kind);
    d->event_name = (span){0};
    if (named) {
        d->event_name = name;
        const char *b = q + 1;
        while (b < end && *b == ' ')
            b++;
        span body = {b, (size_t)(end - b)};
        if (name.n > 10 && memcmp(name.p, "sys_enter_", 10) == 0) {
            uint64_t args[6];
            size_t nargs = parse_args(body, args);
            write_syscall(d, s, cur, (span){name.p + 10, name.n - 10}, true, args,
                          nargs, false, 0);
            return;
        }
        if (name.n > 9 && memcmp(name.p, "sys_exit_", 9) == 0) {
            uint64_t ret = 0;
            /* "0x5", or "__syscall_nr=0 ret=0x5" (trace-cmd report -R) */
            bool have = argus_ft_span_hex(body, &ret) || argus_ft_field_hex(body, "ret", &ret);
            write_syscall(d, s, cur, (span){name.p + 9, name.n - 9}, false, NULL, 0,
                          have, ret);
            return;
        }
        switch (kind) {
        case EV_SWITCH: return map_switch(d, s, cur, body);
        case EV_WAKING:
        case EV_WAKEUP:
        case EV_WAKEUP_NEW: return map_wakeup(d, s, cur, body, kind);
        case EV_IRQ_ENTRY:
        case EV_IRQ_EXIT: return map_interrupt(d, s, cur, body, kind == EV_IRQ_ENTRY, false);
        case EV_SOFTIRQ_ENTRY:
        case EV_SOFTIRQ_EXIT:
            return map_interrupt(d, s, cur, body, kind == EV_SOFTIRQ_ENTRY, true);
        case EV_WQ_QUEUE:
        case EV_WQ_START:
        case EV_WQ_END: return map_work(d, s, cur, body, kind);
        case EV_HRTIMER_START: case EV_HRTIMER_ENTRY: case EV_HRTIMER_EXIT:
        case EV_HRTIMER_CANCEL: case EV_TIMER_START: case EV_TIMER_ENTRY:
        case EV_TIMER_EXIT: case EV_TIMER_CANCEL: return map_timer(d, s, cur, body, kind);
        case EV_FORK: case EV_EXEC: case EV_EXIT: case EV_NEWTASK:
        case EV_RENAME: return map_task(d, s, cur, body, kind);
        case EV_RAW_SYS_ENTER:
        case EV_RAW_SYS_EXIT: return map_raw_syscall(d, s, cur, body, kind == EV_RAW_SYS_ENTER);
        case EV_FLAG_WRITE:
        case EV_FLAG_READ: return map_flag(d, s, cur, body, kind == EV_FLAG_WRITE);
        case EV_LOOP_DISPATCH:
        case EV_LOOP_DISPATCH_RET:
            return argus_ft_map_loop_dispatch(d, s, cur, body, kind == EV_LOOP_DISPATCH);
        case EV_LOOP_POLL:
        case EV_LOOP_POLL_RET: return argus_ft_map_loop_poll(d, s, cur, body, kind == EV_LOOP_POLL);
        case EV_GTK_EVENT: return argus_ft_map_input(d, s, cur, body, argus_ft_gtk_kinds, "keyval");
        case EV_QT_INPUT: return argus_ft_map_input(d, s, cur, body, argus_ft_qt_kinds, "keysym");
        case EV_TK_INPUT: return argus_ft_map_input(d, s, cur, body, argus_ft_x_kinds, NULL);
        case EV_GDBUS_SET_SERIAL:
        case EV_LIBDBUS_SET_SERIAL:
            return argus_ft_map_dbus_set_serial(d, s, cur, body, kind == EV_LIBDBUS_SET_SERIAL);
        case EV_DBUS_SET_REPLY_SERIAL: return argus_ft_map_dbus_set_reply_serial(d, s, cur, body);
        case EV_DBUS_FROM_BLOB: return argus_ft_map_dbus_recv(d, s, cur, body, false);
        case EV_DBUS_GET_REPLY_SERIAL: return argus_ft_map_dbus_recv(d, s, cur, body, true);
        case EV_DBUS_SET_SENDER: return argus_ft_map_dbus_set_sender(d, s, cur, body);
        case EV_DBUS_SEND_PREALLOC: return argus_ft_map_dbus_send_prealloc(d, s, cur, body);
        case EV_BINDER_TXN:
        case EV_BINDER_RECV: return argus_ft_map_binder(d, s, cur, body, kind == EV_BINDER_TXN);
        case EV_MARK: return argus_ft_map_mark(d, s, cur, body);
        case EV_OTHER: break;
        }
        return argus_ft_write_raw(d, s, cur);
    }
    /* "sys_foo(a: 1, b: 2)" and "sys_foo -> 0x0" (the syscall tracer of
     * older kernels) */
    if (name.n > 4 && memcmp(name.p, "sys_", 4) == 0 && q < end) {
        if (*q == '(') {
            const char *close = memrchr(q, ')', (size_t)(end - q));
            uint64_t args[6];
            size_t nargs = parse_args((span){q + 1, (size_t)((close ? close : end) - q - 1)},
                                      args);
            write_syscall(d, s, cur, (span){name.p + 4, name.n - 4}, true, args, nargs,
                          false, 0);
            return;
        }
        if (end - q >= 4 && memcmp(q, " -> ", 4) == 0) {
            uint64_t ret = 0;
            bool have = argus_ft_span_hex((span){q + 4, (size_t)(end - q - 4)}, &ret);
            write_syscall(d, s, cur, (span){name.p + 4, name.n - 4}, false, NULL, 0,
                          have, ret);
            return;
        }
    }
    argus_ft_write_raw(d, s, cur);
}
