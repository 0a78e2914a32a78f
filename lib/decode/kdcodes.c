/* The table from kdebug debugids to stream events (include/argus/decode/kdebug.h,
 * docs/inputs/macos.md): built-in entries, extended or overridden by codes
 * files in the trace.codes format with a type column. */
#include "argus/decode/kdebug.h"
#include "argus/stream/cli.h"
#include "argus/stream/table.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* trace(1) prints at most this many characters of a name. */
#define TEXT_NAME_MAX 28

struct argus_kd_codes {
    argus_kd_code *exact;   /* one entry per debugid (lo == hi) */
    size_t nexact, capexact;
    argus_kd_code *ranges;  /* searched newest first */
    size_t nranges, capranges;
    argus_table by_id;      /* debugid >> 2 -> index + 1 in exact */
    argus_table by_name;    /* XXH3 of the first 28 chars -> debugid + 1 */
    /* Whether each exact entry's action came from a type column; the
     * others take their range's action, resolved when a range changes. */
    bool *typed;
};

static const char *const action_names[ARGUS_KD_NACTIONS] = {
    [ARGUS_KD_RAW] = "kdebug",
    [ARGUS_KD_IGNORE] = "ignore",
    [ARGUS_KD_SWITCH] = "switch",
    [ARGUS_KD_WAKEUP] = "wakeup",
    [ARGUS_KD_WAIT] = "wait",
    [ARGUS_KD_INTERRUPT] = "interrupt",
    [ARGUS_KD_MAINTENANCE] = "sched_maintenance",
    [ARGUS_KD_SYSCALL] = "syscall",
    [ARGUS_KD_IPC_SEND] = "ipc_send",
    [ARGUS_KD_IPC_RECV] = "ipc_recv",
    [ARGUS_KD_IPC_FREE] = "ipc_free",
    [ARGUS_KD_KMSG_INFO] = "kmsg_info",
    [ARGUS_KD_VOUCHER] = "voucher_set",
    [ARGUS_KD_TIMER_ARM] = "timer_arm",
    [ARGUS_KD_TIMER_CANCEL] = "timer_cancel",
    [ARGUS_KD_TIMER_FIRE] = "timer_fire",
    [ARGUS_KD_DISPATCH_ENQUEUE] = "dispatch_enqueue",
    [ARGUS_KD_DISPATCH_INVOKE] = "dispatch_invoke",
    [ARGUS_KD_RUNLOOP_SUBMIT] = "runloop_submit",
    [ARGUS_KD_RUNLOOP_INVOKE] = "runloop_invoke",
    [ARGUS_KD_RUNLOOP_PHASE] = "runloop_phase",
    [ARGUS_KD_UI_EVENT] = "ui_event",
    [ARGUS_KD_FLAG_WRITE] = "flag_write",
    [ARGUS_KD_FLAG_READ] = "flag_read",
    [ARGUS_KD_CA_SET] = "ca_set",
    [ARGUS_KD_CA_DISPLAY] = "ca_display",
    [ARGUS_KD_NEW_THREAD] = "new_thread",
    [ARGUS_KD_NEW_THREAD_NAME] = "new_thread_name",
    [ARGUS_KD_EXEC] = "exec",
    [ARGUS_KD_EXEC_NAME] = "exec_name",
    [ARGUS_KD_THREAD_NAME] = "thread_name",
    [ARGUS_KD_LOST] = "lost_events",
    [ARGUS_KD_EVENT] = "event",
};

const char *argus_kd_action_name(argus_kd_action a)
{
    return a < ARGUS_KD_NACTIONS ? action_names[a] : "?";
}

