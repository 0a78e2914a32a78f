/* The text of an ftrace line (include/argus/decode/ftrace-internal.h): its
 * head "COMM-TID (TGID) [CPU] FLAGS TS:", and the numbers and key=value
 * fields of its body. Nothing here writes or keeps state. */
#include "argus/decode/ftrace-internal.h"

#include <string.h>

#define HEAD_MAX 256       /* bytes before a line's [CPU] */

/* ---- Small parsers ------------------------------------------------------ */

/* A decimal number at the start of S (an optional '-' wraps around). */
bool argus_ft_span_dec(span s, uint64_t *v)
{
    size_t i = 0;
    bool neg = s.n > 0 && s.p[0] == '-';
    i += neg;
    uint64_t x = 0;
    size_t start = i;
    for (; i < s.n && is_digit(s.p[i]); i++)
        x = x * 10 + (uint64_t)(s.p[i] - '0');
    if (i == start || i - start > 19)
        return false;
    *v = neg ? (uint64_t)0 - x : x;
    return true;
}

/* A hex number at the start of S, with or without "0x". */
bool argus_ft_span_hex(span s, uint64_t *v)
{
    size_t i = 0;
    if (s.n >= 2 && s.p[0] == '0' && (s.p[1] == 'x' || s.p[1] == 'X'))
        i = 2;
    uint64_t x = 0;
    size_t start = i;
    int h;
    for (; i < s.n && (h = hex_value(s.p[i])) >= 0; i++)
        x = x << 4 | (uint64_t)h;
    if (i == start || i - start > 16)
        return false;
    *v = x;
    return true;
}

/* A hex number that is the whole of S ("events" is a name, not 0xe). */
bool argus_ft_span_hex_whole(span s, uint64_t *v)
{
    size_t i = s.n >= 2 && s.p[0] == '0' && (s.p[1] == 'x' || s.p[1] == 'X') ? 2 : 0;
    if (i == s.n)
        return false;
    for (size_t k = i; k < s.n; k++)
        if (hex_value(s.p[k]) < 0)
            return false;
    return argus_ft_span_hex(s, v);
}

/* "key=value" fields: a value runs to the space before the next
 * "ident=" or "==>" (so comm values may hold spaces). Returns false at
 * the end. */
bool argus_ft_next_field(span *rest, span *key, span *val)
{
    const char *p = rest->p, *end = p + rest->n;
    for (;;) {
        while (p < end && *p == ' ')
            p++;
        if (p == end)
            return false;
        const char *k = p;
        while (p < end && is_ident(*p))
            p++;
        if (p < end && *p == '=' && p > k) {
            key->p = k;
            key->n = (size_t)(p - k);
            p++;
            break;
        }
        while (p < end && *p != ' ') /* a word that is no field: "==>" */
            p++;
    }
    const char *v = p;
    while (p < end) {
        if (*p == ' ') {
            const char *q = p;
            while (q < end && *q == ' ')
                q++;
            if (q == end)
                break;
            if (end - q >= 3 && memcmp(q, "==>", 3) == 0)
                break;
            const char *r = q;
            while (r < end && is_ident(*r))
                r++;
            if (r > q && r < end && *r == '=')
                break;
            /* the spaces and the word are the value's: go on after them
             * (each byte is looked at a bounded number of times) */
            p = r > q ? r : q;
            continue;
        }
        p++;
    }
    val->p = v;
    val->n = (size_t)(p - v);
    rest->p = p;
    rest->n = (size_t)(end - p);
    return true;
}

/* The value of KEY among BODY's fields. */
bool argus_ft_field(span body, const char *key, span *val)
{
    span k;
    while (argus_ft_next_field(&body, &k, val))
        if (key_is(k, key))
            return true;
    *val = (span){0};
    return false;
}

bool argus_ft_field_dec(span body, const char *key, uint64_t *v)
{
    span s;
    return argus_ft_field(body, key, &s) && argus_ft_span_dec(s, v);
}

bool argus_ft_field_hex(span body, const char *key, uint64_t *v)
{
    span s;
    return argus_ft_field(body, key, &s) && argus_ft_span_hex(s, v);
}

/* ---- The line head ----------------------------------------------------- */

/* A timestamp "SECONDS[.FRACTION]" at P, to ns; P moves past it. */
bool argus_ft_parse_ts(const char **pp, const char *end, uint64_t *ns, bool *counter)
{
    const char *p = *pp;
    uint64_t sec = 0, frac = 0;
    int sd = 0, fd = 0;
    for (; p < end && is_digit(*p); p++, sd++)
        sec = sec * 10 + (uint64_t)(*p - '0');
    if (sd == 0 || sd > 19)
        return false;
    if (p < end && *p == '.') {
        p++;
        for (; p < end && is_digit(*p); p++, fd++)
            if (fd < 9)
                frac = frac * 10 + (uint64_t)(*p - '0');
        if (fd == 0)
            return false;
        for (int k = fd; k < 9; k++)
            frac *= 10;
        if (sec > (UINT64_MAX - frac) / 1000000000u)
            return false;
        *ns = sec * 1000000000u + frac;
        *counter = false;
    } else {
        *ns = sec; /* a counter clock: taken as ns */
        *counter = true;
    }
    *pp = p;
    return true;
}

/* A timestamp with a minus sign at P: "-SECONDS[.FRACTION]:". */
static bool negative_ts_at(const char *p, const char *end)
{
    if (p >= end || *p != '-')
        return false;
    const char *q = p + 1;
    uint64_t ns;
    bool counter;
    return argus_ft_parse_ts(&q, end, &ns, &counter) && q < end && *q == ':';
}

