/* argus-validate: checks a stream against the contract
 * (docs/stages/validate.md) and prints a one-line summary. */
#include "argus/stream/cbor.h"
#include "argus/stream/cli.h"
#include "argus/stream/stream.h"
#include "argus/stream/table.h"
#include "argus/stream/text.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: argus-validate [FILE|-]\n"
    "Check an argus event stream against the contract and summarize it.\n"
    "\n"
    "Checks: the header (type, format, version); every record a map with a\n"
    "text \"type\"; events carry id, ts, tid and pid; ids strictly increase and\n"
    "ts never decreases; known keys hold values of their kind (uints,\n"
    "addresses, texts, booleans, arrays), phase is begin/end, dir is\n"
    "send/recv, ctx is interrupt/maintenance, the result of a woken or\n"
    "wakeup is awakened, timed_out, interrupted or restart; thread records\n"
    "carry tid and pid;\n"
    "every edge's from and to name events earlier in the stream; once a\n"
    "'segment' stage ran (its name in the header's stages), every event has\n"
    "a seg.\n"
    "\n"
    "Prints one line: records, events, threads, edges, segments and the time\n"
    "span; or the first violation as 'argus-validate: FILE: record N (byte\n"
    "OFFSET): what', exit 65.\n"
    "\n"
    "  -q, --quiet    print nothing when the stream is valid\n"
    "  -h, --help     show this help\n"
    "      --version  show the version\n";

/* Ids seen so far (argus_id_set: runs of consecutive ids). */
static argus_id_set ids;

static bool text_in(const argus_field *f, const char *const *allowed)
{
    for (; *allowed; allowed++)
        if (strlen(*allowed) == f->slen && memcmp(*allowed, f->s, f->slen) == 0)
            return true;
    return false;
}

static const char *const phases[] = {"begin", "end", NULL};
static const char *const dirs[] = {"send", "recv", NULL};
static const char *const ctxs[] = {"interrupt", "maintenance", NULL};
static const char *const results[] = {"awakened", "timed_out", "interrupted",
                                      "restart", NULL};

/* Where LEN bytes at S stop being UTF-8, or -1. */
static long bad_utf8(const uint8_t *s, size_t len)
{
    for (size_t i = 0, k; i < len; i += k)
        if (s[i] < 0x80)
            k = 1;              /* ASCII, most of a stream's text */
        else if (!(k = argus_utf8_char(s + i, len - i)))
            return (long)i;
    return -1;
}

/* The offset of the first byte that is not UTF-8 in the text strings
 * among the items of R from AT to END (each chunk of an indefinite one:
 * a chunk ends at a character boundary), or -1. The reader took the
 * record, so it is well formed: its items follow one another, a
 * container's after its head. */
static long bad_utf8_items(const argus_record *r, size_t at, size_t end)
{
    argus_cbor_head_info h;
    while (at < end && argus_cbor_read_head(r->raw + at, end - at, &h)) {
        at += h.len;
        if ((h.major == 2 || h.major == 3) && h.info != 31) {
            if (h.arg > end - at)
                break;
            long bad = h.major == 3 ? bad_utf8(r->raw + at, h.arg) : -1;
            if (bad >= 0)
                return (long)at + bad;
            at += h.arg;
        }
    }
    return -1;
}

/* The offset in R of the first text string, key or value at any depth,
 * that is not valid UTF-8 (RFC 8949 3.1), or -1. Keys, text and
 * containers are walked as they are in the record (a string of chunks
 * is decoded elsewhere); scalars are skipped. */
static long bad_utf8_at(const argus_record *r)
{
    argus_record_load(r);
    for (unsigned i = 0; i < r->nfields; i++) {
        const argus_field *f = &r->fields[i];
        long bad = bad_utf8_items(r, f->key_off, f->val_off);
        if (bad < 0 && (f->kind == ARGUS_V_TEXT || f->kind == ARGUS_V_ARRAY ||
                        f->kind == ARGUS_V_MAP || f->kind == ARGUS_V_TAG))
            bad = bad_utf8_items(r, f->val_off, f->end_off);
        if (bad >= 0)
            return bad;
    }
    return -1;
}

