/* The text trace(1) prints (trace -t, trace -R FILE) to kdebug records
 * (include/argus/decode/kdebug.h, docs/inputs/macos.md).
 *
 * trace.c prints one event a line:
 *   "%13.1f %10.1f%s %-28.28s  %-16lx %-16lx %-16lx %-16lx  %-16lx  %-2d %s"
 * AbsTime (us since the first event), Delta, "(ELAPSED)" glued after the
 * delta on END lines, the name (or "%-28x", the debugid, when trace knew no
 * name), arg1..arg4, thread (hex), cpu and the command (the rest of the
 * line, spaces and all). 32-bit builds pad the hex fields to 8 with more
 * spaces between, which tokenizing on whitespace absorbs. VFS_LOOKUP lines
 * have "dvp %-51s" (the path's tail) where the args are.
 *
 * trace prints the debugid without its function bits, so they are told
 * from the line: an elapsed time marks an END (but on a context switch it
 * is the time since the thread was made runnable, not a phase); a code
 * that brackets work gets START otherwise; point codes get none.
 *
 * The text names processes only by command, never by pid: each distinct
 * command is given a made-up pid, 100000 upward in order of first
 * appearance (kernel_task is pid 0). Each thread is mapped when first
 * seen; a later line of it with another command is an exec, passed on as
 * the exec records xnu writes. Two processes running the same command
 * thus share a pid.
 *
 * Lines are parsed in place in the input's window: no allocation per line
 * (tables grow by doubling; names are resolved through a small cache). */
#include "argus/decode/kdebug.h"
#include "argus/stream/cli.h"
#include "argus/stream/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define FIRST_PID 100000u
#define NAME_WIDTH 28          /* trace prints %-28.28s */
#define LOOKUP_PATH_WIDTH 51   /* and %-51s of a looked-up path's tail */
#define VFS_LOOKUP 0x03010090u /* hard-coded in trace.c, printed its own way */
#define NAME_CACHE 1024        /* a power of two */
#define TRACE_DATA_EXEC 0x07000008u
#define TRACE_STRING_EXEC 0x07010008u

/* What a name or hex debugid on a line stands for. */
enum {
    SLOT_USED = 1,
    SLOT_START = 2,  /* a code that brackets work: START unless an END */
    SLOT_SWITCH = 4, /* a context switch: its elapsed is no phase */
    SLOT_LOOKUP = 8, /* the VFS_LOOKUP layout */
};

typedef struct name_slot {
    uint32_t debugid;
    uint8_t flags, len;
    char key[NAME_WIDTH];
} name_slot;

/* A command seen: its name in the arena and the pid it was given. */
typedef struct command_slot {
    uint32_t off, len;
    uint32_t pid;
} command_slot;

typedef struct text_reader {
    argus_kd *d;
    const argus_kd_codes *codes;
    const char *name;
    uint64_t line;

    name_slot names[NAME_CACHE];

    char *arena;               /* command names, back to back */
    size_t arena_len, arena_cap;
    argus_table commands;      /* XXH3 of the name -> command_slot */
    argus_table threads;       /* tid -> uint32_t pid */
    uint32_t next_pid;

    /* The last line's thread and command: most lines repeat them. */
    bool have_last;
    uint64_t last_tid;
    uint32_t last_off, last_len;
} text_reader;

/* ---- Small parsers ---------------------------------------------------- */

static inline bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

static inline bool is_digit(char c)
{
    return (unsigned char)(c - '0') < 10;
}

static inline int hex_value(char c)
{
    if (is_digit(c))
        return c - '0';
    unsigned char l = (unsigned char)(c | 0x20);
    if ((unsigned char)(l - 'a') < 6)
        return l - 'a' + 10;
    return -1;
}

static inline const char *skip_space(const char *p, const char *e)
{
    while (p < e && is_space(*p))
        p++;
    return p;
}

static inline const char *token_end(const char *p, const char *e)
{
    while (p < e && !is_space(*p))
        p++;
    return p;
}

/* 1 to 16 hex digits. Returns 0, -1 (not hex) or -2 (too long). */
static int parse_hex(const char *s, size_t len, uint64_t *out)
{
    if (len == 0)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        int h = hex_value(s[i]);
        if (h < 0)
            return -1;
        v = v << 4 | (uint64_t)h;
    }
    if (len > 16)
        return -2;
    *out = v;
    return 0;
}