bool argus_kd_code_has_phase(const argus_kd_code *c)
{
    if (c->phase == ARGUS_KD_PHASE_BEGIN || c->phase == ARGUS_KD_PHASE_END)
        return true;
    if (c->phase == ARGUS_KD_PHASE_NONE)
        return false;
    switch (c->action) {
    case ARGUS_KD_INTERRUPT: case ARGUS_KD_MAINTENANCE: case ARGUS_KD_SYSCALL:
    case ARGUS_KD_TIMER_FIRE: case ARGUS_KD_DISPATCH_INVOKE:
    case ARGUS_KD_RUNLOOP_INVOKE: case ARGUS_KD_CA_DISPLAY: case ARGUS_KD_EVENT:
        return true;
    default:
        return false;
    }
}

/* ---- Built-in entries ------------------------------------------------- */

typedef struct builtin {
    uint32_t lo, hi;
    argus_kd_action action;
    argus_kd_phase phase;
    const char *name;
} builtin;

#define BSD_SC(n) (0x040c0000u | ((uint32_t)(n) << 2))
#define MACH_SC(n) (0x010c0000u | ((uint32_t)(n) << 2))

static const builtin builtins[] = {
    /* ranges first: exact entries inside them take their action */
    {BSD_SC(0), BSD_SC(0x3fff), ARGUS_KD_SYSCALL, 0, NULL},
    {MACH_SC(0), MACH_SC(0x7ff), ARGUS_KD_SYSCALL, 0, NULL},
    {0x01400000, 0, ARGUS_KD_SWITCH, 0, "MACH_SCHED"},
    {0x01400008, 0, ARGUS_KD_SWITCH, 0, "MACH_STKHANDOFF"},
    {0x01400018, 0, ARGUS_KD_WAKEUP, 0, "MACH_MKRUNNABLE"},
    {0x0140003c, 0, ARGUS_KD_IGNORE, 0, "MACH_BLOCK"},
    {0x01400040, 0, ARGUS_KD_WAIT, 0, "MACH_WAIT"},
    {0x0140007c, 0, ARGUS_KD_MAINTENANCE, 0, "MACH_SCHED_MAINTENANCE"},
    {0x01050000, 0, ARGUS_KD_INTERRUPT, 0, "INTERRUPT"},
    {0x01200008, 0, ARGUS_KD_VOUCHER, 0, "MACH_thread_set_voucher"},
    {0x0120000c, 0, ARGUS_KD_IPC_SEND, 0, "MACH_IPC_msg_send"},
    {0x01200010, 0, ARGUS_KD_IPC_RECV, 0, "MACH_IPC_msg_recv"},
    {0x01200018, 0, ARGUS_KD_IPC_FREE, 0, "MACH_IPC_kmsg_free"},
    {0x01200028, 0, ARGUS_KD_KMSG_INFO, 0, "MACH_IPC_kmsg_info"},
    {0x01090008, 0, ARGUS_KD_TIMER_FIRE, 0, "TMR_TimerCallIntr"},
    {0x0109001c, 0, ARGUS_KD_TIMER_ARM, 0, "TMR_TimerCallEnter"},
    {0x01090020, 0, ARGUS_KD_TIMER_CANCEL, 0, "TMR_TimerCallCancel"},
    {0x07000004, 0, ARGUS_KD_NEW_THREAD, 0, "TRACE_DATA_NEWTHREAD"},
    {0x07000008, 0, ARGUS_KD_EXEC, 0, "TRACE_DATA_EXEC"},
    {0x07010004, 0, ARGUS_KD_NEW_THREAD_NAME, 0, "TRACE_STRING_NEWTHREAD"},
    {0x07010008, 0, ARGUS_KD_EXEC_NAME, 0, "TRACE_STRING_EXEC"},
    {0x07010010, 0, ARGUS_KD_THREAD_NAME, 0, "TRACE_STRING_THREADNAME"},
    {0x07020008, 0, ARGUS_KD_LOST, 0, "TRACE_LOST_EVENTS"},
    /* libdispatch's introspection build (DISPATCH_TRACE_SUBCLASS 5) */
    {0x2e050014, 0, ARGUS_KD_DISPATCH_ENQUEUE, 0, "DISPATCH_continuation_push_eb"},
    {0x2e050018, 0, ARGUS_KD_DISPATCH_ENQUEUE, 0, "DISPATCH_continuation_push_ab"},
    {0x2e05001c, 0, ARGUS_KD_DISPATCH_ENQUEUE, 0, "DISPATCH_continuation_push_f"},
    {0x2e050024, 0, ARGUS_KD_DISPATCH_INVOKE, ARGUS_KD_PHASE_BEGIN,
     "DISPATCH_continuation_pop"},
    {0x2e05002c, 0, ARGUS_KD_DISPATCH_INVOKE, ARGUS_KD_PHASE_END,
     "DISPATCH_queue_item_done"},
};

