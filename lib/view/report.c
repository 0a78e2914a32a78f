/* report: renders the findings of a graph (the hang, the UI events and
 * causal path that led to it, what it waits on, the similar baseline node
 * and the culprits) as text a developer reads in a minute
 * (docs/stages/report.md; the command line is filters/report.c).
 * One concern, the report's words, at 2.5k lines: the words for threads,
 * waits and times, the findings read back, the layout, then one section
 * after another, each function taking the report's state as R. */
#include "argus/view/report.h"
#include "argus/view/words.h"
#include "argus/analysis/find-spinning.h"
#include "argus/analysis/findings.h"
#include "argus/analysis/causal.h"
#include "argus/decode/android.h"
#include "argus/decode/ftrace.h"
#include "argus/stream/cli.h"
#include "argus/stream/text.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NONE UINT64_MAX
#define WIDTH 98                /* columns a line may fill */
#define NB '\x01'               /* a space where no line may break */
#define NBS "\x01"


typedef struct sb {
    char *p;
    size_t len, cap;
} sb;

#define LIST(T) struct { T *v; uint32_t n; size_t cap; }
/* A list's records by hang: (hang, position) pairs in that order, so that
 * a hang's records are found by a binary search, not a pass over the list
 * per hang (quadratic in hangs, and a trace can have a hang per thread). */
typedef struct hang_pos {
    uint64_t hang;
    uint32_t pos;
} hang_pos;
typedef struct hang_index {
    hang_pos *v;
    uint32_t n;
} hang_index;

/* What the trace lost: the loss records summed. */
typedef struct loss_summary {
    uint64_t overwritten, written;
    uint64_t late_cpu, late_since;  /* the CPU whose kept events start last */
    uint64_t dropped, drop_from, drop_to;
    uint64_t cut_line;
    bool any, have_start, drop_when, drop_any_time, no_end;
    uint64_t full_chunks;       /* the buffer filled: chunks discarded after */
} loss_summary;

typedef struct report report;

/* The prefixes of a kind of line: on its first line, on the next. */
typedef struct indent {
    const char *first, *cont;
} indent;

typedef struct report_format {
    bool markup;                /* markdown: escapes, code spans, tables */
    const char *title, *no_hang;    /* the report's first line(s) */
    const char *strong;         /* around a label ("**"), or "" */
    void (*heading)(report *R, int level, const char *text);
    void (*field)(report *R, const char *label, const char *value);
    indent item, sub_item, detail, para;
    const char *number_first, *number_cont;  /* a numbered item's */
    bool gaps;                  /* a blank line between lists and paragraphs */
} report_format;

/* One report's state: what it was asked, the findings read, the line
 * being built. Every function that renders takes it as R. */
struct report {
    const report_format *f;     /* text or markdown, chosen once */
    bool verbose;               /* --verbose: the details section too */
    bool details;               /* rendering the details section */
    const char *baseline;       /* what the findings were compared with */
    /* The header's clocks: "origin", the trace's own timestamp of ts 0,
     * and "t0", its wall clock (Unix epoch ns). */
    bool have_origin, have_t0;
    uint64_t origin, t0;
    bool in_table;              /* escaping for a markdown table cell */
    uint64_t hang_ms;           /* --hang as given, 0: the default */
    const argus_graph *g;
    argus_findings_mem mem;     /* the findings' texts and arrays */
    LIST(argus_hang_finding) hangs;
    LIST(argus_path_finding) paths;
    LIST(argus_chain_finding) chains;
    LIST(argus_match_finding) matches;
    LIST(argus_no_match_finding) no_matches;
    LIST(argus_culprit_finding) culprits;
    LIST(argus_branch_finding) branches;
    LIST(argus_cpath_finding) cpaths;
    hang_index ix_paths, ix_chains, ix_matches, ix_no_matches, ix_culprits, ix_branches,
        ix_cpaths;
    uint64_t record_number;     /* the findings record being read, for messages */
    loss_summary loss;
    sb line;                    /* the line being built */
};

static void sb_add(sb *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2 + 64;
        b->p = argus_xrealloc(b->p, b->cap, "a report line");
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

static void sb_puts(sb *b, const char *s) { sb_add(b, s, strlen(s)); }

__attribute__((format(printf, 2, 3)))
static void sb_printf(sb *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        sb_add(b, tmp, (size_t)n);
        return;
    }
    char *big = argus_xmalloc((size_t)n + 1, "a report line");
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb_add(b, big, (size_t)n);
    free(big);
}

static void sb_clear(sb *b)
{
    b->len = 0;
    if (b->p)
        b->p[0] = 0;
}

static const char *sb_str(const sb *b) { return b->p ? b->p : ""; }

/* Text of people and programs: markdown's special characters escaped.
 * Spaces become NB when KEEP is set (a name that should not break). */
static void sb_text(report *R, sb *b, const char *s, size_t n, bool keep_together)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '\n' || c == '\r' || c == '\t')
            c = ' ';
        if ((unsigned char)c < 0x20)
            continue;
        if (keep_together && c == ' ')
            c = NB;
        /* an underscore inside a word never emphasizes (msg_id) */
        bool inner = c == '_' && i > 0 && i + 1 < n && isalnum((unsigned char)s[i - 1]) &&
                     isalnum((unsigned char)s[i + 1]);
        if (R->f->markup && !inner && strchr("\\`*_<>|#", c))
            sb_add(b, "\\", 1);
        sb_add(b, &c, 1);
    }
}

static void sb_name(report *R, sb *b, const char *s) { sb_text(R, b, s, strlen(s), true); }
static void sb_free_text(report *R, sb *b, const char *s) { sb_text(R, b, s, strlen(s), false); }

/* A symbol (frame, function, syscall, flag, wait reason, ui kind): a code
 * span in markdown, kept on one line in text. */
static void sb_sym(report *R, sb *b, const char *s)
{
    size_t n = strlen(s);
    if (!R->f->markup) {
        sb_text(R, b, s, n, true);
        return;
    }
    const char *fence = strchr(s, '`') ? "``" : "`";
    sb_puts(b, fence);
    if (strchr(s, '`'))
        sb_add(b, " ", 1);
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if ((unsigned char)c < 0x20)
            c = ' ';
        if (c == ' ')
            c = NB;
        if (c == '|' && R->in_table)
            sb_add(b, "\\", 1);
        sb_add(b, &c, 1);
    }
    if (strchr(s, '`'))
        sb_add(b, " ", 1);
    sb_puts(b, fence);
}

/* LABEL in the format's strong type ("**Verdict:**"). */
static void sb_strong(report *R, sb *b, const char *label)
{
    sb_puts(b, R->f->strong);
    sb_puts(b, label);
    sb_puts(b, R->f->strong);
}

/* ---- output: lines wrapped at WIDTH ---------------------------------------- */
static size_t columns(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xc0) != 0x80)
            c++;
    return c;
}

static void put_word(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        putchar(s[i] == NB ? ' ' : s[i]);
}

/* In markdown, a word that would open a block (list item, heading, quote)
 * at the start of a line stays on the line before. */
static bool opens_block(report *R, const char *w, size_t n)
{
    if (!R->f->markup)
        return false;
    if (strchr("-+*#>=|", w[0]))
        return true;
    size_t i = 0;
    while (i < n && w[i] >= '0' && w[i] <= '9')
        i++;
    return i > 0 && i + 1 == n && (w[i] == '.' || w[i] == ')');
}

/* TEXT after FIRST on its first line, after CONT on the next ones, broken
 * at spaces so that no line passes WIDTH (a longer word stays whole). */
static void emit(report *R, const char *first, const char *cont, const char *text)
{
    fputs(first, stdout);
    size_t col = columns(first, strlen(first));
    bool any = false;
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        const char *w = p;
        while (*p && *p != ' ')
            p++;
        size_t n = (size_t)(p - w), wc = columns(w, n);
        if (any && col + 1 + wc > WIDTH && !opens_block(R, w, n)) {
            putchar('\n');
            fputs(cont, stdout);
            col = columns(cont, strlen(cont));
            any = false;
        }
        if (any) {
            putchar(' ');
            col++;
        }
        put_word(w, n);
        col += wc;
        any = true;
    }
    putchar('\n');
}

static void blank(void) { putchar('\n'); }

/* ---- numbers, times ------------------------------------------------------- */
/* A moment (argus_moment_text). */
static void sb_secs(report *R, sb *b, uint64_t ns)
{
    char m[24];
    argus_moment_text(m, sizeof m, ns, R->have_origin, R->origin);
    sb_puts(b, m);
}

static void sb_time(report *R, sb *b, uint64_t ns)
{
    sb_secs(R, b, ns);
    sb_puts(b, NBS "s");
}

static void sb_range(report *R, sb *b, uint64_t from, uint64_t to)
{
    sb_secs(R, b, from);
    sb_puts(b, "..");
    sb_time(R, b, to);
}

/* The wall clock of a moment, where the header's t0 says it: " (UTC
 * 2026-11-26 10:41:07.120)", else nothing. */
static void sb_wall(report *R, sb *b, uint64_t ns)
{
    if (!R->have_t0)
        return;
    uint64_t t = R->t0 + ns;
    time_t sec = (time_t)(t / 1000000000u);
    struct tm tm;
    if (!gmtime_r(&sec, &tm))
        return;
    sb_printf(b, " (%04d-%02d-%02d" NBS "%02d:%02d:%02d.%03u" NBS "UTC)", tm.tm_year + 1900,
              tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
              (unsigned)(t % 1000000000u / 1000000u));
}

/* Durations: seconds with ms from 1 s, else ms with a tenth, else us. */
static void sb_dur(sb *b, uint64_t ns)
{
    if (ns >= 999500000u) {
        uint64_t ms = ns / 1000000u + (ns % 1000000u >= 500000u);
        sb_printf(b, "%llu.%03llu" NBS "s", (unsigned long long)(ms / 1000u),
                  (unsigned long long)(ms % 1000u));
    } else if (ns >= 999500u) {
        uint64_t t = ns / 100000u + (ns % 100000u >= 50000u);
        sb_printf(b, "%llu.%llu" NBS "ms", (unsigned long long)(t / 10u),
                  (unsigned long long)(t % 10u));
    } else if (ns >= 1000u) {
        sb_printf(b, "%llu" NBS "us", (unsigned long long)(ns / 1000u + (ns % 1000u >= 500u)));
    } else {
        sb_printf(b, "%llu" NBS "ns", (unsigned long long)ns);
    }
}

static void sb_addr(report *R, sb *b, uint64_t a)
{
    char tmp[24];
    snprintf(tmp, sizeof tmp, "0x%llx", (unsigned long long)a);
    if (R->f->markup)
        sb_sym(R, b, tmp);
    else
        sb_puts(b, tmp);
}

/* ---- threads, processes ------------------------------------------------------ */
static const char *proc_of_pid(report *R, uint64_t pid)
{
    for (uint32_t i = 0; i < R->g->nthreads; i++)
        if (R->g->threads[i].pid == pid && R->g->threads[i].proc)
            return argus_graph_str(R->g, R->g->threads[i].proc);
    return NULL;
}

/* "App/main [1001]": process and thread names from the graph, else from
 * the record (PROC, NAME), else the pid. */
static void sb_thread_names(report *R, sb *b, uint64_t tid, uint64_t pid, const char *proc,
                            const char *name)
{
    if (proc && *proc)
        sb_name(R, b, proc);
    else if (pid != NONE)
        sb_printf(b, "pid" NBS "%llu", (unsigned long long)pid);
    else
        sb_puts(b, "thread");
    if (name && *name) {
        sb_puts(b, "/");
        sb_name(R, b, name);
    }
    sb_printf(b, NBS "[%llu]", (unsigned long long)tid);
}

static void sb_thread(report *R, sb *b, uint64_t tid, uint64_t pid, const char *proc,
                      const char *name)
{
    uint32_t t = tid == NONE ? ARGUS_NONE : argus_graph_thread(R->g, tid);
    if (t != ARGUS_NONE) {
        const argus_gthread *th = &R->g->threads[t];
        const char *p = th->proc ? argus_graph_str(R->g, th->proc) : proc_of_pid(R, th->pid);
        const char *n = th->name ? argus_graph_str(R->g, th->name) : name;
        /* a main thread named as its process (Linux: both the comm) */
        if (th->main && p && n && strcmp(p, n) == 0)
            n = "main";
        sb_thread_names(R, b, th->tid, th->pid, p ? p : proc, n);
        return;
    }
    if (tid == NONE) {
        sb_puts(b, "an unknown thread");
        return;
    }
    sb_thread_names(R, b, tid, pid, proc ? proc : pid != NONE ? proc_of_pid(R, pid) : NULL,
                    name);
}