static void check_fields(argus_reader *rd, const argus_record *r)
{
    long bad = bad_utf8_at(r);
    if (bad >= 0)
        argus_record_fail(rd, r, "a text string is not valid UTF-8 "
                          "(byte %ld of the record)", bad);
    argus_record_load(r);
    for (unsigned i = 0; i < r->nfields; i++) {
        const argus_field *f = &r->fields[i];
        const char *want = NULL;
        switch (argus_key_class(f->key_id)) {
        case ARGUS_C_UINT:
        case ARGUS_C_ADDR:
            if (f->kind != ARGUS_V_UINT)
                want = "an unsigned integer";
            break;
        case ARGUS_C_INT:
            if (f->kind != ARGUS_V_UINT && f->kind != ARGUS_V_NEGINT)
                want = "an integer";
            break;
        case ARGUS_C_TEXT:
            if (f->kind != ARGUS_V_TEXT)
                want = "a text string";
            break;
        case ARGUS_C_BOOL:
            if (f->kind != ARGUS_V_BOOL)
                want = "a boolean";
            break;
        case ARGUS_C_UINT_ARRAY:
            if (argus_get_uint_array(r, f->key_id, NULL, 0) < 0)
                want = "an array of unsigned integers";
            break;
        case ARGUS_C_TEXT_ARRAY:
            if (argus_get_text_array(r, f->key_id, NULL, 0) < 0)
                want = "an array of text strings";
            break;
        default:
            continue;
        }
        if (want)
            argus_record_fail(rd, r, "\"%s\" must be %s",
                              argus_key_name(f->key_id), want);
        const char *const *allowed = NULL;
        switch (f->key_id) {
        case ARGUS_K_PHASE: allowed = phases; break;
        case ARGUS_K_DIR: allowed = dirs; break;
        case ARGUS_K_CTX: allowed = ctxs; break;
        case ARGUS_K_RESULT:
            if (r->type == ARGUS_T_WOKEN || r->type == ARGUS_T_WAKEUP)
                allowed = results;
            break;
        }
        if (allowed && !text_in(f, allowed))
            argus_record_fail(rd, r, "\"%s\" is \"%.*s\", not one of the values the contract names",
                              argus_key_name(f->key_id), (int)f->slen, f->s);
    }
}

/* True when one of the header's stages is "segment ..." */
static bool segment_ran(const argus_record *hdr)
{
    argus_text stages[256];
    int n = argus_get_text_array(hdr, ARGUS_K_STAGES, stages, 256);
    for (int i = 0; i < n; i++) {
        const char *s = stages[i].s;
        size_t len = stages[i].len;
        if (len >= 7 && memcmp(s, "segment", 7) == 0 && (len == 7 || s[7] == ' '))
            return true;
    }
    return false;
}

int main(int argc, char **argv)
{
    argus_cli_init(argc, argv);
    static const struct option opts[] = {
        {"quiet", no_argument, 0, 'q'},
        ARGUS_OPTION_HELP,
        ARGUS_OPTION_VERSION,
        {0, 0, 0, 0},
    };
    bool quiet = false;
    argus_options common = ARGUS_OPTIONS_DEFAULT;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        switch (c) {
        case 'q': quiet = true; break;
        default: argus_common_option(c, usage, &common, argv);
        }
    }
    const char *input = argus_input_arg(argc, argv);

    argus_reader *rd = argus_reader_open(input);
    const argus_record *hdr = argus_reader_header(rd);
    check_fields(rd, hdr);
    bool need_seg = segment_ran(hdr);

    uint64_t records = 1, events = 0, edges = 0, segments = 0, max_seg = 0;
    uint64_t losses = 0, lost = 0;      /* DEC-LOSS records, and their events */
    uint64_t first_ts = 0, last_ts = 0;
    bool any_ts = false, any_seg = false;
    argus_table threads;
    argus_table_init(&threads, 0);

    const argus_record *r;
    while ((r = argus_read(rd))) {
        records++;
        check_fields(rd, r);
        if (r->has_ts) {
            if (!any_ts)
                first_ts = r->ts;
            any_ts = true;
            last_ts = r->ts;
        }
        if (r->type == ARGUS_T_THREAD) {
            argus_table_put(&threads, r->tid, NULL);
        } else if (r->type == ARGUS_T_OTHER && r->type_len == 4 &&
                   memcmp(r->type_name, "loss", 4) == 0) {
            const argus_field *f = argus_get_named(r, "events");
            losses++;
            if (f && f->kind == ARGUS_V_UINT)
                lost += f->u;
        } else if (r->type == ARGUS_T_EDGE) {
            char why[128];
            if (argus_edge_unknown_end(&ids, r, why, sizeof why))
                argus_record_fail(rd, r, "%s", why);
            edges++;
        } else if (r->is_event) {
            events++;
            argus_id_set_add(&ids, r->id);
            argus_table_put(&threads, r->tid, NULL);
            uint64_t seg;
            if (argus_get_uint(r, ARGUS_K_SEG, &seg)) {
                /* segment gives ids in order of first appearance */
                if (!any_seg || seg > max_seg) {
                    segments++;
                    max_seg = seg;
                    any_seg = true;
                }
            } else if (need_seg) {
                argus_record_fail(rd, r, "event %llu has no \"seg\" although the segment stage ran",
                                  (unsigned long long)r->id);
            }
        }
    }
    if (!quiet) {
        uint64_t span = last_ts - first_ts;
        printf("%s: valid: %llu records, %llu events, %zu threads, %llu edges, "
               "%llu segments, ts %llu..%llu (%llu.%09llu s)\n",
               argus_reader_name(rd), (unsigned long long)records,
               (unsigned long long)events, threads.count,
               (unsigned long long)edges, (unsigned long long)segments,
               (unsigned long long)first_ts, (unsigned long long)last_ts,
               (unsigned long long)(span / 1000000000u),
               (unsigned long long)(span % 1000000000u));
        if (losses)
            printf("%s: incomplete: %llu loss records (DEC-LOSS), %llu events lost\n",
                   argus_reader_name(rd), (unsigned long long)losses, (unsigned long long)lost);
    }
    argus_close_stdout();
    argus_table_free(&threads);
    argus_reader_close(rd);
    argus_id_set_free(&ids);
    return 0;
}