/* Common BSD syscalls by number (xnu bsd/kern/syscalls.master); a
 * trace.codes file given with --codes names the rest. */
static const struct { uint16_t n; const char *name; } bsd_syscalls[] = {
    {1, "exit"}, {2, "fork"}, {3, "read"}, {4, "write"}, {5, "open"},
    {6, "close"}, {7, "wait4"}, {9, "link"}, {10, "unlink"}, {12, "chdir"},
    {20, "getpid"}, {27, "recvmsg"}, {28, "sendmsg"}, {29, "recvfrom"},
    {30, "accept"}, {33, "access"}, {37, "kill"}, {42, "pipe"},
    {54, "ioctl"}, {58, "readlink"}, {59, "execve"}, {73, "munmap"},
    {74, "mprotect"}, {75, "madvise"}, {90, "dup2"}, {92, "fcntl"},
    {93, "select"}, {95, "fsync"}, {97, "socket"}, {98, "connect"},
    {104, "bind"}, {105, "setsockopt"}, {106, "listen"},
    {116, "gettimeofday"}, {120, "readv"}, {121, "writev"},
    {128, "rename"}, {131, "flock"}, {133, "sendto"}, {136, "mkdir"},
    {137, "rmdir"}, {153, "pread"}, {154, "pwrite"}, {169, "csops"},
    {187, "fdatasync"}, {188, "stat"}, {189, "fstat"}, {190, "lstat"},
    {197, "mmap"}, {199, "lseek"}, {201, "ftruncate"}, {202, "sysctl"},
    {220, "getattrlist"}, {230, "poll"}, {234, "getxattr"},
    {236, "setxattr"}, {244, "posix_spawn"}, {271, "sem_wait"},
    {273, "sem_post"}, {274, "sysctlbyname"}, {301, "psynch_mutexwait"},
    {302, "psynch_mutexdrop"}, {303, "psynch_cvbroad"},
    {304, "psynch_cvsignal"}, {305, "psynch_cvwait"},
    {306, "psynch_rw_rdlock"}, {307, "psynch_rw_wrlock"},
    {308, "psynch_rw_unlock"}, {334, "__semwait_signal"},
    {336, "proc_info"}, {338, "stat64"}, {339, "fstat64"},
    {340, "lstat64"}, {344, "getdirentries64"}, {360, "bsdthread_create"},
    {361, "bsdthread_terminate"}, {362, "kqueue"}, {363, "kevent"},
    {366, "bsdthread_register"}, {367, "workq_open"},
    {368, "workq_kernreturn"}, {369, "kevent64"}, {372, "thread_selfid"},
    {374, "kevent_qos"}, {375, "kevent_id"}, {396, "read_nocancel"},
    {397, "write_nocancel"}, {398, "open_nocancel"},
    {399, "close_nocancel"}, {400, "wait4_nocancel"},
    {401, "recvmsg_nocancel"}, {402, "sendmsg_nocancel"},
    {403, "recvfrom_nocancel"}, {404, "accept_nocancel"},
    {406, "fcntl_nocancel"}, {407, "select_nocancel"},
    {408, "fsync_nocancel"}, {409, "connect_nocancel"},
    {411, "readv_nocancel"}, {412, "writev_nocancel"},
    {413, "sendto_nocancel"}, {414, "pread_nocancel"},
    {415, "pwrite_nocancel"}, {417, "poll_nocancel"},
    {420, "sem_wait_nocancel"}, {423, "__semwait_signal_nocancel"},
    {461, "getattrlistbulk"}, {463, "openat"}, {464, "openat_nocancel"},
    {469, "fstatat"}, {470, "fstatat64"}, {472, "unlinkat"},
    {480, "recvmsg_x"}, {481, "sendmsg_x"}, {500, "getentropy"},
    {515, "ulock_wait"}, {516, "ulock_wake"}, {530, "kqueue_workloop_ctl"},
    {544, "ulock_wait2"},
};

