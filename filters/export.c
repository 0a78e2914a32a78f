/* argus-export: a graph stream, with its findings when it has them, as a
 * file other tools draw: Chrome trace-event JSON for Perfetto's UI and
 * chrome://tracing, or Graphviz DOT (docs/stages/export.md). */
#include "argus/analysis/findings.h"
#include "argus/analysis/graph.h"
#include "argus/stream/cli.h"
#include "argus/stream/text.h"
#include "argus/stream/stream.h"
#include "argus/stream/table.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char usage[] =
    "Usage: argus-export [--output-format perfetto|dot|html] [--around N]\n"
    "                    [--window FROM..TO] [GRAPH|-]\n"
    "Export a graph stream and its findings for Perfetto's UI, Graphviz or a browser.\n"
    "Reads a graph stream (argus graph), with the findings of\n"
    "argus-find-spinning, argus-similar and argus-diff when it has them.\n"
    "\n"
    "  perfetto: Chrome trace-event JSON (ui.perfetto.dev, chrome://tracing,\n"
    "            DevTools' Performance panel): a track per thread, grouped\n"
    "            by process; each segment a slice (category \"segment\")\n"
    "            named by what it did, its key events as args; each edge a\n"
    "            flow arrow named by its kind (\"KIND (weak)\" for a weak\n"
    "            one), its events at its two slices' starts where the\n"
    "            second starts later (else at the edge's events); the\n"
    "            hang, causal path, wait chain and culprit segments marked\n"
    "            in args.marks (\"hang\", \"path\", \"chain\", \"culprit\"),\n"
    "            an instant event at each hang, path and culprit segment\n"
    "            (categories \"hang\", \"path\", \"culprit\").\n"
    "            Times are microseconds on the trace's own clock. The\n"
    "            whole export streams in bounded memory (--around and\n"
    "            --window load the graph): the open segments and the edges\n"
    "            not yet drawn, whatever the trace's length; where past events\n"
    "            were goes to a temporary file in TMPDIR (40 bytes an\n"
    "            event). Reads GRAPH twice (findings come last); standard\n"
    "            input is first copied to a temporary file.\n"
    "  dot:      Graphviz of the hangs' causal paths, wait chains and\n"
    "            culprits (a graph without findings: the whole graph up to\n"
    "            200 segments, else exit 1): a node per segment, a cluster\n"
    "            per process, edges by kind (weak ones dashed), the hang\n"
    "            and the culprits filled. Render with dot -Tsvg.\n"
    "  html:     one self-contained page (no network): the verdict, the\n"
    "            report (--report), and a timeline of the threads of the\n"
    "            first hang (--around N: hang N), its causal path, wait\n"
    "            chain and culprits, drawn in SVG by the page's script:\n"
    "            segments as bars (running, blocked, runnable), edges as\n"
    "            arrows, zoom and pan, a segment's events on hover and\n"
    "            click; with --baseline, the baseline's similar node and\n"
    "            the culprits' counterparts on a second timeline. At\n"
    "            most 5000 segments a timeline, the hang's, path's, chain's\n"
    "            and culprits' first; the page says what it left out.\n"
    "\n"
    "Exit status: 0 when written; 1 when there is nothing to draw (dot) or\n"
    "no hang N; 64 on a bad command line; 65 on bad input; 66 when GRAPH\n"
    "(or the --report or --baseline file) is missing.\n"
    "\n"
    "      --output-format F  perfetto (default), dot or html (-f, --format F:\n"
    "                   its old spelling)\n"
    "  -a, --around N   only hang N (the hang record's number, from 0) and\n"
    "                   its neighbourhood: perfetto, every segment of the\n"
    "                   threads of its hang, causal path, wait chain and\n"
    "                   culprits between the first of those segments' start\n"
    "                   and the last one's end (html: the same, as a\n"
    "                   timeline); dot, those segments only\n"
    "      --window FROM..TO  perfetto: only the segments ongoing between\n"
    "                   FROM and TO, in seconds as the report prints times\n"
    "                   (the trace's own clock: 1076.5..1078.5), and their\n"
    "                   threads\n"
    "  -r, --report FILE        html: the report's text (argus report) to show\n"
    "  -b, --baseline GRAPH     html: the baseline's graph stream, which the\n"
    "                           findings' match and culprit records name\n"
    "      --baseline-name NAME html: what the page calls it (default GRAPH)\n"
    "  -h, --help       show this help\n"
    "      --version    show the version\n";

#define NONE32 UINT32_MAX
#define NONE64 UINT64_MAX

/* ---- output ------------------------------------------------------------- */
static void out(const char *s) { fputs(s, stdout); }

/* A JSON (or DOT, QUOTE '"' too) string body: escapes, and bytes that are
 * not UTF-8 as U+FFFD so that any reader takes it. In an HTML page's
 * script (in_script) '<' is written \u003c, so that no string can close
 * the script element. */
static bool in_script;
static void put_escaped(const char *s, size_t n, bool dot)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            putchar('\\');
            putchar(c);
            i++;
        } else if (c == '\n') {
            out("\\n");
            i++;
        } else if (c < 0x20 || c == 0x7f) {
            if (dot)
                putchar(' ');
            else
                printf("\\u%04x", c);
            i++;
        } else if (c == '<' && in_script) {
            out("\\u003c");
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
                out("\xef\xbf\xbd");
                i++;
            }
        }
    }
}

static void put_str(const char *s)
{
    putchar('"');
    put_escaped(s, strlen(s), false);
    putchar('"');
}

/* ns as microseconds with the nanoseconds as three decimals. */
static void put_us(uint64_t ns)
{
    printf("%llu.%03llu", (unsigned long long)(ns / 1000), (unsigned long long)(ns % 1000));
}

static bool first_event = true;
static void begin_event(void)
{
    out(first_event ? "\n" : ",\n");
    first_event = false;
}

/* SRC cut to fit DST of SIZE bytes. */
static void copy_text(char *dst, size_t size, const char *src)
{
    size_t n = argus_utf8_cut(src, strlen(src), size - 1);
    memcpy(dst, src, n);
    dst[n] = 0;
}

/* ---- what a segment did ---------------------------------------------------- */
/* An event in words, from what the graph keeps of it (lib's key event text). */
static void describe(char *dst, size_t size, int type, const char *text, uint64_t aux)
{
    switch (type) {
    case ARGUS_T_SYSCALL: snprintf(dst, size, "%s", *text ? text : "syscall"); break;
    case ARGUS_T_UI_EVENT: snprintf(dst, size, "ui %s", *text ? text : "event"); break;
    case ARGUS_T_RUNLOOP_INVOKE: snprintf(dst, size, "runloop %s", *text ? text : "callout"); break;
    case ARGUS_T_DISPATCH_INVOKE: snprintf(dst, size, "dispatch %s", *text ? text : "block"); break;
    case ARGUS_T_TIMER_ARM: snprintf(dst, size, "timer_arm%s%s", *text ? " " : "", text); break;
    case ARGUS_T_WAIT: snprintf(dst, size, "wait %s", *text ? text : "(no reason)"); break;
    case ARGUS_T_FLAG_WRITE: snprintf(dst, size, "write flag %s", text); break;
    case ARGUS_T_FLAG_READ: snprintf(dst, size, "read flag %s", text); break;
    case ARGUS_T_WAKEUP: snprintf(dst, size, "wakes tid %llu", (unsigned long long)aux); break;
    case ARGUS_T_WOKEN: snprintf(dst, size, "woken%s%s", *text ? " " : "", text); break;
    case ARGUS_T_BACKTRACE: snprintf(dst, size, "backtrace %s", text); break;
    case ARGUS_T_IPC:
        if (aux != NONE64)
            snprintf(dst, size, "%s %s pid %llu", text,
                     strncmp(text, "send", 4) == 0 ? "->" : "<-", (unsigned long long)aux);
        else
            snprintf(dst, size, "%s", text);
        break;
    default:
        snprintf(dst, size, "%s", argus_type_name(type < ARGUS_T_COUNT ? type : 0));
    }
    dst[argus_utf8_whole(dst, strlen(dst))] = 0;   /* as snprintf may cut it */
}

/* The most telling event: a UI event, else a callout (run loop, dispatch),
 * else the final wait, else a message, else a system call, else the
 * first key event. */
typedef struct namer {
    int rank;
    char text[160];
} namer;

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

static void namer_add(namer *nm, int type, const char *desc)
{
    int r = rank_of(type);
    if (r > nm->rank) {
        nm->rank = r;
        copy_text(nm->text, sizeof nm->text, desc);
    }
}

static void namer_final_wait(namer *nm, const char *desc)
{
    if (nm->rank < 4) {
        nm->rank = 4;
        copy_text(nm->text, sizeof nm->text, desc);
    }
}

/* ---- findings ------------------------------------------------------------------- */
enum { M_HANG = 1, M_PATH = 2, M_CHAIN = 4, M_CULPRIT = 8 };
typedef struct mark {
    uint8_t bits;
    uint32_t hang;              /* of M_HANG */
    uint32_t culprit_rank;      /* best rank among culprits */
} mark;

typedef struct hang_info {
    uint64_t hang, seg, first_seg, tid, pid, begin, end, duration;
    char cls[16], indicator[64];
} hang_info;

static argus_table marks;       /* seg -> mark */
static hang_info *hangs;
static size_t nhangs, cap_hangs;
static bool have_findings;
/* The segments of the --around hang (or of every hang): cores[] */
static uint64_t *cores;
static size_t ncores, cap_cores;
static long around = -1;
/* --window: times as the report prints them, in ns: on the trace's own
 * clock (ts + the header's origin), or ts where there is no origin */
static bool windowed;
static uint64_t window_from, window_to;

/* SECONDS[.FRACTION] of S (LEN bytes) in *NS, to the nanosecond, with no
 * rounding through a double (a trace clock's 13507.243398 is exact). */
static bool parse_secs(const char *s, size_t len, uint64_t *ns)
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

static bool want_hang(uint64_t h) { return around < 0 || (uint64_t)around == h; }

/* Marks SEG as BIT of hang HANG. With --around, only hang N's path,
 * chain and culprits are marked: another hang's culprit drawn beside hang
 * N is not hang N's; a segment that is another hang stays marked one (it
 * says which). */
static void add_mark(uint64_t seg, uint8_t bit, uint64_t hang, uint64_t rank)
{
    if (bit != M_HANG && !want_hang(hang))
        return;
    bool created;
    mark *m = argus_table_put(&marks, seg, &created);
    if (created)
        m->culprit_rank = NONE32;
    m->bits |= bit;
    if (bit == M_HANG)
        m->hang = (uint32_t)hang;
    if (bit == M_CULPRIT && rank < m->culprit_rank)
        m->culprit_rank = (uint32_t)rank;
    if (want_hang(hang)) {
        *(uint64_t *)ARGUS_PUSH(cores, ncores, cap_cores) = seg;
    }
}

