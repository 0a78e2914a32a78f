/* What argus-export's three formats share: JSON strings, what a segment
 * did in a few words, the findings to draw, standard input read twice. */
#include "argus/view/export.h"

#include "argus/stream/cli.h"
#include "argus/view/words.h"
#include "argus/stream/text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- output ------------------------------------------------------------- */
void argus_export_out(const char *s) { fputs(s, stdout); }

/* A JSON (or DOT, QUOTE '"' too) string body: escapes, and bytes that are
 * not UTF-8 as U+FFFD so that any reader takes it. In an HTML page's
 * script (in_script) '<' is written \u003c, so that no string can close
 * the script element. */
void argus_export_put_escaped(export_state *X, const char *s, size_t n, bool dot)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            putchar('\\');
            putchar(c);
            i++;
        } else if (c == '\n') {
            argus_export_out("\\n");
            i++;
        } else if (c < 0x20 || c == 0x7f) {
            if (dot)
                putchar(' ');
            else
                printf("\\u%04x", c);
            i++;
        } else if (c == '<' && X->in_script) {
            argus_export_out("\\u003c");
            i++;
        } else if (c < 0x80) {
            putchar(c);
            i++;
        } else {
            size_t len = argus_utf8_char((const uint8_t *)s + i, n - i);
            if (len) {
                fwrite(s + i, 1, len, stdout);
                i += len;
            } else {
                argus_export_out("\xef\xbf\xbd");
                i++;
            }
        }
    }
}

void argus_export_put_str(export_state *X, const char *s)
{
    putchar('"');
    argus_export_put_escaped(X, s, strlen(s), false);
    putchar('"');
}

/* ns as microseconds with the nanoseconds as three decimals. */
void argus_export_put_us(uint64_t ns)
{
    printf("%llu.%03llu", (unsigned long long)(ns / 1000), (unsigned long long)(ns % 1000));
}

void argus_export_begin_event(export_state *X)
{
    argus_export_out(X->first_event ? "\n" : ",\n");
    X->first_event = false;
}

/* SRC cut to fit DST of SIZE bytes. */
void argus_export_copy_text(char *dst, size_t size, const char *src)
{
    size_t n = argus_utf8_cut(src, strlen(src), size - 1);
    memcpy(dst, src, n);
    dst[n] = 0;
}

/* ---- what a segment did ---------------------------------------------------- */
/* An event in words, from what the graph keeps of it (lib's key event text). */
void argus_export_describe(char *dst, size_t size, int type, const char *text, uint64_t aux, bool plain)
{
    /* the page speaks as the report does; Perfetto and DOT keep the
     * stream's words */
    switch (type) {
    case ARGUS_T_WAIT: snprintf(dst, size, "wait %s", *text ? text : "(no reason)"); break;
    case ARGUS_T_FLAG_WRITE: snprintf(dst, size, "write flag %s", text); break;
    case ARGUS_T_FLAG_READ: snprintf(dst, size, "read flag %s", text); break;
    case ARGUS_T_WAKEUP: snprintf(dst, size, "wakes tid %llu", (unsigned long long)aux); break;
    case ARGUS_T_IPC:
        if (aux != NONE64)
            snprintf(dst, size, "%s %s pid %llu", text,
                     strncmp(text, "send", 4) == 0 ? "->" : "<-", (unsigned long long)aux);
        else
            snprintf(dst, size, "%s", text);
        break;
    default: {  /* the words of the table */
        argus_event_words w = argus_event_words_of(type, text, plain);
        snprintf(dst, size, "%s%s%s", w.word, w.text && *w.word ? " " : "", w.text ? w.text : "");
    }
    }
    dst[argus_utf8_whole(dst, strlen(dst))] = 0;   /* as snprintf may cut it */
}

/* The most telling event: a UI event, else a callout (run loop, dispatch),
 * else the final wait, else a message, else a system call, else the
 * first key event. */

static int rank_of(int type)
{
    switch (type) {
    case ARGUS_T_UI_EVENT: return 6;
    case ARGUS_T_RUNLOOP_INVOKE: case ARGUS_T_DISPATCH_INVOKE: return 5;
    case ARGUS_T_IPC: return 3;
    case ARGUS_T_SYSCALL: case ARGUS_T_WAIT: return 2;
    default: return 1;
    }
}

void argus_export_namer_add(export_namer *nm, int type, const char *desc)
{
    int r = rank_of(type);
    if (r > nm->rank) {
        nm->rank = r;
        argus_export_copy_text(nm->text, sizeof nm->text, desc);
    }
}

void argus_export_namer_final_wait(export_namer *nm, const char *desc)
{
    if (nm->rank < 4) {
        nm->rank = 4;
        argus_export_copy_text(nm->text, sizeof nm->text, desc);
    }
}

/* ---- findings ------------------------------------------------------------------- */

/* The segments of the --around hang (or of every hang): cores[] */
/* --window: times as the report prints them, in ns: on the trace's own
 * clock (ts + the header's origin), or ts where there is no origin */

/* SECONDS[.FRACTION] of S (LEN bytes) in *NS, to the nanosecond, with no
 * rounding through a double (a trace clock's 13507.243398 is exact). */