/* Mach traps by number (xnu bsd/kern/trace_codes, MSC_ names). */
static const struct { uint16_t n; const char *name; } mach_traps[] = {
    {10, "mach_vm_allocate_trap"}, {12, "mach_vm_deallocate_trap"},
    {14, "mach_vm_protect_trap"}, {15, "mach_vm_map_trap"},
    {16, "mach_port_allocate_trap"}, {18, "mach_port_deallocate_trap"},
    {19, "mach_port_mod_refs_trap"}, {21, "mach_port_insert_right_trap"},
    {24, "mach_port_construct_trap"}, {25, "mach_port_destruct_trap"},
    {26, "mach_reply_port"}, {27, "thread_self_trap"},
    {28, "task_self_trap"}, {29, "host_self_trap"}, {31, "mach_msg_trap"},
    {32, "mach_msg_overwrite_trap"}, {33, "semaphore_signal_trap"},
    {34, "semaphore_signal_all_trap"}, {36, "semaphore_wait_trap"},
    {37, "semaphore_wait_signal_trap"}, {38, "semaphore_timedwait_trap"},
    {39, "semaphore_timedwait_signal_trap"}, {47, "mach_msg2_trap"},
    {50, "thread_get_special_reply_port"}, {59, "swtch_pri"},
    {60, "swtch"}, {61, "thread_switch"}, {62, "clock_sleep_trap"},
    {89, "mach_timebase_info"}, {90, "mach_wait_until"},
    {91, "mk_timer_create"}, {92, "mk_timer_destroy"},
    {93, "mk_timer_arm"}, {94, "mk_timer_cancel"},
    {100, "iokit_user_client"},
};

/* ---- Table operations -------------------------------------------------- */

static uint64_t name_key(const char *name, size_t len)
{
    return XXH3_64bits(name, len < TEXT_NAME_MAX ? len : TEXT_NAME_MAX);
}

static const argus_kd_code *range_for(const argus_kd_codes *c, uint32_t id)
{
    for (size_t i = c->nranges; i-- > 0;)
        if (id >= c->ranges[i].lo && id <= c->ranges[i].hi)
            return &c->ranges[i];
    return NULL;
}

/* An untyped exact entry takes the action of the range around it. */
static void resolve(argus_kd_codes *c, size_t i)
{
    if (c->typed[i])
        return;
    const argus_kd_code *r = range_for(c, c->exact[i].lo);
    c->exact[i].action = r ? r->action : ARGUS_KD_RAW;
    c->exact[i].phase = r ? r->phase : ARGUS_KD_PHASE_FUNC;
    free(c->exact[i].type);
    c->exact[i].type = r && r->type ? argus_xstrdup(r->type, "event codes") : NULL;
}