static void sb_thread_ix(report *R, sb *b, uint32_t t)
{
    sb_thread(R, b, R->g->threads[t].tid, R->g->threads[t].pid, NULL, NULL);
}

static void sb_seg_thread(report *R, sb *b, uint32_t si)
{
    sb_thread_ix(R, b, R->g->segs[si].thread);
}

/* ---- key events ---------------------------------------------------------------- */
static const argus_key_event *key_of(report *R, uint32_t si, uint64_t id)
{
    if (si == ARGUS_NONE || id == NONE)
        return NULL;
    uint32_t n;
    const argus_key_event *keys = argus_graph_seg_keys(R->g, si, &n);
    for (uint32_t k = 0; k < n; k++)
        if (keys[k].id == id)
            return &keys[k];
    return NULL;
}

/* When the segment's final wait began (its key event, else the segment's
 * last event). */
static uint64_t wait_began(report *R, uint32_t si)
{
    const argus_seg *s = &R->g->segs[si];
    const argus_key_event *k = key_of(R, si, s->wait_id);
    return k ? k->ts : s->end;
}

static bool ends_in_wait(const argus_seg *s) { return s->wait_id != NONE; }

/* What the trace showed fd FD of wait WAIT to be (DEC-FD, the wait's
 * fd_origin): " (a socket it connected at 498.036807 s)", the moment
 * being that of the syscall that showed it; nothing when the trace did
 * not show it, or in words this report does not know: never a guess. */
static void sb_fd_origin(report *R, sb *b, uint64_t wait, uint64_t fd)
{
    const argus_fd_info *f = wait != NONE ? argus_graph_fd_info(R->g, wait) : NULL;
    if (!f || f->fd != fd)
        return;
    const char *how = argus_graph_str(R->g, f->how);
    const char *what, *did;
    if (strcmp(how, "connect") == 0)
        what = "a socket", did = "connected";
    else if (strcmp(how, "connect_started") == 0)
        what = "a socket", did = "began to connect";
    else if (strcmp(how, "accept") == 0)
        what = "a connection", did = "accepted";
    else if (strcmp(how, "flock") == 0)
        what = "a file", did = "locked";
    else
        return; /* a value this report does not know: nothing said */
    uint32_t si = argus_graph_seg_of(R->g, wait);
    uint64_t waiter = si != ARGUS_NONE ? R->g->threads[R->g->segs[si].thread].tid : NONE;
    sb_printf(b, " (%s ", what);
    if (f->tid == waiter)
        sb_puts(b, "it");
    else
        sb_thread(R, b, f->tid, NONE, NULL, NULL);
    sb_printf(b, " %s", did);
    if (strcmp(how, "accept") == 0 && f->listen < 1u << 31)
        sb_printf(b, " on fd" NBS "%llu", (unsigned long long)f->listen);
    sb_puts(b, " at ");
    sb_time(R, b, f->ts);
    sb_puts(b, ")");
}

/* "REASON on 0xRES" of a wait: "read on fd 5" for a file descriptor,
 * with what the trace showed it to be when WAIT (the wait event's id, or
 * NONE) says it, "futex on 0x7f..." for an address or a port. */
static void sb_wait_what(report *R, sb *b, const char *reason, uint64_t resource, uint64_t wait)
{
    uint64_t txn;
    if (reason && strcmp(reason, "binder") == 0 && argus_binder_call_of(resource, &txn)) {
        /* the decoder's reply port of a call: its transaction number */
        sb_printf(b, "a binder call (transaction %llu)", (unsigned long long)txn);
        return;
    }
    if (reason && strcmp(reason, "disk") == 0)  /* D state, no traced syscall */
        sb_puts(b, "uninterruptible disk waits (no system call traced: page faults or I/O)");
    else if (reason && *reason)
        sb_sym(R, b, reason);
    else
        sb_puts(b, "a" NBS "wait");
    if (resource != NONE && resource != 0) {
        sb_puts(b, " on ");
        if (argus_ft_fd_syscall(reason) && resource < 1u << 31) {
            sb_printf(b, "fd" NBS "%llu", (unsigned long long)resource);
            sb_fd_origin(R, b, wait, resource);
        } else {
            sb_addr(R, b, resource);
        }
    }
}

/* Whether the report leaves key event K out: in plain words only
 * (argus_event_left_out); its details (-v) keep every event. */
static bool plain_leaves_out(const report *R, const argus_key_event *k)
{
    return !R->details && argus_event_left_out(k->type, argus_graph_str(R->g, k->text));
}

/* The words of the table (argus/view/words.h): a symbol the event
 * names goes as code in Markdown, words of ours as they are. */
static void sb_event_words(report *R, sb *b, int type, const char *text)
{
    argus_event_words w = argus_event_words_of(type, text, !R->details);
    sb_puts(b, w.word);
    if (!w.text)
        return;
    if (*w.word)
        sb_puts(b, " ");
    if (w.ours)
        sb_puts(b, w.text);
    else
        sb_sym(R, b, w.text);
}

static void sb_key_event(report *R, sb *b, uint32_t si, const argus_key_event *k)
{
    const char *text = argus_graph_str(R->g, k->text);
    const argus_seg *s = &R->g->segs[si];
    switch (k->type) {
    case ARGUS_T_BACKTRACE: {
        sb_puts(b, "backtrace ");
        const char *p = text;
        bool first = true;
        while (*p) {
            const char *sep = strstr(p, " < ");
            size_t n = sep ? (size_t)(sep - p) : strlen(p);
            char *frame = argus_xstrndup(p, n, "a backtrace frame");
            if (!first)
                sb_puts(b, NBS "< ");
            sb_sym(R, b, frame);
            free(frame);
            first = false;
            p += n;
            if (sep)
                p += 3;
        }
        break;
    }
    case ARGUS_T_WAIT:
        sb_puts(b, "wait ");
        sb_wait_what(R, b, text, k->aux, NONE);
        if (k->id == s->wait_id && s->resume == NONE) {
            sb_puts(b, " (not woken in the trace)");
        } else if (k->id == s->wait_id) {
            sb_puts(b, " (");
            sb_dur(b, s->resume > k->ts ? s->resume - k->ts : 0);
            sb_puts(b, ")");
        }
        break;
    case ARGUS_T_IPC: {
        /* "send msg_id 4242" -> syncd(200) */
        bool send = strncmp(text, "send", 4) == 0;
        sb_text(R, b, text, strlen(text), true);
        if (k->aux != NONE) {
            const char *peer = proc_of_pid(R, k->aux);
            sb_puts(b, send ? NBS "->" NBS : NBS "<-" NBS);
            if (peer) {
                sb_name(R, b, peer);
                sb_printf(b, "(%llu)", (unsigned long long)k->aux);
            } else {
                sb_printf(b, "pid" NBS "%llu", (unsigned long long)k->aux);
            }
        }
        break;
    }
    case ARGUS_T_FLAG_WRITE:
    case ARGUS_T_FLAG_READ: {
        sb_puts(b, k->type == ARGUS_T_FLAG_WRITE ? "write flag " : "read flag ");
        const char *eq = strstr(text, " = ");
        size_t n = eq ? (size_t)(eq - text) : strlen(text);
        if (n) {
            char *name = argus_xstrndup(text, n, "a name");
            sb_sym(R, b, name);
            free(name);
        } else {
            sb_addr(R, b, k->aux);
        }
        if (eq)
            sb_printf(b, NBS "=" NBS "%s", eq + 3);
        break;
    }
    case ARGUS_T_WAKEUP:
        sb_puts(b, "wakes ");
        sb_thread(R, b, k->aux, NONE, NULL, NULL);
        break;
    default:    /* the words of the table */
        sb_event_words(R, b, k->type, text);
        break;
    }
    if (k->extra > 1)
        sb_printf(b, NBS "×%u", (unsigned)k->extra);
}

static void sb_seg_events(report *R, sb *b, uint32_t si)
{
    uint32_t n;
    const argus_key_event *keys = argus_graph_seg_keys(R->g, si, &n);
    if (n == 0) {
        sb_printf(b, "%u" NBS "events", R->g->segs[si].nevents);
        return;
    }
    bool any = false;
    for (uint32_t k = 0; k < n; k++) {
        if (plain_leaves_out(R, &keys[k]))
            continue;
        if (any)
            sb_puts(b, "; ");
        sb_key_event(R, b, si, &keys[k]);
        any = true;
    }
    if (!any)
        sb_printf(b, "%u" NBS "events", R->g->segs[si].nevents);
}

/* ---- the analysis records (read through lib/analysis/findings.c) ------------------ */



#define PUSH(l) (*ARGUS_PUSH((l).v, (l).n, (l).cap))



__attribute__((format(printf, 3, 4), noreturn))
static void bad_record(report *R, const char *type, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    argus_die(ARGUS_EX_DATAERR, "%s: record %llu: %s record: %s", R->g->name,
              (unsigned long long)R->record_number, type, what);
}

static uint32_t need_seg(report *R, const char *type, uint64_t hang, uint64_t seg)
{
    uint32_t si = argus_graph_find_seg(R->g, seg);
    if (si == ARGUS_NONE)
        bad_record(R, type, "hang %llu: seg %llu is not in the graph",
                   (unsigned long long)hang, (unsigned long long)seg);
    return si;
}

/* The index in G of hang H's segment (read_extras checked it is there). */
static uint32_t hang_si(report *R, const argus_hang_finding *h)
{
    return argus_graph_find_seg(R->g, h->seg);
}

/* Each reads record R of its kind into its list, or exits 65 saying what
 * is wrong with it; the records' segments must be G's. */
static void read_hang(report *R, const argus_record *r)
{
    argus_hang_finding *h = &PUSH(R->hangs);
    if (!argus_read_hang(r, &R->mem, h))
        bad_record(R, "hang", "%s", R->mem.error);
    need_seg(R, "hang", h->hang, h->seg);
}

static void read_path(report *R, const argus_record *r)
{
    argus_path_finding *p = &PUSH(R->paths);
    if (!argus_read_path(r, &R->mem, p))
        bad_record(R, "path", "%s", R->mem.error);
    if (p->rank == NONE)
        p->rank = 1;          /* ranked by stream order */
    if (p->nsegs == 0)
        bad_record(R, "path", "hang %llu: \"segs\" is missing or empty",
                   (unsigned long long)p->hang);
    for (int i = 0; i < p->nsegs; i++)
        need_seg(R, "path", p->hang, p->segs[i]);
}

static void read_chain(report *R, const argus_record *r)
{
    argus_chain_finding *c = &PUSH(R->chains);
    if (!argus_read_chain(r, &R->mem, c))
        bad_record(R, "wait_chain", "%s", R->mem.error);
    for (int i = 0; i < c->nsegs; i++)
        need_seg(R, "wait_chain", c->hang, c->segs[i]);
}

static void read_match(report *R, const argus_record *r)
{
    argus_match_finding m;
    bool ok = argus_read_match(r, &R->mem, &m);
    if (m.hang == NONE)
        return;                 /* a match for --seg: not a hang's */
    if (!ok)
        bad_record(R, "match", "%s", R->mem.error);
    if (m.rank == NONE)
        m.rank = 1;           /* ranked by stream order */
    PUSH(R->matches) = m;
}

static void read_no_match(report *R, const argus_record *r)
{
    argus_no_match_finding m;
    argus_read_no_match(r, &R->mem, &m);
    if (m.hang != NONE)         /* else for --seg: not a hang's */
        PUSH(R->no_matches) = m;
}

static void read_culprit(report *R, const argus_record *r)
{
    argus_culprit_finding *c = &PUSH(R->culprits);
    if (!argus_read_culprit(r, &R->mem, c))
        bad_record(R, "culprit", "%s", R->mem.error);
    if (c->rank == NONE)
        c->rank = 1;          /* ranked by stream order */
    if (c->seg != NONE)
        need_seg(R, "culprit", c->hang, c->seg);
}

static void read_branch(report *R, const argus_record *r)
{
    if (!argus_read_branch(r, &R->mem, &PUSH(R->branches)))
        bad_record(R, "branch", "%s", R->mem.error);
}

static void read_cpath(report *R, const argus_record *r)
{
    if (!argus_read_cpath(r, &R->mem, &PUSH(R->cpaths)))
        bad_record(R, "critical_path", "%s", R->mem.error);
}