/* Microseconds as trace prints them ("123.4") to ns, exactly: up to three
 * decimals are whole ns; a fourth rounds, later ones are ignored.
 * Returns 0, -1 (not a number) or -2 (beyond 64 bits of ns). */
static int parse_us(const char *s, size_t len, uint64_t *ns)
{
    const char *p = s, *e = s + len;
    uint64_t us = 0;
    if (p == e || !is_digit(*p))
        return -1;
    for (; p < e && is_digit(*p); p++) {
        if (us > (UINT64_MAX - 9) / 10)
            return -2;
        us = us * 10 + (uint64_t)(*p - '0');
    }
    uint64_t frac = 0;
    if (p < e && *p == '.') {
        p++;
        unsigned digits = 0;
        for (; p < e && is_digit(*p); p++, digits++) {
            if (digits < 3)
                frac = frac * 10 + (uint64_t)(*p - '0');
            else if (digits == 3 && *p >= '5')
                frac++; /* may reach 1000: carried by the sum below */
        }
        for (; digits < 3; digits++)
            frac *= 10;
    }
    if (p != e)
        return -1;
    if (us > UINT64_MAX / 1000 || us * 1000 > UINT64_MAX - frac)
        return -2;
    *ns = us * 1000 + frac;
    return 0;
}

/* A decimal number, sign and fraction allowed (Delta, ELAPSED): returns
 * the end of its text, or NULL when there is no digit. */
static const char *scan_decimal(const char *p, const char *e)
{
    if (p < e && *p == '-')
        p++;
    const char *digits = p;
    while (p < e && is_digit(*p))
        p++;
    if (p == digits)
        return NULL;
    if (p < e && *p == '.') {
        p++;
        while (p < e && is_digit(*p))
            p++;
    }
    return p;
}

/* TEXT as it may go in a message: at most 40 bytes, the unprintable ones
 * as \xNN. */
static const char *quoted(char *buf, size_t size, const char *s, size_t len)
{
    size_t o = 0;
    size_t n = len > 40 ? 40 : len;
    for (size_t i = 0; i < n && o + 5 < size; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f)
            buf[o++] = (char)c;
        else
            o += (size_t)snprintf(buf + o, size - o, "\\x%02x", c);
    }
    if (n < len && o + 4 < size) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = '\0';
    return buf;
}

/* ---- Errors ----------------------------------------------------------- */

static int fail_at(text_reader *r, const char *what)
{
    return argus_kd_fail(r->d, "%s:%llu: %s", r->name, (unsigned long long)r->line,
                         what);
}

/* "FIELD 'TEXT' PROBLEM" */
static int fail_field(text_reader *r, const char *field, const char *s, size_t len,
                      const char *problem)
{
    char q[200];
    return argus_kd_fail(r->d, "%s:%llu: %s '%s' %s", r->name,
                         (unsigned long long)r->line, field,
                         quoted(q, sizeof q, s, len), problem);
}

static int fail_missing(text_reader *r, const char *field)
{
    return argus_kd_fail(r->d, "%s:%llu: the line ends before %s", r->name,
                         (unsigned long long)r->line, field);
}

/* ---- Names ------------------------------------------------------------ */

/* The debugid a name column gives and what its code is. A hex token of at
 * most 8 digits is a debugid (trace prints one when it has no name; no
 * trace.codes name is all hex digits); a name trace did not know leaves
 * debugid 0, which the decoder writes as a "kdebug" event. */
static name_slot resolve_name(const text_reader *r, const char *s, size_t len)
{
    name_slot n = {.flags = SLOT_USED};
    uint64_t hex;
    bool known = false;
    if (len <= 8 && parse_hex(s, len, &hex) == 0) {
        n.debugid = (uint32_t)hex;
        known = true;
    } else if (r->codes && argus_kd_code_by_name(r->codes, s, len, &n.debugid)) {
        n.debugid &= ~ARGUS_KD_FUNC_MASK;
        known = true;
    } else if (len == 10 && memcmp(s, "VFS_LOOKUP", 10) == 0) {
        n.debugid = VFS_LOOKUP;
        known = true;
    }
    if (!known)
        return n;
    if ((n.debugid & ~ARGUS_KD_FUNC_MASK) == VFS_LOOKUP)
        n.flags |= SLOT_LOOKUP;
    const argus_kd_code *c = r->codes ? argus_kd_code_find(r->codes, n.debugid) : NULL;
    if (c) {
        if (c->action == ARGUS_KD_SWITCH)
            n.flags |= SLOT_SWITCH;
        /* A forced phase needs no bits; a hex debugid may carry its own. */
        if (c->phase == ARGUS_KD_PHASE_FUNC && argus_kd_code_has_phase(c) &&
            !(n.debugid & ARGUS_KD_FUNC_MASK))
            n.flags |= SLOT_START;
    }
    return n;
}