static char *dup_text(const char *s, size_t len)
{
    char *p = argus_xmalloc(len + 1, "event codes");
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

/* Adds or replaces an entry. NAME may be NULL (keeps an old name); TYPE
 * only for ARGUS_KD_EVENT; TYPED false: the action comes from a range. */
static void add_entry(argus_kd_codes *c, uint32_t lo, uint32_t hi,
                      argus_kd_action action, argus_kd_phase phase,
                      const char *name, size_t name_len, const char *type,
                      size_t type_len, bool typed)
{
    lo &= ~ARGUS_KD_FUNC_MASK;
    hi &= ~ARGUS_KD_FUNC_MASK;
    if (lo != hi) {
        if (c->nranges == c->capranges) {
            c->capranges = c->capranges ? c->capranges * 2 : 8;
            c->ranges = argus_xrealloc(c->ranges, c->capranges * sizeof *c->ranges, "event codes");
        }
        argus_kd_code *r = &c->ranges[c->nranges++];
        *r = (argus_kd_code){lo, hi, action, phase,
                             name ? dup_text(name, name_len) : NULL,
                             type ? dup_text(type, type_len) : NULL};
        for (size_t i = 0; i < c->nexact; i++)
            if (c->exact[i].lo >= lo && c->exact[i].lo <= hi)
                resolve(c, i);
        return;
    }
    bool created;
    uint64_t *slot = argus_table_put(&c->by_id, lo >> 2, &created);
    size_t i;
    if (created) {
        if (c->nexact == c->capexact) {
            c->capexact = c->capexact ? c->capexact * 2 : 256;
            c->exact = argus_xrealloc(c->exact, c->capexact * sizeof *c->exact, "event codes");
            c->typed = argus_xrealloc(c->typed, c->capexact * sizeof *c->typed, "event codes");
        }
        i = c->nexact++;
        *slot = i + 1;
        c->exact[i] = (argus_kd_code){lo, lo, ARGUS_KD_RAW, ARGUS_KD_PHASE_FUNC,
                                      NULL, NULL};
        c->typed[i] = false;
    } else {
        i = *slot - 1;
    }
    argus_kd_code *e = &c->exact[i];
    if (name) {
        free(e->name);
        e->name = dup_text(name, name_len);
        uint64_t *id = argus_table_put(&c->by_name, name_key(name, name_len),
                                       &created);
        *id = (uint64_t)lo + 1;
    }
    if (typed) {
        c->typed[i] = true;
        e->action = action;
        e->phase = phase;
        free(e->type);
        e->type = type ? dup_text(type, type_len) : NULL;
    } else {
        resolve(c, i);
    }
}

argus_kd_codes *argus_kd_codes_default(void)
{
    argus_kd_codes *c = argus_xcalloc(1, sizeof *c, "event codes");
    argus_table_init(&c->by_id, sizeof(uint64_t));
    argus_table_init(&c->by_name, sizeof(uint64_t));
    char name[64];
    for (size_t i = 0; i < sizeof builtins / sizeof *builtins; i++) {
        const builtin *b = &builtins[i];
        add_entry(c, b->lo, b->hi ? b->hi : b->lo, b->action, b->phase, b->name,
                  b->name ? strlen(b->name) : 0, NULL, 0, true);
    }
    for (size_t i = 0; i < sizeof bsd_syscalls / sizeof *bsd_syscalls; i++) {
        int n = snprintf(name, sizeof name, "BSC_%s", bsd_syscalls[i].name);
        add_entry(c, BSD_SC(bsd_syscalls[i].n), BSD_SC(bsd_syscalls[i].n), 0, 0,
                  name, (size_t)n, NULL, 0, false);
    }
    for (size_t i = 0; i < sizeof mach_traps / sizeof *mach_traps; i++) {
        int n = snprintf(name, sizeof name, "MSC_%s", mach_traps[i].name);
        add_entry(c, MACH_SC(mach_traps[i].n), MACH_SC(mach_traps[i].n), 0, 0,
                  name, (size_t)n, NULL, 0, false);
    }
    return c;
}

void argus_kd_codes_free(argus_kd_codes *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nexact; i++) {
        free(c->exact[i].name);
        free(c->exact[i].type);
    }
    for (size_t i = 0; i < c->nranges; i++) {
        free(c->ranges[i].name);
        free(c->ranges[i].type);
    }
    free(c->exact);
    free(c->typed);
    free(c->ranges);
    argus_table_free(&c->by_id);
    argus_table_free(&c->by_name);
    free(c);
}