/* Where a finding read back from a loaded graph came from (the graph
 * keeps its record number, not its offset). */
static const char *extra_input;
static uint64_t extra_number;

/* A finding export cannot take: exits 65 naming the record and WHAT is
 * wrong (RD: the reader, for its place; NULL from a graph). */
static void bad_finding(const argus_reader *rd, const argus_record *r, const char *what)
{
    if (rd)
        argus_record_fail(rd, r, "%.*s record: %s", (int)r->type_len, r->type_name, what);
    argus_die(ARGUS_EX_DATAERR, "%s: record %llu: %.*s record: %s", extra_input,
              (unsigned long long)extra_number, (int)r->type_len, r->type_name, what);
}

/* V, or DFLT where the finding has none. */
static uint64_t or(uint64_t v, uint64_t dflt) { return v != ARGUS_ABSENT ? v : dflt; }

/* Text S (NULL: none) in DST of SIZE bytes, cut at a character. */
static void copy_finding_text(char *dst, size_t size, const char *s)
{
    dst[0] = 0;
    if (s)
        snprintf(dst, size, "%.*s", (int)argus_utf8_cut(s, strlen(s), size - 1), s);
}

/* A wait chain's links (dot draws them: link I, segs[I] waits on
 * segs[I+1]). */
typedef struct chain_link {
    uint64_t from, to;
} chain_link;
static chain_link *links;
static size_t nlinks, cap_links;

static void mark_segs(const uint64_t *segs, int n, uint8_t bit, uint64_t hang)
{
    if (bit == M_CHAIN && n > 1 && want_hang(hang)) {
        for (int i = 0; i + 1 < n; i++) {
            chain_link *l = ARGUS_PUSH(links, nlinks, cap_links);
            l->from = segs[i];
            l->to = segs[i + 1];
        }
    }
    for (int i = 0; i < n; i++)
        add_mark(segs[i], bit, hang, NONE64);
}

/* One analysis record (RD: the reader, for messages; NULL from a graph):
 * the hangs, and the marks of their paths, chains and culprits. */
static void take_finding(const argus_reader *rd, const argus_record *r)
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
        hang_info *h = ARGUS_PUSH(hangs, nhangs, cap_hangs);
        h->hang = f.hang.hang;
        h->seg = f.hang.seg;
        h->first_seg = or(f.hang.first_seg, h->seg);
        h->tid = or(f.hang.tid, 0);
        h->pid = or(f.hang.pid, 0);
        h->begin = or(f.hang.begin, 0);
        h->end = or(f.hang.end, h->begin);
        h->duration = or(f.hang.duration, h->end - h->begin);
        copy_finding_text(h->cls, sizeof h->cls, f.hang.cls);
        copy_finding_text(h->indicator, sizeof h->indicator, f.hang.indicator);
        have_findings = true;
        add_mark(h->seg, M_HANG, h->hang, NONE64);
        if (h->first_seg != h->seg)
            add_mark(h->first_seg, M_HANG, h->hang, NONE64);
        break;
    case ARGUS_F_PATH:
        /* the best path; the others are ranked alternatives */
        if ((ok = argus_read_path(r, &mem, &f.path)) && or(f.path.rank, 1) == 1)
            mark_segs(f.path.segs, f.path.nsegs, M_PATH, f.path.hang);
        break;
    case ARGUS_F_WAIT_CHAIN:
        if ((ok = argus_read_chain(r, &mem, &f.chain)))
            mark_segs(f.chain.segs, f.chain.nsegs, M_CHAIN, f.chain.hang);
        break;
    case ARGUS_F_CULPRIT:
        if (!(ok = argus_read_culprit(r, &mem, &f.culprit)))
            break;
        if (f.culprit.seg == ARGUS_ABSENT)
            bad_finding(rd, r, "\"seg\" is missing or not an unsigned integer");
        add_mark(f.culprit.seg, M_CULPRIT, f.culprit.hang, or(f.culprit.rank, 1));
        break;
    default:
        break;
    }
    if (!ok)
        bad_finding(rd, r, mem.error);
    argus_findings_mem_free(&mem);
}

static void findings_from_graph(argus_graph *g, const argus_reader *rd)
{
    extra_input = argus_reader_name(rd);
    for (uint32_t i = 0; i < g->nextras; i++) {
        const argus_extra *x = &g->extras[i];
        if (!argus_extra_is(x, "hang") && !argus_extra_is(x, "path") &&
            !argus_extra_is(x, "wait_chain") && !argus_extra_is(x, "culprit"))
            continue;
        const argus_record *r = argus_graph_parse_extra(g, i);
        extra_number = x->number;
        if (r)
            take_finding(NULL, r);
    }
}

static void check_around(void)
{
    if (around < 0)
        return;
    for (size_t i = 0; i < nhangs; i++)
        if (hangs[i].hang == (uint64_t)around)
            return;
    argus_die(1, "no hang %ld in the stream (it has %zu hang record%s)", around, nhangs,
              nhangs == 1 ? "" : "s");
}

/* ---- perfetto: slices as segments end ----------------------------------------------- */
#define KEEP_KEYS 6             /* first and last key events kept per slice */
typedef struct key_line {
    char text[120];
    uint32_t count;
} key_line;

/* An edge's flow: its "s" and "f" events, written together, "s" first,
 * once both ends' slices are written (DevTools pairs them in file order). */
typedef struct flow_pair {
    uint64_t id;
    uint32_t kind;              /* into kinds */
    bool weak;
    struct {
        uint64_t ts, tid, pid, seg;
    } end[2];                   /* from, to */
} flow_pair;

typedef struct open_seg {
    uint64_t seg, begin, last_ts, first_id, nevents;
    uint64_t tid, pid;
    bool last_wait, exported;
    char wait_desc[160];
    namer nm;
    key_line first[KEEP_KEYS], last[KEEP_KEYS];
    uint32_t nfirst, nlast_total;   /* nlast_total: lines past the first */
    flow_pair *flows;           /* flows waiting for this slice */
    size_t nflows, cap_flows;
} open_seg;

#define STACK_MAX 8
typedef struct thread_state {
    open_seg *stack[STACK_MAX]; /* open segments, innermost last */
    uint32_t depth;
} thread_state;

static argus_table threads;     /* tid -> thread_state */
static argus_table keep_segs;   /* --around, --window: seg -> 1 */
static argus_table keep_tids;   /* --around, --window: tid -> 1 */
static char **kinds;
static size_t nkinds, cap_kinds;
static uint64_t last_ts;

/* ---- where each event was, for the edges that name it later ------------------------------ */
/* An edge comes after both its events (right after the later one), but
 * its earlier end may be any distance back: a wait's edge to the wakeup
 * that ended it seconds later. So each event's place (time, thread,
 * segment) is kept by id: the latest ones in memory, the older ones in an
 * unlinked temporary file (in TMPDIR) read back by pread, in id order as
 * the stream has them (ids strictly increase), found by a binary search.
 * Memory stays the same whatever the trace's length. */
typedef struct event_place {
    uint64_t id, ts, seg;
    uint64_t begin;             /* its segment's slice's start */
    uint32_t thr;               /* into places' threads */
    uint32_t unused;
} event_place;

#define PLACE_BLOCK 32768       /* events written to the file at a time */
static struct {
    event_place recent[2 * PLACE_BLOCK];    /* the latest, by id */
    size_t nrecent;
    int fd;                     /* the file, -1 until the first block */
    char path[4096];
    uint64_t nfile, file_first;             /* entries in it, the first's id */
    struct thr {
        uint64_t tid, pid;
    } *thr;                     /* the threads events were on, by index */
    size_t nthr, cap_thr;
    argus_table thr_of;         /* tid -> its latest index */
} places = {.fd = -1};

static uint32_t place_thread(uint64_t tid, uint64_t pid)
{
    bool created;
    uint32_t *t = argus_table_put(&places.thr_of, tid, &created);
    if (created || places.thr[*t].pid != pid) {   /* a tid used again */
        struct thr *th = ARGUS_PUSH(places.thr, places.nthr, places.cap_thr);
        th->tid = tid;
        th->pid = pid;
        *t = (uint32_t)(places.nthr - 1);
    }
    return *t;
}

