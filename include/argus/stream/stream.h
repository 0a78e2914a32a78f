/* The argus event stream (docs/stream-format.md): one reader, one writer.
 *
 * A stream is a CBOR sequence of maps with text keys. The reader frames
 * each record and reads its head (type, id, ts, tid, pid); the first time
 * a stage asks for another field, the record is decoded into a flat list
 * of top-level fields (key, value kind, scalar value, raw byte span). So a
 * stage pays only for the records it looks into, and copies every record
 * through as the bytes it came in. Records point into the reader's buffer
 * and stay valid until the next argus_read().
 */
#ifndef ARGUS_STREAM_H
#define ARGUS_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "argus/stream/cbor.h"
#include "argus/stream/channel.h"

/* Keys the project knows. Every key has one value class across record
 * types (see argus_key_class). ARGUS_K_UNKNOWN is any other key. */
enum argus_key {
    ARGUS_K_UNKNOWN = 0,
    ARGUS_K_TYPE, ARGUS_K_ID, ARGUS_K_TS, ARGUS_K_TID, ARGUS_K_PID,
    ARGUS_K_CPU, ARGUS_K_CTX, ARGUS_K_SEG, ARGUS_K_PHASE, ARGUS_K_NOTE,
    ARGUS_K_NAME, ARGUS_K_ARGS, ARGUS_K_RET, ARGUS_K_FRAMES, ARGUS_K_KIND,
    ARGUS_K_RESOURCE, ARGUS_K_REASON, ARGUS_K_TIMEOUT, ARGUS_K_RESULT,
    ARGUS_K_SYNTH, ARGUS_K_TARGET, ARGUS_K_IRQ, ARGUS_K_QUEUE, ARGUS_K_ITEM,
    ARGUS_K_FUNC, ARGUS_K_STAGE, ARGUS_K_DIR, ARGUS_K_PORT, ARGUS_K_MSG,
    ARGUS_K_MSG_ID, ARGUS_K_REPLY_PORT, ARGUS_K_PEER, ARGUS_K_VOUCHER,
    ARGUS_K_VOUCHER_PIDS, ARGUS_K_VIA, ARGUS_K_TIMER, ARGUS_K_DEADLINE,
    ARGUS_K_ADDR, ARGUS_K_VALUE, ARGUS_K_OBJ, ARGUS_K_FROM, ARGUS_K_TO,
    ARGUS_K_WEAK, ARGUS_K_PROC, ARGUS_K_MAIN, ARGUS_K_KERNEL,
    ARGUS_K_FORMAT, ARGUS_K_VERSION, ARGUS_K_SOURCE, ARGUS_K_T0,
    ARGUS_K_STAGES, ARGUS_K_RUNNABLE, ARGUS_K_CPU_HOLDER,
    ARGUS_K_COUNT
};

/* What a known key's value must be. */
enum argus_key_class {
    ARGUS_C_ANY,        /* anything (unknown keys, note, value, func) */
    ARGUS_C_UINT,       /* unsigned integer */
    ARGUS_C_ADDR,       /* unsigned integer, rendered "0x..." in JSON */
    ARGUS_C_INT,        /* signed integer */
    ARGUS_C_TEXT,
    ARGUS_C_BOOL,
    ARGUS_C_UINT_ARRAY,
    ARGUS_C_TEXT_ARRAY,
};

/* Record types the project knows; anything else is ARGUS_T_OTHER. */
enum argus_type {
    ARGUS_T_OTHER = 0,
    ARGUS_T_STREAM, ARGUS_T_THREAD, ARGUS_T_EDGE,
    /* events */
    ARGUS_T_SYSCALL, ARGUS_T_BACKTRACE, ARGUS_T_UI_EVENT, ARGUS_T_WAIT,
    ARGUS_T_WOKEN, ARGUS_T_WAKEUP, ARGUS_T_INTERRUPT,
    ARGUS_T_SCHED_MAINTENANCE, ARGUS_T_DISPATCH_ENQUEUE,
    ARGUS_T_DISPATCH_INVOKE, ARGUS_T_RUNLOOP_SUBMIT, ARGUS_T_RUNLOOP_INVOKE,
    ARGUS_T_RUNLOOP_PHASE, ARGUS_T_IPC, ARGUS_T_TIMER_ARM,
    ARGUS_T_TIMER_FIRE, ARGUS_T_TIMER_CANCEL, ARGUS_T_FLAG_WRITE,
    ARGUS_T_FLAG_READ, ARGUS_T_CA_SET, ARGUS_T_CA_DISPLAY,
    ARGUS_T_COUNT
};