/* ---- what the trace lost (decode's DEC-LOSS `loss` records) ---------------- */
#define CAUSE_BEFORE 3000000000ull  /* the stretch before a hang where its cause would be */


static void read_loss(report *R, const argus_record *r)
{
    argus_loss_finding f;
    if (!argus_read_loss(r, &R->mem, &f))
        return;
    if (strcmp(f.kind, "overwritten") == 0) {
        R->loss.any = true;
        if (f.events != NONE)
            R->loss.overwritten += f.events;
        if (f.written != NONE && f.written > R->loss.written)
            R->loss.written = f.written;
    } else if (strcmp(f.kind, "cpu_start") == 0 && f.since != NONE) {
        R->loss.any = true;
        if (!R->loss.have_start || f.since > R->loss.late_since) {
            R->loss.late_since = f.since;
            R->loss.late_cpu = f.cpu;
            R->loss.have_start = true;
        }
    } else if (strcmp(f.kind, "dropped") == 0) {
        R->loss.any = true;
        if (f.events != NONE)
            R->loss.dropped += f.events;
        if (f.from == NONE || f.to == NONE) {
            R->loss.drop_any_time = true;
        } else {
            if (!R->loss.drop_when || f.from < R->loss.drop_from)
                R->loss.drop_from = f.from;
            if (!R->loss.drop_when || f.to > R->loss.drop_to)
                R->loss.drop_to = f.to;
            R->loss.drop_when = true;
        }
    } else if (strcmp(f.kind, "cut") == 0) {
        R->loss.any = true;
        R->loss.cut_line = f.line != NONE ? f.line : 1;
    } else if (strcmp(f.kind, "no_end") == 0) {
        R->loss.any = true;
        R->loss.no_end = true;
    } else if (strcmp(f.kind, "full") == 0) {
        R->loss.any = true;
        R->loss.full_chunks = f.chunks != NONE && f.chunks ? f.chunks : 1;
    }
}

/* Whether some CPU's kept events start later than the trace's first (by
 * more than 1 ms): before then the trace misses that CPU's. */
static bool late_start(report *R)
{
    return R->loss.have_start && R->loss.late_since > R->g->t_first + 1000000u;
}

/* Whether hang H's window, or the stretch before it where its cause
 * would be, falls where the trace lost events. */
static bool hang_in_loss(report *R, const argus_hang_finding *h)
{
    uint64_t lo = h->begin > CAUSE_BEFORE ? h->begin - CAUSE_BEFORE : 0, hi = h->end;
    return (late_start(R) && lo < R->loss.late_since) || R->loss.drop_any_time ||
           (R->loss.drop_when && R->loss.drop_from <= hi && R->loss.drop_to >= lo) ||
           ((R->loss.cut_line || R->loss.no_end || R->loss.full_chunks) &&
            (h->open || h->end + 1000000u >= R->g->t_last));
}

/* "Incomplete trace: ..." (empty when nothing was lost): what was lost,
 * what share of the events the answer rests on, and which hangs' windows
 * fall where events were lost. */
static void sb_losses(report *R, sb *b)
{
    if (!R->loss.any)
        return;
    sb_strong(R, b, "Incomplete trace:");
    sb_puts(b, " ");
    const char *sep = "";
    if (R->loss.overwritten && R->loss.written >= R->loss.overwritten) {
        uint64_t kept = R->loss.written - R->loss.overwritten;
        uint64_t pct = kept * 100 / R->loss.written;
        sb_printf(b, "the ring buffer overwrote %llu of the %llu events written, so this answer "
                     "rests on %s%llu%% of them", (unsigned long long)R->loss.overwritten,
                  (unsigned long long)R->loss.written, pct ? "" : "under ",
                  (unsigned long long)(pct ? pct : 1));
        sep = "; ";
    }
    if (late_start(R)) {
        sb_printf(b, "%sthe events kept of CPU %llu start only at ", sep,
                  (unsigned long long)R->loss.late_cpu);
        sb_time(R, b, R->loss.late_since);
        sb_puts(b, " (");
        sb_dur(b, R->loss.late_since - R->g->t_first);
        sb_puts(b, " after the trace's first)");
        sep = "; ";
    }
    if (R->loss.dropped || R->loss.drop_when || R->loss.drop_any_time) {
        /* none counted: a Perfetto bundle's lost_events flag, CTF's
         * discarded packets say that events were lost, not how many */
        if (R->loss.dropped)
            sb_printf(b, "%sthe tracer dropped %llu events", sep,
                      (unsigned long long)R->loss.dropped);
        else
            sb_printf(b, "%sthe tracer dropped events it did not count", sep);
        if (R->loss.drop_when) {
            sb_puts(b, " (about ");
            if (R->loss.drop_to > R->loss.drop_from)
                sb_range(R, b, R->loss.drop_from, R->loss.drop_to);
            else
                sb_time(R, b, R->loss.drop_from);
            sb_puts(b, ")");
        }
        sep = "; ";
    }
    if (R->loss.cut_line) {
        sb_printf(b, "%sits last line (line %llu) is cut short: the recording stopped while "
                     "writing", sep, (unsigned long long)R->loss.cut_line);
        sep = "; ";
    }
    if (R->loss.no_end) {
        sb_printf(b, "%sit lacks argus-record's end mark: the recording did not finish (killed, "
                     "or its disk full), and what it had not written is missing", sep);
        sep = "; ";
    }
    if (R->loss.full_chunks)
        sb_printf(b, "%sthe tracer's buffer filled and it discarded what came after (%llu "
                     "chunks): the trace ends early", sep, (unsigned long long)R->loss.full_chunks);
    sb_puts(b, ".");
    uint32_t n = 0, first = 0;
    for (uint32_t i = 0; i < R->hangs.n; i++)
        if (hang_in_loss(R, &R->hangs.v[i]) && !n++)
            first = i;
    if (n == 1 && R->hangs.n == 1)
        sb_puts(b, " The hang's window, or the 3 s before it where its cause would be, falls "
                   "where events were lost: its cause may be among them.");
    else if (n == 1)
        sb_printf(b, " The window of hang %llu, or the 3 s before it where its cause would be, "
                     "falls where events were lost: its cause may be among them.",
                  (unsigned long long)R->hangs.v[first].hang);
    else if (n > 1 && n == R->hangs.n)
        sb_printf(b, " The windows of all %u hangs, or the 3 s before them where their causes "
                     "would be, fall where events were lost: their causes may be among them.", n);
    else if (n > 1)
        sb_printf(b, " The windows of %u of the %u hangs, or the 3 s before them where their "
                     "causes would be, fall where events were lost: their causes may be among "
                     "them.", n, R->hangs.n);
}

static void read_extras(report *R, argus_graph *g)
{
    for (uint32_t i = 0; i < g->nextras; i++) {
        const argus_extra *x = &g->extras[i];
        argus_finding_kind k = argus_finding_kind_of(x->type, strlen(x->type));
        if (k == ARGUS_F_NONE)
            continue;
        R->record_number = x->number;
        const argus_record *r = argus_graph_parse_extra(g, i);
        if (!r)
            bad_record(R, argus_finding_kind_name(k), "cannot be parsed again");
        switch (k) {
        case ARGUS_F_HANG: read_hang(R, r); break;
        case ARGUS_F_PATH: read_path(R, r); break;
        case ARGUS_F_WAIT_CHAIN: read_chain(R, r); break;
        case ARGUS_F_CRITICAL_PATH: read_cpath(R, r); break;
        case ARGUS_F_MATCH: read_match(R, r); break;
        case ARGUS_F_NO_MATCH: read_no_match(R, r); break;
        case ARGUS_F_CULPRIT: read_culprit(R, r); break;
        case ARGUS_F_BRANCH: read_branch(R, r); break;
        default: read_loss(R, r); break;
        }
    }
}

static int cmp_u(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }

static int by_hang(const void *a, const void *b)
{
    return cmp_u(((const argus_hang_finding *)a)->hang, ((const argus_hang_finding *)b)->hang);
}

static int by_path_rank(const void *a, const void *b)
{
    const argus_path_finding *x = a, *y = b;
    int c = cmp_u(x->hang, y->hang);
    if (!c) c = cmp_u(x->rank, y->rank);
    return c ? c : cmp_u(x->number, y->number);
}

static int by_match_rank(const void *a, const void *b)
{
    const argus_match_finding *x = a, *y = b;
    int c = cmp_u(x->hang, y->hang);
    if (!c) c = cmp_u(x->rank, y->rank);
    return c ? c : cmp_u(x->number, y->number);
}

static int by_culprit_rank(const void *a, const void *b)
{
    const argus_culprit_finding *x = a, *y = b;
    int c = cmp_u(x->hang, y->hang);
    if (!c) c = cmp_u(x->rank, y->rank);
    return c ? c : cmp_u(x->number, y->number);
}

/* ---- layout: the two formats ---------------------------------------------------------
 * Text: a hang is a heading at column 0, its sections are indented by 2,
 * their lines by 4. Markdown: ## for a hang, ### for a section, lists.
 * A format is chosen once (argus_report_write), as git's status printers
 * are: the sections say what, the format says how it is laid out. */


static void text_heading(report *R, int level, const char *text)
{
    blank();
    if (level == 2) {
        emit(R, "", "  ", text);
    } else {
        char t[200];
        snprintf(t, sizeof t, "%s:", text);
        emit(R, "  ", "    ", t);
    }
}

static void md_heading(report *R, int level, const char *text)
{
    blank();
    emit(R, level == 1 ? "# " : level == 2 ? "## " : "### ", "", text);
    blank();
}

/* "Label:  value" under a hang heading. */
static void text_field(report *R, const char *label, const char *value)
{
    char first[64], lab[32];
    snprintf(lab, sizeof lab, "%s:", label);
    snprintf(first, sizeof first, "  %-11s", lab);
    emit(R, first, "             ", value);
}

static void md_field(report *R, const char *label, const char *value)
{
    char first[64];
    snprintf(first, sizeof first, "- **%s:** ", label);
    emit(R, first, "  ", value);
}

static const report_format text_format = {
    .markup = false, .title = NULL, .no_hang = "no hang found", .strong = "",
    .heading = text_heading, .field = text_field,
    .item = {"    ", "      "}, .sub_item = {"      ", "        "},
    .detail = {"       ", "         "}, .para = {"    ", "    "},
    .number_first = "    %u. ", .number_cont = "       ", .gaps = false,
};

static const report_format markdown_format = {
    .markup = true, .title = "# Hang report\n", .no_hang = "# No hang found\n", .strong = "**",
    .heading = md_heading, .field = md_field,
    .item = {"- ", "  "}, .sub_item = {"- ", "  "},
    .detail = {"   - ", "     "}, .para = {"", ""},
    .number_first = "%u. ", .number_cont = "   ", .gaps = true,
};

static void heading(report *R, int level, const char *text) { R->f->heading(R, level, text); }
static void field(report *R, const char *label, const char *value) { R->f->field(R, label, value); }
static void item(report *R, const char *text) { emit(R, R->f->item.first, R->f->item.cont, text); }

static void numbered(report *R, unsigned n, const char *text)
{
    char first[16];
    snprintf(first, sizeof first, R->f->number_first, n);
    emit(R, first, R->f->number_cont, text);
}

/* A detail line under a numbered item. */
static void detail(report *R, const char *text)
{
    emit(R, R->f->detail.first, R->f->detail.cont, text);
}

static void para(report *R, const char *text) { emit(R, R->f->para.first, R->f->para.cont, text); }

/* Markdown lists and paragraphs need a blank line between them. */
static void md_gap(report *R)
{
    if (R->f->gaps)
        blank();
}


/* ---- sections --------------------------------------------------------------------------- */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The distinct pids of the graph's threads: sorted, then counted once
 * each (O(n log n); a search of the threads before each thread was
 * quadratic, 473 s for a million threads). */
static uint32_t count_processes(report *R)
{
    if (R->g->nthreads == 0)
        return 0;
    uint64_t *pids = argus_xmalloc(R->g->nthreads * sizeof *pids, "the process count");
    for (uint32_t i = 0; i < R->g->nthreads; i++)
        pids[i] = R->g->threads[i].pid;
    argus_sort(pids, R->g->nthreads, sizeof *pids, cmp_u64);
    uint32_t procs = 1;
    for (uint32_t i = 1; i < R->g->nthreads; i++)
        procs += pids[i] != pids[i - 1];
    free(pids);
    return procs;
}