static void place_flush(void)
{
    if (places.fd < 0) {
        const char *dir = getenv("TMPDIR");
        snprintf(places.path, sizeof places.path, "%s/argus-export-places.XXXXXX",
                 dir && *dir ? dir : "/tmp");
        places.fd = mkstemp(places.path);
        if (places.fd < 0)
            argus_die(ARGUS_EX_IOERR, "%s: %s", places.path, strerror(errno));
        unlink(places.path);
        places.file_first = places.recent[0].id;
    }
    const char *p = (const char *)places.recent;
    size_t left = PLACE_BLOCK * sizeof *places.recent;
    while (left) {
        ssize_t w = write(places.fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            argus_die(ARGUS_EX_IOERR, "%s: write error: %s", places.path, strerror(errno));
        p += w;
        left -= (size_t)w;
    }
    places.nfile += PLACE_BLOCK;
    memmove(places.recent, places.recent + PLACE_BLOCK, PLACE_BLOCK * sizeof *places.recent);
    places.nrecent -= PLACE_BLOCK;
}

static void place_add(uint64_t id, uint64_t ts, uint64_t seg, uint64_t begin, uint64_t tid,
                      uint64_t pid)
{
    if (places.nrecent == 2 * PLACE_BLOCK)
        place_flush();
    event_place *e = &places.recent[places.nrecent++];
    e->id = id;
    e->ts = ts;
    e->seg = seg;
    e->begin = begin;
    e->thr = place_thread(tid, pid);
    e->unused = 0;
}

static void place_read(uint64_t i, event_place *e)
{
    off_t at = (off_t)(i * sizeof *e);
    for (size_t got = 0; got < sizeof *e;) {
        ssize_t n = pread(places.fd, (char *)e + got, sizeof *e - got, at + (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            argus_die(ARGUS_EX_IOERR, "%s: read error: %s", places.path,
                      n < 0 ? strerror(errno) : "short file");
        got += (size_t)n;
    }
}

/* The place of event ID, or false when the stream had no such event. */
static bool place_find(uint64_t id, event_place *out)
{
    if (places.nrecent && id >= places.recent[0].id) {
        size_t lo = 0, hi = places.nrecent;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (places.recent[mid].id < id)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == places.nrecent || places.recent[lo].id != id)
            return false;
        *out = places.recent[lo];
        return true;
    }
    if (!places.nfile || id < places.file_first)
        return false;
    /* ids strictly increase: entry I's id is at least file_first + I, so ID
       is at index id - file_first or before, there when ids are dense */
    uint64_t lo = 0, hi = places.nfile;
    if (id - places.file_first < hi)
        hi = id - places.file_first + 1;
    place_read(hi - 1, out);
    if (out->id == id)
        return true;
    if (out->id < id)
        return false;
    hi--;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        place_read(mid, out);
        if (out->id == id)
            return true;
        if (out->id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* ---- slices and flows ------------------------------------------------------------------- */
static uint32_t kind_index(const char *s, size_t len)
{
    for (size_t i = 0; i < nkinds; i++)
        if (strlen(kinds[i]) == len && memcmp(kinds[i], s, len) == 0)
            return (uint32_t)i;
    char **k = ARGUS_PUSH(kinds, nkinds, cap_kinds);
    *k = strndup(s, len);
    if (!*k)
        argus_die(ARGUS_EX_IOERR, "out of memory");
    return (uint32_t)(nkinds - 1);
}

/* A flow's two events, "s" then "f" (bound to the enclosing slice, bp e).
 * Their category is the slices' ("segment"): DevTools binds a flow event
 * to the slice of its thread that starts at its ts in its category, and
 * pairs "s" with "f" by category, name and id; Perfetto pairs them by id,
 * category and name too. A weak edge says so in its name. */
static void write_flow_pair(const flow_pair *p)
{
    for (int e = 0; e < 2; e++) {
        begin_event();
        printf("{\"ph\":\"%s\",\"id\":%llu,\"pid\":%llu,\"tid\":%llu,\"ts\":", e ? "f" : "s",
               (unsigned long long)p->id, (unsigned long long)p->end[e].pid,
               (unsigned long long)p->end[e].tid);
        put_us(p->end[e].ts);
        out(",\"name\":\"");
        put_escaped(kinds[p->kind], strlen(kinds[p->kind]), false);
        printf("%s\",\"cat\":\"segment\"%s}", p->weak ? " (weak)" : "", e ? ",\"bp\":\"e\"" : "");
    }
}

static open_seg *open_seg_of(uint64_t tid, uint64_t seg);

/* A flow waits with a slice of its not written yet (it is written after
 * it: Perfetto binds a flow event to the slice open at its ts, which a
 * viewer reading in file order must have read), else is written. */
static void hold_or_write(const flow_pair *p)
{
    for (int e = 0; e < 2; e++) {
        open_seg *o = open_seg_of(p->end[e].tid, p->end[e].seg);
        if (o) {
            *ARGUS_PUSH(o->flows, o->nflows, o->cap_flows) = *p;
            return;
        }
    }
    write_flow_pair(p);
}

static void put_key_line(const key_line *k, bool *first)
{
    out(*first ? "" : ",");
    *first = false;
    putchar('"');
    put_escaped(k->text, strlen(k->text), false);
    if (k->count > 1)
        printf(" x%u", (unsigned)k->count);
    putchar('"');
}

/* A segment ends: its slice, then the flows that waited for it (those
 * whose other slice is written too; the others wait for that one). */
/* The causal path's and the culprits' segments marked by an instant
 * event each at the slice's start, in a category of its own ("path",
 * "culprit"), as the hang is (write_hang_instants): the slices share
 * one category for DevTools' flows, so the marks in their args alone
 * would not show on the timeline. */
/* An instant on thread TID's track at TS, named NAME, in category CAT,
 * with its args opened by "seg": the caller adds any more and closes
 * them and the event ("}}"). */
static void open_instant(uint64_t pid, uint64_t tid, uint64_t ts, const char *name,
                         const char *cat, uint64_t seg)
{
    begin_event();
    printf("{\"ph\":\"i\",\"s\":\"t\",\"pid\":%llu,\"tid\":%llu,\"ts\":",
           (unsigned long long)pid, (unsigned long long)tid);
    put_us(ts);
    out(",\"name\":");
    put_str(name);
    printf(",\"cat\":\"%s\",\"args\":{\"seg\":%llu", cat, (unsigned long long)seg);
}

/* An instant at segment O's start, in category CAT, named NAME. */
static void put_seg_instant(const open_seg *o, const char *cat, const char *name)
{
    open_instant(o->pid, o->tid, o->begin, name, cat, o->seg);
    out("}}");
}

static void write_mark_instants(const open_seg *o, const mark *m)
{
    if (m->bits & M_PATH)
        put_seg_instant(o, "path", "path");
    if (m->bits & M_CULPRIT) {
        char name[32];
        snprintf(name, sizeof name, "culprit %u", (unsigned)m->culprit_rank);
        put_seg_instant(o, "culprit", name);
    }
}

static void close_seg(open_seg *o, uint64_t end)
{
    if (!o)
        return;
    if (o->exported) {
        if (o->last_wait)
            namer_final_wait(&o->nm, o->wait_desc);
        if (end < o->last_ts)
            end = o->last_ts;
        mark *m = argus_table_get(&marks, o->seg);
        begin_event();
        printf("{\"ph\":\"X\",\"pid\":%llu,\"tid\":%llu,\"ts\":", (unsigned long long)o->pid,
               (unsigned long long)o->tid);
        put_us(o->begin);
        out(",\"dur\":");
        put_us(end - o->begin);
        out(",\"name\":");
        put_str(o->nm.rank ? o->nm.text : "segment");
        /* one category for every slice: a flow binds in DevTools only
         * where its two slices have the same (write_flow_pair) */
        printf(",\"cat\":\"segment\",\"args\":{\"seg\":%llu", (unsigned long long)o->seg);
        if (m && (m->bits & (M_HANG | M_PATH | M_CHAIN | M_CULPRIT))) {
            const char *sep = "";
            out(",\"marks\":\"");
            if (m->bits & M_HANG)
                printf("%shang", sep), sep = ",";
            if (m->bits & M_PATH)
                printf("%spath", sep), sep = ",";
            if (m->bits & M_CHAIN)
                printf("%schain", sep), sep = ",";
            if (m->bits & M_CULPRIT)
                printf("%sculprit", sep);
            out("\"");
        }
        printf(",\"events\":%llu,\"first_id\":%llu", (unsigned long long)o->nevents,
               (unsigned long long)o->first_id);
        if (m && (m->bits & M_HANG))
            printf(",\"hang\":%u", (unsigned)m->hang);
        if (m && (m->bits & M_CULPRIT))
            printf(",\"culprit_rank\":%u", (unsigned)m->culprit_rank);
        out(",\"key_events\":[");
        bool first = true;
        for (uint32_t k = 0; k < o->nfirst; k++)
            put_key_line(&o->first[k], &first);
        uint32_t nl = o->nlast_total < KEEP_KEYS ? o->nlast_total : KEEP_KEYS;
        if (o->nlast_total > KEEP_KEYS) {
            key_line gap = {"...", 1};
            put_key_line(&gap, &first);
        }
        for (uint32_t k = 0; k < nl; k++)
            put_key_line(&o->last[(o->nlast_total - nl + k) % KEEP_KEYS], &first);
        out("]}}");
        if (m)
            write_mark_instants(o, m);
        for (size_t k = 0; k < o->nflows; k++)
            hold_or_write(&o->flows[k]);
    }
    free(o->flows);
    free(o);
}

static void add_key_line(open_seg *o, const char *desc)
{
    key_line *prev = NULL;
    if (o->nlast_total)
        prev = &o->last[(o->nlast_total - 1) % KEEP_KEYS];
    else if (o->nfirst)
        prev = &o->first[o->nfirst - 1];
    if (prev && strcmp(prev->text, desc) == 0) {
        prev->count++;
        return;
    }
    key_line *k = o->nfirst < KEEP_KEYS ? &o->first[o->nfirst++]
                                        : &o->last[o->nlast_total++ % KEEP_KEYS];
    copy_text(k->text, sizeof k->text, desc);
    k->count = 1;
}

static bool seg_exported(uint64_t seg)
{
    return (around < 0 && !windowed) || argus_table_get(&keep_segs, seg);
}

static void take_event(const argus_reader *rd, const argus_record *r)
{
    uint64_t seg;
    if (!argus_get_uint(r, ARGUS_K_SEG, &seg))
        argus_record_fail(rd, r, "event %llu has no seg: run argus-segment "
                          "(argus graph) first", (unsigned long long)r->id);
    bool created;
    thread_state *ts = argus_table_put(&threads, r->tid, &created);
    open_seg *o = NULL;
    for (uint32_t d = ts->depth; d-- > 0;)
        if (ts->stack[d]->seg == seg) {
            while (ts->depth > d + 1)
                close_seg(ts->stack[--ts->depth], r->ts);
            o = ts->stack[d];
            break;
        }
    if (!o) {
        bool window = argus_get(r, ARGUS_K_CTX) != NULL;
        if (!window || ts->depth == STACK_MAX)
            while (ts->depth)
                close_seg(ts->stack[--ts->depth], r->ts);
        o = calloc(1, sizeof *o);
        if (!o)
            argus_die(ARGUS_EX_IOERR, "out of memory");
        o->seg = seg;
        o->begin = r->ts;
        o->first_id = r->id;
        o->tid = r->tid;
        o->pid = r->pid;
        o->exported = seg_exported(seg);
        ts->stack[ts->depth++] = o;
    }
    o->nevents++;
    o->last_ts = r->ts;
    o->last_wait = false;
    place_add(r->id, r->ts, seg, o->begin, r->tid, r->pid);
    if (r->ts > last_ts)
        last_ts = r->ts;
    if (!o->exported)
        return;
    char text[256], desc[200];
    uint64_t aux = 0;
    if (argus_key_event_text(r, text, sizeof text, &aux) < 0)
        return;
    describe(desc, sizeof desc, r->type, text, aux);
    add_key_line(o, desc);
    namer_add(&o->nm, r->type, desc);
    if (r->type == ARGUS_T_WAIT) {
        o->last_wait = true;
        copy_text(o->wait_desc, sizeof o->wait_desc, desc);
    }
}

/* The open segment SEG of thread TID, or NULL once it has ended. */
static open_seg *open_seg_of(uint64_t tid, uint64_t seg)
{
    thread_state *ts = argus_table_get(&threads, tid);
    for (uint32_t d = 0; ts && d < ts->depth; d++)
        if (ts->stack[d]->seg == seg)
            return ts->stack[d];
    return NULL;
}

static void take_edge(const argus_record *r)
{
    uint64_t from, to;
    argus_get_uint(r, ARGUS_K_FROM, &from);
    argus_get_uint(r, ARGUS_K_TO, &to);
    event_place at[2];
    if (!place_find(from, &at[0]) || !place_find(to, &at[1]) || !seg_exported(at[0].seg) ||
        !seg_exported(at[1].seg))
        return;
    size_t len;
    const char *k = argus_get_text(r, ARGUS_K_KIND, &len);
    bool weak = false;
    argus_get_bool(r, ARGUS_K_WEAK, &weak);
    static uint64_t next_flow;
    flow_pair p = {++next_flow, kind_index(k ? k : "edge", k ? len : 4), weak, {{0}}};
    /* At its slices' starts, where both viewers bind it, when the "to"
     * slice starts later than the "from" one; else (the same start, or an
     * edge into a slice that began earlier) at its two events, where
     * Perfetto still binds it and reads its "s" first. */
    bool at_starts = at[0].begin < at[1].begin;
    for (int e = 0; e < 2; e++) {
        p.end[e].ts = at_starts ? at[e].begin : at[e].ts;
        p.end[e].tid = places.thr[at[e].thr].tid;
        p.end[e].pid = places.thr[at[e].thr].pid;
        p.end[e].seg = at[e].seg;
    }
    hold_or_write(&p);
}

static void take_thread(const argus_record *r)
{
    uint64_t tid = 0, pid = 0;
    argus_get_uint(r, ARGUS_K_TID, &tid);
    argus_get_uint(r, ARGUS_K_PID, &pid);
    if ((around >= 0 || windowed) && !argus_table_get(&keep_tids, tid))
        return;
    size_t plen = 0, nlen = 0;
    const char *proc = argus_get_text(r, ARGUS_K_PROC, &plen);
    const char *name = argus_get_text(r, ARGUS_K_NAME, &nlen);
    bool main_thread = false;
    argus_get_bool(r, ARGUS_K_MAIN, &main_thread);
    if (proc) {
        begin_event();
        printf("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%llu,\"tid\":%llu,"
               "\"args\":{\"name\":\"",
               (unsigned long long)pid, (unsigned long long)tid);
        put_escaped(proc, plen, false);
        out("\"}}");
    }
    begin_event();
    printf("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%llu,\"tid\":%llu,\"args\":{\"name\":\"",
           (unsigned long long)pid, (unsigned long long)tid);
    if (name && nlen)
        put_escaped(name, nlen, false);
    else if (main_thread)
        out("main");
    else
        printf("%llu", (unsigned long long)tid);
    out("\"}}");
    if (main_thread) {          /* the main thread first in its process */
        begin_event();
        printf("{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%llu,\"tid\":%llu,"
               "\"args\":{\"sort_index\":-1}}",
               (unsigned long long)pid, (unsigned long long)tid);
    }
}

static void write_hang_instants(void)
{
    for (size_t i = 0; i < nhangs; i++) {
        const hang_info *h = &hangs[i];
        if (!want_hang(h->hang))
            continue;
        char name[32];
        snprintf(name, sizeof name, "hang %llu", (unsigned long long)h->hang);
        open_instant(h->pid, h->tid, h->begin, name, "hang", h->seg);
        out(",\"class\":");
        put_str(h->cls);
        out(",\"indicator\":");
        put_str(h->indicator);
        out(",\"duration_us\":");
        put_us(h->duration);
        out("}}");
    }
}

/* --around: every segment of the core segments' threads that overlaps
 * their time span. */
static void plan_around(argus_graph *g)
{
    uint64_t lo = NONE64, hi = 0;
    for (size_t i = 0; i < ncores; i++) {
        uint32_t si = argus_graph_find_seg(g, cores[i]);
        if (si == ARGUS_NONE)
            continue;
        const argus_seg *s = &g->segs[si];
        bool created;
        argus_table_put(&keep_tids, g->threads[s->thread].tid, &created);
        if (s->begin < lo)
            lo = s->begin;
        uint64_t until = argus_seg_until(g, s);
        if (until > hi)
            hi = until;
    }
    for (uint32_t si = 0; si < g->nsegs; si++) {
        const argus_seg *s = &g->segs[si];
        if (!argus_table_get(&keep_tids, g->threads[s->thread].tid))
            continue;
        if (s->begin <= hi && argus_seg_until(g, s) >= lo) {
            bool created;
            argus_table_put(&keep_segs, s->seg, &created);
        }
    }
}

/* --window: every segment ongoing in it (from its start to its resume),
 * and the threads of those. */
static void plan_window(argus_graph *g)
{
    if (window_to < g->origin)
        return;                 /* all of it before the trace */
    uint64_t lo = window_from > g->origin ? window_from - g->origin : 0;
    uint64_t hi = window_to - g->origin;
    for (uint32_t si = 0; si < g->nsegs; si++) {
        const argus_seg *s = &g->segs[si];
        if (s->begin > hi || argus_seg_until(g, s) < lo)
            continue;
        bool created;
        argus_table_put(&keep_segs, s->seg, &created);
        argus_table_put(&keep_tids, g->threads[s->thread].tid, &created);
    }
}

/* Standard input read twice: a pipe is copied to an unlinked temporary
 * file first, which becomes standard input. */
static void make_stdin_seekable(void)
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

static void rewind_input(const char *input)
{
    if (!input || strcmp(input, "-") == 0)
        lseek(0, 0, SEEK_SET);
}

static void export_perfetto(const char *input)
{
    /* pass 1: the findings (at the stream's end) */
    argus_reader *rd = argus_reader_open(input);
    if (around >= 0 || windowed) {
        argus_graph g;
        argus_graph_load(&g, rd, NULL);
        findings_from_graph(&g, rd);
        if (windowed) {
            plan_window(&g);
        } else {
            check_around();
            plan_around(&g);
        }
        argus_graph_free(&g);
    } else {
        const argus_record *r;
        uint64_t seg;
        while ((r = argus_read(rd)))
            if (r->is_event && !argus_get_uint(r, ARGUS_K_SEG, &seg))
                argus_record_fail(rd, r, "event %llu has no seg: run argus-segment "
                                  "(argus graph) first", (unsigned long long)r->id);
            else if (!r->is_event && r->type == ARGUS_T_OTHER)
                take_finding(rd, r);
    }
    argus_reader_close(rd);

    /* pass 2: slices as their segments end, flows with their slices */
    rewind_input(input);
    rd = argus_reader_open(input);
    const argus_record *hdr = argus_reader_header(rd);
    out("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"exported_by\":\"argus-export\"");
    size_t len;
    const char *src = argus_get_text(hdr, ARGUS_K_SOURCE, &len);
    if (src) {
        out(",\"source\":\"");
        put_escaped(src, len, false);
        out("\"");
    }
    out("},\"traceEvents\":[");
    const argus_record *r;
    while ((r = argus_read(rd))) {
        if (r->is_event)
            take_event(rd, r);
        else if (r->type == ARGUS_T_EDGE)
            take_edge(r);
        else if (r->type == ARGUS_T_THREAD)
            take_thread(r);
    }
    size_t pos = 0;
    uint64_t key;
    void *val;
    while (argus_table_next(&threads, &pos, &key, &val)) {
        thread_state *ts = val;
        while (ts->depth) {
            open_seg *o = ts->stack[--ts->depth];
            /* a segment still in its final wait lasts to the trace's end */
            close_seg(o, o->last_wait ? last_ts : o->last_ts);
        }
    }
    write_hang_instants();
    out("\n]}\n");
    argus_reader_close(rd);
}

/* ---- dot ----------------------------------------------------------------------------- */
static void dot_str(const char *s)
{
    put_escaped(s, strlen(s), true);
}

static void seg_name(const argus_graph *g, const argus_seg *s, char *dst, size_t size)
{
    namer nm = {0, ""};
    char desc[200];
    if (s->ui_id != NONE64) {   /* the keys may have dropped it (the middle) */
        describe(desc, sizeof desc, ARGUS_T_UI_EVENT,
                 s->ui_kind ? argus_graph_str(g, s->ui_kind) : "", 0);
        namer_add(&nm, ARGUS_T_UI_EVENT, desc);
    }
    uint32_t nkeys;
    const argus_key_event *keys = argus_graph_seg_keys(g, (uint32_t)(s - g->segs), &nkeys);
    for (uint32_t k = 0; k < nkeys; k++) {
        const argus_key_event *ke = &keys[k];
        describe(desc, sizeof desc, ke->type, argus_graph_str(g, ke->text), ke->aux);
        namer_add(&nm, ke->type, desc);
    }
    if (s->wait_id != NONE64) {
        const char *reason = s->wait_reason ? argus_graph_str(g, s->wait_reason) : "";
        describe(desc, sizeof desc, ARGUS_T_WAIT, reason, 0);
        namer_final_wait(&nm, desc);
    }
    if (nm.rank)
        copy_text(dst, size, nm.text);
    else
        snprintf(dst, size, "%u events", s->nevents);
}

static void put_dur(uint64_t ns)
{
    if (ns >= 1000000000)
        printf("%.2f s", (double)ns / 1e9);
    else if (ns >= 1000000)
        printf("%.1f ms", (double)ns / 1e6);
    else
        printf("%.1f us", (double)ns / 1e3);
}

static int export_dot(const char *input)
{
    argus_reader *rd = argus_reader_open(input);
    argus_graph g;
    argus_graph_load(&g, rd, &(argus_graph_options){.keep_key_events = true});
    findings_from_graph(&g, rd);
    argus_reader_close(rd);
    check_around();
    uint8_t *in = calloc(g.nsegs ? g.nsegs : 1, 1);
    if (!in)
        argus_die(ARGUS_EX_IOERR, "out of memory");
    if (!have_findings) {
        if (g.nsegs > 200) {
            argus_warn("no findings in the stream (argus-find-spinning writes them) and %u "
                       "segments: too many to draw; export --format perfetto shows them all",
                       g.nsegs);
            free(in);
            argus_graph_free(&g);
            return 1;
        }
        memset(in, 1, g.nsegs);
    } else {
        for (size_t i = 0; i < ncores; i++) {
            uint32_t si = argus_graph_find_seg(&g, cores[i]);
            if (si != ARGUS_NONE)
                in[si] = 1;
        }
    }
    out("digraph argus {\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n"
        "  edge [fontname=\"Helvetica\", fontsize=9];\n");
    /* one cluster per process, in order of first appearance */
    uint8_t *done = calloc(g.nthreads ? g.nthreads : 1, 1);
    if (!done)
        argus_die(ARGUS_EX_IOERR, "out of memory");
    for (uint32_t t0 = 0; t0 < g.nthreads; t0++) {
        if (done[t0])
            continue;
        uint64_t pid = g.threads[t0].pid;
        bool any = false;
        for (uint32_t t = t0; t < g.nthreads; t++) {
            if (g.threads[t].pid != pid)
                continue;
            done[t] = 1;
            for (uint32_t k = g.seg_first[t]; k < g.seg_first[t + 1]; k++) {
                uint32_t si = g.thread_segs[k];
                if (!in[si])
                    continue;
                if (!any) {
                    const char *proc = g.threads[t0].proc ? argus_graph_str(&g, g.threads[t0].proc) : "";
                    printf("  subgraph cluster_%llu {\n    label=\"", (unsigned long long)pid);
                    dot_str(*proc ? proc : "pid");
                    printf(" (%llu)\";\n", (unsigned long long)pid);
                    any = true;
                }
                const argus_seg *s = &g.segs[si];
                const argus_gthread *th = &g.threads[t];
                char name[200];
                seg_name(&g, s, name, sizeof name);
                mark *m = argus_table_get(&marks, s->seg);
                printf("    s%llu [label=\"", (unsigned long long)s->seg);
                dot_str(th->name ? argus_graph_str(&g, th->name) : th->main ? "main" : "thread");
                printf(" [%llu]\\nseg %llu: ", (unsigned long long)th->tid, (unsigned long long)s->seg);
                dot_str(name);
                out("\\n");
                put_dur(argus_seg_until(&g, s) - s->begin);
                if (m && (m->bits & M_HANG))
                    printf("\\nHANG %u", (unsigned)m->hang);
                if (m && (m->bits & M_CULPRIT))
                    printf("\\nCULPRIT (rank %u)", (unsigned)m->culprit_rank);
                out("\"");
                if (m && (m->bits & M_HANG))
                    out(", style=filled, fillcolor=\"#f4a6a6\"");
                else if (m && (m->bits & M_CULPRIT))
                    out(", style=filled, fillcolor=\"#ffd27f\"");
                if (m && (m->bits & M_PATH))
                    out(", penwidth=2");
                out("];\n");
            }
        }
        if (any)
            out("  }\n");
    }
    for (uint32_t e = 0; e < g.nedges; e++) {
        const argus_gedge *ed = &g.edges[e];
        if (ed->from_seg == ARGUS_NONE || ed->to_seg == ARGUS_NONE || ed->from_seg == ed->to_seg ||
            !in[ed->from_seg] || !in[ed->to_seg])
            continue;
        printf("  s%llu -> s%llu [label=\"", (unsigned long long)g.segs[ed->from_seg].seg,
               (unsigned long long)g.segs[ed->to_seg].seg);
        dot_str(ed->kind ? argus_graph_str(&g, ed->kind) : "edge");
        printf("\"%s];\n", ed->weak ? ", style=dashed" : "");
    }
    for (size_t i = 0; i < nlinks; i++) {
        uint32_t a = argus_graph_find_seg(&g, links[i].from);
        uint32_t b = argus_graph_find_seg(&g, links[i].to);
        if (a == ARGUS_NONE || b == ARGUS_NONE || !in[a] || !in[b])
            continue;
        printf("  s%llu -> s%llu [label=\"waits on\"", (unsigned long long)links[i].from,
               (unsigned long long)links[i].to);
        out(", style=dotted, color=\"#c03030\", constraint=false];\n");
    }
    out("}\n");
    free(done);
    free(in);
    argus_graph_free(&g);
    return 0;
}

/* ---- html ---------------------------------------------------------------------------- */
/* One self-contained page (argus diagnose --html): the verdict, the
 * report, and a timeline of the hang's threads that the page's own script
 * draws as SVG from a JSON data island. The template is
 * share/export-page.html, compiled in (build/gen/export-page.c), so the
 * program needs no file at run time and the page no network. */
extern const char argus_export_page[];

#define HTML_EVENTS_MAX 400     /* events listed per segment */
#define HTML_SEGS_MAX 5000      /* segments drawn per timeline */

typedef struct html_event {
    uint64_t id, ts;
    uint32_t seg;               /* index into the panel's shown[] */
    uint32_t text;              /* offset into the panel's text pool */
} html_event;

/* A trace's clock, as the report prints times (argus_moment_text): the
 * header's origin (ts + origin is the trace's own clock) and t0 (the wall
 * clock of ts 0, Unix epoch ns), where it has them. */
typedef struct page_clock {
    bool have_origin, have_t0;
    uint64_t origin, t0;
} page_clock;

static page_clock clock_of(const argus_record *hdr)
{
    page_clock c = {0};
    const argus_field *f = argus_get_named(hdr, "origin");
    if (f && f->kind == ARGUS_V_UINT) {
        c.have_origin = true;
        c.origin = f->u;
    }
    f = argus_get_named(hdr, "t0");
    if (f && f->kind == ARGUS_V_UINT) {
        c.have_t0 = true;
        c.t0 = f->u;
    }
    return c;
}

/* A timeline: some threads of one graph, between lo and hi. */
typedef struct panel {
    argus_graph *g;
    uint32_t *threads;          /* thread indices, in row order */
    size_t nthreads, cap_threads;
    uint32_t *shown;            /* segment indices drawn */
    size_t nshown, cap_shown;
    uint32_t *row_of_seg;       /* seg index -> index into shown, or NONE32 */
    uint64_t lo, hi;
    size_t left_out;            /* segments past HTML_SEGS_MAX */
    size_t *left_of;            /* of them, per thread (as threads[]) */
    size_t ncore;               /* core segments drawn (first) */
    html_event *ev;
    size_t nev, cap_ev;
    uint32_t *listed, *more;    /* per shown segment: events listed, not */
    char *pool;
    size_t pool_used, pool_cap;
    argus_table ts_of;          /* event id -> ts (edge ends) */
    page_clock clock;           /* its trace's clock, from its header */
} panel;

static struct {
    const char *report;         /* file of the report text, or NULL */
    const hang_info *hang;      /* the hang drawn, or NULL */
    panel trace, base;
    bool have_base;
    const char *base_name;
    uint64_t *chain;            /* the wait chain's links, pairs */
    size_t nchain;
} page;

/* Match and culprit records of the hang drawn, for the verdict and the
 * baseline's timeline. */
typedef struct html_culprit {
    uint64_t rank, seg, tid, duration, baseline_seg;
    char who[160], state[32], reason[96];
} html_culprit;
static html_culprit *culprits;
static size_t nculprits, cap_culprits;
static uint64_t match_seg = NONE64, match_distance, match_percent, hang_at = NONE64;
static char match_name[256];
static char hang_who[160], hang_reason[96], hang_indicator[64];

/* "proc/name [tid]", as the report names a thread: a main thread named
 * as its process (Linux: both the comm) is "main". */
static void thread_label(const argus_graph *g, uint32_t t, char *dst, size_t size)
{
    const argus_gthread *th = &g->threads[t];
    const char *proc = th->proc ? argus_graph_str(g, th->proc) : "";
    const char *name = th->name ? argus_graph_str(g, th->name) : th->main ? "main" : "";
    if (th->main && *proc && strcmp(proc, name) == 0)
        name = "main";
    snprintf(dst, size, "%s/%s [%llu]", *proc ? proc : "?", *name ? name : "?",
             (unsigned long long)th->tid);
}

/* The thread TID of G as thread_label names it, else as the finding
 * does (PROC, THREAD: NULL where it has none). */
static void who(const argus_graph *g, uint64_t tid, const char *proc, const char *thread,
                char *dst, size_t size)
{
    uint32_t t = argus_graph_thread(g, tid);
    if (t != ARGUS_NONE) {
        thread_label(g, t, dst, size);
        return;
    }
    char p[64], th[64];
    copy_finding_text(p, sizeof p, proc);
    copy_finding_text(th, sizeof th, thread);
    snprintf(dst, size, "%s/%s [%llu]", *p ? p : "?", *th ? th : "?",
             (unsigned long long)tid);
}

/* What the page says of hang HANG: the hang, its best match, its
 * culprits (records that do not read are left to take_finding). */
static void html_findings(argus_graph *g, uint64_t hang)
{
    argus_findings_mem mem = {0};
    for (uint32_t i = 0; i < g->nextras; i++) {
        const argus_extra *x = &g->extras[i];
        argus_finding_kind k = argus_finding_kind_of(x->type, strlen(x->type));
        if (k != ARGUS_F_HANG && k != ARGUS_F_MATCH && k != ARGUS_F_CULPRIT)
            continue;
        const argus_record *r = argus_graph_parse_extra(g, i);
        if (!r)
            continue;
        if (k == ARGUS_F_HANG) {
            argus_hang_finding h;
            if (!argus_read_hang(r, &mem, &h) || h.hang != hang)
                continue;
            hang_at = h.at;
            who(g, or(h.tid, 0), h.proc, h.thread, hang_who, sizeof hang_who);
            copy_finding_text(hang_reason, sizeof hang_reason, h.reason);
            copy_finding_text(hang_indicator, sizeof hang_indicator, h.indicator);
        } else if (k == ARGUS_F_MATCH) {
            argus_match_finding m;
            if (!argus_read_match(r, &mem, &m) || m.hang != hang || or(m.rank, 1) != 1)
                continue;
            match_seg = m.baseline_seg;
            match_distance = or(m.distance, 0);
            match_percent = or(m.percent, 0);
            copy_finding_text(match_name, sizeof match_name, m.baseline);
        } else {
            argus_culprit_finding f;
            if (!argus_read_culprit(r, &mem, &f) || f.hang != hang)
                continue;
            html_culprit *c = ARGUS_PUSH(culprits, nculprits, cap_culprits);
            c->rank = or(f.rank, 1);
            c->seg = f.seg;
            c->tid = f.tid;
            c->duration = or(f.duration, 0);
            c->baseline_seg = f.baseline_seg;
            who(g, c->tid, f.proc, f.thread, c->who, sizeof c->who);
            copy_finding_text(c->state, sizeof c->state, f.state);
            copy_finding_text(c->reason, sizeof c->reason, f.reason);
        }
    }
    argus_findings_mem_free(&mem);
}

static void panel_add_thread(panel *p, uint32_t t)
{
    for (size_t i = 0; i < p->nthreads; i++)
        if (p->threads[i] == t)
            return;
    *ARGUS_PUSH(p->threads, p->nthreads, p->cap_threads) = t;
}

/* The threads of the core segments SEGS (in their order: the hang's
 * first), and every segment of theirs that overlaps the span from the
 * earliest core segment's start to the latest one's end. */
static void panel_plan(panel *p, argus_graph *g, const uint64_t *segs, size_t nsegs)
{
    page_clock clock = p->clock;       /* set from the header before */
    memset(p, 0, sizeof *p);
    p->clock = clock;
    p->g = g;
    p->lo = NONE64;
    argus_table_init(&p->ts_of, sizeof(uint64_t));
    p->row_of_seg = malloc((g->nsegs ? g->nsegs : 1) * sizeof *p->row_of_seg);
    if (!p->row_of_seg)
        argus_die(ARGUS_EX_IOERR, "out of memory");
    memset(p->row_of_seg, 0xff, (g->nsegs ? g->nsegs : 1) * sizeof *p->row_of_seg);
    for (size_t i = 0; i < nsegs; i++) {
        uint32_t si = argus_graph_find_seg(g, segs[i]);
        if (si == ARGUS_NONE)
            continue;
        const argus_seg *s = &g->segs[si];
        panel_add_thread(p, s->thread);
        if (s->begin < p->lo)
            p->lo = s->begin;
        uint64_t until = argus_seg_until(g, s);
        if (until > p->hi)
            p->hi = until;
    }
    /* the core segments are drawn whatever their number, so that a
       timeline with more segments than HTML_SEGS_MAX still draws the hang,
       its path, chain and culprits; the others fill what is left, thread
       by thread in row order; all in that order (rows, then time) */
#define CORE (NONE32 - 1)       /* in row_of_seg: a core segment, not placed yet */
    for (size_t i = 0; i < nsegs && p->ncore < HTML_SEGS_MAX; i++) {
        uint32_t si = argus_graph_find_seg(g, segs[i]);
        if (si == ARGUS_NONE || p->row_of_seg[si] != NONE32)
            continue;
        p->row_of_seg[si] = CORE;
        p->ncore++;
    }
    p->left_of = calloc(p->nthreads ? p->nthreads : 1, sizeof *p->left_of);
    if (!p->left_of)
        argus_die(ARGUS_EX_IOERR, "out of memory");
    size_t others = 0;
    for (size_t ti = 0; ti < p->nthreads; ti++) {
        uint32_t t = p->threads[ti];
        for (uint32_t k = g->seg_first[t]; k < g->seg_first[t + 1]; k++) {
            uint32_t si = g->thread_segs[k];
            const argus_seg *s = &g->segs[si];
            if (s->begin > p->hi || argus_seg_until(g, s) < p->lo)
                continue;
            if (p->row_of_seg[si] != CORE) {
                if (others == HTML_SEGS_MAX - p->ncore) {
                    p->left_out++;
                    p->left_of[ti]++;
                    continue;
                }
                others++;
            }
            p->row_of_seg[si] = (uint32_t)p->nshown;
            *ARGUS_PUSH(p->shown, p->nshown, p->cap_shown) = si;
        }
    }
#undef CORE
    p->more = calloc(p->nshown ? p->nshown : 1, sizeof *p->more);
    p->listed = calloc(p->nshown ? p->nshown : 1, sizeof *p->listed);
    if (!p->more || !p->listed)
        argus_die(ARGUS_EX_IOERR, "out of memory");
}

static uint32_t pool_add(panel *p, const char *s)
{
    size_t n = strlen(s) + 1;
    p->pool = argus_grow(p->pool, &p->pool_cap, p->pool_used + n, 1);
    memcpy(p->pool + p->pool_used, s, n);
    p->pool_used += n;
    return (uint32_t)(p->pool_used - n);
}

/* An event as the page lists it: what the report says of it, else its
 * type (and a system call's name and phase). */
static void event_words(const argus_record *r, char *dst, size_t size)
{
    char text[160];
    uint64_t aux = NONE64;
    if (argus_key_event_text(r, text, sizeof text, &aux) >= 0) {
        describe(dst, size, r->type, text, aux);
        return;
    }
    size_t nlen = 0, plen = 0;
    const char *name = argus_get_text(r, ARGUS_K_NAME, &nlen);
    const char *phase = argus_get_text(r, ARGUS_K_PHASE, &plen);
    snprintf(dst, size, "%.*s%s%.*s%s%.*s", (int)r->type_len, r->type_name, name ? " " : "",
             (int)nlen, name ? name : "", phase ? " " : "", (int)plen, phase ? phase : "");
}

/* The events of the panel's segments, read from INPUT again (the graph
 * keeps only a few per segment): their words, and every one's time for
 * the edges' arrows. */
static void panel_events(panel *p, const char *input)
{
    rewind_input(input);
    argus_reader *rd = argus_reader_open(input);
    const argus_record *r;
    while ((r = argus_read(rd))) {
        uint64_t seg;
        if (!r->is_event || !argus_get_uint(r, ARGUS_K_SEG, &seg))
            continue;
        uint32_t si = argus_graph_find_seg(p->g, seg);
        if (si == ARGUS_NONE || p->row_of_seg[si] == NONE32)
            continue;
        uint32_t k = p->row_of_seg[si];
        *(uint64_t *)argus_table_put(&p->ts_of, r->id, NULL) = r->ts;
        if (p->listed[k] == HTML_EVENTS_MAX) {
            p->more[k]++;
            continue;
        }
        p->listed[k]++;
        char words[200];
        event_words(r, words, sizeof words);
        html_event *e = ARGUS_PUSH(p->ev, p->nev, p->cap_ev);
        e->id = r->id;
        e->ts = r->ts;
        e->seg = k;
        e->text = pool_add(p, words);
    }
    argus_reader_close(rd);
}

/* ev[] by segment, then id (the stream's order within a thread). */
static int cmp_event(const void *a, const void *b)
{
    const html_event *x = a, *y = b;
    if (x->seg != y->seg)
        return x->seg < y->seg ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static void panel_free(panel *p)
{
    free(p->threads);
    free(p->shown);
    free(p->row_of_seg);
    free(p->ev);
    free(p->more);
    free(p->listed);
    free(p->left_of);
    free(p->pool);
    argus_table_free(&p->ts_of);
}

/* ns relative to the panel's start (the page adds "off" back for labels) */
static void put_rel(const panel *p, uint64_t t)
{
    printf("%lld", (long long)(t - p->lo));
}


/* CLS(SEG): the page's classes of a segment beyond "seg" ("hang path"...) */
typedef void (*seg_classes)(uint64_t seg, char *dst, size_t size, uint32_t *rank);

static void trace_classes(uint64_t seg, char *dst, size_t size, uint32_t *rank)
{
    const mark *m = argus_table_get(&marks, seg);
    snprintf(dst, size, "%s%s%s%s", m && (m->bits & M_HANG) ? " hang" : "",
             m && (m->bits & M_PATH) ? " path" : "", m && (m->bits & M_CHAIN) ? " chain" : "",
             m && (m->bits & M_CULPRIT) ? " culprit" : "");
    *rank = m && (m->bits & M_CULPRIT) ? m->culprit_rank : 0;
}

static void baseline_classes(uint64_t seg, char *dst, size_t size, uint32_t *rank)
{
    *rank = 0;
    for (size_t i = 0; i < nculprits; i++)
        if (culprits[i].baseline_seg == seg && (!*rank || culprits[i].rank < *rank))
            *rank = (uint32_t)culprits[i].rank;
    snprintf(dst, size, "%s%s", seg == match_seg ? " similar" : "", *rank ? " counterpart" : "");
}

/* What a timeline past HTML_SEGS_MAX leaves out, and how to see it all,
 * as the page says it above the timeline. */
static uint64_t note_hang;       /* the hang drawn */
static const char *note_base;   /* what the page calls the baseline */
static void put_left_note(const panel *p, bool trace)
{
    char text[4096], who[256];
    size_t n = 0, nthr = 0;
#define SAY(...) (n += (size_t)snprintf(text + n, n < sizeof text ? sizeof text - n : 0, __VA_ARGS__))
    for (size_t i = 0; i < p->nthreads; i++)
        nthr += p->left_of[i] > 0;
    SAY("Not all drawn: these threads have %zu segments in this time, and a page draws "
        "at most %d. Drawn: %s (%zu), then the others thread by thread. Left out: %zu "
        "segments of %zu thread%s, with their arrows: ",
        p->nshown + p->left_out, HTML_SEGS_MAX,
        trace ? "the segments of the hang, its causal path, wait chain and culprits"
              : "the similar node and the culprits' counterparts",
        p->ncore, p->left_out, nthr, nthr == 1 ? "" : "s");
    size_t listed = 0;
    for (size_t i = 0; i < p->nthreads && listed < 5; i++) {
        if (!p->left_of[i])
            continue;
        thread_label(p->g, p->threads[i], who, sizeof who);
        SAY("%s%s (%zu)", listed ? ", " : "", who, p->left_of[i]);
        listed++;
    }
    if (nthr > listed)
        SAY(" and %zu more thread%s", nthr - listed, nthr - listed == 1 ? "" : "s");
    if (trace) {
        SAY(". To see every segment, open the Perfetto export of this hang in "
            "ui.perfetto.dev: argus export --output-format perfetto --around %llu FINDINGS "
            "> hang.json, FINDINGS being the findings stream (argus diagnose --keep FILE "
            "keeps it).", (unsigned long long)note_hang);
    } else {
        /* the panel's time as the report prints times (--window),
           widened to whole microseconds */
        uint64_t from = p->lo + p->g->origin, to = p->hi + p->g->origin;
        from /= 1000;
        to = (to + 999) / 1000;
        if (to <= from)
            to = from + 1;
        SAY(". To see every segment, open the Perfetto export of this stretch of the "
            "baseline in ui.perfetto.dev: argus export --output-format perfetto --window "
            "%llu.%06llu..%llu.%06llu BASELINE > baseline.json, BASELINE being the graph "
            "of %s (argus graph).",
            (unsigned long long)(from / 1000000), (unsigned long long)(from % 1000000),
            (unsigned long long)(to / 1000000), (unsigned long long)(to % 1000000),
            note_base ? note_base : "the baseline");
    }
#undef SAY
    put_str(text);
}

static void put_panel(panel *p, const char *id, const char *title, seg_classes classes,
                      const uint64_t *chain, size_t nchain)
{
    const argus_graph *g = p->g;
    char buf[256];
    qsort(p->ev, p->nev, sizeof *p->ev, cmp_event);
    out("{\"id\":");
    put_str(id);
    out(",\"title\":");
    put_str(title);
    printf(",\"off\":%llu,\"span\":%llu,\"left_out\":%zu",
           (unsigned long long)p->lo, (unsigned long long)(p->hi - p->lo), p->left_out);
    /* the clock split where a double would round it (an origin or t0 past
       2^53 ns): whole seconds (ms) and the ns beyond */
    if (p->clock.have_origin)
        printf(",\"clock\":{\"s\":%llu,\"ns\":%llu}",
               (unsigned long long)(p->clock.origin / 1000000000u),
               (unsigned long long)(p->clock.origin % 1000000000u));
    if (p->clock.have_t0)
        printf(",\"wall\":{\"ms\":%llu,\"ns\":%llu}",
               (unsigned long long)(p->clock.t0 / 1000000u),
               (unsigned long long)(p->clock.t0 % 1000000u));
    if (p->left_out) {
        out(",\"left_note\":");
        put_left_note(p, classes == trace_classes);
    }
    out(",\"threads\":[");
    for (size_t i = 0; i < p->nthreads; i++) {
        thread_label(g, p->threads[i], buf, sizeof buf);
        printf("%s{\"tid\":%llu,\"label\":", i ? "," : "",
               (unsigned long long)g->threads[p->threads[i]].tid);
        put_str(buf);
        out("}");
    }
    out("],\n\"segs\":[");
    size_t e = 0;
    for (size_t k = 0; k < p->nshown; k++) {
        const argus_seg *s = &g->segs[p->shown[k]];
        size_t row = 0;
        while (p->threads[row] != s->thread)
            row++;
        uint32_t rank;
        classes(s->seg, buf, sizeof buf, &rank);
        printf("%s{\"seg\":%llu,\"row\":%zu,\"cls\":", k ? ",\n" : "",
               (unsigned long long)s->seg, row);
        put_str(buf);
        if (rank)
            printf(",\"rank\":%u", rank);
        out(",\"b\":");
        put_rel(p, s->begin < p->lo ? p->lo : s->begin);
        out(",\"e\":");
        put_rel(p, s->end < p->lo ? p->lo : s->end);
        uint64_t until = argus_seg_until(g, s);
        out(",\"u\":");
        put_rel(p, until < p->lo ? p->lo : until);
        /* a final wait: blocked from it to the wakeup, then runnable (waiting
           for a CPU) until the thread ran */
        if (s->wait_id != NONE64) {
            uint64_t run_from = until;
            if (s->resume != NONE64 && s->runnable && s->runnable <= s->resume - s->end)
                run_from = s->resume - s->runnable;
            out(",\"r\":");
            put_rel(p, run_from < p->lo ? p->lo : run_from);
            printf(",\"open\":%s", s->resume == NONE64 ? "true" : "false");
        }
        seg_name(g, s, buf, sizeof buf);
        out(",\"name\":");
        put_str(buf);
        printf(",\"n\":%u,\"more\":%u", s->nevents, p->more[k]);
        /* runnable stretches inside it (preempted), and waits inside it */
        out(",\"pre\":[");
        uint32_t npre, niw;
        const argus_preempt *pres = argus_seg_preempts(g, (uint32_t)(s - g->segs), &npre);
        const argus_inner_wait *iws = argus_seg_inner_waits(g, (uint32_t)(s - g->segs), &niw);
        for (uint32_t i = 0; i < npre; i++) {
            const argus_preempt *pr = &pres[i];
            printf("%s[", i ? "," : "");
            put_rel(p, pr->from < p->lo ? p->lo : pr->from);
            out(",");
            put_rel(p, pr->to < p->lo ? p->lo : pr->to);
            out("]");
        }
        out("],\"iw\":[");
        for (uint32_t i = 0; i < niw; i++) {
            const argus_inner_wait *w = &iws[i];
            uint64_t run_from = w->runnable <= w->to - w->from ? w->to - w->runnable : w->to;
            printf("%s[", i ? "," : "");
            put_rel(p, w->from < p->lo ? p->lo : w->from);
            out(",");
            put_rel(p, run_from < p->lo ? p->lo : run_from);
            out(",");
            put_rel(p, w->to < p->lo ? p->lo : w->to);
            out("]");
        }
        out("],\"ev\":[");
        for (bool first = true; e < p->nev && p->ev[e].seg == k; e++, first = false) {
            printf("%s[%llu,", first ? "" : ",", (unsigned long long)p->ev[e].id);
            put_rel(p, p->ev[e].ts < p->lo ? p->lo : p->ev[e].ts);
            out(",");
            put_str(p->pool + p->ev[e].text);
            out("]");
        }
        out("]}");
    }
    out("],\n\"edges\":[");
    bool first = true;
    for (uint32_t i = 0; i < g->nedges; i++) {
        const argus_gedge *ed = &g->edges[i];
        if (ed->from_seg == ARGUS_NONE || ed->to_seg == ARGUS_NONE || ed->from_seg == ed->to_seg ||
            p->row_of_seg[ed->from_seg] == NONE32 || p->row_of_seg[ed->to_seg] == NONE32)
            continue;
        const uint64_t *ft = argus_table_get(&p->ts_of, ed->from);
        const uint64_t *tt = argus_table_get(&p->ts_of, ed->to);
        if (!ft || !tt)
            continue;
        printf("%s{\"from\":%llu,\"to\":%llu,\"fid\":%llu,\"tid\":%llu,\"ft\":",
               first ? "" : ",\n", (unsigned long long)g->segs[ed->from_seg].seg,
               (unsigned long long)g->segs[ed->to_seg].seg, (unsigned long long)ed->from,
               (unsigned long long)ed->to);
        put_rel(p, *ft < p->lo ? p->lo : *ft);
        out(",\"tt\":");
        put_rel(p, *tt < p->lo ? p->lo : *tt);
        out(",\"kind\":");
        put_str(ed->kind ? argus_graph_str(g, ed->kind) : "edge");
        printf(",\"weak\":%s}", ed->weak ? "true" : "false");
        first = false;
    }
    out("],\n\"links\":[");
    first = true;
    for (size_t i = 0; i + 1 < nchain; i += 2) {
        uint32_t a = argus_graph_find_seg(g, chain[i]), b = argus_graph_find_seg(g, chain[i + 1]);
        if (a == ARGUS_NONE || b == ARGUS_NONE || p->row_of_seg[a] == NONE32 ||
            p->row_of_seg[b] == NONE32)
            continue;
        printf("%s[%llu,%llu]", first ? "" : ",", (unsigned long long)chain[i],
               (unsigned long long)chain[i + 1]);
        first = false;
    }
    out("]");
    /* one HANG tag per hang: on its hang node's segment (a hang of retried
       waits marks each of them hang) */
    if (classes == trace_classes) {
        out(",\"hang_tags\":[");
        bool any = false;
        for (size_t i = 0; i < nhangs; i++) {
            if (!want_hang(hangs[i].hang))
                continue;
            printf("%s%llu", any ? "," : "", (unsigned long long)hangs[i].seg);
            any = true;
        }
        out("]");
    }
    if (classes == trace_classes && hang_at != NONE64 && hang_at >= p->lo && hang_at <= p->hi) {
        const char *ind = hang_indicator;
        out(",\"marker\":{\"t\":");
        put_rel(p, hang_at);
        /* the threshold the hang crossed there: a loop's at is its
           begin + the limit */
        uint64_t after = hang_at > page.hang->begin ? hang_at - page.hang->begin : 0;
        char label[96];
        if (strcmp(ind, "loop") == 0)
            snprintf(label, sizeof label, "main loop away %llu ms", (unsigned long long)(after / 1000000u));
        else if (strcmp(ind, "anr") == 0)
            snprintf(label, sizeof label, "input not handled in time (ANR)");
        else if (strcmp(ind, "hang") == 0) /* retried waits: begin is the first's */
            snprintf(label, sizeof label, "blocked or busy past the threshold");
        else
            snprintf(label, sizeof label, "spinning cursor");
        out(",\"label\":");
        put_str(label);
        out("}");
    }
    out("}");
}

/* Text in HTML: & < > " escaped, bytes that are not UTF-8 as U+FFFD. */
static void put_html(const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        size_t len = c < 0x80 ? 1 : argus_utf8_char((const uint8_t *)s + i, n - i);
        if (c == '&')
            out("&amp;");
        else if (c == '<')
            out("&lt;");
        else if (c == '>')
            out("&gt;");
        else if (c == '"')
            out("&quot;");
        else if (c < 0x80)
            putchar(c);
        else if (len)
            fwrite(s + i, 1, len, stdout);
        else
            out("\xef\xbf\xbd");
        i += len ? len : 1;
    }
}

static void put_html_str(const char *s) { put_html(s, strlen(s)); }


static void put_seconds(uint64_t ns) { printf("%.3f s", (double)ns / 1e9); }

/* A moment of the hang's trace as the report prints it (argus_moment_text):
 * on the trace's own clock, and with WALL its wall clock in brackets
 * where the header's t0 says it. */
static void put_moment(uint64_t ts, bool wall)
{
    const page_clock *c = &page.trace.clock;
    char m[24];
    argus_moment_text(m, sizeof m, ts, c->have_origin, c->origin);
    printf("%s s", m);
    if (!wall || !c->have_t0)
        return;
    uint64_t t = c->t0 + ts;
    time_t sec = (time_t)(t / 1000000000u);
    struct tm tm;
    if (gmtime_r(&sec, &tm))
        printf(" (%04d-%02d-%02d %02d:%02d:%02d.%03u UTC)", tm.tm_year + 1900, tm.tm_mon + 1,
               tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
               (unsigned)(t % 1000000000u / 1000000u));
}

/* The report's own verdict and baseline paragraphs (its first lines,
 * "Verdict: ..." and "Baseline: ...", markdown's bold marks dropped), each
 * as one paragraph, so that the page says what the report says. */
static void put_report_verdict(void)
{
    if (!page.report)
        return;
    FILE *f = fopen(page.report, "r");
    if (!f)
        return;
    char *ln = NULL;
    size_t cap = 0;
    ssize_t n;
    bool open = false;
    while ((n = getline(&ln, &cap, f)) > 0) {
        while (n > 0 && (ln[n - 1] == '\n' || ln[n - 1] == '\r'))
            ln[--n] = 0;
        const char *p = ln;
        bool bold = strncmp(p, "**", 2) == 0;
        if (bold)
            p += 2;
        bool verdict = strncmp(p, "Verdict", 7) == 0, base = strncmp(p, "Baseline:", 9) == 0;
        if (verdict || base) {
            if (open)
                out("</p>\n");
            printf("<p class=\"verdict words\" id=\"verdict-%s\">", verdict ? "words" : "baseline");
            open = true;
        } else if (!*p || strncmp(p, "Trace:", 6) == 0 || strncmp(p, "# ", 2) == 0) {
            if (open)
                break;
            continue;
        } else if (!open) {
            break;
        } else {
            out(" ");
        }
        /* markdown's marks: ** and the backslash escapes */
        for (const char *q = p; *q; q++) {
            if (q[0] == '*' && q[1] == '*') {
                q++;
                continue;
            }
            if (q[0] == '`')
                continue;
            if (q[0] == '\\' && q[1])
                q++;
            put_html(q, 1);
        }
    }
    if (open)
        out("</p>\n");
    free(ln);
    fclose(f);
}

static void put_verdict(void)
{
    put_report_verdict();
    const hang_info *h = page.hang;
    if (!h) {
        out("<p class=\"verdict none\" id=\"verdict\">No hang found");
        if (!have_findings && !page.report) /* not from argus diagnose */
            out(" (the stream has no findings: argus diagnose, or argus-find-spinning, "
                "writes them)");
        out(".</p>\n");
        return;
    }
    printf("<p class=\"verdict\" id=\"verdict\"><span class=\"tag hang\">Hang %llu</span> <b>",
           (unsigned long long)h->hang);
    put_html_str(hang_who);
    out("</b> hung <b>");
    put_seconds(h->duration);
    out("</b> (");
    put_html_str(h->cls);
    if (*hang_reason) {
        out(": ");
        put_html_str(strcmp(h->cls, "wait") == 0 ? "blocked in " : "");
        put_html_str(hang_reason);
    }
    out("), from ");
    put_moment(h->begin, true);
    out(" to ");
    put_moment(h->end, false);
    if (*h->indicator) {
        out("; found by ");
        put_html_str(strcmp(h->indicator, "loop") == 0   ? "its main loop away from its wait"
                     : strcmp(h->indicator, "anr") == 0  ? "input not handled within 5 s (Android's ANR)"
                     : strcmp(h->indicator, "hang") == 0 ? "a main thread blocked or busy too long"
                                                         : "the spinning cursor, ");
        if (strcmp(h->indicator, "loop") != 0 && strcmp(h->indicator, "hang") != 0 &&
            strcmp(h->indicator, "anr") != 0)
            put_html_str(h->indicator);
    }
    out(".");
    if (nhangs > 1)
        printf(" (%zu hangs in the trace; argus export --format html --around N draws hang N.)",
               nhangs);
    out("</p>\n");
    const html_culprit *best = NULL;
    for (size_t i = 0; i < nculprits; i++)
        if (!best || culprits[i].rank < best->rank)
            best = &culprits[i];
    if (best) {
        printf("<p class=\"verdict\" id=\"verdict-culprit\"><span class=\"tag culprit\">Culprit"
               "</span> <b>");
        put_html_str(best->who);
        printf("</b>, seg %llu", (unsigned long long)best->seg);
        if (*best->state) {
            out(": ");
            put_html_str(best->state);
            out(" ");
            put_seconds(best->duration);
            if (*best->reason) {
                out(" in ");
                put_html_str(best->reason);
            }
        }
        out(".");
        if (nculprits > 1)
            printf(" %zu culprits in all, ranked in the report.", nculprits);
        out("</p>\n");
    } else {
        out("<p class=\"verdict\" id=\"verdict-culprit\">No culprit named.</p>\n");
    }
    if (match_seg != NONE64) {
        printf("<p class=\"verdict\" id=\"verdict-similar\"><span class=\"tag similar\">"
               "Baseline</span> similar node: seg %llu of ",
               (unsigned long long)match_seg);
        put_html_str(*match_name ? match_name : "the baseline");
        printf(" (%llu edits between signatures, %llu%%).</p>\n",
               (unsigned long long)match_distance, (unsigned long long)match_percent);
    }
}

static void put_report(void)
{
    if (!page.report) {
        out("<p class=\"note\">No report given (argus export --report FILE puts the text of "
            "argus report here; argus diagnose --html does).</p>");
        return;
    }
    FILE *f = fopen(page.report, "r");
    if (!f)
        argus_die(ARGUS_EX_NOINPUT, "%s: %s", page.report, strerror(errno));
    out("<pre id=\"report\">");
    char buf[1 << 14];
    size_t n, keep = 0;
    /* a UTF-8 character cut by the buffer's end is kept for the next read */
    while ((n = fread(buf + keep, 1, sizeof buf - keep, f)) > 0 || keep) {
        n += keep;
        size_t whole = n;
        if (!feof(f) || ferror(f))
            for (size_t back = 1; back < 4 && back <= n; back++) {
                unsigned char c = (unsigned char)buf[n - back];
                if ((c & 0xc0) == 0x80)
                    continue;
                if (c >= 0xc0 && !argus_utf8_char((const uint8_t *)buf + n - back, back))
                    whole = n - back;
                break;
            }
        put_html(buf, whole);
        keep = n - whole;
        memmove(buf, buf + whole, keep);
        if (feof(f) || ferror(f))
            break;
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad)
        argus_die(ARGUS_EX_IOERR, "%s: read error", page.report);
    out("</pre>");
}

static void put_title(void)
{
    if (!page.hang) {
        out("argus: no hang");
        return;
    }
    out("argus: ");
    put_html_str(hang_who);
    out(" hung ");
    put_seconds(page.hang->duration);
}

static void put_data(void)
{
    in_script = true;
    out("{\"panels\":[");
    if (page.hang) {
        char title[256];
        snprintf(title, sizeof title, "Hang %llu: its threads",
                 (unsigned long long)page.hang->hang);
        note_hang = page.hang->hang;
        note_base = page.base_name;
        put_panel(&page.trace, "trace", title, trace_classes, page.chain, page.nchain);
        if (page.have_base) {
            snprintf(title, sizeof title, "Baseline (%s): the similar node and the culprits' "
                     "counterparts", page.base_name);
            out(",\n");
            put_panel(&page.base, "baseline", title, baseline_classes, NULL, 0);
        }
    }
    out("]}");
    in_script = false;
}

/* The template with its {{NAME}} markers filled. */
static void put_page(void)
{
    const char *t = argus_export_page;
    const char *m;
    while ((m = strstr(t, "{{"))) {
        fwrite(t, 1, (size_t)(m - t), stdout);
        const char *e = strstr(m, "}}");
        if (!e)
            argus_die(ARGUS_EX_SOFTWARE, "page template: {{ without }}");
#define IS(name) ((size_t)(e - m - 2) == sizeof name - 1 && memcmp(m + 2, name, sizeof name - 1) == 0)
        if (IS("TITLE"))
            put_title();
        else if (IS("VERDICT"))
            put_verdict();
        else if (IS("REPORT"))
            put_report();
        else if (IS("DATA"))
            put_data();
        else
            argus_die(ARGUS_EX_SOFTWARE, "page template: unknown marker %.*s", (int)(e - m + 2), m);
#undef IS
        t = e + 2;
    }
    out(t);
}

static int export_html(const char *input, const char *report, const char *baseline,
                       const char *base_name)
{
    argus_reader *rd = argus_reader_open(input);
    argus_graph g;
    argus_graph_load(&g, rd, &(argus_graph_options){.keep_key_events = true});
    page.trace.clock = clock_of(argus_reader_header(rd));
    findings_from_graph(&g, rd);
    check_around();
    if (around < 0 && nhangs) {
        /* the first hang, and the core segments of that hang only (cores[]
           holds every hang's without --around) */
        around = (long)hangs[0].hang;
        ncores = nlinks = nhangs = 0;
        argus_table_free(&marks);
        argus_table_init(&marks, sizeof(mark));
        findings_from_graph(&g, rd);
    }
    for (size_t i = 0; i < nhangs && !page.hang; i++)
        if (hangs[i].hang == (uint64_t)around)
            page.hang = &hangs[i];
    if (page.hang)
        html_findings(&g, page.hang->hang);
    argus_reader_close(rd);
    page.report = report;
    if (report && access(report, R_OK) != 0)
        argus_die(ARGUS_EX_NOINPUT, "%s: %s", report, strerror(errno));
    argus_graph bg;
    if (page.hang) {
        page.chain = malloc((nlinks ? nlinks : 1) * 2 * sizeof *page.chain);
        if (!page.chain)
            argus_die(ARGUS_EX_IOERR, "out of memory");
        for (size_t i = 0; i < nlinks; i++) {
            page.chain[page.nchain++] = links[i].from;
            page.chain[page.nchain++] = links[i].to;
        }
        panel_plan(&page.trace, &g, cores, ncores);
        panel_events(&page.trace, input);
        if (baseline) {
            argus_graph_load_file(&bg, baseline, true);
            argus_reader *brd = argus_reader_open(baseline);
            page.base.clock = clock_of(argus_reader_header(brd));
            argus_reader_close(brd);
            uint64_t *bsegs = malloc((nculprits + 1) * sizeof *bsegs);
            size_t nb = 0;
            if (!bsegs)
                argus_die(ARGUS_EX_IOERR, "out of memory");
            if (match_seg != NONE64)
                bsegs[nb++] = match_seg;
            for (size_t i = 0; i < nculprits; i++)
                if (culprits[i].baseline_seg != NONE64)
                    bsegs[nb++] = culprits[i].baseline_seg;
            if (nb) {
                page.base_name = base_name ? base_name : baseline;
                panel_plan(&page.base, &bg, bsegs, nb);
                page.have_base = page.base.nthreads > 0;
                if (page.have_base)
                    panel_events(&page.base, baseline);
                else            /* another run's graph than the findings' */
                    argus_warn("%s: none of the baseline segments the findings name "
                               "(seg %llu, ...): the baseline is not drawn",
                               baseline, (unsigned long long)bsegs[0]);
            }
            free(bsegs);
        }
    }
    put_page();
    if (page.hang) {
        panel_free(&page.trace);
        if (baseline) {
            if (page.base.row_of_seg)   /* planned */
                panel_free(&page.base);
            argus_graph_free(&bg);
        }
    }
    free(page.chain);
    argus_graph_free(&g);
    return 0;
}

int main(int argc, char **argv)
{
    argus_cli_init(argc, argv);
    static const struct option opts[] = {
        {"output-format", required_argument, 0, 'f'},
        {"format", required_argument, 0, 'f'}, /* the old spelling, as -f */
        {"around", required_argument, 0, 'a'},
        {"window", required_argument, 0, 'w'},
        {"report", required_argument, 0, 'r'},
        {"baseline", required_argument, 0, 'b'},
        {"baseline-name", required_argument, 0, 'B'},
        ARGUS_OPTION_HELP,
        ARGUS_OPTION_VERSION,
        {0, 0, 0, 0},
    };
    argus_options common = ARGUS_OPTIONS_DEFAULT;
    enum { PERFETTO, DOT, HTML } format = PERFETTO;
    const char *report = NULL, *baseline = NULL, *base_name = NULL;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "f:a:r:b:w:h", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (strcmp(optarg, "perfetto") == 0)
                format = PERFETTO;
            else if (strcmp(optarg, "dot") == 0)
                format = DOT;
            else if (strcmp(optarg, "html") == 0)
                format = HTML;
            else
                argus_usage_error("--output-format must be perfetto, dot or html, not '%s'", optarg);
            break;
        case 'r': report = optarg; break;
        case 'b': baseline = optarg; break;
        case 'B': base_name = optarg; break;
        case 'w': {
            const char *dots = strstr(optarg, "..");
            windowed = true;
            if (!dots || !parse_secs(optarg, (size_t)(dots - optarg), &window_from) ||
                !parse_secs(dots + 2, strlen(dots + 2), &window_to) ||
                window_to <= window_from)
                argus_usage_error("--window must be FROM..TO, times as the report "
                                  "prints them, FROM < TO (as 0.5..2.5), not '%s'",
                                  optarg);
            break;
        }
        case 'a': {
            around = (long)argus_parse_uint_option("--around", optarg, 0, INT32_MAX, NULL);
            break;
        }
        case '?': argus_bad_option(argv);
        default: argus_common_option(c, usage, &common, argv);
        }
    }
    const char *input = argus_input_arg(argc, argv);
    if (windowed && (format != PERFETTO || around >= 0))
        argus_usage_error("--window is for --output-format perfetto, without --around");
    if (format != HTML && (report || baseline || base_name))
        argus_usage_error("--report, --baseline and --baseline-name are for --format html");
    argus_table_init(&marks, sizeof(mark));
    argus_table_init(&threads, sizeof(thread_state));
    argus_table_init(&places.thr_of, sizeof(uint32_t));
    argus_table_init(&keep_segs, 1);
    argus_table_init(&keep_tids, 1);
    static char obuf[1 << 20];
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
    int status = 0;
    if (format == DOT) {
        status = export_dot(input);
    } else {
        if (!input || strcmp(input, "-") == 0)
            make_stdin_seekable();
        if (format == HTML)
            status = export_html(input, report, baseline, base_name);
        else
            export_perfetto(input);
    }
    argus_close_stdout();
    return status;
}