const argus_kd_code *argus_kd_code_find(const argus_kd_codes *c, uint32_t debugid)
{
    const uint64_t *slot = argus_table_get(&c->by_id, debugid >> 2);
    if (slot)
        return &c->exact[*slot - 1];
    return range_for(c, debugid & ~ARGUS_KD_FUNC_MASK);
}

bool argus_kd_code_by_name(const argus_kd_codes *c, const char *name, size_t len,
                           uint32_t *debugid)
{
    const uint64_t *id = argus_table_get(&c->by_name, name_key(name, len));
    if (!id)
        return false;
    /* the hash names a debugid; its entry's name must agree */
    const argus_kd_code *e = argus_kd_code_find(c, (uint32_t)(*id - 1));
    if (!e || !e->name)
        return false;
    size_t elen = strlen(e->name);
    if (len >= TEXT_NAME_MAX ? elen < TEXT_NAME_MAX || memcmp(e->name, name, TEXT_NAME_MAX) != 0
                             : elen != len || memcmp(e->name, name, len) != 0)
        return false;
    *debugid = (uint32_t)(*id - 1);
    return true;
}

const char *argus_kd_code_name(const argus_kd_codes *c, uint32_t debugid,
                               char *buf, size_t buflen)
{
    return argus_kd_entry_name(argus_kd_code_find(c, debugid), debugid, buf, buflen);
}

const char *argus_kd_entry_name(const argus_kd_code *e, uint32_t debugid,
                                char *buf, size_t buflen)
{
    if (!e)
        return NULL;
    if (e->lo == e->hi && e->name) {
        /* a syscall is named without its BSC_/MSC_ prefix */
        if (e->action == ARGUS_KD_SYSCALL &&
            (strncmp(e->name, "BSC_", 4) == 0 || strncmp(e->name, "MSC_", 4) == 0))
            return e->name + 4;
        return e->name;
    }
    if (e->action == ARGUS_KD_SYSCALL) {
        unsigned num = (debugid >> 2) & 0x3fff;
        snprintf(buf, buflen, "%s_%u", ARGUS_KD_CLASS(debugid) == 1 ? "mach" : "bsd", num);
        return buf;
    }
    return e->name;
}

/* ---- Codes files -------------------------------------------------------- */

static int set_err(char *err, size_t errlen, const char *what)
{
    snprintf(err, errlen, "%s", what);
    return -1;
}