static name_slot lookup_name(text_reader *r, const char *s, size_t len)
{
    if (len > NAME_WIDTH) /* trace truncates names: not from trace */
        return resolve_name(r, s, len);
    name_slot *slot = &r->names[XXH3_64bits(s, len) & (NAME_CACHE - 1)];
    if (!(slot->flags & SLOT_USED) || slot->len != len || memcmp(slot->key, s, len) != 0) {
        *slot = resolve_name(r, s, len);
        slot->len = (uint8_t)len;
        memcpy(slot->key, s, len);
    }
    return *slot;
}

/* ---- Threads ---------------------------------------------------------- */

/* The command's entry, added (with the next pid) when new. Keyed by the
 * name's hash; a different name under the same hash takes the next key. */
static const command_slot *command_of(text_reader *r, const char *s, size_t len)
{
    for (uint64_t key = XXH3_64bits(s, len);; key++) {
        bool created;
        command_slot *c = argus_table_put(&r->commands, key, &created);
        if (!created) {
            if (c->len == len && memcmp(r->arena + c->off, s, len) == 0)
                return c;
            continue;
        }
        if (r->arena_len + len > UINT32_MAX) /* offsets are 32 bits */
            argus_die(ARGUS_EX_IOERR, "out of memory (command names: 4 GiB at most)");
        if (r->arena_len + len > r->arena_cap) {
            r->arena_cap = (r->arena_len + len) * 2 + 256;
            r->arena = argus_xrealloc(r->arena, r->arena_cap, "command names");
        }
        c->off = (uint32_t)r->arena_len;
        c->len = (uint32_t)len;
        memcpy(r->arena + r->arena_len, s, len);
        r->arena_len += len;
        c->pid = len == 11 && memcmp(s, "kernel_task", 11) == 0 ? 0 : r->next_pid++;
        return c;
    }
}

/* An exec seen in the text: the records xnu writes for one (the new pid,
 * then the command as a string, 8 bytes an argument, little-endian), at
 * the ts of the line that shows it, so that the decoder changes the
 * thread's process in ts order, after the events already in its reorder
 * window (mapping the thread again would relabel those too). */
static int push_exec(text_reader *r, const argus_kd_rec *at, uint32_t pid,
                     const char *cmd, size_t len)
{
    argus_kd_rec x = {.ts = at->ts, .tid = at->tid, .where = at->where,
                      .cpu = at->cpu, .debugid = TRACE_DATA_EXEC};
    x.arg[0] = pid;
    if (argus_kd_push(r->d, &x) < 0)
        return -1;
    for (size_t off = 0; off == 0 || off < len; off += 32) {
        memset(x.arg, 0, sizeof x.arg);
        for (size_t i = 0; i < 32 && off + i < len; i++)
            x.arg[i / 8] |= (uint64_t)(unsigned char)cmd[off + i] << (8 * (i % 8));
        x.debugid = TRACE_STRING_EXEC;
        if (len > 32) /* a string over several records: START ... END */
            x.debugid |= off == 0 ? ARGUS_KD_FUNC_START
                                  : off + 32 >= len ? ARGUS_KD_FUNC_END : 0;
        if (argus_kd_push(r->d, &x) < 0)
            return -1;
    }
    return 0;
}

/* Maps REC's thread to COMMAND's pid when first seen; a later command is
 * an exec. An empty command (trace found no name) maps nothing: the
 * decoder knows such a thread as pid 0 "unknown". */
static int note_thread(text_reader *r, const argus_kd_rec *rec, const char *cmd,
                       size_t len)
{
    uint64_t tid = rec->tid;
    if (len == 0)
        return 0;
    if (r->have_last && tid == r->last_tid && len == r->last_len &&
        memcmp(cmd, r->arena + r->last_off, len) == 0)
        return 0;
    const command_slot *c = command_of(r, cmd, len);
    r->have_last = true;
    r->last_tid = tid;
    r->last_off = c->off;
    r->last_len = (uint32_t)len;
    bool created;
    uint32_t *pid = argus_table_put(&r->threads, tid, &created);
    if (created) {
        *pid = c->pid;
        argus_kd_map_thread(r->d, tid, c->pid, r->arena + c->off, len);
    } else if (*pid != c->pid) {
        *pid = c->pid;
        return push_exec(r, rec, c->pid, r->arena + c->off, len);
    }
    return 0;
}

