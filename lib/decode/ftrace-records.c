/* What the ftrace mapping writes (include/argus/decode/ftrace-internal.h):
 * its threads (looked up by tid, named by the trace, their thread records
 * written before their first event), the head of each event, its pairs,
 * and the `ftrace` event of a line kept as it is. */
#include "argus/decode/ftrace-internal.h"
#include "argus/stream/cli.h"
#include "argus/stream/text.h"

#include <stdlib.h>
#include <string.h>

/* ---- Output ------------------------------------------------------------- */

/* A text value as valid UTF-8. */
static void put_text_utf8(argus_writer *w, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && (unsigned char)s[i] < 0x80)
        i++;
    if (i == n) {
        argus_put_text(w, s, n);
        return;
    }
    char *tmp = argus_xmalloc(n * 3 + 1, "a line of the trace");
    size_t o = 0;
    for (i = 0; i < n;) {
        size_t k = argus_utf8_char((const uint8_t *)s + i, n - i);
        if (k == 0) {
            memcpy(tmp + o, "\xef\xbf\xbd", 3); /* U+FFFD */
            o += 3;
            i++;
        } else {
            memcpy(tmp + o, s + i, k);
            o += k;
            i += k;
        }
    }
    argus_put_text(w, tmp, o);
    free(tmp);
}

thread *argus_ft_find_thread(argus_ft *d, uint64_t tid)
{
    return argus_threads_find(&d->threads, tid);
}

thread *argus_ft_get_thread(argus_ft *d, uint64_t tid)
{
    if (d->recent[tid & 255].t && d->recent[tid & 255].tid == tid)
        return d->recent[tid & 255].t;
    bool created;
    thread *t = argus_threads_add(&d->threads, tid, &created);
    if (created) {
        t->tgid = tid == 0 ? 0 : -1;
        if (tid == 0)
            strcpy(t->comm, "swapper");
    }
    d->recent[tid & 255].tid = tid;
    d->recent[tid & 255].t = t;
    return t;
}

/* Sets T's name from a trace (not "<...>", the unknown comm). The idle
 * task is "swapper/N" on CPU N, one tid 0 for all: it keeps "swapper". */
void argus_ft_set_comm(thread *t, const char *c, size_t n)
{
    if (t->tid == 0 || n == 0 || (n == 5 && memcmp(c, "<...>", 5) == 0) ||
        (n == 6 && memcmp(c, "<idle>", 6) == 0))
        return;
    if (strlen(t->comm) == n && memcmp(t->comm, c, n) == 0)
        return;
    argus_utf8_copy(t->comm, sizeof t->comm, c, n);
    t->announced = false;
}

void argus_ft_set_tgid(thread *t, int64_t tgid)
{
    if (tgid < 0 || t->tgid == tgid || t->tid == 0)
        return;
    t->tgid = tgid;
    t->announced = false;
}

/* Kernel threads by name, where the trace has no better word. */
static bool kernel_comm(const char *c)
{
    static const char *const prefixes[] = {
        "kworker/", "ksoftirqd/", "migration/", "rcu_", "rcuc/", "rcuog/",
        "rcuop/", "rcuos/", "cpuhp/", "watchdog/", "irq/", "idle_inject/",
        "jbd2/", "kswapd", "kcompactd", "scsi_eh_", "scsi_tmf_", "kthreadd",
        "khugepaged", "ksmd", "kauditd", "khungtaskd", "oom_reaper",
        "kdevtmpfs", "kblockd", "kintegrityd", "writeback", "kthrotld",
        "ecryptfs-kthrea", "kstrp", "ipv6_addrconf", "mm_percpu_wq",
        "netns", "pool_workqueue_", "psimon", "swapper", "xfsaild/",
        "card0-crtc", "nvme-", "ext4-rsv-conver", "hwrng", "kerneloops",
    };
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (strncmp(c, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    return false;
}

/* A kernel thread: by argus-record's word, else by its name. */
bool argus_ft_thread_is_kernel(const thread *t)
{
    return t->kernel_known ? t->kernel : (t->tid == 0 || kernel_comm(t->comm));
}

static void write_thread(argus_ft *d, thread *t)
{
    argus_writer *w = d->w;
    bool kernel = argus_ft_thread_is_kernel(t);
    bool main = t->tid != 0 && t->tgid >= 0 && (uint64_t)t->tgid == t->tid;
    const char *proc = t->comm;
    if (t->tgid >= 0 && !main) {
        const thread *m = argus_ft_find_thread(d, (uint64_t)t->tgid);
        if (m && m->comm[0])
            proc = m->comm;
    }
    /* a thread's parent is its own process: only another process is told */
    uint64_t parent = t->parent != pid_of(t) ? t->parent : 0;
    char **cmdline = main ? argus_table_get(&d->cmdlines, t->tid) : NULL;
    argus_put_thread_record(w, t->tid, pid_of(t), proc, t->comm, main, kernel, parent,
                            cmdline ? *cmdline : NULL);
    t->announced = true;
}

/* Starts an event of TYPE by T, at S's time on S's cpu, with EXTRA more
 * pairs to come. */
void argus_ft_begin_event(argus_ft *d, const line_slot *s, thread *t, const char *type,
                          size_t type_len, unsigned extra)
{
    if (!t->announced)
        write_thread(d, t);
    argus_put_event_head(d->w, type, type_len, d->next_id++, s->ts - d->zero, t->tid,
                         pid_of(t), s->cpu, extra);
    d->n_events++;
}

void argus_ft_put_uint_kv(argus_ft *d, const char *key, uint64_t v)
{
    argus_put_key(d->w, key);
    argus_put_uint(d->w, v);
}

void argus_ft_put_span_kv(argus_ft *d, const char *key, span v)
{
    argus_put_key(d->w, key);
    put_text_utf8(d->w, v.p, v.n);
}

void argus_ft_put_phase(argus_ft *d, bool begin)
{
    PUT_LIT(d->w, "phase");
    if (begin)
        PUT_LIT(d->w, "begin");
    else
        PUT_LIT(d->w, "end");
}

/* The line as an `ftrace` event: its event name when it has one, and the
 * whole text. */
void argus_ft_write_raw(argus_ft *d, const line_slot *s, thread *t)
{
    span name = d->event_name;
    BEGIN(d, s, t, "ftrace", 1 + (name.n > 0));
    if (name.n)
        argus_ft_put_span_kv(d, "event", name);
    PUT_LIT(d->w, "text"); /* the line as read, but for leading blanks */
    put_text_utf8(d->w, s->text, s->len);
    argus_end_record(d->w);
    d->n_raw++;
}
