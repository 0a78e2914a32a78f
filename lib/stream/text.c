/* UTF-8 for the decoders (include/argus/stream/text.h). */
#include "argus/stream/text.h"

#include <string.h>

size_t argus_utf8_char(const uint8_t *s, size_t n)
{
    uint8_t c = s[0];
    size_t len;
    uint32_t cp;
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) len = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef) len = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4) len = 4, cp = c & 0x07;
    else return 0;
    if (n < len) return 0;
    for (size_t k = 1; k < len; k++) {
        if ((s[k] & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (s[k] & 0x3f);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    return len;
}

size_t argus_utf8_copy(char *dst, size_t cap, const char *src, size_t len)
{
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        size_t n = argus_utf8_char((const uint8_t *)src + i, len - i);
        if (o + (n ? n : 1) >= cap)
            break;
        if (n == 0) {
            dst[o++] = '?';
            i++;
        } else {
            memcpy(dst + o, src + i, n);
            o += n;
            i += n;
        }
    }
    dst[o] = '\0';
    return o;
}

size_t argus_utf8_cut(const char *s, size_t len, size_t max)
{
    if (len <= max)
        return len;
    while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
        max--;                  /* s[max], a continuation byte, goes too */
    return max;
}

size_t argus_utf8_whole(const char *s, size_t len)
{
    size_t start = len;
    while (start > 0 && len - start < 4 && ((unsigned char)s[start - 1] & 0xc0) == 0x80)
        start--;
    if (start == 0)
        return len;
    start--;                    /* the last character's first byte */
    return argus_utf8_char((const uint8_t *)s + start, len - start) ? len : start;
}