/* ---- Lines ------------------------------------------------------------ */

static bool starts_with(const char *p, const char *e, const char *prefix)
{
    size_t n = strlen(prefix);
    return (size_t)(e - p) >= n && memcmp(p, prefix, n) == 0;
}

static bool is_one_of(const char *p, const char *list)
{
    for (; *list; list += 3)
        if (memcmp(p, list, 3) == 0)
            return true;
    return false;
}

/* ctime(3): "Mon Nov 21 10:00:00 2026" (trace -R prints the file's time). */
static bool is_ctime(const char *p, const char *e)
{
    return e - p >= 24 && p[3] == ' ' && p[7] == ' ' && p[13] == ':' && p[16] == ':' &&
           is_one_of(p, "SunMonTueWedThuFriSat") &&
           is_one_of(p + 4, "JanFebMarAprMayJunJulAugSepOctNovDec");
}

/* The lines around the events: the date, the column header (every 64
 * events), the page time, and what trace -v says before the events. */
static bool is_other_line(const char *p, const char *e)
{
    return is_ctime(p, e) || memmem(p, (size_t)(e - p), "AbsTime(", 8) ||
           starts_with(p, e, "Number of microsecs since in last page") ||
           starts_with(p, e, "Buffer has wrapped") ||
           starts_with(p, e, "Buffer has not wrapped") ||
           starts_with(p, e, "Adding default code file") ||
           starts_with(p, e, "Adding code file");
}

/* A hex field; P advances past it. */
static int hex_field(text_reader *r, const char **p, const char *e, const char *field,
                     uint64_t *v)
{
    const char *s = skip_space(*p, e);
    if (s == e)
        return fail_missing(r, field);
    const char *t = token_end(s, e);
    int rc = parse_hex(s, (size_t)(t - s), v);
    if (rc == -1)
        return fail_field(r, field, s, (size_t)(t - s), "is not hex");
    if (rc == -2)
        return fail_field(r, field, s, (size_t)(t - s), "has more than 16 hex digits");
    *p = t;
    return 0;
}

/* Where the 51-character path of a VFS_LOOKUP line starts, DVP being the
 * dvp field: 64-bit trace prints "%-16lx %-51s ", 32-bit "%-8x   %-51s   ".
 * The layout whose padding is blank and whose path is followed by a blank
 * is taken (a 32-bit path starting with 6 blanks would be misread). */
static const char *lookup_path(const char *dvp, const char *dvp_end, const char *e)
{
    static const struct { size_t width, gap; } layouts[] = {{16, 1}, {8, 3}};
    size_t dvp_len = (size_t)(dvp_end - dvp);
    for (size_t i = 0; i < 2; i++) {
        size_t width = dvp_len > layouts[i].width ? dvp_len : layouts[i].width;
        const char *path = dvp + width + layouts[i].gap;
        if (e - path <= LOOKUP_PATH_WIDTH || !is_space(path[LOOKUP_PATH_WIDTH]))
            continue;
        const char *q = dvp_end;
        while (q < path && is_space(*q))
            q++;
        if (q == path)
            return path;
    }
    return NULL;
}