static void trace_summary(report *R, sb *b)
{
    uint32_t procs = count_processes(R);
    sb_printf(b, "Trace: %u thread%s in %u process%s, %u segment%s, %llu event%s",
              R->g->nthreads, R->g->nthreads == 1 ? "" : "s", procs, procs == 1 ? "" : "es",
              R->g->nsegs, R->g->nsegs == 1 ? "" : "s", (unsigned long long)R->g->nevents,
              R->g->nevents == 1 ? "" : "s");
    if (R->g->nevents) {
        sb_puts(b, ", ");
        sb_time(R, b, R->g->t_first);
        sb_puts(b, " to ");
        sb_time(R, b, R->g->t_last);
        sb_puts(b, " (");
        sb_dur(b, R->g->t_last - R->g->t_first);
        sb_puts(b, R->have_origin ? "), times on the trace's own clock"
                                  : "), times in seconds from the trace's zero");
        if (R->have_t0)
            sb_puts(b, " (wall clock UTC in brackets)");
    }
    sb_puts(b, ".");
}

static uint64_t hang_begin(report *R, const argus_hang_finding *h)
{
    return h->begin != NONE ? h->begin : R->g->segs[hang_si(R, h)].begin;
}

static uint64_t hang_end(report *R, const argus_hang_finding *h)
{
    return h->end != NONE ? h->end : argus_seg_until(R->g, &R->g->segs[hang_si(R, h)]);
}

static uint64_t hang_duration(report *R, const argus_hang_finding *h)
{
    if (h->duration != NONE)
        return h->duration;
    uint64_t b = hang_begin(R, h), e = hang_end(R, h);
    return e > b ? e - b : 0;
}

/* SPIN-CLASS, in words. */
static void sb_class(report *R, sb *b, const argus_hang_finding *h)
{
    const argus_seg *s = &R->g->segs[hang_si(R, h)];
    const char *cls = h->cls ? h->cls : "unknown";
    sb_sym(R, b, cls);
    sb_puts(b, NBS "- ");
    if (strcmp(cls, "wait") == 0) {
        uint64_t w = h->wait != NONE ? h->wait : s->wait_id;
        const argus_key_event *k = key_of(R, hang_si(R, h), w);
        uint64_t from = k                 ? k->ts
                        : ends_in_wait(s) ? wait_began(R, hang_si(R, h))
                                          : hang_begin(R, h);
        uint64_t to = hang_end(R, h);
        const char *reason = h->reason ? h->reason
                             : s->wait_reason ? argus_graph_str(R->g, s->wait_reason) : NULL;
        uint64_t res = h->resource != NONE ? h->resource
                       : ends_in_wait(s) ? s->wait_resource : NONE;
        uint64_t timeouts = h->timeouts != NONE ? h->timeouts : s->ntimeouts;
        sb_puts(b, "blocked ");
        sb_dur(b, h->blocked != NONE && h->blocked ? h->blocked : to > from ? to - from : 0);
        sb_puts(b, " in ");
        sb_wait_what(R, b, reason, res, w);
        if (h->waits != NONE && h->waits > 1 && reason && strcmp(reason, "disk") == 0)
            sb_printf(b, ", %llu of them one after the other", (unsigned long long)h->waits);
        else if (h->waits != NONE && h->waits > 1)
            sb_printf(b, ", over %llu waits in a row (each begun again after a timeout, or "
                      "after a wakeup from its own threads)", (unsigned long long)h->waits);
        else if (timeouts > 1)
            sb_printf(b, ", the last of %llu waits on it in a row that timed out",
                      (unsigned long long)timeouts);
        if (!h->result)
            sb_puts(b, ", still blocked when the trace ends");
        else if (strcmp(h->result, "awakened") == 0)
            sb_puts(b, ", then woken");
        else if (argus_woken_words(h->result)) {
            sb_puts(b, ", ended ");
            sb_puts(b, argus_woken_words(h->result));
        } else {
            sb_puts(b, ", ended ");
            sb_sym(R, b, h->result);
        }
        if (h->runnable != NONE && h->blocked != NONE && h->runnable * 10 >= h->blocked) {
            sb_puts(b, "; the last ");
            sb_dur(b, h->runnable);
            sb_puts(b, " of it runnable (woken, waiting for a CPU)");
        }
    } else if (strcmp(cls, "yield") == 0) {
        uint64_t ev = h->events != NONE ? h->events : s->nevents;
        uint64_t y = h->yields != NONE ? h->yields : s->nyields;
        sb_printf(b, "yield loop: %llu of %llu events are yields, over ",
                  (unsigned long long)y, (unsigned long long)ev);
        sb_dur(b, hang_duration(R, h));
    } else if (strcmp(cls, "busy") == 0) {
        sb_puts(b, "ran ");
        sb_dur(b, hang_duration(R, h));
        sb_puts(b, " without blocking");
        if (h->events != NONE)
            sb_printf(b, " (%llu events)", (unsigned long long)h->events);
    } else {
        sb_puts(b, "lasted ");
        sb_dur(b, hang_duration(R, h));
    }
}

/* SPIN-INDICATOR / SPIN-HANG, in words. */
static void sb_indicator(report *R, sb *b, const argus_hang_finding *h)
{
    const char *ind = h->indicator ? h->indicator : "";
    if (strcmp(ind, "anr") == 0) {
        sb_puts(b, "input not handled within 5 s: Android's ANR");
        if (h->at != NONE) {
            sb_puts(b, ", at ");
            sb_time(R, b, h->at);
        }
        if (h->open)
            sb_puts(b, "; not back at its wait when the trace ends");
        return;
    }
    if (strcmp(ind, "loop") == 0) {
        sb_puts(b, "its main loop did not get back to waiting for events");
        if (h->at != NONE) {
            uint64_t begin = hang_begin(R, h);
            if (h->at > begin) {
                sb_puts(b, " within ");
                sb_dur(b, h->at - begin);
            }
            if (R->hang_ms)
                sb_puts(b, " (--hang)");
            else
                sb_puts(b, " (the limit for GUI programs; --hang MS sets it)");
            sb_puts(b, ", crossed at ");
            sb_time(R, b, h->at);
        }
        if (h->open)
            sb_puts(b, "; not back at its wait when the trace ends");
        return;
    }
    if (strcmp(ind, "hang") == 0) {
        if (R->hang_ms)
            sb_printf(b, "a main thread blocked or busy past --hang's %llu ms",
                      (unsigned long long)R->hang_ms);
        else
            sb_printf(b, "a main thread blocked or busy past the default limit (%d ms; %d s for "
                         "GUI programs when a GUI main loop is seen; --hang MS sets it)",
                      ARGUS_LINUX_HANG_MS, ARGUS_LOOP_HANG_MS / 1000);
        if (h->at != NONE) {
            sb_puts(b, ", crossed at ");
            sb_time(R, b, h->at);
            uint64_t begin = hang_begin(R, h);
            if (h->at > begin) {
                sb_puts(b, " (");
                sb_dur(b, h->at - begin);
                sb_puts(b, " into the segment)");
            }
        }
        return;
    }
    if (!*ind) {
        sb_puts(b, "not recorded");
    } else if (strstr(ind, "ConnectionSetSpinning")) {
        sb_puts(b, "spinning cursor, ");
        sb_sym(R, b, ind);
    } else if (strcmp(ind, "sCGEventIsMainThreadSpinning") == 0) {
        sb_puts(b, "spinning-cursor flag ");
        sb_sym(R, b, ind);
        sb_puts(b, " set");
    } else {
        sb_puts(b, "indicator ");
        sb_sym(R, b, ind);
    }
    if (h->at != NONE) {
        sb_puts(b, " at ");
        sb_time(R, b, h->at);
    }
    if (h->event != NONE) {
        sb_printf(b, " (event %llu", (unsigned long long)h->event);
        uint32_t si = argus_graph_seg_of(R->g, h->event);
        if (si != ARGUS_NONE) {
            sb_puts(b, " on ");
            sb_seg_thread(R, b, si);
        }
        sb_puts(b, ")");
    }
}

static void section_hang(report *R, const argus_hang_finding *h)
{
    sb_clear(&R->line);
    sb_printf(&R->line, "Hang %llu: ", (unsigned long long)h->hang);
    sb_thread(R, &R->line,
              h->tid != NONE ? h->tid : R->g->threads[R->g->segs[hang_si(R, h)].thread].tid, h->pid,
              h->proc, h->thread);
    uint64_t pid = h->pid != NONE ? h->pid : R->g->threads[R->g->segs[hang_si(R, h)].thread].pid;
    sb_printf(&R->line, " (pid %llu)", (unsigned long long)pid);
    heading(R, 2, sb_str(&R->line));

    sb_clear(&R->line);
    sb_time(R, &R->line, hang_begin(R, h));
    sb_wall(R, &R->line, hang_begin(R, h));
    sb_puts(&R->line, " to ");
    sb_time(R, &R->line, hang_end(R, h));
    sb_puts(&R->line, " (");
    sb_dur(&R->line, hang_duration(R, h));
    sb_puts(&R->line, ")");
    field(R, "When", sb_str(&R->line));

    /* the command the user ran, where the trace has it (DEC-CMDLINE): an
     * interpreted program's name is its interpreter's */
    const char *cmdline = argus_graph_cmdline(R->g, pid);
    if (cmdline) {
        char words[256];
        size_t n = argus_utf8_cut(cmdline, strlen(cmdline), sizeof words - 4);
        memcpy(words, cmdline, n);
        strcpy(words + n, n < strlen(cmdline) ? "..." : "");
        for (char *c = words; *c; c++)
            if (*c == '\n')
                *c = ' ';
        sb_clear(&R->line);
        sb_sym(R, &R->line, words);
        field(R, "Command", sb_str(&R->line));
    }
    sb_clear(&R->line);
    sb_class(R, &R->line, h);
    field(R, "Class", sb_str(&R->line));
    sb_clear(&R->line);
    sb_indicator(R, &R->line, h);
    field(R, "Found by", sb_str(&R->line));
}

static void sb_ui(report *R, sb *b, uint64_t ui, const char *kind)
{
    uint32_t si = argus_graph_seg_of(R->g, ui);
    const argus_key_event *k = key_of(R, si, ui);
    const char *kd = kind ? kind
                     : si != ARGUS_NONE && R->g->segs[si].ui_id == ui && R->g->segs[si].ui_kind
                         ? argus_graph_str(R->g, R->g->segs[si].ui_kind)
                         : "ui_event";
    sb_sym(R, b, kd);
    if (R->details || si == ARGUS_NONE)
        sb_printf(b, ", event %llu", (unsigned long long)ui);
    if (si == ARGUS_NONE)
        return;
    sb_puts(b, " at ");
    sb_time(R, b, k ? k->ts : R->g->segs[si].begin);
    sb_puts(b, " on ");
    sb_seg_thread(R, b, si);
}

static void section_ui(report *R, const argus_path_finding *p, uint32_t np)
{
    heading(R, 3, "UI events that led to it");
    /* each UI event once, in the order of the best path reaching it */
    uint32_t *first = argus_xmalloc((np + 1) * sizeof *first, "the path's segments");
    uint32_t nseen = 0;
    for (uint32_t i = 0; i < np; i++) {
        if (!p[i].complete || p[i].ui == NONE)
            continue;
        bool dup = false;
        for (uint32_t k = 0; k < nseen && !dup; k++)
            dup = p[first[k]].ui == p[i].ui;
        if (!dup)
            first[nseen++] = i;
    }
    for (uint32_t k = 0; k < nseen; k++) {
        const argus_path_finding *x = &p[first[k]];
        sb_clear(&R->line);
        sb_ui(R, &R->line, x->ui, x->ui_kind);
        if (nseen > 1 && R->details)
            sb_printf(&R->line, " (path rank %llu)", (unsigned long long)x->rank);
        item(R, sb_str(&R->line));
    }
    free(first);
    if (nseen == 0)
        para(R, np ? "None found: no causal path reaches a UI event."
                : "None found: no causal path was recorded.");
}

static void sb_edge(report *R, sb *b, const argus_path_finding *p, int i)
{
    sb_sym(R, b, i < p->nkinds ? p->kinds[i] : "edge");
    if (R->details && i < p->nfrom && i < p->nto)
        sb_printf(b, ", event %llu" NBS "->" NBS "%llu", (unsigned long long)p->from[i],
                  (unsigned long long)p->to[i]);
}

/* A segment's time range ends at its resume when its final wait ended in
 * the trace, else at its last event. */
static uint64_t seg_shown_end(const argus_seg *s)
{
    return ends_in_wait(s) && s->resume != NONE ? s->resume : s->end;
}