bool argus_export_parse_secs(const char *s, size_t len, uint64_t *ns)
{
    uint64_t whole = 0, frac = 0, scale = 1000000000u;
    size_t i = 0, digits = 0;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
        whole = whole * 10 + (uint64_t)(s[i] - '0');
        if (whole > 10000000000u)       /* 317 years: no trace's clock */
            return false;
    }
    if (i < len && s[i] == '.')
        for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++)
            if (scale > 1) {
                scale /= 10;
                frac += (uint64_t)(s[i] - '0') * scale;
            }
    *ns = whole * 1000000000u + frac;
    return digits > 0 && i == len;
}

bool argus_export_want_hang(export_state *X, uint64_t h) { return X->around < 0 || (uint64_t)X->around == h; }

/* Marks SEG as BIT of hang HANG. With --around, only hang N's path,
 * chain and culprits are marked: another hang's culprit drawn beside hang
 * N is not hang N's; a segment that is another hang stays marked one (it
 * says which). */
static void add_mark(export_state *X, uint64_t seg, uint8_t bit, uint64_t hang, uint64_t rank)
{
    if (bit != M_HANG && !argus_export_want_hang(X, hang))
        return;
    bool created;
    export_mark *m = argus_table_put(&X->marks, seg, &created);
    if (created)
        m->culprit_rank = NONE32;
    m->bits |= bit;
    if (bit == M_HANG)
        m->hang = (uint32_t)hang;
    if (bit == M_CULPRIT && rank < m->culprit_rank)
        m->culprit_rank = (uint32_t)rank;
    if (argus_export_want_hang(X, hang)) {
        *(uint64_t *)ARGUS_PUSH(X->cores, X->ncores, X->cap_cores) = seg;
    }
}

/* Where a finding read back from a loaded graph came from (the graph
 * keeps its record number, not its offset). */

/* A finding export cannot take: exits 65 naming the record and WHAT is
 * wrong (RD: the reader, for its place; NULL from a graph). */
static void bad_finding(export_state *X, const argus_reader *rd, const argus_record *r,
                        const char *what)
{
    if (rd)
        argus_record_fail(rd, r, "%.*s record: %s", (int)r->type_len, r->type_name, what);
    argus_die(ARGUS_EX_DATAERR, "%s: record %llu: %.*s record: %s", X->extra_input,
              (unsigned long long)X->extra_number, (int)r->type_len, r->type_name, what);
}

/* V, or DFLT where the finding has none. */
uint64_t argus_export_value_or(uint64_t v, uint64_t dflt) { return v != ARGUS_ABSENT ? v : dflt; }

/* Text S (NULL: none) in DST of SIZE bytes, cut at a character. */
void argus_export_copy_finding_text(char *dst, size_t size, const char *s)
{
    dst[0] = 0;
    if (s)
        snprintf(dst, size, "%.*s", (int)argus_utf8_cut(s, strlen(s), size - 1), s);
}

/* A wait chain's links (dot draws them: link I, segs[I] waits on
 * segs[I+1]). */

static void mark_segs(export_state *X, const uint64_t *segs, int n, uint8_t bit, uint64_t hang)
{
    if (bit == M_CHAIN && n > 1 && argus_export_want_hang(X, hang)) {
        for (int i = 0; i + 1 < n; i++) {
            export_chain_link *l = ARGUS_PUSH(X->links, X->nlinks, X->cap_links);
            l->from = segs[i];
            l->to = segs[i + 1];
        }
    }
    for (int i = 0; i < n; i++)
        add_mark(X, segs[i], bit, hang, NONE64);
}

/* One analysis record (RD: the reader, for messages; NULL from a graph):
 * the hangs, and the marks of their paths, chains and culprits. */
void argus_export_take_finding(export_state *X, const argus_reader *rd, const argus_record *r)
{
    argus_findings_mem mem = {0};
    union {
        argus_hang_finding hang;
        argus_path_finding path;
        argus_chain_finding chain;
        argus_culprit_finding culprit;
    } f;
    bool ok = true;
    switch (argus_finding_kind_of(r->type_name, r->type_len)) {
    case ARGUS_F_HANG:
        if (!(ok = argus_read_hang(r, &mem, &f.hang)))
            break;
        export_hang_info *h = ARGUS_PUSH(X->hangs, X->nhangs, X->cap_hangs);
        h->hang = f.hang.hang;
        h->seg = f.hang.seg;
        h->first_seg = argus_export_value_or(f.hang.first_seg, h->seg);
        h->tid = argus_export_value_or(f.hang.tid, 0);
        h->pid = argus_export_value_or(f.hang.pid, 0);
        h->begin = argus_export_value_or(f.hang.begin, 0);
        h->end = argus_export_value_or(f.hang.end, h->begin);
        h->duration = argus_export_value_or(f.hang.duration, h->end - h->begin);
        argus_export_copy_finding_text(h->cls, sizeof h->cls, f.hang.cls);
        argus_export_copy_finding_text(h->indicator, sizeof h->indicator, f.hang.indicator);
        X->have_findings = true;
        add_mark(X, h->seg, M_HANG, h->hang, NONE64);
        if (h->first_seg != h->seg)
            add_mark(X, h->first_seg, M_HANG, h->hang, NONE64);
        break;
    case ARGUS_F_PATH:
        /* the best path; the others are ranked alternatives */
        if ((ok = argus_read_path(r, &mem, &f.path)) && argus_export_value_or(f.path.rank, 1) == 1)
            mark_segs(X, f.path.segs, f.path.nsegs, M_PATH, f.path.hang);
        break;
    case ARGUS_F_WAIT_CHAIN:
        if ((ok = argus_read_chain(r, &mem, &f.chain)))
            mark_segs(X, f.chain.segs, f.chain.nsegs, M_CHAIN, f.chain.hang);
        break;
    case ARGUS_F_CULPRIT:
        if (!(ok = argus_read_culprit(r, &mem, &f.culprit)))
            break;
        if (f.culprit.seg == ARGUS_ABSENT)
            bad_finding(X, rd, r, "\"seg\" is missing or not an unsigned integer");
        add_mark(X, f.culprit.seg, M_CULPRIT, f.culprit.hang, argus_export_value_or(f.culprit.rank, 1));
        break;
    default:
        break;
    }
    if (!ok)
        bad_finding(X, rd, r, mem.error);
    argus_findings_mem_free(&mem);
}