static int parse_line(text_reader *r, const char *line, size_t len)
{
    const char *p = line, *e = line + len;
    while (e > p && (is_space(e[-1]) || e[-1] == '\r'))
        e--;
    p = skip_space(p, e);
    if (p == e)
        return 0;
    if (!is_digit(*p) && is_other_line(p, e))
        return 0;

    argus_kd_rec rec = {.where = r->line};
    const char *t = token_end(p, e);
    int rc = parse_us(p, (size_t)(t - p), &rec.ts);
    if (rc == -1)
        return fail_field(r, "AbsTime", p, (size_t)(t - p), "is not a number");
    if (rc == -2)
        return fail_field(r, "AbsTime", p, (size_t)(t - p), "is too large");

    /* Delta, with "(ELAPSED)" glued on END lines: trace moves the ')' of
     * "(%-10.1f)" back to the number, but a ')' after blanks is taken too. */
    p = skip_space(t, e);
    if (p == e)
        return fail_missing(r, "Delta");
    const char *q = scan_decimal(p, e);
    bool ended = false;
    if (q && q < e && *q == '(') {
        const char *elapsed = q + 1;
        q = scan_decimal(elapsed, e);
        if (q)
            q = skip_space(q, e);
        if (!q || q == e || *q != ')') {
            t = token_end(elapsed, e);
            return fail_field(r, "elapsed time", elapsed - 1, (size_t)(t - elapsed + 1),
                              "is not \"(NUMBER)\"");
        }
        q++;
        ended = true;
    }
    if (!q || (q < e && !is_space(*q))) {
        t = token_end(p, e);
        return fail_field(r, "Delta", p, (size_t)(t - p), "is not a number");
    }

    p = skip_space(q, e);
    if (p == e)
        return fail_missing(r, "the debugid");
    t = token_end(p, e);
    name_slot n = lookup_name(r, p, (size_t)(t - p));
    rec.debugid = n.debugid;
    if (n.debugid != 0) {
        if (ended && !(n.flags & SLOT_SWITCH))
            rec.debugid |= ARGUS_KD_FUNC_END;
        else if (!ended && (n.flags & SLOT_START))
            rec.debugid |= ARGUS_KD_FUNC_START;
    }
    p = t;

    if (n.flags & SLOT_LOOKUP) {
        /* dvp, then the path's tail, which is dropped: a record has no room
         * for text, and trace kept only its last 51 characters anyway. */
        const char *dvp = skip_space(p, e);
        if (hex_field(r, &p, e, "dvp", &rec.arg[0]) < 0)
            return -1;
        const char *path = lookup_path(dvp, p, e);
        if (!path)
            return fail_at(r, "the path of a VFS_LOOKUP line is not 51 characters "
                              "between dvp and thread");
        p = path + LOOKUP_PATH_WIDTH;
    } else {
        static const char *const args[4] = {"arg1", "arg2", "arg3", "arg4"};
        for (int i = 0; i < 4; i++)
            if (hex_field(r, &p, e, args[i], &rec.arg[i]) < 0)
                return -1;
    }
    if (hex_field(r, &p, e, "thread", &rec.tid) < 0)
        return -1;

    p = skip_space(p, e);
    if (p == e)
        return fail_missing(r, "cpu");
    t = token_end(p, e);
    uint64_t cpu = 0;
    for (q = p; q < t && is_digit(*q) && cpu <= UINT32_MAX; q++)
        cpu = cpu * 10 + (uint64_t)(*q - '0');
    if (q != t || cpu > UINT32_MAX)
        return fail_field(r, "cpu", p, (size_t)(t - p), "is not a CPU number");
    rec.cpu = (uint32_t)cpu;

    p = skip_space(t, e); /* the command: the rest, which may hold blanks */
    if (note_thread(r, &rec, p, (size_t)(e - p)) < 0)
        return -1;
    return argus_kd_push(r->d, &rec);
}

int argus_kd_read_text(argus_kd *d, argus_input *in)
{
    text_reader *r = argus_xcalloc(1, sizeof *r, "trace text reader");
    r->d = d;
    r->codes = argus_kd_codes_of(d);
    r->name = in->name;
    r->next_pid = FIRST_PID;
    argus_table_init(&r->commands, sizeof(command_slot));
    argus_table_init(&r->threads, sizeof(uint32_t));
    argus_kd_set_source(d, "trace-text");
    argus_kd_set_timebase(d, 1, 1); /* AbsTime is read as ns */

    int rc = 0;
    for (;;) {
        char *start = (char *)in->buf + in->lo;
        size_t avail = in->hi - in->lo;
        char *nl = memchr(start, '\n', avail);
        if (!nl && !in->eof) {
            if (!argus_input_fill(in)) {
                r->line++;
                if (in->max % (1u << 20) == 0)
                    rc = argus_kd_fail(d, "%s:%llu: a line longer than %zu MiB",
                                       r->name, (unsigned long long)r->line,
                                       in->max >> 20);
                else
                    rc = argus_kd_fail(d, "%s:%llu: a line longer than %zu bytes",
                                       r->name, (unsigned long long)r->line, in->max);
                break;
            }
            continue;
        }
        if (!nl && avail == 0)
            break;
        size_t len = nl ? (size_t)(nl - start) : avail;
        r->line++;
        if (parse_line(r, start, len) < 0) {
            rc = -1;
            break;
        }
        in->lo += len + (nl ? 1 : 0);
    }
    free(r->arena);
    argus_table_free(&r->commands);
    argus_table_free(&r->threads);
    free(r);
    if (rc < 0) {
        argus_kd_drain(d); /* the records before the bad line stay */
        return rc;
    }
    return argus_kd_finish(d);
}