/* A 0x-prefixed hex debugid at *p; advances *p. */
static bool parse_hex(const char **p, const char *end, uint32_t *out)
{
    const char *s = *p;
    if (end - s < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
        return false;
    s += 2;
    uint64_t v = 0;
    const char *digits = s;
    while (s < end && isxdigit((unsigned char)*s)) {
        v = v * 16 + (uint64_t)(isdigit((unsigned char)*s) ? *s - '0'
                                : (tolower((unsigned char)*s) - 'a' + 10));
        if (v > 0xffffffffu)
            return false;
        s++;
    }
    if (s == digits)
        return false;
    *out = (uint32_t)v;
    *p = s;
    return true;
}

static const char *skip_space(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
        p++;
    return p;
}

static const char *word_end(const char *p, const char *end)
{
    while (p < end && *p != ' ' && *p != '\t' && *p != '\r')
        p++;
    return p;
}

int argus_kd_codes_line(argus_kd_codes *c, const char *line, size_t len,
                        char *err, size_t errlen)
{
    const char *p = line, *end = line + len;
    p = skip_space(p, end);
    if (p == end || *p == '#')
        return 0;
    uint32_t lo, hi;
    if (!parse_hex(&p, end, &lo))
        return set_err(err, errlen, "expected a debugid (0x...) first");
    hi = lo;
    if (p < end && *p == '-') {
        p++;
        if (!parse_hex(&p, end, &hi) || hi < lo)
            return set_err(err, errlen, "a range is 0xLO-0xHI with LO <= HI");
    }
    if (p < end && *p != ' ' && *p != '\t' && *p != '\r')
        return set_err(err, errlen, "the debugid is not followed by a space");
    p = skip_space(p, end);
    const char *name = p;
    p = word_end(p, end);
    size_t name_len = (size_t)(p - name);
    p = skip_space(p, end);
    if (p < end && *p == '#') /* a comment after the name */
        p = end;
    const char *type = p;
    p = word_end(p, end);
    size_t type_len = (size_t)(p - type);
    p = skip_space(p, end);
    if (p != end && *p != '#')
        return set_err(err, errlen, "more than three columns (debugid, name, type)");
    if (name_len == 0)
        return set_err(err, errlen, "a name must follow the debugid");
    for (size_t i = 0; i < name_len; i++)
        if ((unsigned char)name[i] >= 0x80 || name[i] == 0)
            return set_err(err, errlen, "the name is not ASCII");
    if (type_len == 0) {
        add_entry(c, lo, hi, ARGUS_KD_RAW, ARGUS_KD_PHASE_FUNC, name, name_len,
                  NULL, 0, lo != hi);
        return 0;
    }
    argus_kd_phase phase = ARGUS_KD_PHASE_FUNC;
    const char *colon = memchr(type, ':', type_len);
    if (colon) {
        const char *ph = colon + 1;
        size_t ph_len = type_len - (size_t)(ph - type);
        if (ph_len == 5 && memcmp(ph, "begin", 5) == 0)
            phase = ARGUS_KD_PHASE_BEGIN;
        else if (ph_len == 3 && memcmp(ph, "end", 3) == 0)
            phase = ARGUS_KD_PHASE_END;
        else if (ph_len == 4 && memcmp(ph, "none", 4) == 0)
            phase = ARGUS_KD_PHASE_NONE;
        else
            return set_err(err, errlen, "a phase is :begin, :end or :none");
        type_len = (size_t)(colon - type);
    }
    if (type_len == 0)
        return set_err(err, errlen, "an empty type before ':'");
    argus_kd_action action = ARGUS_KD_EVENT;
    for (int a = 0; a < ARGUS_KD_NACTIONS; a++)
        if (a != ARGUS_KD_EVENT && strlen(action_names[a]) == type_len &&
            memcmp(action_names[a], type, type_len) == 0)
            action = (argus_kd_action)a;
    for (size_t i = 0; i < type_len; i++)
        if (!isalnum((unsigned char)type[i]) && type[i] != '_')
            return set_err(err, errlen, "a type is letters, digits and '_'");
    if (action == ARGUS_KD_EVENT) {
        int t = argus_type_lookup(type, type_len);
        if (t == ARGUS_T_STREAM || t == ARGUS_T_THREAD || t == ARGUS_T_EDGE)
            return set_err(err, errlen, "the type names a stream record, not an event");
    }
    add_entry(c, lo, hi, action, phase, name, name_len,
              action == ARGUS_KD_EVENT ? type : NULL, type_len, true);
    return 0;
}

int argus_kd_codes_load(argus_kd_codes *c, const char *path, char *err,
                        size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    unsigned long lineno = 0;
    int rc = 0;
    char what[160];
    while ((n = getline(&line, &cap, f)) >= 0) {
        lineno++;
        size_t len = (size_t)n;
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            len--;
        if (argus_kd_codes_line(c, line, len, what, sizeof what) < 0) {
            snprintf(err, errlen, "%s:%lu: %s", path, lineno, what);
            rc = -1;
            break;
        }
    }
    free(line);
    fclose(f);
    return rc;
}
