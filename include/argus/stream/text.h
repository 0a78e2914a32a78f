/* UTF-8 for the decoders: a stream's text values must be valid UTF-8,
 * while names and lines in trace files are bytes. */
#ifndef ARGUS_TEXT_H
#define ARGUS_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* Length of the UTF-8 character at S (at most N bytes), or 0 if invalid. */
size_t argus_utf8_char(const uint8_t *s, size_t n);
/* Copies SRC (LEN bytes) to DST (CAP bytes, CAP > 0) as valid UTF-8: an
 * invalid byte becomes '?', the copy is cut at a character boundary to
 * fit, and NUL-terminated. Returns the bytes copied. */
size_t argus_utf8_copy(char *dst, size_t cap, const char *src, size_t len);
/* The length of valid UTF-8 text S (LEN bytes) cut to at most MAX bytes
 * at a character boundary: a cut never leaves half a character. */
size_t argus_utf8_cut(const char *s, size_t len, size_t max);
/* The length of S (LEN bytes of valid UTF-8 but for its end) without a
 * last character cut short: what snprintf left of a text it cut. */
size_t argus_utf8_whole(const char *s, size_t len);

#endif
