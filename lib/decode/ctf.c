/* CTF traces to an argus stream (include/argus/decode/ctf.h): libbabeltrace2
 * reads the directory (source.ctf.fs, its streams merged in time order by
 * filter.utils.muxer), each event becomes the ftrace text line tracefs
 * prints for it, and the ftrace text decoder maps the lines. LTTng's
 * events carry no thread unless contexts were added, so the task each
 * CPU runs is followed through sched_switch, and the pids come from the
 * statedump's process table and sched_process_fork (docs/inputs/ctf.md).
 * One concern, CTF through babeltrace2, at 1.3k lines: the graph's set-up,
 * the trial child that guards against babeltrace2's aborts, and the
 * rendering of LTTng's and perf's event names. */
#include "argus/decode/ctf.h"
#include "argus/stream/cli.h"
#include "argus/stream/table.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <babeltrace2/babeltrace.h>

/* ---- Telling a CTF trace ------------------------------------------------ */

/* CTF 2 metadata (LTTng 2.15's default format): a JSON text sequence,
 * each fragment after an RS byte (0x1e), the first a preamble. */
static bool ctf2_metadata(const uint8_t *buf, size_t len)
{
    size_t i = 1;
    if (len < 2 || buf[0] != 0x1e)
        return false;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
        i++;
    return i < len && buf[i] == '{' && memmem(buf + i, len - i, "\"preamble\"", 10);
}

bool argus_ctf_sniff(const uint8_t *buf, size_t len)
{
    static const uint8_t le[4] = {0x57, 0x1d, 0xd1, 0x75}, be[4] = {0x75, 0xd1, 0x1d, 0x57};
    if (len >= 4 && (memcmp(buf, le, 4) == 0 || memcmp(buf, be, 4) == 0))
        return true;
    return (len >= 10 && memcmp(buf, "/* CTF 1.", 9) == 0) || ctf2_metadata(buf, len);
}

/* The first bytes of PATH (up to SIZE), 0 when it does not open. */
static size_t file_head(const char *path, uint8_t *head, size_t size)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, head, size);
    close(fd);
    return n > 0 ? (size_t)n : 0;
}

static bool metadata_file(const char *path)
{
    uint8_t head[256];
    size_t n = file_head(path, head, sizeof head);
    return n > 0 && argus_ctf_sniff(head, n);
}

/* The directories under DIR (itself included, DEPTH levels down) that
 * hold a CTF trace: source.ctf.fs reads a trace's own directory, and an
 * LTTng session's directory holds kernel/ (and ust/...). Each path is
 * added to LIST when it is not NULL; returns how many. */
#define MAX_TRACES 64
static int find_traces(const char *dir, int depth, bt_value *list)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/metadata", dir) < (int)sizeof path &&
        metadata_file(path)) {
        if (list && bt_value_array_append_string_element(list, dir) !=
                        BT_VALUE_ARRAY_APPEND_ELEMENT_STATUS_OK)
            abort(); /* the trial child runs this too: ctf_trial */
        return 1; /* a trace's directory: its own subdirectories are its index */
    }
    if (depth == 0)
        return 0;
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort), found = 0;
    if (n < 0)
        return 0;
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (names[i]->d_name[0] != '.' && found < MAX_TRACES &&
            snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name) < (int)sizeof path &&
            stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            found += find_traces(path, depth - 1, list);
        free(names[i]);
    }
    free(names);
    return found;
}

bool argus_ctf_dir(const char *dir)
{
    return find_traces(dir, 4, NULL) > 0;
}

/* The first trace under DIR whose metadata is CTF 2, into PATH; false when
 * none is. */
static bool find_ctf2(const char *dir, int depth, char *path, size_t size)
{
    uint8_t head[256];
    if (snprintf(path, size, "%s/metadata", dir) < (int)size) {
        size_t n = file_head(path, head, sizeof head);
        if (n && argus_ctf_sniff(head, n))
            return ctf2_metadata(head, n);
    }
    if (depth == 0)
        return false;
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    bool found = false;
    char sub[4096];
    struct stat st;
    for (int i = 0; i < n; i++) {
        if (!found && names[i]->d_name[0] != '.' &&
            snprintf(sub, sizeof sub, "%s/%s", dir, names[i]->d_name) < (int)sizeof sub &&
            stat(sub, &st) == 0 && S_ISDIR(st.st_mode))
            found = find_ctf2(sub, depth - 1, path, size);
        free(names[i]);
    }
    if (n >= 0)
        free(names);
    return found;
}

/* ---- An event, flattened --------------------------------------------------- */

/* The fields of an event the rendering reads: the payload's members in
 * order, then its contexts' (LTTng's tid, pid, procname) and the packet
 * context's cpu_id. */
enum { F_UINT, F_INT, F_STR, F_REAL, F_OTHER };
#define MAX_FIELDS 48
#define MAX_ARRAY 6

typedef struct ctf_field {
    const char *name;
    const char *bare;      /* the name without CTF 1.8's leading underscore
                            * (LTTng's contexts are _tid, _pid, _procname) */
    int kind;
    bool hex;              /* the metadata's display base is 16 */
    bool payload;          /* a payload member (not a context's) */
    uint64_t u;            /* F_UINT, F_INT (two's complement) */
    double real;
    const char *s;         /* F_STR */
    uint64_t arr[MAX_ARRAY]; /* an array or sequence of integers */
    unsigned narr;
    bool is_array;
} ctf_field;

typedef struct ctf_event {
    const char *name;
    uint64_t ts;
    uint32_t cpu;
    ctf_field f[MAX_FIELDS];
    unsigned n;
} ctf_event;

/* A field by its name, with or without a leading underscore; the
 * payload's first. */
static const ctf_field *get(const ctf_event *e, const char *name)
{
    for (unsigned i = 0; i < e->n; i++)
        if (e->f[i].bare[0] == name[0] && strcmp(e->f[i].bare, name) == 0)
            return &e->f[i];
    return NULL;
}

static bool get_int(const ctf_event *e, const char *name, uint64_t *v)
{
    const ctf_field *f = get(e, name);
    if (!f || (f->kind != F_UINT && f->kind != F_INT))
        return false;
    *v = f->u;
    return true;
}

static const char *get_str(const ctf_event *e, const char *name)
{
    const ctf_field *f = get(e, name);
    return f && f->kind == F_STR ? f->s : NULL;
}