/* CBOR value kinds as the reader sees them. */
enum argus_vkind {
    ARGUS_V_UINT = 1, ARGUS_V_NEGINT, ARGUS_V_TEXT, ARGUS_V_BYTES,
    ARGUS_V_BOOL, ARGUS_V_NULL, ARGUS_V_UNDEF, ARGUS_V_FLOAT,
    ARGUS_V_ARRAY, ARGUS_V_MAP, ARGUS_V_TAG,
};

typedef struct argus_field {
    const char *key;       /* not NUL-terminated */
    uint32_t key_len;
    uint16_t key_id;       /* enum argus_key */
    uint8_t kind;          /* enum argus_vkind */
    uint32_t key_off;      /* raw bytes of the key ... */
    uint32_t val_off;      /* ... and of the value, from the record start */
    uint32_t end_off;
    uint64_t u;            /* uint; negint n means -1-n; bool; element count */
    double f;              /* float */
    const char *s;         /* text or bytes (definite strings only) */
    uint32_t slen;
} argus_field;

typedef struct argus_record {
    const uint8_t *raw;    /* the whole record, as read */
    size_t raw_len;
    uint64_t number;       /* 1-based position in the stream; header is 1 */
    uint64_t offset;       /* byte offset of the record in the stream */
    int type;              /* enum argus_type */
    const char *type_name;
    uint32_t type_len;
    bool is_event;         /* carries an id: an event (see stream-format.md) */
    uint64_t id, ts, tid, pid;
    bool has_ts, has_pid;
    argus_field *fields;   /* after argus_record_load() */
    unsigned nfields;
    int16_t index[ARGUS_K_COUNT];  /* field position of each known key, -1 */
    bool fields_pending;   /* head read, fields not yet decoded */
    /* While fields_pending: the keys the head pass saw of those the
     * stages ask of every event (ARGUS_SCAN_*), and the map's size; so
     * that asking for an absent ctx, or adding seg, decodes nothing. */
    uint8_t scan_keys;
    uint32_t scan_nfields;
    uint64_t scan_seg;     /* seg's value, with ARGUS_SCAN_SEG_UINT */
    struct argus_parser *parser; /* that decodes them */
} argus_record;
/* ARGUS_SCAN_SEG_UINT: seg is there once, an unsigned integer, its value
 * in scan_seg (the analysis asks it of every event). */
enum { ARGUS_SCAN_CTX = 1, ARGUS_SCAN_SEG = 2, ARGUS_SCAN_SEG_UINT = 4 };

/* Decodes R's fields if the reader left them for later (argus_get and the
 * other accessors do it); a record that does not decode reports and
 * exits 65 as argus_read would have. Needed before using fields/nfields. */
void argus_record_decode(argus_record *r);
static inline void argus_record_load(const argus_record *r)
{
    if (r->fields_pending)
        argus_record_decode((argus_record *)r); /* the reader's own memory */
}

/* ---- keys, types, classes ---------------------------------------------- */
int argus_key_lookup(const char *key, size_t len);
const char *argus_key_name(int key_id);
int argus_key_class(int key_id);
int argus_type_lookup(const char *name, size_t len);
const char *argus_type_name(int type);
bool argus_type_is_event(int type);

/* ---- typed access -------------------------------------------------------- */
/* KEY of a record whose fields are still to be decoded. */
const argus_field *argus_get_pending(const argus_record *r, int key);
static inline const argus_field *argus_get(const argus_record *r, int key)
{
    if (r->fields_pending)
        return argus_get_pending(r, key);
    return r->index[key] < 0 ? NULL : &r->fields[r->index[key]];
}
/* The field named NAME, known key or not (the analysis records' keys are
 * mostly unknown to the reader), or NULL. */