static void section_path(report *R, const argus_hang_finding *h, const argus_path_finding *p,
                         uint32_t np)
{
    heading(R, 3, "Causal path");
    if (np == 0) {
        para(R, "None recorded.");
        return;
    }
    const argus_path_finding *best = &p[0];
    sb_clear(&R->line);
    if (!R->details) {
        /* the best path in words: from which UI event, through which threads */
        if (best->complete && best->ui != NONE) {
            sb_puts(&R->line, "From the ");
            sb_ui(R, &R->line, best->ui, best->ui_kind);
            sb_puts(&R->line, " to the hang, the work went through:");
        } else if (best->complete) {
            sb_puts(&R->line, "From a UI event to the hang, the work went through:");
        } else {
            sb_puts(&R->line, "It does not reach back to a UI event; the work went through:");
        }
    } else {
        sb_printf(&R->line, "Rank %llu of %u, score %lld, ", (unsigned long long)best->rank,
                  np, (long long)best->score);
        if (best->complete) {
            sb_puts(&R->line, "complete: from ");
            if (best->ui != NONE)
                sb_printf(&R->line, "the UI event (event %llu)", (unsigned long long)best->ui);
            else
                sb_puts(&R->line, "a UI event");
            sb_puts(&R->line, " to the hang.");
        } else {
            sb_puts(&R->line, "incomplete: it stops before any UI event.");
        }
    }
    para(R, sb_str(&R->line));
    md_gap(R);
    if (R->f->markup && R->details) {
        puts("| seg | thread | time | key events | next edge |");
        puts("|---:|---|---|---|---|");
    } else if (R->f->markup) {
        puts("| thread | time | key events | next edge |");
        puts("|---|---|---|---|");
    }
    for (int i = 0; i < best->nsegs; i++) {
        uint32_t si = argus_graph_find_seg(R->g, best->segs[i]);
        const argus_seg *s = &R->g->segs[si];
        bool is_hang = si == hang_si(R, h);
        sb_clear(&R->line);
        if (R->f->markup) {
            R->in_table = true;
            if (R->details)
                sb_printf(&R->line, "| %llu%s | ", (unsigned long long)s->seg,
                          is_hang ? " (hang)" : "");
            else
                sb_puts(&R->line, "| ");
            sb_seg_thread(R, &R->line, si);
            if (!R->details && is_hang)
                sb_puts(&R->line, " (hang)");
            sb_puts(&R->line, " | ");
            sb_range(R, &R->line, s->begin, seg_shown_end(s));
            sb_puts(&R->line, " | ");
            sb_seg_events(R, &R->line, si);
            sb_puts(&R->line, " | ");
            if (i + 1 < best->nsegs)
                sb_edge(R, &R->line, best, i);
            sb_puts(&R->line, " |");
            R->in_table = false;
            put_word(sb_str(&R->line), R->line.len);
            putchar('\n');
            continue;
        }
        if (R->details)
            sb_printf(&R->line, "seg" NBS "%llu" NBS NBS, (unsigned long long)s->seg);
        sb_seg_thread(R, &R->line, si);
        sb_puts(&R->line, NBS NBS);
        sb_range(R, &R->line, s->begin, seg_shown_end(s));
        if (is_hang)
            sb_puts(&R->line, NBS "(hang)");
        sb_puts(&R->line, ": ");
        sb_seg_events(R, &R->line, si);
        emit(R, "    ", "        ", sb_str(&R->line));
        if (i + 1 < best->nsegs) {
            sb_clear(&R->line);
            sb_puts(&R->line, "-> ");
            sb_edge(R, &R->line, best, i);
            emit(R, "      ", "        ", sb_str(&R->line));
        }
    }
    if (np < 2 || !R->details)
        return;
    md_gap(R);
    para(R, "Other paths:");
    md_gap(R);
    for (uint32_t k = 1; k < np; k++) {
        const argus_path_finding *o = &p[k];
        sb_clear(&R->line);
        sb_printf(&R->line, "rank %llu, score %lld, %s", (unsigned long long)o->rank,
                  (long long)o->score, o->complete ? "complete" : "incomplete");
        if (o->complete && o->ui_kind) {
            sb_puts(&R->line, " (");
            sb_sym(R, &R->line, o->ui_kind);
            sb_puts(&R->line, ")");
        }
        sb_puts(&R->line, ": ");
        for (int i = 0; i < o->nsegs; i++) {
            sb_printf(&R->line, "seg" NBS "%llu", (unsigned long long)o->segs[i]);
            if (i + 1 < o->nsegs)
                sb_printf(&R->line, " -%s-> ", i < o->nkinds ? o->kinds[i] : "");
        }
        emit(R, R->f->sub_item.first, R->f->sub_item.cont, sb_str(&R->line));
    }
}

/* A segment in a wait chain or a culprit: what it did at the end. */
static void sb_blocked(report *R, sb *b, uint32_t si)
{
    const argus_seg *s = &R->g->segs[si];
    if (!ends_in_wait(s)) {
        sb_puts(b, "running ");
        sb_range(R, b, s->begin, s->end);
        return;
    }
    uint64_t from = wait_began(R, si), to = argus_seg_until(R->g, s);
    sb_puts(b, "blocked ");
    sb_dur(b, to > from ? to - from : 0);
    if (s->resume == NONE)
        sb_puts(b, " to the end of the trace");
    sb_puts(b, " in ");
    sb_wait_what(R, b, s->wait_reason ? argus_graph_str(R->g, s->wait_reason) : NULL,
                 s->wait_resource, s->wait_id);
}

/* How a wait chain ended (its record's "end"), in the report's words:
 * what it means, for the chain's own lines, and what the verdict adds
 * after the last link's wait (NULL: nothing). */
typedef struct chain_end_words {
    const char *end, *meaning, *after_wait;
} chain_end_words;

static const chain_end_words *chain_end(const char *end)
{
    static const chain_end_words m[] = {
        {"io", "an interrupt (I/O) ended the last wait, not another thread",
         " until an interrupt (I/O) ended it"},
        {"timeout", "the last thread's own timer ended its wait: the sleep or timeout expired",
         " until its own timeout expired"},
        {"no_reply", "the last request got no reply in the trace",
         ", and its request got no reply in the trace"},
        {"not_woken", "nothing in the trace woke the last thread",
         ", and nothing in the trace woke it"},
        {"cycle", "the last thread waits on one already in the chain",
         ", waiting on a thread already in this chain: a deadlock"},
        {"running", "the last thread was running, not blocked", NULL},
        {"runnable", "woken in time, it then waited for a CPU", ", then waited for a CPU"},
        {"trace_start", "the last thread's first event in the trace is its wakeup: the trace "
                        "began too late to show what it did before", NULL},
        {"depth", "the chain was cut at the depth limit",
         " (the chain goes on past the depth limit)"},
    };
    for (size_t i = 0; end && i < sizeof m / sizeof *m; i++)
        if (strcmp(end, m[i].end) == 0)
            return &m[i];
    return NULL;
}

/* The ipc event ID of the graph (argus_ipc_info), or NULL. */
static const argus_ipc_info *ipc_by_id(report *R, uint64_t id)
{
    uint32_t at = argus_lower_bound(R->g->ipcs, R->g->nipcs, sizeof *R->g->ipcs,
                                    offsetof(argus_ipc_info, id), sizeof(uint64_t), id);
    return at < R->g->nipcs && R->g->ipcs[at].id == id ? &R->g->ipcs[at] : NULL;
}

/* The message that explains link I of chain C, found from link I-1 by
 * the wakeup that ended its wait: the first message link I-1's thread
 * received once woken (at or after until[I-1]), when an ipc edge (IPC-MSG)
 * joins it from a send by link I's process made while link I-1 waited
 * (since[I-1]..until[I-1]). The process, not the thread: a GDBus or
 * QtDBus call is numbered on the calling thread, and its worker writes it.
 * NULL when there is none: the wakeup alone is what the trace shows. */
static const argus_ipc_info *hop_message(report *R, const argus_chain_finding *c, int i)
{
    if (i < 1 || i >= c->nsegs || i - 1 >= c->nsince || i - 1 >= c->nuntil)
        return NULL;
    uint32_t woken = argus_graph_find_seg(R->g, c->segs[i - 1]);
    uint32_t waker = argus_graph_find_seg(R->g, c->segs[i]);
    uint64_t tid = R->g->threads[R->g->segs[woken].thread].tid;
    uint64_t pid = R->g->threads[R->g->segs[waker].thread].pid;
    uint64_t since = c->since[i - 1], until = c->until[i - 1];
    /* from the first ipc event at or after until */
    uint32_t lo = argus_lower_bound(R->g->ipcs, R->g->nipcs, sizeof *R->g->ipcs,
                                    offsetof(argus_ipc_info, ts), sizeof(uint64_t), until);
    const argus_ipc_info *recv = NULL;
    for (uint32_t k = lo; k < R->g->nipcs && !recv; k++)
        if (R->g->ipcs[k].recv && R->g->ipcs[k].tid == tid)
            recv = &R->g->ipcs[k];
    uint32_t si = recv ? argus_graph_seg_of(R->g, recv->id) : ARGUS_NONE;
    if (si == ARGUS_NONE)
        return NULL;
    const argus_seg *s = &R->g->segs[si];
    for (uint32_t k = 0; k < s->in_len; k++) {
        const argus_gedge *e = &R->g->edges[R->g->in_edges[s->in_off + k]];
        if (e->to != recv->id || strcmp(argus_graph_str(R->g, e->kind), "ipc") != 0)
            continue;
        const argus_ipc_info *send = ipc_by_id(R, e->from);
        if (send && !send->recv && send->pid == pid && send->ts >= since && send->ts <= until)
            return send;
    }
    return NULL;
}

/* Message M in words: "a D-Bus method call (serial 4)", "a message over
 * a socket", "a Mach message (msg_id 4242)". */
static void sb_message(report *R, sb *b, const argus_ipc_info *m)
{
    const char *via = m->via ? argus_graph_str(R->g, m->via) : "";
    if (strcmp(via, "binder") == 0) {
        sb_puts(b, m->reply ? "a binder reply" : "a binder call");
        if (m->msg != NONE)
            sb_printf(b, " (transaction %llu)", (unsigned long long)(m->msg & 0xffffffffu));
        return;
    }
    if (strcmp(via, "dbus") == 0) {
        char t[256];            /* method_call: as dbus-monitor says it */
        snprintf(t, sizeof t, "%s", m->dbus_type ? argus_graph_str(R->g, m->dbus_type) : "");
        for (char *u = t; *u; u++)
            if (*u == '_')
                *u = ' ';
        sb_puts(b, "a D-Bus ");
        sb_free_text(R, b, *t ? t : "message");
        if (m->serial != NONE)
            sb_printf(b, " (serial %llu)", (unsigned long long)m->serial);
        return;
    }
    if (strcmp(via, "socket") == 0) {
        sb_puts(b, "a message over a socket");
    } else if (strcmp(via, "fd") == 0) {
        sb_puts(b, "a message through an fd");
    } else if (strcmp(via, "mach") == 0) {
        sb_puts(b, "a Mach message");
    } else if (*via) {
        sb_puts(b, "a message (via ");
        sb_free_text(R, b, via);
        sb_puts(b, ")");
    } else {
        sb_puts(b, "a message");
    }
    if (m->msg_id != NONE)
        sb_printf(b, " (msg_id %llu)", (unsigned long long)m->msg_id);
}

/* How link I of chain C was found from link I-1, in words. */
static void sb_chain_via(report *R, sb *b, const argus_chain_finding *c, int i)
{
    const char *via = i - 1 < c->nvia ? c->via[i - 1] : "";
    const argus_ipc_info *m = strcmp(via, "wakeup") == 0 ? hop_message(R, c, i) : NULL;
    if (m) {
        sb_printf(b, ", which sent %d ", i);
        sb_message(R, b, m);
    } else if (strcmp(via, "wakeup") == 0)
        sb_printf(b, ", which woke %d", i);
    else if (strcmp(via, "ipc") == 0)
        sb_printf(b, ", the IPC peer of %d that did not reply", i);
    else if (strcmp(via, "lock") == 0)
        sb_printf(b, ", which released the file lock %d retried", i);
    else if (strcmp(via, "deadlock") == 0)
        sb_printf(b, ", which waited meanwhile for a lock that %d held (a deadlock)", i);
    else if (strcmp(via, "cpu") == 0)
        sb_printf(b, ", which held the CPU %d waited for", i);
    else if (strcmp(via, "accept") == 0)
        sb_printf(b, ", the local server that accepted the connection %d waited for", i);
    else if (strcmp(via, "yield") == 0)
        sb_printf(b, ", to which %d gave its CPU in its yield loop", i);
    else if (*via)
        sb_printf(b, ", reached from %d by %s", i, via);
}

