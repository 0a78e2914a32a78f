/* The names of a process --proc matches, and the command line's escaped
 * form in a trace's comment lines (include/argus/stream/procname.h). */
#include "argus/stream/procname.h"
#include "argus/stream/text.h"

#include <stdio.h>
#include <string.h>

/* The last path component of S (N bytes), in place. */
static const char *base_of(const char *s, size_t *n)
{
    const char *b = s;
    for (size_t i = 0; i < *n; i++)
        if (s[i] == '/')
            b = s + i + 1;
    *n -= (size_t)(b - s);
    return b;
}

/* Whether the word W (N bytes) is WANT (its base, WN bytes), with or
 * without W's extension. */
static bool word_is(const char *w, size_t n, const char *want, size_t wn)
{
    w = base_of(w, &n);
    if (n == wn && memcmp(w, want, wn) == 0)
        return true;
    const char *dot = NULL;
    for (size_t i = 1; i < n; i++) /* a leading dot is a hidden file's, no extension */
        if (w[i] == '.')
            dot = w + i;
    return dot && (size_t)(dot - w) == wn && memcmp(w, want, wn) == 0;
}

bool argus_proc_named(const char *want, const char *comm, const char *cmdline)
{
    if (!want || !*want)
        return false;
    if (comm && (strcmp(comm, want) == 0 ||
                 (strlen(comm) == 15 && strncmp(comm, want, 15) == 0)))
        return true;
    if (!cmdline)
        return false;
    size_t wn = strlen(want);
    want = base_of(want, &wn);
    if (wn == 0)
        return false;
    /* argv[0], then the first word after it that is no option */
    const char *p = cmdline;
    for (int word = 0; *p; word++) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (word == 0 || (n > 0 && p[0] != '-')) {
            if (n > 0 && word_is(p, n, want, wn))
                return true;
            if (word > 0)
                return false;
        }
        if (!e)
            break;
        p = e + 1;
    }
    return false;
}

size_t argus_cmdline_escape(char *out, size_t cap, const char *args, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    if (cap == 0)
        return 0;
    for (size_t i = 0; i < len;) {
        const char *a = args + i;
        size_t n = strnlen(a, len - i);
        char word[4096];
        size_t w = 0;
        if (n == 0) {
            word[w++] = '"';
            word[w++] = '"';
        }
        for (size_t k = 0; k < n && w + 4 < sizeof word; k++) {
            unsigned char c = (unsigned char)a[k];
            if (c <= ' ' || c == 0x7f || c == '"' || c == '\\') {
                word[w++] = '\\';
                word[w++] = 'x';
                word[w++] = hex[c >> 4];
                word[w++] = hex[c & 15];
            } else {
                word[w++] = (char)c;
            }
        }
        size_t need = w + (o > 0);
        if (o + need >= cap)
            break;              /* cut at an argument, never inside one */
        if (o > 0)
            out[o++] = ' ';
        memcpy(out + o, word, w);
        o += w;
        i += n + 1;
    }
    out[o] = '\0';
    return o;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

size_t argus_cmdline_unescape(char *out, size_t cap, const char *p, size_t n)
{
    char raw[4096];
    size_t r = 0;
    for (size_t i = 0; i < n && r + 1 < sizeof raw; i++) {
        int hi, lo;
        if (p[i] == ' ')
            raw[r++] = '\n';
        else if (p[i] == '"' && i + 1 < n && p[i + 1] == '"')
            i++;                /* "": an empty argument */
        else if (p[i] == '\\' && i + 3 < n && p[i + 1] == 'x' &&
                 (hi = hex_value(p[i + 2])) >= 0 && (lo = hex_value(p[i + 3])) >= 0) {
            unsigned char c = (unsigned char)(hi << 4 | lo);
            raw[r++] = c < ' ' || c == 0x7f ? '?' : (char)c;
            i += 3;
        } else
            raw[r++] = (unsigned char)p[i] < ' ' ? '?' : p[i];
    }
    if (cap == 0)
        return 0;
    return argus_utf8_copy(out, cap, raw, r);
}
