#include "argus/stream/cbor.h"
#include "argus/stream/cli.h"

#include <cbor.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

void argus_buf_reserve(argus_buf *b, size_t more)
{
    if (b->cap - b->len >= more)
        return;
    /* MORE is what was read or is to be written, never a length the
     * input only claims; beyond half the address space, doubling would
     * wrap */
    if (more > SIZE_MAX / 4 - b->len)
        argus_die(ARGUS_EX_IOERR, "out of memory (a buffer of %zu bytes)", more);
    size_t cap = b->cap ? b->cap : 4096;
    while (cap - b->len < more)
        cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p)
        argus_die(ARGUS_EX_IOERR, "out of memory (a buffer of %zu bytes)", cap);
    b->p = p;
    b->cap = cap;
}

void argus_buf_free(argus_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

/* The head of an item (RFC 8949 3.1): the major type and the shortest
 * argument. Written by hand: every record is made of these, and a call
 * into libcbor per head was a tenth of a decoder's time. */
void argus_cbor_head(argus_buf *b, unsigned major, uint64_t v)
{
    if (major > CBOR_TAG)
        abort();
    if (b->cap - b->len < 9)
        argus_buf_reserve(b, 9);
    uint8_t *at = b->p + b->len;
    uint8_t m = (uint8_t)(major << 5);
    if (v < 24) {
        at[0] = m | (uint8_t)v;
        b->len += 1;
    } else if (v <= 0xff) {
        at[0] = m | 24;
        at[1] = (uint8_t)v;
        b->len += 2;
    } else if (v <= 0xffff) {
        at[0] = m | 25;
        at[1] = (uint8_t)(v >> 8);
        at[2] = (uint8_t)v;
        b->len += 3;
    } else if (v <= 0xffffffffu) {
        at[0] = m | 26;
        for (int i = 0; i < 4; i++)
            at[1 + i] = (uint8_t)(v >> (24 - 8 * i));
        b->len += 5;
    } else {
        at[0] = m | 27;
        for (int i = 0; i < 8; i++)
            at[1 + i] = (uint8_t)(v >> (56 - 8 * i));
        b->len += 9;
    }
}

void argus_cbor_text(argus_buf *b, const char *s, size_t len)
{
    argus_cbor_head(b, CBOR_TEXT, len);
    argus_buf_add(b, s, len);
}

void argus_cbor_bool(argus_buf *b, bool v)
{
    argus_buf_reserve(b, 1);
    b->len += cbor_encode_bool(v, b->p + b->len, 1);
}

void argus_cbor_null(argus_buf *b)
{
    argus_buf_reserve(b, 1);
    b->len += cbor_encode_null(b->p + b->len, 1);
}

void argus_cbor_double(argus_buf *b, double v)
{
    argus_buf_reserve(b, 9);
    b->len += cbor_encode_double(v, b->p + b->len, 9);
}

bool argus_cbor_read_head(const uint8_t *p, size_t n, argus_cbor_head_info *h)
{
    if (n < 1)
        return false;
    h->major = p[0] >> 5;
    h->info = p[0] & 31;
    size_t extra = h->info < 24 ? 0 : h->info <= 27 ? (size_t)1 << (h->info - 24) : 0;
    if (n < 1 + extra)
        return false;
    h->len = 1 + extra;
    if (h->info < 24) {
        h->arg = h->info;
    } else {
        h->arg = extra ? argus_cbor_head_arg(p, h->info) : 0;
    }
    return true;
}

/* The walk of argus_cbor_item_len and argus_cbor_definite_len: DEPTH
 * containers deep, DEPTH_LEFT more allowed (definite only). */
static size_t item_len(const uint8_t *p, size_t n, bool definite, int depth_left)
{
    argus_cbor_head_info h;
    if (!argus_cbor_read_head(p, n, &h))
        return 0;
    if (definite && (h.info > 27 || depth_left < 0))
        return 0;
    size_t off = h.len;
    if (h.info == 31 && h.major >= CBOR_BYTES && h.major <= CBOR_MAP) {
        for (;;) {
            if (off >= n)
                return 0;
            if (p[off] == 0xff)
                return off + 1;
            size_t k = item_len(p + off, n - off, definite, depth_left - 1);
            if (!k)
                return 0;
            off += k;
        }
    }
    switch (h.major) {
    case CBOR_BYTES:
    case CBOR_TEXT:
        return h.arg <= n - off ? off + h.arg : 0;
    case CBOR_ARRAY:
    case CBOR_MAP: {
        if (definite && h.arg > n) /* every item takes a byte at least */
            return 0;
        uint64_t items = h.major == CBOR_MAP ? h.arg * 2 : h.arg;
        for (uint64_t i = 0; i < items; i++) {
            size_t k = item_len(p + off, n - off, definite, depth_left - 1);
            if (!k)
                return 0;
            off += k;
        }
        return off;
    }
    case CBOR_TAG: {
        if (definite) /* rare in a stream: left to the full decoder */
            return 0;
        size_t k = item_len(p + off, n - off, definite, depth_left - 1);
        return k ? off + k : 0;
    }
    case CBOR_SIMPLE: /* false, true, null, undefined and floats: the
                         simple values the stream reader decodes */
        return definite && !(h.info >= 20 && h.info <= 27 && h.info != 24) ? 0 : off;
    default:
        return off;
    }
}

size_t argus_cbor_item_len(const uint8_t *p, size_t n)
{
    return item_len(p, n, false, 0);
}

size_t argus_cbor_definite_len(const uint8_t *p, size_t n, int max_depth)
{
    return item_len(p, n, true, max_depth);
}

static double half_to_double(uint16_t h)
{
    int exp = (h >> 10) & 0x1f;
    int mant = h & 0x3ff;
    double v;
    if (exp == 0)
        v = ldexp(mant, -24);
    else if (exp != 31)
        v = ldexp(mant + 1024, exp - 25);
    else
        v = mant == 0 ? INFINITY : NAN;
    return (h & 0x8000) ? -v : v;
}

double argus_cbor_float_value(const argus_cbor_head_info *h)
{
    if (h->info == 25)
        return half_to_double((uint16_t)h->arg);
    if (h->info == 26) {
        uint32_t bits = (uint32_t)h->arg;
        float f;
        memcpy(&f, &bits, 4);
        return f;
    }
    double d;
    memcpy(&d, &h->arg, 8);
    return d;
}