static void of_hang(const hang_index *ix, uint64_t h, uint32_t *first, uint32_t *count);

static const argus_cpath_finding *cpath_of_hang(report *R, uint64_t hang)
{
    uint32_t first, count;
    of_hang(&R->ix_cpaths, hang, &first, &count);
    return count ? &R->cpaths.v[first] : NULL;
}

/* How long link I of chain C ran (STATE "running") or waited for a CPU
 * ("runnable") over its stretch: its steps in that state on the hang's
 * critical path (SPIN-SUM: a link's pieces summed, its stretch spanning
 * them); the stretch's length when the path is not in the stream. */
static uint64_t link_held(report *R, const argus_chain_finding *c, int i, const char *state,
                          uint64_t from, uint64_t to)
{
    const argus_cpath_finding *cp = cpath_of_hang(R, c->hang);
    uint64_t tid = i < c->ntids ? c->tids[i] : NONE, held = 0;
    if (!cp || tid == NONE)
        return to > from ? to - from : 0;
    for (int k = 0; k < cp->n; k++) {
        uint64_t a = cp->from[k] > from ? cp->from[k] : from;
        uint64_t b = cp->to[k] < to ? cp->to[k] : to;
        if (cp->tid[k] == tid && b > a && strcmp(cp->state[k], state) == 0)
            held += b - a;
    }
    return held ? held : to > from ? to - from : 0;
}

/* Link I's own stretch (since 2026: blocked, running or runnable over
 * [since, until]); a chain without it shows its segment's final wait. */
static void sb_chain_link(report *R, sb *b, const argus_chain_finding *c, int i, uint32_t si)
{
    if (i >= c->nstates || i >= c->nsince || i >= c->nuntil) {
        sb_blocked(R, b, si);
        return;
    }
    uint64_t from = c->since[i], to = c->until[i];
    uint64_t waits = i < c->nwaits ? c->waits[i] : 1;
    const argus_seg *s = &R->g->segs[si];
    if (strcmp(c->states[i], "running") == 0) {
        sb_puts(b, "running ");
        sb_dur(b, link_held(R, c, i, "running", from, to));
        sb_puts(b, ", ");
        sb_range(R, b, from, to);
    } else if (strcmp(c->states[i], "runnable") == 0) {
        sb_puts(b, "runnable ");
        sb_dur(b, link_held(R, c, i, "runnable", from, to));
        sb_puts(b, " (woken, waiting for a CPU), ");
        sb_range(R, b, from, to);
    } else if (strcmp(c->states[i], "unknown") == 0) {
        sb_puts(b, "not yet in the trace: its wakeup is its first event, ");
        sb_range(R, b, from, to);
    } else {
        sb_puts(b, "blocked ");
        sb_dur(b, to > from ? to - from : 0);
        if (to == R->g->t_last && s->resume == NONE)
            sb_puts(b, " to the end of the trace");
        sb_puts(b, " in ");
        /* the wait it was in then: inside the segment (a callout's), or
         * its final one */
        argus_wait_info wi;
        if (!argus_wait_at(R->g, si, from, &wi))
            wi = (argus_wait_info){.id = s->wait_id, .reason = s->wait_reason,
                               .resource = s->wait_resource};
        sb_wait_what(R, b, wi.reason ? argus_graph_str(R->g, wi.reason) : NULL, wi.resource, wi.id);
        if (waits > 1)
            sb_printf(b, " (%llu waits in a row)", (unsigned long long)waits);
    }
}

static void section_chain(report *R, const argus_chain_finding *c)
{
    heading(R, 3, "What it waits on");
    for (int i = 0; i < c->nsegs; i++) {
        uint32_t si = argus_graph_find_seg(R->g, c->segs[i]);
        sb_clear(&R->line);
        sb_seg_thread(R, &R->line, si);
        if (R->details)
            sb_printf(&R->line, ", seg %llu", (unsigned long long)c->segs[i]);
        if (i > 0)
            sb_chain_via(R, &R->line, c, i);
        sb_puts(&R->line, ": ");
        sb_chain_link(R, &R->line, c, i, si);
        numbered(R, (unsigned)i + 1, sb_str(&R->line));
    }
    md_gap(R);
    sb_clear(&R->line);
    sb_puts(&R->line, "Ends: ");
    const char *end = c->end ? c->end : "unknown";
    const chain_end_words *w = chain_end(end);
    const char *meaning = w ? w->meaning : NULL;
    if (R->details || !meaning)
        sb_sym(R, &R->line, end);
    if (meaning) {
        if (R->details)
            sb_puts(&R->line, ", ");
        sb_puts(&R->line, meaning);
    }
    uint32_t last = c->nsegs ? argus_graph_find_seg(R->g, c->segs[c->nsegs - 1]) : ARGUS_NONE;
    bool shown = last != ARGUS_NONE && ends_in_wait(&R->g->segs[last]) &&
                 R->g->segs[last].wait_resource == c->resource;
    if (!shown && (c->reason || (c->resource != NONE && c->resource != 0))) {
        sb_puts(&R->line, " (");
        sb_wait_what(R, &R->line, c->reason, c->resource, NONE);
        sb_puts(&R->line, ")");
    }
    sb_puts(&R->line, ".");
    para(R, sb_str(&R->line));
}

static void section_match(report *R, const argus_match_finding *m, uint32_t nm)
{
    heading(R, 3, "Similar node in the baseline");
    sb_clear(&R->line);
    sb_printf(&R->line, "Seg %llu", (unsigned long long)m->baseline_seg);
    if (m->baseline) {
        sb_puts(&R->line, " of ");
        sb_free_text(R, &R->line, m->baseline);
    }
    sb_printf(&R->line, " (rank %llu of %u)", (unsigned long long)m->rank, nm);
    if (m->distance != NONE && m->by && strcmp(m->by, "kinds") == 0) {
        /* SIM-KINDS: no signature was within SIM-MATCH's edits */
        sb_printf(&R->line, ", alike by kinds of event (SIM-KINDS): %llu kind%s in one and not "
                  "the other", (unsigned long long)m->distance, m->distance == 1 ? "" : "s");
        if (m->percent != NONE)
            sb_printf(&R->line, " (%llu%% of the kinds of both)", (unsigned long long)m->percent);
        if (m->size != NONE && m->baseline_size != NONE)
            sb_printf(&R->line, ", signatures of %llu and %llu elements",
                      (unsigned long long)m->size, (unsigned long long)m->baseline_size);
    } else if (m->distance != NONE) {
        sb_printf(&R->line, ": %llu edit%s", (unsigned long long)m->distance,
                  m->distance == 1 ? "" : "s");
        if (m->size != NONE && m->baseline_size != NONE)
            sb_printf(&R->line, " between signatures of %llu and %llu elements",
                      (unsigned long long)m->size, (unsigned long long)m->baseline_size);
        if (m->percent != NONE)
            sb_printf(&R->line, " (%llu%%)", (unsigned long long)m->percent);
    }
    sb_puts(&R->line, ".");
    para(R, sb_str(&R->line));
}

/* A critical path's state in plain words. */
static const char *cp_state_words(const char *state)
{
    static const char *const m[][2] = {
        {"running", "running"},
        {"runnable", "waiting for a CPU"},
        {"timeout", "waiting out its own timer (a sleep or a timeout)"},
        {"io", "waiting for a device (an interrupt ended it)"},
        {"blocked", "blocked, and nothing in the trace woke it (or one already on this "
                    "path did)"},
        {"unknown", "before its first event in the trace"},
    };
    for (size_t i = 0; i < sizeof m / sizeof *m; i++)
        if (strcmp(state, m[i][0]) == 0)
            return m[i][1];
    return state;
}

/* "Where the time went": the critical path summed per thread, the
 * threads that held the hang up longest first, each with its time by
 * state (at most 6 threads; the rest in one line). */
static void section_time(report *R, const argus_cpath_finding *c)
{
    enum { MAX_T = 64, MAX_S = 6, SHOWN = 6 };
    struct { uint64_t tid, total, by[MAX_S]; const char *state[MAX_S]; int ns; } t[MAX_T];
    int nt = 0;
    uint64_t all = 0, rest = 0;
    int rest_n = 0;
    for (int i = 0; i < c->n; i++) {
        uint64_t d = c->to[i] - c->from[i];
        all += d;
        int k = 0;
        while (k < nt && t[k].tid != c->tid[i])
            k++;
        if (k == nt) {
            if (nt == MAX_T) {
                rest += d;
                continue;
            }
            memset(&t[nt], 0, sizeof t[nt]);
            t[nt++].tid = c->tid[i];
        }
        t[k].total += d;
        int j = 0;
        while (j < t[k].ns && strcmp(t[k].state[j], c->state[i]) != 0)
            j++;
        if (j == t[k].ns && t[k].ns < MAX_S)
            t[k].state[t[k].ns++] = c->state[i];
        if (j < t[k].ns)
            t[k].by[j] += d;
    }
    if (!nt || !all)
        return;
    for (int i = 1; i < nt; i++)        /* longest first, stable */
        for (int k = i; k > 0 && t[k].total > t[k - 1].total; k--) {
            __typeof__(t[0]) x = t[k];
            t[k] = t[k - 1];
            t[k - 1] = x;
        }
    heading(R, 3, "Where the time went");
    for (int i = 0; i < nt; i++) {
        if (i >= SHOWN) {
            rest += t[i].total;
            rest_n++;
            continue;
        }
        sb_clear(&R->line);
        sb_thread(R, &R->line, t[i].tid, NONE, NULL, NULL);
        sb_puts(&R->line, ": ");
        sb_dur(&R->line, t[i].total);
        sb_printf(&R->line, " (%d%%)", (int)(t[i].total * 100 / all));
        for (int j = 0; j < t[i].ns; j++) {
            sb_puts(&R->line, j ? ", " : ": ");
            sb_dur(&R->line, t[i].by[j]);
            sb_puts(&R->line, " ");
            sb_puts(&R->line, cp_state_words(t[i].state[j]));
        }
        item(R, sb_str(&R->line));
    }
    if (rest) {
        sb_clear(&R->line);
        sb_printf(&R->line, "%d other thread%s: ", rest_n, rest_n == 1 ? "" : "s");
        sb_dur(&R->line, rest);
        item(R, sb_str(&R->line));
    }
}

