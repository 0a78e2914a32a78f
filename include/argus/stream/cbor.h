/* Small CBOR pieces under the stream reader and writer: a growable byte
 * buffer with encoders (on libcbor's cbor_encode_*), and a decoder of one
 * item head for walking raw values that the reader already checked. */
#ifndef ARGUS_CBOR_H
#define ARGUS_CBOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct argus_buf {
    uint8_t *p;
    size_t len, cap;
} argus_buf;

/* Makes room for MORE bytes after len; aborts when memory runs out. */
void argus_buf_reserve(argus_buf *b, size_t more);
void argus_buf_free(argus_buf *b);
static inline void argus_buf_add(argus_buf *b, const void *p, size_t n)
{
    if (n == 0)
        return;
    if (b->cap - b->len < n)
        argus_buf_reserve(b, n);
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

/* CBOR major types. */
enum { CBOR_UINT = 0, CBOR_NEGINT, CBOR_BYTES, CBOR_TEXT, CBOR_ARRAY,
       CBOR_MAP, CBOR_TAG, CBOR_SIMPLE };

/* A head of MAJOR with argument V, in its shortest form. */
void argus_cbor_head(argus_buf *b, unsigned major, uint64_t v);
void argus_cbor_text(argus_buf *b, const char *s, size_t len);
void argus_cbor_bool(argus_buf *b, bool v);
void argus_cbor_null(argus_buf *b);
void argus_cbor_double(argus_buf *b, double v);

/* One item head at p (n bytes available). Sets major, the additional
 * information (31 = indefinite, or a break when major is 7), the argument
 * (for floats, the raw bits) and the head's length. False if n is short. */
typedef struct argus_cbor_head_info {
    unsigned major, info;
    uint64_t arg;
    size_t len;
} argus_cbor_head_info;
bool argus_cbor_read_head(const uint8_t *p, size_t n, argus_cbor_head_info *h);
/* The argument of a head whose additional info INFO is 24..27: the 1, 2,
 * 4 or 8 big-endian bytes after its first byte at P (all there). */
static inline uint64_t argus_cbor_head_arg(const uint8_t *p, unsigned info)
{
    /* whole words, not byte by byte: heads are most of a stream's bytes */
    switch (info) {
    case 24: return p[1];
    case 25: { uint16_t w; memcpy(&w, p + 1, 2); return __builtin_bswap16(w); }
    case 26: { uint32_t w; memcpy(&w, p + 1, 4); return __builtin_bswap32(w); }
    default: { uint64_t w; memcpy(&w, p + 1, 8); return __builtin_bswap64(w); }
    }
}
/* Byte length of the well-formed item at p, or 0 if it does not fit. */
size_t argus_cbor_item_len(const uint8_t *p, size_t n);
/* The same for an item all of definite length, with no reserved head, no
 * tag, no simple value but false, true, null, undefined and floats, and at most
 * MAX_DEPTH containers deep; 0 for any other (a reader's fast path, which
 * leaves those to the full decoder). */
size_t argus_cbor_definite_len(const uint8_t *p, size_t n, int max_depth);
/* Value of a half, single or double float head. */
double argus_cbor_float_value(const argus_cbor_head_info *h);

#endif