/* V * 10 + digit C, held at UINT64_MAX rather than wrapped round: a
 * number too large stays too large. */
uint64_t argus_ft_dec_digit_saturating(uint64_t v, char c)
{
    uint64_t digit = (uint64_t)(c - '0');
    return v > (UINT64_MAX - digit) / 10 ? UINT64_MAX : v * 10 + digit;
}

/* The decimal at *Q (before END), saturating; *Q moves past its digits. */
uint64_t argus_ft_read_dec(const char **q, const char *end)
{
    uint64_t v = 0;
    while (*q < end && is_digit(**q))
        v = argus_ft_dec_digit_saturating(v, *(*q)++);
    return v;
}

/* Parses "COMM-TID [(TGID)] [CPU] [FLAGS] TS: " into S; WHO_ONLY (the
 * first pass) skips the flags and the timestamp: the body is after the
 * first ':' that ends a number. */
bool argus_ft_parse_head_how(line_slot *s, bool who_only)
{
    const char *start = s->text, *end = start + s->len, *p = start;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    const char *comm = p;
    /* the head is at the start: COMM (16 bytes in the kernel, more with
     * an instance prefix), -TID and (TGID); a '[' further on is not its
     * [CPU], and bounding the search keeps long lines linear */
    const char *head_end = end - p > HEAD_MAX ? p + HEAD_MAX : end;
    for (const char *b = p; (b = memchr(b, '[', (size_t)(head_end - b))) != NULL; b++) {
        /* [CPU] */
        const char *q = b + 1;
        uint64_t cpu = 0;
        while (q < end && is_digit(*q))
            cpu = cpu * 10 + (uint64_t)(*q++ - '0');
        if (q == b + 1 || q - b > 8 || q >= end || *q != ']')
            continue;
        const char *after = q + 1;
        /* back over spaces, an optional (TGID), spaces, then -TID */
        const char *e = b;
        while (e > comm && e[-1] == ' ')
            e--;
        int64_t tgid = -1;
        if (e > comm && e[-1] == ')') {
            const char *o = e - 1;
            while (o > comm && o[-1] != '(')
                o--;
            if (o == comm)
                continue;
            const char *t = o;
            while (t < e - 1 && *t == ' ')
                t++;
            if (is_digit(*t)) {
                uint64_t g = 0;
                s->tgid_off = (uint32_t)(t - start);
                while (t < e - 1 && is_digit(*t))
                    g = argus_ft_dec_digit_saturating(g, *t++);
                s->tgid_len = (uint32_t)(t - start) - s->tgid_off;
                /* out of the kernel's range: refused by the caller */
                tgid = g > INT64_MAX ? INT64_MAX : (int64_t)g;
            }
            e = o - 1;
            while (e > comm && e[-1] == ' ')
                e--;
        }
        const char *dstart = e;
        while (dstart > comm && is_digit(dstart[-1]))
            dstart--;
        /* up to 20 digits: a tid out of the kernel's range is refused by
         * the caller (DEC-RANGE), not read as a line without a head */
        if (dstart == e || e - dstart > 64 || dstart - 1 < comm || dstart[-1] != '-')
            continue;
        uint64_t tid = 0;
        for (const char *t = dstart; t < e; t++)
            tid = argus_ft_dec_digit_saturating(tid, *t);
        /* after [CPU]: optional flags, then TS: */
        p = after;
        while (p < end && *p == ' ')
            p++;
        uint64_t ns = 0;
        const char *tp = p;
        s->irq_ctx = 0;
        s->negative_ts = false;
        if (who_only) {
            tp = memchr(p, ':', (size_t)(end - p));
            if (!tp || tp == p || !is_digit(tp[-1]))
                return false;
        } else if (negative_ts_at(p, end)) {
            s->negative_ts = true;
            tp = memchr(p, ':', (size_t)(end - p));
        } else if (!argus_ft_parse_ts(&tp, end, &ns, &s->counter) || tp >= end || *tp != ':') {
            /* FLAGS: irqs-off, need-resched, hardirq/softirq, ... */
            const char *flags = p;
            while (p < end && *p != ' ')
                p++;
            if (p - flags >= 4)
                s->irq_ctx = flags[2] && strchr("hHszZ", flags[2]) ? flags[2] : '.';
            while (p < end && *p == ' ')
                p++;
            tp = p;
            if (negative_ts_at(p, end)) {
                s->negative_ts = true;
                tp = memchr(p, ':', (size_t)(end - p));
            } else if (!argus_ft_parse_ts(&tp, end, &ns, &s->counter) || tp >= end || *tp != ':') {
                return false;
            }
        }
        tp++;
        while (tp < end && *tp == ' ')
            tp++;
        /* trace-cmd report of an instance starts each line "NAME: " */
        const char *cut = memmem(comm, (size_t)(dstart - 1 - comm), ": ", 2);
        if (cut) {
            cut += 2;
            while (cut < dstart - 1 && *cut == ' ')
                cut++;
            if (cut < dstart - 1)
                comm = cut;
        }
        s->comm_off = (uint32_t)(comm - start);
        s->comm_len = (uint32_t)(dstart - 1 - comm);
        s->body_off = (uint32_t)(tp - start);
        s->tid = tid;
        s->tid_off = (uint32_t)(dstart - start);
        s->tid_len = (uint32_t)(e - dstart);
        s->tgid = tgid;
        s->cpu = (uint32_t)cpu;
        s->ts = ns;
        return true;
    }
    return false;
}

bool argus_ft_parse_head(line_slot *s)
{
    return argus_ft_parse_head_how(s, false);
}