static void section_culprits(report *R, const argus_culprit_finding *c, uint32_t nc,
                             bool with_branch)
{
    heading(R, 3, "Culprits");
    for (uint32_t i = 0; i < nc; i++) {
        const argus_culprit_finding *x = &c[i];
        sb_clear(&R->line);
        if (x->root && R->details) {
            sb_strong(R, &R->line, "root:");
            sb_puts(&R->line, " ");
        }
        sb_thread(R, &R->line, x->tid, x->pid, x->proc, x->thread);
        if (x->root && !R->details) {
            sb_puts(&R->line, " (");
            sb_strong(R, &R->line, "the root cause");
            sb_puts(&R->line, ")");
        }
        if (x->seg != NONE && R->details)
            sb_printf(&R->line, ", seg %llu", (unsigned long long)x->seg);
        const char *state = x->state ? x->state : "blocked";
        sb_puts(&R->line, ": ");
        sb_free_text(R, &R->line, state);
        uint64_t dur = x->duration != NONE ? x->duration
                       : x->since != NONE && x->until != NONE && x->until > x->since
                           ? x->until - x->since : NONE;
        if (dur != NONE) {
            sb_puts(&R->line, " ");
            sb_dur(&R->line, dur);
        }
        if (x->reason || (x->resource != NONE && x->resource != 0)) {
            sb_puts(&R->line, " in ");
            sb_wait_what(R, &R->line, x->reason, x->resource, x->wait);
        }
        if (x->since != NONE && x->until != NONE) {
            sb_puts(&R->line, " (");
            sb_time(R, &R->line, x->since);
            sb_puts(&R->line, " to ");
            sb_time(R, &R->line, x->until);
            sb_puts(&R->line, ")");
        }
        if (x->waits_on != NONE) {
            sb_puts(&R->line, ", waiting on ");
            sb_thread(R, &R->line, x->waits_on, NONE, NULL, NULL);
        }
        numbered(R, x->rank != NONE ? (unsigned)x->rank : i + 1, sb_str(&R->line));

        if (!R->details) {
            /* DIFF-MISSING in words: what the baseline has that this run lacks */
            if (x->missing && x->baseline_seg != NONE) {
                sb_clear(&R->line);
                const char *k = x->missing;
                sb_puts(&R->line, "in the baseline it handed the work on by ");
                sb_puts(&R->line, strcmp(k, "wakeup") == 0   ? "waking the next thread"
                               : strcmp(k, "ipc") == 0    ? "a message"
                               : strcmp(k, "dispatch") == 0 ? "a dispatched block"
                               : strcmp(k, "runloop") == 0 ? "a run-loop callout"
                               : strcmp(k, "timer") == 0  ? "a timer"
                               : strcmp(k, "flag") == 0   ? "a shared flag"
                                                          : "an event");
                sb_puts(&R->line, "; here that never came before the hang");
                detail(R, sb_str(&R->line));
            }
            continue;
        }
        sb_clear(&R->line);
        bool any = false;
        if (x->baseline_seg != NONE) {
            sb_printf(&R->line, "baseline seg %llu", (unsigned long long)x->baseline_seg);
            any = true;
        }
        if (x->missing) {
            sb_puts(&R->line, any ? ", missing edge: " : "missing edge: ");
            sb_sym(R, &R->line, x->missing);
            any = true;
        }
        if (x->depth != NONE) {
            sb_printf(&R->line, "%sdepth %llu", any ? ", " : "", (unsigned long long)x->depth);
            any = true;
        }
        if (with_branch && x->branch != NONE) {
            sb_printf(&R->line, "%sbranch %llu", any ? ", " : "", (unsigned long long)x->branch);
            any = true;
        }
        if (any)
            detail(R, sb_str(&R->line));
        if (x->evidence) {
            sb_clear(&R->line);
            sb_puts(&R->line, "evidence: ");
            sb_free_text(R, &R->line, x->evidence);
            detail(R, sb_str(&R->line));
        }
    }
}

static void section_branches(report *R, const argus_branch_finding *b, uint32_t nb)
{
    heading(R, 3, "Branch points");
    for (uint32_t i = 0; i < nb; i++) {
        sb_clear(&R->line);
        sb_printf(&R->line, "at baseline seg %llu", (unsigned long long)b[i].at);
        if (b[i].nchoices)
            sb_puts(&R->line, ", the path goes on ");
        for (int k = 0; k < b[i].nchoices; k++)
            sb_printf(&R->line, "%sseg" NBS "%llu", k ? (k + 1 == b[i].nchoices ? " or " : ", ")
                                                : "from ",
                      (unsigned long long)b[i].choices[k]);
        if (b[i].chosen != NONE)
            sb_printf(&R->line, "; chose seg %llu", (unsigned long long)b[i].chosen);
        else
            sb_puts(&R->line, "; every branch reported");
        item(R, sb_str(&R->line));
    }
}


/* ---- the verdict ------------------------------------------------------------
 * One or two sentences a developer reads first: the hung thread and what
 * it did, what it waited on at the end of its wait chain, the UI event that
 * started it, the culprit. */
static const char *chain_reason(report *R, const argus_chain_finding *c, int i, uint32_t si,
                                uint64_t *res, uint64_t *wait)
{
    argus_wait_info wi;
    const argus_seg *s = &R->g->segs[si];
    if (i >= c->nsince || !argus_wait_at(R->g, si, c->since[i], &wi))
        wi = (argus_wait_info){.id = s->wait_id, .reason = s->wait_reason,
                               .resource = s->wait_resource};
    *res = wi.resource;
    *wait = wi.id;
    return wi.reason ? argus_graph_str(R->g, wi.reason) : NULL;
}

/* "was blocked 3.000 s in poll" of link I of chain C (its state over its
 * stretch), with how the chain ended when it is the last link. */
static void sb_link_state(report *R, sb *b, const argus_chain_finding *c, int i, bool last)
{
    uint32_t si = argus_graph_find_seg(R->g, c->segs[i]);
    const char *state = i < c->nstates ? c->states[i] : "blocked";
    uint64_t from = i < c->nsince ? c->since[i] : wait_began(R, si);
    uint64_t to = i < c->nuntil ? c->until[i] : argus_seg_until(R->g, &R->g->segs[si]);
    uint64_t d = to > from ? to - from : 0;
    const char *end = c->end ? c->end : "";
    if (strcmp(state, "running") == 0) {
        sb_puts(b, "was running ");
        sb_dur(b, link_held(R, c, i, "running", from, to));
        sb_puts(b, " on the CPU");
        return;
    }
    if (strcmp(state, "runnable") == 0) {
        sb_puts(b, "was runnable ");
        sb_dur(b, link_held(R, c, i, "runnable", from, to));
        /* last: no one thread held its CPU (SPIN-HOLDER) */
        sb_puts(b, last ? ", waiting for a CPU that no one thread held (the load of many, or "
                          "a CPU quota of its own)" : ", waiting for a CPU");
        return;
    }
    if (strcmp(state, "unknown") == 0) {
        sb_puts(b, "woke it with its first event in the trace (what it did before is not in it)");
        return;
    }
    uint64_t res, wait;
    const char *reason = chain_reason(R, c, i, si, &res, &wait);
    bool sleep = last && strcmp(end, "timeout") == 0 && argus_sleep_reason(reason);
    sb_puts(b, sleep ? "slept " : "was blocked ");
    sb_dur(b, d);
    sb_puts(b, " in ");
    sb_wait_what(R, b, reason, res, wait);
    if (!last || sleep)
        return;
    if (i > 0 && i - 1 < c->nvia && strcmp(c->via[i - 1], "deadlock") == 0 &&
        strcmp(end, "cycle") == 0) {
        sb_puts(b, ", for a lock that ");
        sb_seg_thread(R, b, argus_graph_find_seg(R->g, c->segs[i - 1]));
        sb_puts(b, " held (a deadlock; that thread's timeout broke it)");
        return;
    }
    const chain_end_words *w = chain_end(end);
    if (w && w->after_wait)
        sb_puts(b, w->after_wait);
}

/* Whether a link of chain C was a message via VIA (dbus, binder). */
static bool chain_over(report *R, const argus_chain_finding *c, const char *via)
{
    for (int i = 1; i < c->nsegs; i++) {
        const argus_ipc_info *m = i - 1 < c->nvia && strcmp(c->via[i - 1], "wakeup") == 0
                                      ? hop_message(R, c, i) : NULL;
        if (m && m->via && strcmp(argus_graph_str(R->g, m->via), via) == 0)
            return true;
    }
    return false;
}

static uint64_t seg_tid(report *R, uint64_t seg)
{
    uint32_t si = argus_graph_find_seg(R->g, seg);
    return si == ARGUS_NONE ? NONE : R->g->threads[R->g->segs[si].thread].tid;
}

static void sb_verdict(report *R, sb *b, const argus_hang_finding *h,
                       const argus_path_finding *best, const argus_chain_finding *c,
                       const argus_culprit_finding *cul)
{
    uint64_t htid = h->tid != NONE ? h->tid : R->g->threads[R->g->segs[hang_si(R, h)].thread].tid;
    sb_thread(R, b, htid, h->pid, h->proc, h->thread);
    if (h->indicator && strcmp(h->indicator, "anr") == 0) /* SPIN-ANR */
        sb_puts(b, " did not handle its input within 5 s (Android's ANR): it");
    const char *cls = h->cls ? h->cls : "";
    const argus_seg *s = &R->g->segs[hang_si(R, h)];
    uint64_t etid = NONE;
    if (strcmp(cls, "busy") == 0) {
        sb_puts(b, " ran ");
        sb_dur(b, hang_duration(R, h));
        sb_puts(b, " on the CPU without blocking");
    } else if (strcmp(cls, "yield") == 0) {
        sb_puts(b, " spun ");
        sb_dur(b, hang_duration(R, h));
        sb_puts(b, " in a yield loop");
        if (c && c->nsegs == 2 && c->nvia >= 1 && strcmp(c->via[0], "yield") == 0) {
            sb_puts(b, ", giving its CPU to ");  /* SPIN-YIELD */
            etid = seg_tid(R, c->segs[1]);
            sb_thread(R, b, etid, NONE, NULL, NULL);
            sb_puts(b, ", which ran meanwhile (no event shows what ended the loop: most likely "
                       "what that thread did)");
        }
    } else if (c && c->nsegs >= 2) {
        sb_puts(b, " ");
        sb_link_state(R, b, c, 0, false);
        if (c->nvia >= 1 && strcmp(c->via[0], "cpu") == 0) {
            sb_puts(b, ", held off it by ");    /* the thread that held its CPU */
        } else {
            sb_puts(b, ", waiting");
            if (chain_over(R, c, "dbus"))
                sb_puts(b, " over D-Bus");
            else if (chain_over(R, c, "binder"))
                sb_puts(b, " over binder");
            sb_puts(b, " on ");
        }
        int last = c->nsegs - 1;
        etid = seg_tid(R, c->segs[last]);
        sb_thread(R, b, etid, NONE, NULL, NULL);
        if (last > 1)
            sb_printf(b, " (through %d other thread%s)", last - 1, last > 2 ? "s" : "");
        sb_puts(b, ", which ");
        sb_link_state(R, b, c, last, true);
    } else if (c && c->nsegs == 1) {
        sb_puts(b, " ");
        sb_link_state(R, b, c, 0, true);
    } else if (strcmp(cls, "wait") == 0 && ends_in_wait(s)) {
        sb_puts(b, " was blocked ");
        sb_dur(b, h->blocked != NONE ? h->blocked : hang_duration(R, h));
        sb_puts(b, " in ");
        sb_wait_what(R, b, h->reason ? h->reason
                        : s->wait_reason ? argus_graph_str(R->g, s->wait_reason) : NULL,
                     h->resource != NONE ? h->resource : s->wait_resource,
                     h->wait != NONE ? h->wait : s->wait_id);
    } else {
        sb_puts(b, " hung ");
        sb_dur(b, hang_duration(R, h));
    }
    if (best && best->complete && best->ui != NONE) {
        uint32_t si = argus_graph_seg_of(R->g, best->ui);
        const argus_key_event *k = key_of(R, si, best->ui);
        const char *kd = best->ui_kind ? best->ui_kind
                         : si != ARGUS_NONE && R->g->segs[si].ui_kind
                             ? argus_graph_str(R->g, R->g->segs[si].ui_kind) : "UI event";
        sb_puts(b, "; the ");
        sb_sym(R, b, kd);
        if (si != ARGUS_NONE) {
            sb_puts(b, " at ");
            sb_time(R, b, k ? k->ts : R->g->segs[si].begin);
        }
        sb_puts(b, " started it.");
    } else {
        sb_puts(b, "; no UI event was found that led to it.");
    }
    if (!cul) {
        sb_puts(b, " No culprit named.");
        return;
    }
    sb_puts(b, " ");
    sb_strong(R, b, "Culprit:");
    sb_puts(b, " ");
    sb_thread(R, b, cul->tid, cul->pid, cul->proc, cul->thread);
    if (cul->tid == htid) {
        sb_puts(b, " itself");
        if (strcmp(cls, "busy") == 0)
            sb_puts(b, ", busy in its own code");
    } else if (cul->tid == etid) {
        sb_puts(b, ", the thread at the end of that wait");
    } else {
        sb_puts(b, ", ");
        sb_free_text(R, b, cul->state ? cul->state : "blocked");
        uint64_t dur = cul->duration != NONE ? cul->duration
                       : cul->since != NONE && cul->until != NONE && cul->until > cul->since
                           ? cul->until - cul->since : NONE;
        if (dur != NONE) {
            sb_puts(b, " ");
            sb_dur(b, dur);
        }
        if (cul->reason || (cul->resource != NONE && cul->resource != 0)) {
            sb_puts(b, " in ");
            sb_wait_what(R, b, cul->reason, cul->resource, cul->wait);
        }
    }
    sb_puts(b, ".");
}

/* The records of hang H in list L (sorted by hang): the first, and how many. */
static int by_hang_pos(const void *a, const void *b)
{
    const hang_pos *x = a, *y = b;
    int c = cmp_u(x->hang, y->hang);
    return c ? c : cmp_u(x->pos, y->pos);
}

/* Indexes the N records at V, SIZE bytes each, whose first member is their
 * uint64_t hang. */