void argus_export_findings_from_graph(export_state *X, argus_graph *g, const argus_reader *rd)
{
    X->extra_input = argus_reader_name(rd);
    for (uint32_t i = 0; i < g->nextras; i++) {
        const argus_extra *x = &g->extras[i];
        if (!argus_extra_is(x, "hang") && !argus_extra_is(x, "path") &&
            !argus_extra_is(x, "wait_chain") && !argus_extra_is(x, "culprit"))
            continue;
        const argus_record *r = argus_graph_parse_extra(g, i);
        X->extra_number = x->number;
        if (r)
            argus_export_take_finding(X, NULL, r);
    }
}

void argus_export_check_around(export_state *X)
{
    if (X->around < 0)
        return;
    for (size_t i = 0; i < X->nhangs; i++)
        if (X->hangs[i].hang == (uint64_t)X->around)
            return;
    argus_die(1, "no hang %ld in the stream (it has %zu hang record%s)", X->around, X->nhangs,
              X->nhangs == 1 ? "" : "s");
}

/* Standard input read twice: a pipe is copied to an unlinked temporary
 * file first, which becomes standard input. */
void argus_export_make_stdin_seekable(void)
{
    struct stat st;
    if (fstat(0, &st) == 0 && S_ISREG(st.st_mode) && lseek(0, 0, SEEK_CUR) >= 0)
        return;
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/argus-export.XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0)
        argus_die(ARGUS_EX_IOERR, "%s: %s", path, strerror(errno));
    unlink(path);
    static char buf[1 << 16];
    for (;;) {
        ssize_t n = read(0, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            argus_die(ARGUS_EX_IOERR, "<stdin>: read error: %s", strerror(errno));
        if (n == 0)
            break;
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(fd, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0)
                argus_die(ARGUS_EX_IOERR, "%s: write error: %s", path, strerror(errno));
            off += w;
        }
    }
    if (dup2(fd, 0) < 0)
        argus_die(ARGUS_EX_IOERR, "dup2: %s", strerror(errno));
    close(fd);
    lseek(0, 0, SEEK_SET);
}

void argus_export_rewind_input(const char *input)
{
    if (!input || strcmp(input, "-") == 0)
        lseek(0, 0, SEEK_SET);
}

void argus_export_seg_name(const argus_graph *g, const argus_seg *s, char *dst, size_t size, bool plain)
{
    export_namer nm = {0, ""};
    char desc[200];
    if (s->ui_id != NONE64) {   /* the keys may have dropped it (the middle) */
        argus_export_describe(desc, sizeof desc, ARGUS_T_UI_EVENT,
                 s->ui_kind ? argus_graph_str(g, s->ui_kind) : "", 0, plain);
        argus_export_namer_add(&nm, ARGUS_T_UI_EVENT, desc);
    }
    uint32_t nkeys;
    const argus_key_event *keys = argus_graph_seg_keys(g, (uint32_t)(s - g->segs), &nkeys);
    for (uint32_t k = 0; k < nkeys; k++) {
        const argus_key_event *ke = &keys[k];
        if (plain && argus_event_left_out(ke->type, argus_graph_str(g, ke->text)))
            continue;   /* as the report leaves it out */
        argus_export_describe(desc, sizeof desc, ke->type, argus_graph_str(g, ke->text), ke->aux, plain);
        argus_export_namer_add(&nm, ke->type, desc);
    }
    if (s->wait_id != NONE64) {
        const char *reason = s->wait_reason ? argus_graph_str(g, s->wait_reason) : "";
        argus_export_describe(desc, sizeof desc, ARGUS_T_WAIT, reason, 0, plain);
        argus_export_namer_final_wait(&nm, desc);
    }
    if (nm.rank)
        argus_export_copy_text(dst, size, nm.text);
    else
        snprintf(dst, size, "%u events", s->nevents);
}
