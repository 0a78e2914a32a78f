/* What every decoder fuzzer checks the same way (through
 * decode-harness.h): failure macros,
 * the memfds the input and output go through, and the fields of each
 * record written. The including file defines HARNESS (its name). */
#ifndef ARGUS_FUZZ_CHECKS_H
#define ARGUS_FUZZ_CHECKS_H

#include "argus/stream/cli.h"
#include "argus/stream/stream.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static int in_fd = -1, out_fd = -1, saved_stdout = -1;
static char in_path[64];
static FILE *devnull;

#include "check.h"

#define FAIL(...)                                                           \
    do {                                                                    \
        fprintf(stderr, HARNESS ": " __VA_ARGS__);                         \
        fputc('\n', stderr);                                                \
        abort();                                                            \
    } while (0)

/* The input and output memfds, stdout saved, /dev/null for warnings. */
static void open_harness_files(void)
{
    in_fd = memfd_create(HARNESS "-in", 0);
    out_fd = memfd_create(HARNESS "-out", 0);
    saved_stdout = dup(1);
    devnull = fopen("/dev/null", "w");
    if (in_fd < 0 || out_fd < 0 || saved_stdout < 0 || !devnull) {
        perror(HARNESS ": memfd_create/dup/fopen");
        abort();
    }
    snprintf(in_path, sizeof in_path, "/proc/self/fd/%d", in_fd);
    argus_cli_quiet(true); /* the decoders' warnings (lost events) are notes */
}

/* Whether S holds valid UTF-8 (RFC 3629: shortest forms, no surrogates). */
static bool utf8_valid(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len;
        uint32_t cp;
        if (c >= 0xc2 && c <= 0xdf)
            len = 2, cp = c & 0x1f;
        else if (c >= 0xe0 && c <= 0xef)
            len = 3, cp = c & 0x0f;
        else if (c >= 0xf0 && c <= 0xf4)
            len = 4, cp = c & 0x07;
        else
            return false;
        if (n - i < len)
            return false;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return false;
            cp = cp << 6 | (s[i + k] & 0x3f);
        }
        if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
            (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
            return false;
        i += len;
    }
    return true;
}

/* Every known key of R holds a value of its class; every text is UTF-8
 * (unless CHECK_UTF8 is false). */
static void check_fields(const argus_record *r, uint64_t n, bool check_utf8)
{
    for (unsigned i = 0; i < r->nfields; i++) {
        const argus_field *f = &r->fields[i];
        bool ok = true;
        switch (argus_key_class(f->key_id)) {
        case ARGUS_C_UINT:
        case ARGUS_C_ADDR: ok = f->kind == ARGUS_V_UINT; break;
        case ARGUS_C_INT: ok = f->kind == ARGUS_V_UINT || f->kind == ARGUS_V_NEGINT; break;
        case ARGUS_C_TEXT: ok = f->kind == ARGUS_V_TEXT; break;
        case ARGUS_C_BOOL: ok = f->kind == ARGUS_V_BOOL; break;
        case ARGUS_C_UINT_ARRAY: ok = argus_get_uint_array(r, f->key_id, NULL, 0) >= 0; break;
        case ARGUS_C_TEXT_ARRAY: {
            argus_text t[8];
            int k = argus_get_text_array(r, f->key_id, t, 8);
            ok = k >= 0;
            for (int j = 0; ok && check_utf8 && j < k; j++)
                if (!utf8_valid((const uint8_t *)t[j].s, t[j].len))
                    FAIL("record %llu written by the decoder: \"%.*s\" holds "
                         "text that is not UTF-8", (unsigned long long)n,
                         (int)f->key_len, f->key);
            break;
        }
        default: break;
        }
        if (!ok)
            FAIL("record %llu written by the decoder: \"%.*s\" is not of its "
                 "value class (kind %d)", (unsigned long long)n,
                 (int)f->key_len, f->key, f->kind);
        if (check_utf8 && f->kind == ARGUS_V_TEXT &&
            !utf8_valid((const uint8_t *)f->s, f->slen))
            FAIL("record %llu written by the decoder: \"%.*s\" is not UTF-8",
                 (unsigned long long)n, (int)f->key_len, f->key);
    }
}

#endif