static void index_hangs(hang_index *ix, const void *v, size_t size, uint32_t n)
{
    ix->v = argus_xmalloc(((size_t)n + 1) * sizeof *ix->v, "the hang index");
    for (uint32_t i = 0; i < n; i++) {
        memcpy(&ix->v[i].hang, (const char *)v + (size_t)i * size, sizeof(uint64_t));
        ix->v[i].pos = i;
    }
    argus_sort(ix->v, n, sizeof *ix->v, by_hang_pos);
    ix->n = n;
}
#define INDEX_HANGS(l)                                                                    \
    do {                                                                                  \
        _Static_assert(offsetof(__typeof__(*R->l.v), hang) == 0, "hang comes first");     \
        index_hangs(&R->ix_##l, R->l.v, sizeof *R->l.v, R->l.n);                                  \
    } while (0)

/* The first of hang H's records in the indexed list, and how many it has
 * (they are together in the list). */
static void of_hang(const hang_index *ix, uint64_t h, uint32_t *first, uint32_t *count)
{
    uint32_t lo = 0, hi = ix->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ix->v[mid].hang < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    *first = 0;
    *count = 0;
    if (lo < ix->n && ix->v[lo].hang == h)
        *first = ix->v[lo].pos;
    while (lo < ix->n && ix->v[lo].hang == h) {
        (*count)++;
        lo++;
    }
}
#define OF_HANG(l, h, first, count) of_hang(&R->ix_##l, (h), &(first), &(count))

static const argus_chain_finding *chain_of(report *R, const argus_hang_finding *h)
{
    /* SPIN-PATH follows the wait of a wait node only: a busy node's last
     * wait is not what held it up; a yield loop's chain is whom it gave
     * its CPU to (SPIN-YIELD) */
    bool is_wait = !h->cls || strcmp(h->cls, "wait") == 0 || strcmp(h->cls, "yield") == 0;
    uint32_t first, count;
    OF_HANG(chains, h->hang, first, count);
    return is_wait && count ? &R->chains.v[first] : NULL;
}

static const argus_no_match_finding *no_match_of(report *R, uint64_t hang)
{
    uint32_t first, count;
    OF_HANG(no_matches, hang, first, count);
    return count ? &R->no_matches.v[first] : NULL;
}

/* Why hang H has no similar node in the baseline (SIM-NONE), in words. */
static void sb_no_match(report *R, sb *b, const argus_hang_finding *h)
{
    const argus_no_match_finding *m = no_match_of(R, h->hang);
    unsigned long long hang = (unsigned long long)h->hang;
    if (m && m->why && strcmp(m->why, "program") == 0 && h->proc) {
        sb_printf(b, " Hang %llu's program, ", hang);
        sb_free_text(R, b, h->proc);
        sb_puts(b, ", is not in it, so that hang is diagnosed without it.");
    } else {
        sb_printf(b, " No part of it is like hang %llu, so that hang's culprits are named "
                     "from this trace alone.", hang);
        if (m && m->why && strcmp(m->why, "role") == 0 && h->proc) {
            sb_puts(b, " No thread of its role (");
            sb_free_text(R, b, h->proc);
            sb_puts(b, "/");
            sb_free_text(R, b, h->thread ? h->thread : "?");
            sb_puts(b, ") ran in it.");
        } else if (m && m->nearest != NONE && m->percent != NONE) {
            sb_printf(b, " The nearest node of its role, seg %llu, has %llu%% of their kinds "
                         "of event not in both.", (unsigned long long)m->nearest,
                      (unsigned long long)m->percent);
        }
    }
}

/* "Baseline: compared with NAME." or why there was none. */
static void sb_baseline(report *R, sb *b)
{
    sb_strong(R, b, "Baseline:");
    sb_puts(b, " ");
    if (!R->baseline) {
        sb_puts(b, "none given (--baseline), so the culprits are named from this trace alone.");
        return;
    }
    sb_puts(b, "compared with ");
    sb_free_text(R, b, R->baseline);
    sb_puts(b, ", a normal run.");
    for (uint32_t i = 0; i < R->hangs.n; i++) {
        uint32_t m0, nm;
        OF_HANG(matches, R->hangs.v[i].hang, m0, nm);
        (void)m0;
        if (nm)
            continue;
        sb_no_match(R, b, &R->hangs.v[i]);
    }
}

static void report_hang(report *R, const argus_hang_finding *h)
{
    section_hang(R, h);

    uint32_t p0, np, m0, nm, b0, nb, c0, nc;
    OF_HANG(paths, h->hang, p0, np);
    OF_HANG(matches, h->hang, m0, nm);
    OF_HANG(branches, h->hang, b0, nb);
    OF_HANG(culprits, h->hang, c0, nc);
    const argus_path_finding *mine = np ? R->paths.v + p0 : NULL;  /* none: paths.v may be NULL */
    const argus_chain_finding *chain = chain_of(R, h);
    section_ui(R, mine, np);
    section_path(R, h, mine, np);
    if (chain)
        section_chain(R, chain);
    const argus_cpath_finding *cp = cpath_of_hang(R, h->hang);
    if (cp)
        section_time(R, cp);
    if (nc)
        section_culprits(R, &R->culprits.v[c0], nc, nb > 0);
    if (!R->verbose)
        return;

    /* the details: the paper's terms, segment ids, ranks and scores */
    R->details = true;
    heading(R, 3, "Details (--verbose)");
    sb_clear(&R->line);
    sb_printf(&R->line, "The hang is seg %llu (hang %llu).", (unsigned long long)h->seg,
              (unsigned long long)h->hang);
    para(R, sb_str(&R->line));
    if (np) {
        sb_clear(&R->line);
        sb_puts(&R->line, "UI event: ");
        if (mine->complete && mine->ui != NONE)
            sb_ui(R, &R->line, mine->ui, mine->ui_kind);
        else
            sb_puts(&R->line, "none reached");
        para(R, sb_str(&R->line));
    }
    section_path(R, h, mine, np);
    if (chain)
        section_chain(R, chain);
    if (nm)
        section_match(R, &R->matches.v[m0], nm);
    else if (R->baseline) { /* compared, but nothing to compare with */
        heading(R, 3, "Similar node in the baseline");
        sb_clear(&R->line);
        sb_puts(&R->line, "None in ");
        sb_free_text(R, &R->line, R->baseline);
        const argus_no_match_finding *nm0 = no_match_of(R, h->hang);
        if (nm0 && nm0->why && strcmp(nm0->why, "program") == 0)
            sb_puts(&R->line, ": the hang's program is not in it");
        else if (nm0 && nm0->why && strcmp(nm0->why, "role") == 0)
            sb_puts(&R->line, ": no thread of the hang's role ran in it");
        else if (nm0 && nm0->nearest != NONE && nm0->distance != NONE)
            sb_printf(&R->line, ": no node of it is like this one (another action?); the nearest, "
                             "seg %llu, has %llu of their kinds of event not in both (%llu%%), "
                             "signatures of %llu and %llu elements",
                      (unsigned long long)nm0->nearest, (unsigned long long)nm0->distance,
                      (unsigned long long)nm0->percent, (unsigned long long)nm0->size,
                      (unsigned long long)nm0->baseline_size);
        else
            sb_puts(&R->line, ": no node of it is like this one (another action?)");
        sb_puts(&R->line, "; the culprits are named without it.");
        para(R, sb_str(&R->line));
    }
    if (nc)
        section_culprits(R, &R->culprits.v[c0], nc, nb > 0);
    if (nb)
        section_branches(R, &R->branches.v[b0], nb);
    R->details = false;
}

/* Empties the report's state: after a report, and before one (a report
 * cut short by a bad record, where a caller goes on, as the fuzzer does). */
static void report_free(report *R)
{
    free(R->line.p);
    free(R->hangs.v);
    free(R->paths.v);
    free(R->chains.v);
    free(R->matches.v);
    free(R->no_matches.v);
    free(R->culprits.v);
    free(R->branches.v);
    free(R->cpaths.v);
    hang_index *indexes[] = {&R->ix_paths, &R->ix_chains, &R->ix_matches, &R->ix_no_matches,
                             &R->ix_culprits, &R->ix_branches, &R->ix_cpaths};
    for (size_t i = 0; i < sizeof indexes / sizeof *indexes; i++)
        free(indexes[i]->v);
    argus_findings_mem_free(&R->mem);
}

void argus_report_write(argus_graph *g, const argus_report_options *o)
{
    report state = {
        .f = o->markdown ? &markdown_format : &text_format, .verbose = o->verbose, .baseline = o->baseline,
        .have_origin = o->have_origin, .have_t0 = o->have_t0, .origin = o->origin, .t0 = o->t0,
        .hang_ms = o->hang_ms,
        .g = g,
    }, *R = &state;
    read_extras(R, g);
#define SORT(l, cmp) argus_sort((l).v, (l).n, sizeof *(l).v, cmp)
    SORT(R->hangs, by_hang);
    SORT(R->paths, by_path_rank);
    SORT(R->matches, by_match_rank);
    SORT(R->culprits, by_culprit_rank);
#undef SORT
    INDEX_HANGS(paths);
    INDEX_HANGS(chains);
    INDEX_HANGS(matches);
    INDEX_HANGS(no_matches);
    INDEX_HANGS(culprits);
    INDEX_HANGS(branches);
    INDEX_HANGS(cpaths);

    sb_clear(&R->line);
    trace_summary(R, &R->line);
    sb lost = {0};
    sb_losses(R, &lost);
    if (R->hangs.n == 0) {
        puts(R->f->no_hang);
        if (lost.p) {
            emit(R, "", "", sb_str(&lost));
            blank();
        }
        emit(R, "", "", sb_str(&R->line));
    } else {
        if (R->f->title)
            puts(R->f->title);
        if (lost.p) {           /* before the verdicts it qualifies */
            emit(R, "", "", sb_str(&lost));
            md_gap(R);
        }
        for (uint32_t i = 0; i < R->hangs.n; i++) {
            const argus_hang_finding *h = &R->hangs.v[i];
            uint32_t p0, np, c0, nc;
            OF_HANG(paths, h->hang, p0, np);
            OF_HANG(culprits, h->hang, c0, nc);
            sb v = {0};
            char label[40] = "Verdict:";
            if (R->hangs.n > 1)
                snprintf(label, sizeof label, "Verdict (hang %llu):", (unsigned long long)h->hang);
            sb_strong(R, &v, label);
            sb_puts(&v, " ");
            sb_verdict(R, &v, h, np ? &R->paths.v[p0] : NULL, chain_of(R, h),
                       nc ? &R->culprits.v[c0] : NULL);
            emit(R, "", "", sb_str(&v));
            md_gap(R);
            free(v.p);
        }
        sb v = {0};
        sb_baseline(R, &v);
        emit(R, "", "", sb_str(&v));
        free(v.p);
        blank();
        emit(R, "", "", sb_str(&R->line));
        for (uint32_t i = 0; i < R->hangs.n; i++)
            report_hang(R, &R->hangs.v[i]);
    }
    free(lost.p);
    argus_close_stdout();
    report_free(R);
}

void argus_report_clocks(argus_report_options *o, const argus_record *hdr)
{
    const argus_field *f = argus_get_named(hdr, "origin");
    o->have_origin = f && f->kind == ARGUS_V_UINT;
    o->origin = o->have_origin ? f->u : 0;
    f = argus_get_named(hdr, "t0");
    o->have_t0 = f && f->kind == ARGUS_V_UINT;
    o->t0 = o->have_t0 ? f->u : 0;
    /* "find-spinning --hang 300 ...", "analyze ... --hang=300 ...": the
     * stages are the command lines as run */
    argus_text stages[64];
    int n = argus_get_text_array(hdr, ARGUS_K_STAGES, stages, 64);
    for (int i = 0; i < n; i++) {
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)stages[i].len, stages[i].s);
        if (strncmp(line, "find-spinning ", 14) != 0 && strncmp(line, "analyze ", 8) != 0)
            continue;
        for (char *w = strtok(line, " "); w; w = strtok(NULL, " ")) {
            const char *v = strncmp(w, "--hang=", 7) == 0 ? w + 7
                            : strcmp(w, "--hang") == 0 ? strtok(NULL, " ") : NULL;
            if (v && *v >= '0' && *v <= '9')
                o->hang_ms = strtoull(v, NULL, 10);
        }
    }
}

bool argus_report_format(const char *arg)
{
    if (strcmp(arg, "markdown") == 0)
        return true;
    if (strcmp(arg, "text") != 0)
        argus_usage_error("--output-format: unknown format '%s' (text or markdown)", arg);
    return false;
}