static void add_field(ctf_event *e, const char *name, const bt_field *field, bool payload)
{
    if (e->n == MAX_FIELDS || !name)
        return;
    ctf_field *f = &e->f[e->n];
    *f = (ctf_field){.name = name, .bare = name + (name[0] == '_'), .kind = F_OTHER,
                     .payload = payload};
    const bt_field_class *fc = bt_field_borrow_class_const(field);
    bt_field_class_type t = bt_field_get_class_type(field);
    if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER)) {
        f->kind = F_UINT;
        f->u = bt_field_integer_unsigned_get_value(field);
        f->hex = bt_field_class_integer_get_preferred_display_base(fc) ==
                 BT_FIELD_CLASS_INTEGER_PREFERRED_DISPLAY_BASE_HEXADECIMAL;
    } else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)) {
        f->kind = F_INT;
        f->u = (uint64_t)bt_field_integer_signed_get_value(field);
        f->hex = bt_field_class_integer_get_preferred_display_base(fc) ==
                 BT_FIELD_CLASS_INTEGER_PREFERRED_DISPLAY_BASE_HEXADECIMAL;
    } else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_STRING)) {
        f->kind = F_STR;
        f->s = bt_field_string_get_value(field);
        if (!f->s)
            f->s = "";
    } else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_BOOL)) {
        f->kind = F_UINT;
        f->u = bt_field_bool_get_value(field);
    } else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_REAL)) {
        f->kind = F_REAL;
        f->real = bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL)
                      ? bt_field_real_single_precision_get_value(field)
                      : bt_field_real_double_precision_get_value(field);
    } else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_ARRAY)) {
        /* raw_syscalls' args[6]: the first integers kept */
        f->is_array = true;
        uint64_t len = bt_field_array_get_length(field);
        for (uint64_t i = 0; i < len && f->narr < MAX_ARRAY; i++) {
            const bt_field *el = bt_field_array_borrow_element_field_by_index_const(field, i);
            bt_field_class_type et = bt_field_get_class_type(el);
            if (bt_field_class_type_is(et, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
                f->arr[f->narr++] = bt_field_integer_unsigned_get_value(el);
            else if (bt_field_class_type_is(et, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
                f->arr[f->narr++] = (uint64_t)bt_field_integer_signed_get_value(el);
            else
                break;
        }
    }
    e->n++;
}

/* The members of the structure S (a context, the payload). */
static void add_struct(ctf_event *e, const bt_field *s, bool payload)
{
    if (!s || bt_field_get_class_type(s) != BT_FIELD_CLASS_TYPE_STRUCTURE)
        return;
    const bt_field_class *fc = bt_field_borrow_class_const(s);
    uint64_t n = bt_field_class_structure_get_member_count(fc);
    for (uint64_t i = 0; i < n; i++) {
        const bt_field_class_structure_member *m =
            bt_field_class_structure_borrow_member_by_index_const(fc, i);
        add_field(e, bt_field_class_structure_member_get_name(m),
                  bt_field_structure_borrow_member_field_by_index_const(s, i), payload);
    }
}

/* ---- The reader's state ---------------------------------------------------- */

#define COMM_MAX 64
#define CPU_MAX 8192       /* cpus followed (a damaged packet may say any) */
#define LINE_CAP 65536     /* a rendered line (strings are cut to fit) */

/* What the trace tells of a thread: its process (the statedump, a fork, a
 * pid context), the statedump's parent and kernel mark, its name. */
typedef struct proc_entry {
    int64_t pid, ppid;     /* -1: not known */
    int kernel;            /* -1: not known */
    char comm[COMM_MAX];
} proc_entry;

typedef struct cpu_task {
    int64_t tid;           /* -1: not known yet */
    char comm[COMM_MAX];
} cpu_task;

typedef struct ctf_reader {
    argus_ft *d;
    bool prescan;          /* the first pass */
    bool trial;            /* a trial in a child (ctf_trial): messages only */
    int rc;                /* -2 once argus_ft_line failed */
    argus_table procs;     /* tid -> proc_entry */
    cpu_task *cpus;        /* the task each cpu runs now */
    cpu_task *first;       /* the first pass: who ran before each cpu's first switch */
    uint32_t ncpus;
    unsigned state_bits;   /* prev_state's state bits, the preemption mark above
                            * them: 8 (4.14 on, TASK_REPORT), else 10, 11, 12 */
    bool env_read;
    struct stream_cpu { const bt_stream *s; uint32_t cpu; } streams[64];
    unsigned nstreams;
    bool have_first, epoch; /* the first event's time, and whether the
                             * clock counts from the Unix epoch (LTTng's) */
    uint64_t first_ts;
    uint64_t n_read;       /* events read in this pass */
    uint64_t last_ts;      /* the last one's time, ns from the clock's origin */
    char last_file[512];   /* its stream's name (source.ctf.fs: the file) */
    ctf_event event;       /* the event being rendered */
    char line[LINE_CAP];
    size_t len;
} ctf_reader;

static void put(ctf_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(ctf_reader *r, const char *fmt, ...)
{
    if (r->len >= LINE_CAP - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(r->line + r->len, LINE_CAP - r->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        r->len += (size_t)n < LINE_CAP - r->len ? (size_t)n : LINE_CAP - 1 - r->len;
}

/* Appenders without printf's parsing (a line is built per event). */
static void put_n(ctf_reader *r, const char *s, size_t n)
{
    if (n > LINE_CAP - 1 - r->len)
        n = LINE_CAP - 1 - r->len;
    memcpy(r->line + r->len, s, n);
    r->len += n;
    r->line[r->len] = '\0';
}
static void put_s(ctf_reader *r, const char *s) { put_n(r, s, strlen(s)); }

/* V in BASE (10 or 16), at least WIDTH digits wide: FILL ('0' or ' ')
 * before it, or spaces after it when LEFT. */
static void put_num(ctf_reader *r, uint64_t v, unsigned base, int width, char fill, bool left)
{
    char d[24];
    int n = 0;
    if (base == 16) {
        do {
            d[n++] = "0123456789abcdef"[v & 15];
            v >>= 4;
        } while (v);
    } else {
        do { /* a constant divisor: no division instruction */
            d[n++] = (char)('0' + v % 10);
            v /= 10;
        } while (v);
    }
    char out[64];
    int o = 0;
    for (int k = n; !left && k < width && o < 40; k++)
        out[o++] = fill;
    while (n)
        out[o++] = d[--n];
    while (left && o < width && o < 40)
        out[o++] = ' ';
    put_n(r, out, (size_t)o);
}
static void put_u(ctf_reader *r, uint64_t v) { put_num(r, v, 10, 0, ' ', false); }
static void put_i(ctf_reader *r, int64_t v)
{
    if (v < 0) {
        put_n(r, "-", 1);
        put_u(r, (uint64_t)0 - (uint64_t)v);
    } else {
        put_u(r, (uint64_t)v);
    }
}
static void put_x(ctf_reader *r, uint64_t v)
{
    put_n(r, "0x", 2);
    put_num(r, v, 16, 0, ' ', false);
}

/* A string field's text on one line: control characters (a newline would
 * start another line) as '?', at most MAX bytes. */
static void put_text(ctf_reader *r, const char *s, size_t max)
{
    for (size_t i = 0; s[i] && i < max && r->len < LINE_CAP - 1; i++)
        r->line[r->len++] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
    r->line[r->len] = '\0';
}

static void copy_comm(char *to, const char *from)
{
    size_t i = 0;
    for (; from[i] && i < COMM_MAX - 1; i++)
        to[i] = (unsigned char)from[i] < 0x20 ? '?' : from[i];
    to[i] = '\0';
}

static proc_entry *proc(ctf_reader *r, uint64_t tid)
{
    bool created;
    proc_entry *p = argus_table_put(&r->procs, tid, &created);
    if (created)
        *p = (proc_entry){.pid = -1, .ppid = -1, .kernel = -1};
    return p;
}

static void learn_comm(ctf_reader *r, uint64_t tid, const char *comm)
{
    if (comm && *comm && tid != 0)
        copy_comm(proc(r, tid)->comm, comm);
}

static cpu_task *cpu_of(ctf_reader *r, uint32_t cpu)
{
    if (cpu >= CPU_MAX)
        return NULL;
    if (cpu >= r->ncpus) {
        uint32_t n = cpu + 1 > 2 * r->ncpus ? cpu + 1 : 2 * r->ncpus;
        /* events are rendered in this process only, never in the trial
         * child: out of memory can end the program */
        r->cpus = argus_xrealloc(r->cpus, n * sizeof *r->cpus, "CPU tasks");
        r->first = argus_xrealloc(r->first, n * sizeof *r->first, "CPU tasks");
        for (uint32_t i = r->ncpus; i < n; i++)
            r->cpus[i] = r->first[i] = (cpu_task){.tid = -1};
        r->ncpus = n;
    }
    return &r->cpus[cpu];
}

/* ---- Rendering --------------------------------------------------------- */

/* prev_state as the kernel prints it: since 4.14 (TASK_REPORT) bits S D T
 * t X Z P I and 0x100 the preemption mark ("R+"); before, the task's
 * state, bits S D T t X Z x K W P (N from 4.2, n from 4.8) under
 * TASK_STATE_MAX, the mark: 1024, 2048 from 4.2, 4096 from 4.8. */
static void put_state(ctf_reader *r, uint64_t v)
{
    static const char *const report[] = {"S", "D", "T", "t", "X", "Z", "P", "I"};
    static const char *const old[] = {"S", "D", "T", "t", "X", "Z", "x", "K", "W", "P", "N", "n"};
    const char *const *names = r->state_bits == 8 ? report : old;
    unsigned nbits = r->state_bits;
    uint64_t mark = (uint64_t)1 << nbits;
    uint64_t bits = v & (mark - 1);
    if (!bits) {
        put_n(r, "R", 1);
    } else {
        bool first = true;
        for (unsigned b = 0; b < nbits; b++)
            if (bits >> b & 1) {
                if (!first)
                    put_n(r, "|", 1);
                put_s(r, names[b]);
                first = false;
            }
    }
    if (v & mark)
        put_n(r, "+", 1);
}

static void put_value(ctf_reader *r, const ctf_field *f, bool hex)
{
    switch (f->kind) {
    case F_UINT:
        if (hex || f->hex)
            put_x(r, f->u);
        else
            put_u(r, f->u);
        break;
    case F_INT:
        if (hex || f->hex)
            put_x(r, f->u);
        else
            put_i(r, (int64_t)f->u);
        break;
    case F_STR: put_text(r, f->s, 4096); break;
    case F_REAL: put(r, "%g", f->real); break;
    default:
        if (f->is_array) {
            put(r, "{");
            for (unsigned i = 0; i < f->narr; i++)
                put(r, "%s0x%llx", i ? "," : "", (unsigned long long)f->arr[i]);
            put(r, "}");
        } else {
            put(r, "?");
        }
    }
}

/* A member the body leaves out: a sequence's length (LTTng's _NAME_length),
 * perf's sample fields and the tracepoint's common ones. */
static bool hidden(const ctf_field *f)
{
    return !f->payload || f->name[0] == '_' || strncmp(f->name, "perf_", 5) == 0 ||
           strncmp(f->name, "common_", 7) == 0;
}

/* The payload as "key=value ..." (tracefs's form for most events), LTTng's
 * tid fields named as the kernel's (pid). */
static void put_fields(ctf_reader *r, const ctf_event *e)
{
    bool first = true, has_pid = false;
    for (unsigned i = 0; i < e->n; i++)
        has_pid |= e->f[i].payload && strcmp(e->f[i].name, "pid") == 0;
    for (unsigned i = 0; i < e->n; i++) {
        const ctf_field *f = &e->f[i];
        if (hidden(f))
            continue;
        const char *name = f->name;
        if (!has_pid && strcmp(name, "tid") == 0)
            name = "pid";
        else if (strcmp(name, "old_tid") == 0)
            name = "old_pid";
        if (!first)
            put_n(r, " ", 1);
        put_s(r, name);
        put_n(r, "=", 1);
        put_value(r, f, false);
        first = false;
    }
}

/* Syscall arguments as tracefs prints them ("fd: 0x3, buf: 0x7f.."). */
static void put_args(ctf_reader *r, const ctf_event *e)
{
    bool first = true;
    for (unsigned i = 0; i < e->n; i++) {
        const ctf_field *f = &e->f[i];
        if (hidden(f) || f->is_array)
            continue;
        if (!first)
            put_n(r, ", ", 2);
        put_s(r, f->name);
        put_n(r, ": ", 2);
        if (f->kind == F_STR) {
            put_n(r, "\"", 1);
            put_text(r, f->s, 1024);
            put_n(r, "\"", 1);
        } else {
            put_value(r, f, true);
        }
        first = false;
    }
}

static const char *const softirq_names[] = {"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
                                            "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU"};

/* An integer of a context (not the payload), by name with or without
 * CTF 1.8's leading underscore. */
static bool context_int(const ctf_event *e, const char *name, uint64_t *v)
{
    for (unsigned i = 0; i < e->n; i++) {
        const ctf_field *f = &e->f[i];
        if (!f->payload && (f->kind == F_UINT || f->kind == F_INT) &&
            strcmp(f->bare, name) == 0) {
            *v = f->u;
            return true;
        }
    }
    return false;
}

/* The event's process when a context or perf's sample fields name it. */
static bool context_pid(const ctf_event *e, uint64_t *pid)
{
    return get_int(e, "perf_pid", pid) || context_int(e, "pid", pid);
}

/* The head "COMM-TID (PID) [CPU] FLAGS SECONDS.NS: NAME: ". */
static void put_head(ctf_reader *r, const ctf_event *e, uint64_t tid, const char *comm,
                     const char *name)
{
    const proc_entry *p = tid ? argus_table_get(&r->procs, tid) : NULL;
    uint64_t pid;
    if (!comm || !*comm)
        comm = tid == 0 ? "<idle>" : p && p->comm[0] ? p->comm : "<...>";
    r->len = 0;
    size_t cl = strlen(comm);
    for (size_t k = cl; k < 16; k++)
        put_n(r, " ", 1);
    put_n(r, comm, cl);
    put_n(r, "-", 1);
    put_num(r, tid, 10, 7, ' ', true);
    bool have_pid = context_pid(e, &pid);
    if (!have_pid && (tid == 0 || (p && p->pid >= 0))) {
        have_pid = true;
        pid = tid == 0 ? 0 : (uint64_t)p->pid;
    }
    if (have_pid) {
        put_n(r, " (", 2);
        put_num(r, pid, 10, 7, ' ', false);
        put_n(r, ")", 1);
    }
    put_n(r, " [", 2);
    put_num(r, e->cpu, 10, 3, '0', false);
    put_n(r, "] ", 2);
    /* perf's tracepoint flags: irqs off, need-resched, hardirq/softirq, preempt depth */
    uint64_t flags, preempt = 0;
    if (get_int(e, "common_flags", &flags)) {
        get_int(e, "common_preempt_count", &preempt);
        bool hard = flags & 0x08, soft = flags & 0x10;
        put(r, "%c%c%c%c ", flags & 0x01 ? 'd' : '.', flags & 0x04 ? 'N' : '.',
            hard && soft ? 'H' : hard ? 'h' : soft ? 's' : '.',
            preempt & 0xf ? "0123456789abcdef"[preempt & 0xf] : '.');
    }
    put_u(r, e->ts / 1000000000u);
    put_n(r, ".", 1);
    put_num(r, e->ts % 1000000000u, 10, 9, '0', false);
    put_n(r, ": ", 2);
    put_s(r, name);
    put_n(r, ": ", 2);
}

/* The event's own thread when a context or perf's sample fields name it. */
static bool context_tid(const ctf_event *e, uint64_t *tid)
{
    return get_int(e, "perf_tid", tid) || context_int(e, "tid", tid);
}

static void line_out(ctf_reader *r)
{
    if (r->rc < 0)
        return;
    if (r->prescan)
        argus_ft_prescan_line(r->d, r->line, r->len);
    else if (argus_ft_line(r->d, r->line, r->len) < 0)
        r->rc = -2;
}

/* The trace's kernel, from its environment: LTTng's kernel_release, perf's
 * release. */
static void read_env(ctf_reader *r, const bt_event *event)
{
    r->env_read = true;
    const bt_stream *s = bt_event_borrow_stream_const(event);
    const bt_trace *t = s ? bt_stream_borrow_trace_const(s) : NULL;
    if (!t)
        return;
    const bt_value *v = bt_trace_borrow_environment_entry_value_by_name_const(t, "kernel_release");
    if (!v)
        v = bt_trace_borrow_environment_entry_value_by_name_const(t, "release");
    if (!v || !bt_value_is_string(v))
        return;
    unsigned major = 0, minor = 0;
    if (sscanf(bt_value_string_get(v), "%u.%u", &major, &minor) == 2 && major < 5) {
        unsigned version = major * 100 + minor;
        r->state_bits = version >= 414 ? 8 : version >= 408 ? 12 : version >= 402 ? 11 : 10;
    }
}

/* One event: its line, and what it tells of threads. */
static void render(ctf_reader *r, const ctf_event *e)
{
    const char *name = e->name;
    const char *colon = strchr(name, ':'); /* perf: "sched:sched_switch" */
    if (colon)
        name = colon + 1;
    cpu_task *c = cpu_of(r, e->cpu);
    uint64_t tid = 0, v;
    const char *comm = NULL;
    if (context_tid(e, &tid))
        comm = get_str(e, "procname");
    else if (c && c->tid >= 0)
        tid = (uint64_t)c->tid, comm = c->comm;
    char buf[96];

    if (strncmp(name, "lttng_statedump_", 16) == 0) {
        /* the process table: taken in the first pass, no line */
        if (r->prescan && strcmp(name + 16, "process_state") == 0 && get_int(e, "tid", &v)) {
            proc_entry *p = proc(r, v);
            uint64_t x;
            if (get_int(e, "pid", &x))
                p->pid = (int64_t)x;
            if (get_int(e, "ppid", &x))
                p->ppid = (int64_t)x;
            if (get_int(e, "type", &x))
                p->kernel = x == 1; /* LTTNG_KERNEL_THREAD */
            if (get_str(e, "name") && v != 0)
                copy_comm(p->comm, get_str(e, "name"));
        }
        return;
    }
    if (strcmp(name, "sched_switch") == 0) {
        uint64_t prev, next, state = 0;
        const char *pc = get_str(e, "prev_comm"), *nc = get_str(e, "next_comm");
        if ((get_int(e, "prev_tid", &prev) || get_int(e, "prev_pid", &prev)) &&
            (get_int(e, "next_tid", &next) || get_int(e, "next_pid", &next))) {
            uint64_t pp = 0, np = 0;
            get_int(e, "prev_prio", &pp);
            get_int(e, "next_prio", &np);
            get_int(e, "prev_state", &state);
            put_head(r, e, prev, pc, name);
            put_s(r, "prev_comm=");
            put_text(r, pc ? pc : "", COMM_MAX);
            put_s(r, " prev_pid=");
            put_u(r, prev);
            put_s(r, " prev_prio=");
            put_i(r, (int64_t)pp);
            put_s(r, " prev_state=");
            put_state(r, state);
            put_s(r, " ==> next_comm=");
            put_text(r, nc ? nc : "", COMM_MAX);
            put_s(r, " next_pid=");
            put_u(r, next);
            put_s(r, " next_prio=");
            put_i(r, (int64_t)np);
            line_out(r);
            learn_comm(r, prev, pc);
            learn_comm(r, next, nc);
            if (c) {
                if (r->prescan && r->first[e->cpu].tid < 0 && c->tid < 0) {
                    r->first[e->cpu].tid = (int64_t)prev;
                    copy_comm(r->first[e->cpu].comm, pc ? pc : "");
                }
                c->tid = (int64_t)next;
                copy_comm(c->comm, nc ? nc : "");
            }
            return;
        }
    } else if (strncmp(name, "sched_wak", 9) == 0 && (get_int(e, "tid", &v) || get_int(e, "pid", &v))) {
        /* sched_waking, sched_wakeup, sched_wakeup_new */
        const char *wc = get_str(e, "comm");
        uint64_t prio = 0, target = e->cpu, success;
        get_int(e, "prio", &prio);
        get_int(e, "target_cpu", &target);
        put_head(r, e, tid, comm, name);
        put_s(r, "comm=");
        put_text(r, wc ? wc : "", COMM_MAX);
        put_s(r, " pid=");
        put_u(r, v);
        put_s(r, " prio=");
        put_i(r, (int64_t)prio);
        put_s(r, " target_cpu=");
        put_num(r, target, 10, 3, '0', false);
        if (get_int(e, "success", &success))
            put(r, " success=%llu", (unsigned long long)success);
        line_out(r);
        learn_comm(r, v, wc);
        return;
    } else if (strcmp(name, "sched_process_fork") == 0) {
        uint64_t parent, child, child_pid;
        const char *pc = get_str(e, "parent_comm"), *cc = get_str(e, "child_comm");
        bool lttng = get_int(e, "child_tid", &child); /* LTTng: child_pid is the process */
        if ((get_int(e, "parent_tid", &parent) || get_int(e, "parent_pid", &parent)) &&
            (lttng || get_int(e, "child_pid", &child))) {
            put_head(r, e, tid, comm, name);
            put(r, "comm=");
            put_text(r, pc ? pc : "", COMM_MAX);
            put(r, " pid=%llu child_comm=", (unsigned long long)parent);
            put_text(r, cc ? cc : "", COMM_MAX);
            put(r, " child_pid=%llu", (unsigned long long)child);
            line_out(r);
            learn_comm(r, child, cc);
            if (lttng && get_int(e, "child_pid", &child_pid) && child != 0)
                proc(r, child)->pid = (int64_t)child_pid;
            return;
        }
    } else if (strncmp(name, "syscall_entry_", 14) == 0 ||
               strncmp(name, "compat_syscall_entry_", 21) == 0) {
        const char *sys = strchr(name, 'y') + 13; /* after "syscall_entry_" */
        if (strcmp(sys, "unknown") == 0 && get_int(e, "id", &v)) {
            const ctf_field *a = get(e, "args");
            put_head(r, e, tid, comm, "sys_enter");
            put(r, "NR %lld (", (long long)v);
            for (unsigned i = 0; a && i < a->narr; i++)
                put(r, "%s%llx", i ? ", " : "", (unsigned long long)a->arr[i]);
            put(r, ")");
        } else {
            snprintf(buf, sizeof buf, "sys_enter_%.80s", sys);
            put_head(r, e, tid, comm, buf);
            put_args(r, e);
        }
        line_out(r);
        return;
    } else if (strncmp(name, "syscall_exit_", 13) == 0 ||
               strncmp(name, "compat_syscall_exit_", 20) == 0) {
        const char *sys = strchr(name, 'y') + 12; /* after "syscall_exit_" */
        uint64_t ret = 0;
        get_int(e, "ret", &ret);
        if (strcmp(sys, "unknown") == 0 && get_int(e, "id", &v)) {
            put_head(r, e, tid, comm, "sys_exit");
            put(r, "NR %lld = %lld", (long long)v, (long long)ret);
        } else {
            snprintf(buf, sizeof buf, "sys_exit_%.80s", sys);
            put_head(r, e, tid, comm, buf);
            put_x(r, ret);
        }
        line_out(r);
        return;
    } else if (strncmp(name, "sys_enter_", 10) == 0 || strncmp(name, "sys_exit_", 9) == 0) {
        /* perf's syscalls:sys_enter_X {__syscall_nr, args}, sys_exit_X {ret} */
        put_head(r, e, tid, comm, name);
        if (name[4] == 'e' && name[5] == 'n') {
            put_args(r, e);
        } else {
            uint64_t ret = 0;
            get_int(e, "ret", &ret);
            put(r, "0x%llx", (unsigned long long)ret);
        }
        line_out(r);
        return;
    } else if ((strcmp(name, "sys_enter") == 0 || strcmp(name, "sys_exit") == 0) &&
               get_int(e, "id", &v)) {
        /* perf's raw_syscalls */
        put_head(r, e, tid, comm, name);
        put(r, "NR %llu ", (unsigned long long)v);
        if (name[4] == 'e' && name[5] == 'n') {
            const ctf_field *a = get(e, "args");
            put(r, "(");
            for (unsigned i = 0; a && i < a->narr; i++)
                put(r, "%s%llx", i ? ", " : "", (unsigned long long)a->arr[i]);
            put(r, ")");
        } else {
            uint64_t ret = 0;
            get_int(e, "ret", &ret);
            put(r, "= %lld", (long long)ret);
        }
        line_out(r);
        return;
    } else if (strcmp(name, "irq_handler_entry") == 0 || strcmp(name, "irq_handler_exit") == 0) {
        if (get_int(e, "irq", &v)) {
            put_head(r, e, tid, comm, name);
            put(r, "irq=%lld ", (long long)v);
            uint64_t ret = 0;
            if (name[12] == 'e' && name[13] == 'n') {
                const char *in = get_str(e, "name");
                put(r, "name=");
                put_text(r, in ? in : "", 256);
            } else {
                get_int(e, "ret", &ret);
                put(r, "ret=%s", ret ? "handled" : "unhandled");
            }
            line_out(r);
            return;
        }
    } else if ((strncmp(name, "irq_softirq_", 12) == 0 || strncmp(name, "softirq_", 8) == 0) &&
               get_int(e, "vec", &v)) {
        const char *what = name + (name[0] == 'i' ? 4 : 0); /* softirq_entry ... */
        put_head(r, e, tid, comm, what);
        put(r, "vec=%llu", (unsigned long long)v);
        if (v < sizeof softirq_names / sizeof *softirq_names)
            put(r, " [action=%s]", softirq_names[v]);
        line_out(r);
        return;
    } else if (strcmp(name, "sched_process_exec") == 0) {
        learn_comm(r, tid, NULL);
    }
    /* the rest: "key=value" fields, under the kernel's name
     * (LTTng's timer_hrtimer_start is hrtimer_start) */
    const char *shown = strncmp(name, "timer_hrtimer_", 14) == 0 ? name + 6 : name;
    put_head(r, e, tid, comm, shown);
    put_fields(r, e);
    line_out(r);
}

/* ---- The graph ---------------------------------------------------------- */

static uint32_t stream_cpu(ctf_reader *r, const bt_stream *s, bool set, uint32_t cpu)
{
    for (unsigned i = 0; i < r->nstreams; i++)
        if (r->streams[i].s == s) {
            if (set)
                r->streams[i].cpu = cpu;
            return r->streams[i].cpu;
        }
    if (set && r->nstreams < sizeof r->streams / sizeof *r->streams)
        r->streams[r->nstreams++] = (struct stream_cpu){s, cpu};
    return 0;
}

static void on_event(ctf_reader *r, const bt_message *m)
{
    const bt_event *event = bt_message_event_borrow_event_const(m);
    if (!r->env_read)
        read_env(r, event);
    ctf_event *e = &r->event; /* the reader's, reused */
    e->n = 0;
    e->name = bt_event_class_get_name(bt_event_borrow_class_const(event));
    if (!e->name)
        e->name = "unnamed";
    e->ts = 0;
    const bt_clock_class *clock = bt_message_event_borrow_stream_class_default_clock_class_const(m);
    if (clock) {
        int64_t ns;
        if (bt_clock_snapshot_get_ns_from_origin(
                bt_message_event_borrow_default_clock_snapshot_const(m), &ns) ==
                BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK &&
            ns > 0)
            e->ts = (uint64_t)ns;
    }
    if (!r->have_first) {
        r->have_first = true;
        r->first_ts = e->ts;
        r->epoch = clock && bt_clock_class_origin_is_unix_epoch(clock);
    }
    add_struct(e, bt_event_borrow_payload_field_const(event), true);
    add_struct(e, bt_event_borrow_specific_context_field_const(event), false);
    add_struct(e, bt_event_borrow_common_context_field_const(event), false);
    const bt_packet *packet = bt_event_borrow_packet_const(event);
    if (packet)
        add_struct(e, bt_packet_borrow_context_field_const(packet), false);
    uint64_t cpu;
    e->cpu = get_int(e, "perf_cpu", &cpu) || get_int(e, "cpu_id", &cpu)
                ? (uint32_t)(cpu < CPU_MAX ? cpu : CPU_MAX)
                : 0;
    const bt_stream *stream = bt_event_borrow_stream_const(event);
    stream_cpu(r, stream, true, e->cpu);
    r->n_read++;
    r->last_ts = e->ts;
    const char *file = bt_stream_get_name(stream);
    if (file && strncmp(r->last_file, file, sizeof r->last_file - 1) != 0)
        snprintf(r->last_file, sizeof r->last_file, "%s", file);
    render(r, e);
}

/* Events the tracer dropped (a packet's events_discarded grew since the
 * stream's packet before): the line tracefs writes for them, which the
 * ftrace decoder warns of and counts (DEC-LOSS). */
static void on_discarded(ctf_reader *r, const bt_message *m)
{
    if (r->prescan)
        return;
    uint64_t count = 0;
    bool known = bt_message_discarded_events_get_count(m, &count) ==
                 BT_PROPERTY_AVAILABILITY_AVAILABLE;
    uint32_t cpu = stream_cpu(r, bt_message_discarded_events_borrow_stream_const(m), false, 0);
    r->len = 0;
    if (known)
        put(r, "CPU:%u [LOST %llu EVENTS]", cpu, (unsigned long long)count);
    else
        put(r, "CPU:%u [LOST EVENTS]", cpu);
    line_out(r);
}

/* Packets the tracer dropped (a gap in packet_seq_num: LTTng's consumer
 * lost a whole sub-buffer): the events in them are not counted, so the
 * line says events were lost without how many (DEC-LOSS). */
static void on_discarded_packets(ctf_reader *r, const bt_message *m)
{
    if (r->prescan)
        return;
    uint32_t cpu = stream_cpu(r, bt_message_discarded_packets_borrow_stream_const(m), false, 0);
    r->len = 0;
    put(r, "CPU:%u [LOST EVENTS]", cpu);
    line_out(r);
}

static bt_graph_simple_sink_component_initialize_func_status sink_init(bt_message_iterator *it,
                                                                       void *data)
{
    (void)it;
    (void)data;
    return BT_GRAPH_SIMPLE_SINK_COMPONENT_INITIALIZE_FUNC_STATUS_OK;
}

static bt_graph_simple_sink_component_consume_func_status sink_consume(bt_message_iterator *it,
                                                                       void *data)
{
    ctf_reader *r = data;
    bt_message_array_const msgs;
    uint64_t count;
    switch (bt_message_iterator_next(it, &msgs, &count)) {
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK: break;
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_END: return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN: return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR: return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
    default: return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
    }
    for (uint64_t i = 0; i < count; i++) {
        if (r->rc == 0 && !r->trial) {
            switch (bt_message_get_type(msgs[i])) {
            case BT_MESSAGE_TYPE_EVENT: on_event(r, msgs[i]); break;
            case BT_MESSAGE_TYPE_DISCARDED_EVENTS: on_discarded(r, msgs[i]); break;
            case BT_MESSAGE_TYPE_DISCARDED_PACKETS: on_discarded_packets(r, msgs[i]); break;
            default: break;
            }
        }
        bt_message_put_ref(msgs[i]);
    }
    /* the decoder failed: stop the graph (its error is the message) */
    return r->rc < 0 ? BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR
                     : BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/* babeltrace2's error as one line: the causes from the deepest (what was
 * wrong, and in which file) outwards, their words only. */
static void take_error(char *out, size_t len)
{
    const bt_error *err = bt_current_thread_take_error();
    size_t o = 0;
    out[0] = '\0';
    if (!err)
        return;
    /* the root cause first; the library's own causes (it wraps the
     * plugin's in "method failed: status=ERROR, comp-addr=...") left out
     * when a plugin said something */
    uint64_t n = bt_error_get_cause_count(err);
    bool plugin_said = false;
    for (uint64_t k = 0; k < n; k++)
        plugin_said |= bt_error_cause_get_actor_type(bt_error_borrow_cause_by_index(err, k)) !=
                       BT_ERROR_CAUSE_ACTOR_TYPE_UNKNOWN;
    for (uint64_t k = 0; k < n && o + 4 < len; k++) {
        const bt_error_cause *cause = bt_error_borrow_cause_by_index(err, k);
        const char *msg = bt_error_cause_get_message(cause);
        if (!msg || !*msg || (plugin_said && bt_error_cause_get_actor_type(cause) ==
                                                 BT_ERROR_CAUSE_ACTOR_TYPE_UNKNOWN))
            continue;
        if (o)
            o += (size_t)snprintf(out + o, len - o, "; ");
        /* the words, not the "key=value, ..." details after them
         * (addresses, which change from run to run) */
        const char *end = msg + strlen(msg);
        for (const char *c = msg; (c = strstr(c, ": ")) != NULL; c += 2) {
            const char *w = c + 2;
            while (*w && *w != ' ' && *w != '=')
                w++;
            if (*w == '=') {
                end = c;
                break;
            }
        }
        for (const char *p = msg; p < end && o + 1 < len; p++)
            out[o++] = *p == '\n' || *p == '\t' ? ' ' : *p;
        out[o < len ? o : len - 1] = '\0';
    }
    bt_error_release(err);
}

static const bt_plugin *ctf_plugin, *utils_plugin;

static bool load_plugins(char *why, size_t len)
{
    if (ctf_plugin && utils_plugin)
        return true;
    /* the metadata parser logs where the metadata does not parse, and
     * only there, at this level (read once, when the plugin loads) */
    setenv("BABELTRACE_PLUGIN_CTF_METADATA_LOG_LEVEL", "E", 0);
    /* the plugins of the system's directory (and LIBBABELTRACE2_PLUGIN_PATH) */
    if (!ctf_plugin && bt_plugin_find("ctf", BT_TRUE, BT_FALSE, BT_TRUE, BT_TRUE, BT_FALSE,
                                      &ctf_plugin) != BT_PLUGIN_FIND_STATUS_OK) {
        snprintf(why, len, "babeltrace2's ctf plugin is not installed (Debian: libbabeltrace2-0)");
        return false;
    }
    if (!utils_plugin && bt_plugin_find("utils", BT_TRUE, BT_FALSE, BT_TRUE, BT_TRUE, BT_FALSE,
                                        &utils_plugin) != BT_PLUGIN_FIND_STATUS_OK) {
        snprintf(why, len, "babeltrace2's utils plugin is not installed (Debian: libbabeltrace2-0)");
        return false;
    }
    return true;
}

/* Where the metadata does not parse: babeltrace2's metadata parser says
 * it ("At line N in metadata stream: WHAT") only in its log, on stderr,
 * at level ERROR (load_plugins asks for that level). The source is made
 * with stderr in the memory file LOG; a failure's "N: WHAT" goes to OUT.
 * False when the log says nothing of the kind. */
static bool metadata_error(int log, char *out, size_t len)
{
    char text[16384];
    ssize_t n = pread(log, text, sizeof text - 1, 0);
    if (n <= 0)
        return false;
    text[n] = '\0';
    static const char tag[] = "At line ";
    const char *at = strstr(text, tag), *stream = at ? strstr(at, " in metadata stream: ") : NULL;
    if (!at || !stream)
        return false;
    const char *what = stream + 21, *end = strchr(what, '\n');
    if (!end)
        end = what + strlen(what);
    unsigned long line = strtoul(at + sizeof tag - 1, NULL, 10);
    snprintf(out, len, "%lu: %.*s", line, (int)(end - what), what);
    return true;
}

/* Adds the source to G with stderr into a memory file (*LOG, -1 when
 * none could be made), so that the metadata parser's log is kept, not
 * printed. In argus-chain the stages' thread waits for input meanwhile. */
static bool add_source(bt_graph *g, const bt_component_class_source *fs, const bt_value *params,
                       const bt_component_source **src, int *log, bool trial)
{
    int saved = -1;
    /* a trial's stderr is a memory file already: its parent reads it */
    *log = trial ? -1 : memfd_create("argus-ctf-log", MFD_CLOEXEC);
    fflush(stderr);
    if (*log >= 0 && (saved = dup(2)) >= 0)
        dup2(*log, 2);
    bool ok = bt_graph_add_source_component(g, fs, "source", params, BT_LOGGING_LEVEL_NONE,
                                            src) == BT_GRAPH_ADD_COMPONENT_STATUS_OK;
    if (saved >= 0) {
        fflush(stderr);
        dup2(saved, 2);
        close(saved);
    }
    return ok;
}

/* One pass over every message of the trace under DIR. */
static int run_pass(ctf_reader *r, const char *dir, const char *name, char *err, size_t errlen)
{
    char why[400];
    if (!load_plugins(why, sizeof why)) {
        snprintf(err, errlen, "%s: cannot read CTF: %s", name, why);
        return -1;
    }
    const bt_component_class_source *fs =
        bt_plugin_borrow_source_component_class_by_name_const(ctf_plugin, "fs");
    const bt_component_class_filter *muxer =
        bt_plugin_borrow_filter_component_class_by_name_const(utils_plugin, "muxer");
    bt_graph *g = bt_graph_create(0);
    bt_value *params = bt_value_map_create();
    bt_value *inputs = NULL;
    if (!fs || !muxer || !g || !params ||
        bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) !=
            BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK)
        abort(); /* the trial child runs this too: ctf_trial */
    const bt_component_source *src = NULL;
    const bt_component_filter *mux = NULL;
    const bt_component_sink *sink = NULL;
    int rc = 0;
    int ntraces = find_traces(dir, 4, inputs);
    int log;
    bool opened = add_source(g, fs, params, &src, &log, r->trial);
    if (opened && r->trial)
        fputs("\nargus-ctf: source made\n", stderr); /* for the parent */
    char place[512];
    bool parse_error = !opened && log >= 0 && metadata_error(log, place, sizeof place);
    if (log >= 0)
        close(log);
    if (!opened) {
        /* the metadata, most likely: say where it does not parse */
        if (parse_error) {
            bt_current_thread_clear_error();
            if (ntraces == 1)
                snprintf(err, errlen, "%s/metadata:%s (the CTF metadata does not parse)",
                         bt_value_string_get(bt_value_array_borrow_element_by_index_const(inputs, 0)),
                         place);
            else
                snprintf(err, errlen, "%s: a metadata file, line %s (the CTF metadata does "
                         "not parse)", name, place);
            bt_value_put_ref(params);
            bt_graph_put_ref(g);
            return -1;
        }
    }
    bool ok = opened &&
              bt_graph_add_filter_component(g, muxer, "muxer", NULL, BT_LOGGING_LEVEL_NONE,
                                            &mux) == BT_GRAPH_ADD_COMPONENT_STATUS_OK &&
              bt_graph_add_simple_sink_component(g, "argus", sink_init, sink_consume, NULL, r,
                                                 &sink) == BT_GRAPH_ADD_COMPONENT_STATUS_OK;
    bt_value_put_ref(params);
    for (uint64_t i = 0; ok && i < bt_component_source_get_output_port_count(src); i++)
        ok = bt_graph_connect_ports(
                 g, bt_component_source_borrow_output_port_by_index_const(src, i),
                 bt_component_filter_borrow_input_port_by_index_const(mux, i),
                 NULL) == BT_GRAPH_CONNECT_PORTS_STATUS_OK;
    if (ok)
        ok = bt_graph_connect_ports(g, bt_component_filter_borrow_output_port_by_name_const(mux, "out"),
                                    bt_component_sink_borrow_input_port_by_index_const(sink, 0),
                                    NULL) == BT_GRAPH_CONNECT_PORTS_STATUS_OK;
    if (ok) {
        bt_graph_run_status st;
        while ((st = bt_graph_run(g)) == BT_GRAPH_RUN_STATUS_AGAIN)
            ;
        ok = st == BT_GRAPH_RUN_STATUS_OK;
    }
    if (r->rc < 0) {
        bt_current_thread_clear_error();
        rc = r->rc;
    } else if (!ok) {
        take_error(why, sizeof why);
        const char *idx = strstr(why, "Failed to index CTF stream file '");
        const char *path = idx ? idx + 33 : NULL, *q = path ? strchr(path, '\'') : NULL;
        if (q)
            /* a stream file whose packets do not add up */
            snprintf(err, errlen, "%.*s: a CTF stream file babeltrace2 cannot index: its "
                     "packets are cut short or damaged", (int)(q - path), path);
        else if (r->n_read)
            /* a stream cut short or damaged: where the reading stopped */
            snprintf(err, errlen, "%s: the trace does not read on after its event %llu "
                     "(ts %llu.%09llu, the last read, from this stream file): %s",
                     r->last_file[0] ? r->last_file : name,
                     (unsigned long long)r->n_read, (unsigned long long)(r->last_ts / 1000000000u),
                     (unsigned long long)(r->last_ts % 1000000000u),
                     why[0] ? why : "babeltrace2 gives no reason");
        else
            snprintf(err, errlen, "%s: not a CTF trace babeltrace2 can read: %s", name,
                     why[0] ? why : "it gives no reason");
        rc = -1;
    }
    bt_graph_put_ref(g);
    return rc;
}

/* ---- A trial in a child ----------------------------------------------------- */

/* babeltrace2 2.0.4 aborts on some damaged traces instead of failing: a
 * metadata whose structure has two members of one name makes its ctf
 * plugin break a precondition of the library, which aborts the process.
 * A child first reads every message of the trace, its stderr into a
 * memory file; when it dies, the input is refused with babeltrace2's
 * words, never a crash. Its signals are the default ones, so that a
 * sanitizer's or libFuzzer's handler does not take its death for ours.
 * Out of memory in what the child runs (run_pass) is an abort(), a death
 * too: argus_die there would run the parent's exit path (its writer's
 * flush, the output lock) in the child. */
#define TRIAL_FAILED 3 /* the child's exit when babeltrace2 reports an error */

static bool ctf_trial(const char *dir, const char *name, char *err, size_t errlen)
{
    int log = memfd_create("argus-ctf-trial", MFD_CLOEXEC);
    if (log < 0)
        return true; /* no trial: read it in this process as it is */
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(log);
        return true;
    }
    if (pid == 0) {
        static const int deaths[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
        for (size_t i = 0; i < sizeof deaths / sizeof *deaths; i++)
            signal(deaths[i], SIG_DFL);
        dup2(log, 2);
        bt_current_thread_clear_error(); /* the parent's, copied */
        ctf_reader *t = calloc(1, sizeof *t);
        if (!t)
            _exit(TRIAL_FAILED);
        t->trial = t->prescan = true;
        argus_table_init(&t->procs, sizeof(proc_entry));
        char e[512];
        _exit(run_pass(t, dir, name, e, sizeof e) == 0 ? 0 : TRIAL_FAILED);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            close(log);
            return true;
        }
    bool ok = WIFEXITED(status) && (WEXITSTATUS(status) == 0 ||
                                    WEXITSTATUS(status) == TRIAL_FAILED);
    if (!ok) {
        char text[16384], what[400] = "";
        ssize_t n = pread(log, text, sizeof text - 1, 0);
        text[n > 0 ? n : 0] = '\0';
        /* "... F LIB/X func@file.c:N WHAT: details" after the line saying
         * a precondition failed */
        const char *pre = strstr(text, "precondition not satisfied; error is:\n");
        const char *line = pre ? strchr(pre, '\n') + 1 : NULL;
        const char *at = line ? strchr(line, '@') : NULL;
        const char *w = at ? strchr(at, ' ') : NULL;
        if (w) {
            w++;
            size_t len = strcspn(w, "\n");
            for (const char *c = w; c < w + len; c++)
                if (c[0] == ':' && c[1] == ' ') { /* its words, not the details */
                    len = (size_t)(c - w);
                    break;
                }
            snprintf(what, sizeof what, ": %.*s", (int)len, w);
        } else if (WIFSIGNALED(status)) {
            snprintf(what, sizeof what, " (signal %d)", WTERMSIG(status));
        }
        bool events = strstr(text, "argus-ctf: source made") != NULL;
        snprintf(err, errlen, "%s: babeltrace2 dies reading %s%s (a damaged trace, or one "
                 "babeltrace2 cannot read)", name,
                 events ? "its events" : "its metadata and packet headers", what);
    }
    close(log);
    return ok;
}

/* ---- Reading -------------------------------------------------------------- */

static int by_key(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The process table the first pass found, as argus-record's thread lines
 * (the ftrace decoder takes them when read, before any event). */
static int thread_lines(ctf_reader *r)
{
    uint64_t *tids = argus_xmalloc((r->procs.count + 1) * sizeof *tids, "thread ids"), tid;
    size_t n = 0, pos = 0;
    void *v;
    while (argus_table_next(&r->procs, &pos, &tid, &v))
        if (((proc_entry *)v)->pid >= 0 && tid != 0)
            tids[n++] = tid;
    argus_sort(tids, n, sizeof *tids, by_key);
    for (size_t i = 0; i < n && r->rc == 0; i++) {
        const proc_entry *p = argus_table_get(&r->procs, tids[i]);
        r->len = 0;
        put(r, "# argus-thread: tid=%llu tgid=%lld", (unsigned long long)tids[i],
            (long long)p->pid);
        if (p->kernel >= 0)
            put(r, " kernel=%d", p->kernel);
        if (p->ppid > 0 && (uint64_t)p->pid == tids[i])
            put(r, " ppid=%lld", (long long)p->ppid);
        if (p->comm[0])
            put(r, " comm=%s", p->comm);
        line_out(r);
    }
    free(tids);
    return r->rc;
}

int argus_ctf_read(argus_ft *d, const char *dir, const char *name, char *err, size_t errlen)
{
    ctf_reader *r = argus_xcalloc(1, sizeof *r, "CTF reader");
    r->d = d;
    r->prescan = true;
    r->state_bits = 8; /* a kernel of today, unless the trace says otherwise */
    argus_table_init(&r->procs, sizeof(proc_entry));
    /* CTF 2 (LTTng 2.15's default; 2.14's with --trace-format=ctf-2):
     * babeltrace2 reads it from 2.1 on; before, its CTF 1.8 parser fails on
     * the JSON with a log line no user would take for the reason */
    char ctf2[4096];
    unsigned major = bt_version_get_major(), minor = bt_version_get_minor();
    if ((major < 2 || (major == 2 && minor < 1)) && find_ctf2(dir, 4, ctf2, sizeof ctf2)) {
        snprintf(err, errlen, "%s: a CTF 2 trace, which libbabeltrace2 %u.%u.%u does not "
                 "read (it reads CTF 1.8; CTF 2 needs babeltrace2 2.1 or later): record it "
                 "as CTF 1.8 (lttng create SESSION --trace-format=ctf-1.8)", ctf2, major,
                 minor, bt_version_get_patch());
        argus_table_free(&r->procs);
        free(r);
        return -1;
    }
    int rc = ctf_trial(dir, name, err, errlen) ? run_pass(r, dir, name, err, errlen) : -1;
    if (rc == 0) {
        /* the second pass: each cpu starts with the task its first switch
         * switched out */
        r->prescan = false;
        r->nstreams = 0;
        for (uint32_t i = 0; i < r->ncpus; i++)
            r->cpus[i] = r->first[i];
        if (r->epoch) {
            /* the clock is the wall clock: the stream's t0 (as argus-record's
             * clock line gives it) */
            r->len = 0;
            put(r, "# argus-clock: mono=%llu.%09llu realtime=%llu.%09llu",
                (unsigned long long)(r->first_ts / 1000000000u),
                (unsigned long long)(r->first_ts % 1000000000u),
                (unsigned long long)(r->first_ts / 1000000000u),
                (unsigned long long)(r->first_ts % 1000000000u));
            line_out(r);
        }
        rc = thread_lines(r);
        if (rc == 0)
            rc = run_pass(r, dir, name, err, errlen);
        if (rc == 0 && argus_ft_finish(d) < 0)
            rc = -2;
    }
    argus_table_free(&r->procs);
    free(r->cpus);
    free(r->first);
    free(r);
    return rc;
}