const argus_field *argus_get_named(const argus_record *r, const char *name);
bool argus_get_uint(const argus_record *r, int key, uint64_t *out);
bool argus_get_int(const argus_record *r, int key, int64_t *out);
bool argus_get_bool(const argus_record *r, int key, bool *out);
/* Text value; *len gets its length. NULL when absent or not text. */
const char *argus_get_text(const argus_record *r, int key, size_t *len);
bool argus_text_is(const argus_record *r, int key, const char *want);
/* Elements of an array of uints or texts, decoded on demand. Returns the
 * number of elements stored (at most max), or -1 if the field is not such
 * an array. */
int argus_get_uint_array(const argus_record *r, int key, uint64_t *out,
                         int max);
/* The same for a field by name (the analysis records' keys). */
int argus_get_named_uint_array(const argus_record *r, const char *name, uint64_t *out,
                               int max);
typedef struct { const char *s; size_t len; } argus_text;
int argus_get_text_array(const argus_record *r, int key, argus_text *out,
                         int max);
int argus_get_named_text_array(const argus_record *r, const char *name, argus_text *out,
                               int max);
/* What those read with: calls EACH(CTX, I, P, HEAD) on the first MAX
 * elements of array field F of R (P the element's bytes, HEAD its CBOR
 * head). Returns the element count (at most MAX), or -1 when F is absent
 * or not an array of scalar heads of MAJOR (CBOR_UINT, CBOR_TEXT). */
typedef void (*argus_array_each)(void *ctx, int i, const uint8_t *p,
                                 const argus_cbor_head_info *head);
int argus_array_walk(const argus_record *r, const argus_field *f, unsigned major,
                     argus_array_each each, void *ctx, int max);

/* ---- reader ------------------------------------------------------------- */
typedef struct argus_reader argus_reader;

/* The largest record the reader takes (its input buffer's limit). */
#define ARGUS_MAX_RECORD (256u << 20)

/* Opens FILE (NULL or "-" for stdin) and reads the header. On a missing or
 * unknown header, or an unreadable file, reports and exits (65 / 66). */
argus_reader *argus_reader_open(const char *path);
/* The same on an input already opened (and maybe partly read, for format
 * detection); the reader takes it over. */
struct argus_input;
argus_reader *argus_reader_from_input(struct argus_input *in);
/* The header record (valid for the reader's life). */
const argus_record *argus_reader_header(argus_reader *rd);
/* Next record after the header, or NULL at the end. Checks the framing,
 * the required fields of events, threads and edges, and id and ts order;
 * on a violation reports and exits 65. */
const argus_record *argus_read(argus_reader *rd);
/* Name of the input for messages ("<stdin>" or the path). */
const char *argus_reader_name(const argus_reader *rd);
uint64_t argus_reader_bytes(const argus_reader *rd);
/* The descriptor of the regular file RD reads, where a record's offset
 * is its place in that file (a path was opened); -1 for stdin, a pipe
 * or a FIFO. */
int argus_reader_file(const argus_reader *rd);
/* From now on, a known key asked of an event (argus_get and the typed
 * accessors) decodes that field alone, found by its name among the ones
 * the head pass framed, where the reader otherwise decodes and checks all
 * of the event's fields: for a reader that asks a few fields of every
 * event (the graph loader). Only the keys asked are checked for
 * duplicates, as a stage checks nothing of an event it does not look
 * into. argus_record_load and argus_get_named still decode them all. */
void argus_reader_sparse(argus_reader *rd);
void argus_reader_close(argus_reader *rd);
/* Reports "PROGRAM: FILE: record N (byte OFFSET): WHAT" and exits 65. */
void argus_record_fail(const argus_reader *rd, const argus_record *r,
                       const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));

/* Decodes one record from a complete buffer, for the fuzzers and for
 * tools that hold records in memory. Returns bytes used, 0 when more data
 * is needed, -1 on malformed input (message in err). */
typedef struct argus_parser argus_parser;
argus_parser *argus_parser_new(void);
void argus_parser_free(argus_parser *p);
long argus_parse_record(argus_parser *p, const uint8_t *buf, size_t len,
                        argus_record **out, char *err, size_t errlen);
