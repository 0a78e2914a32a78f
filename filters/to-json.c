/* argus-to-json: a stream to JSON lines (docs/stages/to-json.md). */
#include "argus/stream/cli.h"
#include "argus/stream/stream.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: argus-to-json [FILE|-]\n"
    "Render an argus event stream as JSON lines, one record a line.\n"
    "\n"
    "Keys keep their stream order; address fields (port, msg, reply_port,\n"
    "voucher, item, queue, timer, addr, obj, resource) are \"0x...\" hex\n"
    "strings; 64-bit integers are exact. The header line is the stream's own\n"
    "(no stage is appended), so 'argus decode --format jsonl' of the output\n"
    "gives back the same stream byte for byte.\n"
    "\n"
    "  -h, --help     show this help\n"
    "      --version  show the version\n";

static argus_writer *out;

static void put(const char *s, size_t n) { argus_put_raw(out, s, n); }
static void putc1(char c) { argus_put_raw(out, &c, 1); }

static void put_u64(uint64_t v)
{
    char tmp[24];
    int i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put(tmp + i, sizeof tmp - (size_t)i);
}

/* -1-n, exact over the whole CBOR range (n up to 2^64-1). */
static void put_negint(uint64_t n)
{
    putc1('-');
    if (n == UINT64_MAX) {
        put("18446744073709551616", 20);
        return;
    }
    put_u64(n + 1);
}

static void put_hex(uint64_t v)
{
    static const char digits[] = "0123456789abcdef";
    char tmp[20];
    int i = sizeof tmp;
    do {
        tmp[--i] = digits[v & 15];
        v >>= 4;
    } while (v);
    tmp[--i] = 'x';
    tmp[--i] = '0';
    putc1('"');
    put(tmp + i, sizeof tmp - (size_t)i);
    putc1('"');
}

static void put_string(const uint8_t *s, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    putc1('"');
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        put((const char *)s + run, i - run);
        run = i + 1;
        switch (c) {
        case '"': put("\\\"", 2); break;
        case '\\': put("\\\\", 2); break;
        case '\n': put("\\n", 2); break;
        case '\t': put("\\t", 2); break;
        case '\r': put("\\r", 2); break;
        default: {
            char esc[6] = {'\\', 'u', '0', '0', digits[c >> 4], digits[c & 15]};
            put(esc, 6);
        }
        }
    }
    put((const char *)s + run, n - run);
    putc1('"');
}

/* Byte strings become hex text (JSON has no bytes; not read back as bytes). */
static void put_bytes_hex(const uint8_t *b, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    putc1('"');
    for (size_t i = 0; i < n; i++) {
        char hx[2] = {digits[b[i] >> 4], digits[b[i] & 15]};
        put(hx, 2);
    }
    putc1('"');
}

/* Shortest decimal that reads back as the same double, always with a
 * '.' or an exponent so that it reads back as a float. */
static void put_double(double v)
{
    if (!isfinite(v)) {
        put("null", 4);
        return;
    }
    char tmp[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    put(tmp, strlen(tmp));
    if (!strpbrk(tmp, ".eEn"))
        put(".0", 2);
}

/* Renders the item at p; returns its length. ADDR: uints as hex. */
static size_t put_value(const uint8_t *p, size_t n, bool addr)
{
    argus_cbor_head_info h;
    argus_cbor_read_head(p, n, &h);
    size_t off = h.len;
    bool indef = h.info == 31;
    switch (h.major) {
    case CBOR_UINT:
        if (addr)
            put_hex(h.arg);
        else
            put_u64(h.arg);
        return off;
    case CBOR_NEGINT:
        put_negint(h.arg);
        return off;
    case CBOR_TEXT:
    case CBOR_BYTES:
        if (!indef) {
            if (h.major == CBOR_TEXT) {
                put_string(p + off, h.arg);
            } else {
                put_bytes_hex(p + off, h.arg);
            }
            return off + h.arg;
        } else { /* indefinite: join the chunks */
            argus_buf joined = {0};
            while (p[off] != 0xff) {
                argus_cbor_head_info c;
                argus_cbor_read_head(p + off, n - off, &c);
                argus_buf_add(&joined, p + off + c.len, c.arg);
                off += c.len + c.arg;
            }
            if (h.major == CBOR_TEXT)
                put_string(joined.p ? joined.p : (const uint8_t *)"", joined.len);
            else
                put_bytes_hex(joined.p, joined.len);
            argus_buf_free(&joined);
            return off + 1;
        }
    case CBOR_ARRAY:
    case CBOR_MAP: {
        bool map = h.major == CBOR_MAP;
        putc1(map ? '{' : '[');
        for (uint64_t i = 0; indef ? p[off] != 0xff : i < h.arg; i++) {
            if (i)
                putc1(',');
            if (map) {
                argus_cbor_head_info k;
                argus_cbor_read_head(p + off, n - off, &k);
                if (k.major == CBOR_TEXT) {
                    off += put_value(p + off, n - off, false);
                } else { /* JSON keys are strings: quote what it is */
                    size_t klen = argus_cbor_item_len(p + off, n - off);
                    putc1('"');
                    if (k.major == CBOR_UINT)
                        put_u64(k.arg);
                    putc1('"');
                    off += klen;
                }
                putc1(':');
            }
            off += put_value(p + off, n - off, false);
        }
        putc1(map ? '}' : ']');
        return off + (indef ? 1 : 0);
    }
    case CBOR_TAG: /* the tag is dropped, its content kept */
        return off + put_value(p + off, n - off, addr);
    default:
        if (h.info == 20 || h.info == 21)
            put(h.info == 21 ? "true" : "false", h.info == 21 ? 4 : 5);
        else if (h.info >= 25 && h.info <= 27)
            put_double(argus_cbor_float_value(&h));
        else
            put("null", 4);
        return off;
    }
}

static void put_record(const argus_record *r)
{
    argus_record_load(r); /* a record that does not decode writes nothing */
    putc1('{');
    for (unsigned i = 0; i < r->nfields; i++) {
        const argus_field *f = &r->fields[i];
        if (i)
            putc1(',');
        put_value(r->raw + f->key_off, f->val_off - f->key_off, false);
        putc1(':');
        put_value(r->raw + f->val_off, f->end_off - f->val_off,
                  argus_key_class(f->key_id) == ARGUS_C_ADDR);
    }
    put("}\n", 2);
    argus_end_record(out);
}

int main(int argc, char **argv)
{
    argus_cli_init(argc, argv);
    static const struct option opts[] = {
        ARGUS_OPTION_HELP,
        ARGUS_OPTION_VERSION,
        {0, 0, 0, 0},
    };
    argus_options common = ARGUS_OPTIONS_DEFAULT;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        default: argus_common_option(c, usage, &common, argv);
        }
    }
    const char *input = argus_input_arg(argc, argv);
    out = argus_writer_stdout();
    argus_reader *rd = argus_reader_open(input);
    put_record(argus_reader_header(rd));
    const argus_record *r;
    while ((r = argus_read(rd)))
        put_record(r);
    argus_writer_close(out);
    argus_reader_close(rd);
    return 0;
}