/* The reader's own first pass over an event: its head read, its fields
 * left for argus_record_load (decoded by P); over an edge: decoded whole
 * from that pass's framing (fields_pending false). The record's length,
 * or -1 where the reader leaves the record to argus_parse_record (not an
 * event or an edge, not all of definite length, not all in BUF, or an
 * edge that parse must say what is wrong with). For the fuzzers. */
long argus_scan_record(argus_parser *p, const uint8_t *buf, size_t len,
                       argus_record **out);
/* P's records then answer as argus_reader_sparse's do. For the fuzzers. */
void argus_parser_sparse(argus_parser *p);

/* ---- writer ------------------------------------------------------------- */
typedef struct argus_writer argus_writer;

/* Writes to stdout. Output is buffered in large blocks and flushed at
 * record boundaries only, so a stream cut by an error stays valid. */
argus_writer *argus_writer_stdout(void);
/* The same for a program whose output is the binary stream: refused (exit
 * 64, with a hint to pipe it) when stdout is a terminal. */
argus_writer *argus_writer_stream(void);
/* Writes to the open file FD (a second output, such as argus-analyze's
 * --keep); argus_writer_close flushes, the caller closes FD. */
argus_writer *argus_writer_fd(int fd);
/* Writes into the channel CH, for a reader in another thread
 * (argus_input_channel): the blocks a flush would write, whole records
 * each, are handed over as they are. argus_writer_close flushes the last;
 * the caller closes CH. */
argus_writer *argus_writer_channel(argus_channel *ch);
/* A writer that keeps nothing (fuzzers, dry runs). */
argus_writer *argus_writer_null(void);
/* A writer that hands each record to DELIVER as it is written, for stages
 * that run in one process (argus-chain): a record written verbatim is
 * passed as it is, fields already decoded included; a record built or
 * edited here is read back first, as the next program's reader would read
 * it, numbered as that reader would number it, NAME naming the stream in
 * messages. The record is valid during the call only. */
argus_writer *argus_writer_to(const char *name,
                              void (*deliver)(void *ctx, const argus_record *r),
                              void *ctx);
/* Flushes; a write error reports and exits 74, leaving a regular file
 * output truncated to its last whole record (docs/stream-format.md,
 * "Output and errors"). */
void argus_writer_flush(argus_writer *w);
void argus_writer_close(argus_writer *w);
/* The bytes a writer to a channel or a function has handed on so far. */
uint64_t argus_writer_bytes(const argus_writer *w);

/* A record verbatim. */
void argus_write_record(argus_writer *w, const argus_record *r);
/* The header read, with COMMAND appended to its "stages". */
void argus_write_header(argus_writer *w, const argus_record *hdr,
                        const char *command);

/* A record with some fields set (replaced in place, or appended) or
 * removed; all other fields are copied byte for byte. */
typedef struct argus_set {
    int key;               /* enum argus_key, or ARGUS_K_UNKNOWN with name */
    const char *name;      /* key text when key is ARGUS_K_UNKNOWN */
    enum { ARGUS_SET_UINT, ARGUS_SET_TEXT, ARGUS_SET_BOOL,
           ARGUS_SET_REMOVE } op;
    uint64_t u;
    const char *s;
} argus_set;
void argus_write_edited(argus_writer *w, const argus_record *r,
                        const argus_set *sets, unsigned nsets);

/* Building a new record: argus_put_map(w, npairs), then keys and values;
 * argus_end_record(w) marks the record boundary. */
void argus_put_map(argus_writer *w, uint64_t npairs);
void argus_put_array(argus_writer *w, uint64_t n);
void argus_put_key(argus_writer *w, const char *key);
void argus_put_text(argus_writer *w, const char *s, size_t len);
void argus_put_cstr(argus_writer *w, const char *s);
void argus_put_uint(argus_writer *w, uint64_t v);
void argus_put_negint(argus_writer *w, uint64_t n);  /* the value -1-n */
void argus_put_int(argus_writer *w, int64_t v);
void argus_put_bool(argus_writer *w, bool v);
void argus_put_null(argus_writer *w);
void argus_put_double(argus_writer *w, double v);
void argus_put_raw(argus_writer *w, const void *bytes, size_t len);
void argus_end_record(argus_writer *w);

#endif
