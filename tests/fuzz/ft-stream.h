/* The stream checks of the fuzzers whose output comes from the ftrace
 * decoder (fuzz-ftrace, and the decoders that render into it:
 * fuzz-perfetto, fuzz-perfdata, fuzz-ctf): what the decoder writes must be
 * a valid stream of it. The including file defines HARNESS, COMMAND and
 * NAME (decode-harness.h). */
#ifndef ARGUS_FUZZ_FT_STREAM_H
#define ARGUS_FUZZ_FT_STREAM_H

#include "argus/decode/ftrace.h"
#include "argus/stream/table.h"
#include "decode-harness.h"

#include <string.h>

/* Whether thread 0's record is checked (ARGUS_FUZZ_NO_IDLE leaves it out). */
static bool check_idle = true;

/* Per tid while checking: the pid of its last thread record + 1, and
 * whether a wait of it has no woken yet. */
typedef struct tid_state {
    uint64_t pid1;
    bool waiting;
} tid_state;

/* A trace file's decoding begins as argus-decode's does: the ftrace
 * decoder (need_ftrace, the harness's NAME and COMMAND) on a new output,
 * in *W; RES's message empty. ft_decoding_end ends it. */
static inline argus_ft *ft_decoding_begin(argus_writer **w, result *res)
{
    *w = output_begin();
    argus_ft_options o = {.name = NAME, .command = COMMAND, .need_ftrace = true};
    argus_ft *d = argus_ft_new(*w, &o);
    CHECK(d);
    res->err[0] = '\0';
    return d;
}

/* The end of one decoding into the ftrace decoder D, writing W: RES->rc
 * is 0, -1 or -2; a -2's message is the decoder's (into RES->err), and the
 * decoder is drained as argus-decode drains it (the lines before the error
 * stay); its counters printed, D freed, what was written in RES. */
static inline void ft_decoding_end(argus_ft *d, argus_writer *w, result *res)
{
    CHECK(res->rc == 0 || res->rc == -1 || res->rc == -2);
    if (res->rc == -2) {
        const char *e = argus_ft_error(d);
        CHECK(e && *e && strnlen(e, sizeof res->err) < sizeof res->err);
        strcpy(res->err, e);
        argus_ft_drain(d);
    }
    argus_ft_print_counts(d, devnull);
    argus_ft_free(d);
    output_end(w, res);
}

/* The records in OUT (LEN bytes) form a valid stream of this decoder. */
static void check_stream(const uint8_t *out, size_t len)
{
    argus_parser *p = argus_parser_new();
    argus_table tids, sent; /* tid -> tid_state; ipc msg sent -> not received */
    argus_table_init(&tids, sizeof(tid_state));
    argus_table_init(&sent, sizeof(uint8_t));
    size_t off = 0, used;
    uint64_t n = 0;
    stream_order order = {0};
    while (off < len) {
        argus_record *r = next_record(p, out, len, off, ++n, &used);
        check_fields(r, n, true);
        check_header(r, n, "ftrace");
        check_order(&order, r, n);
        if (r->type == ARGUS_T_THREAD) {
            bool created, kernel = false, main = false;
            argus_get_bool(r, ARGUS_K_KERNEL, &kernel);
            argus_get_bool(r, ARGUS_K_MAIN, &main);
            CHECK(argus_get_text(r, ARGUS_K_PROC, NULL));
            if (check_idle && r->tid == 0 && (!kernel || main))
                FAIL("record %llu written by the decoder: thread 0 (the idle "
                     "task) is not a kernel thread or is main",
                     (unsigned long long)n);
            if (main && r->pid != r->tid)
                FAIL("record %llu written by the decoder: thread %llu is main "
                     "in pid %llu", (unsigned long long)n,
                     (unsigned long long)r->tid, (unsigned long long)r->pid);
            tid_state *t = argus_table_put(&tids, r->tid, &created);
            if (created)
                t->waiting = false;
            t->pid1 = r->pid + 1;
        }
        if (r->is_event) {
            tid_state *t = argus_table_get(&tids, r->tid);
            check_event_thread(r, n, t ? &t->pid1 : NULL);
            if (r->type == ARGUS_T_WAIT) {
                if (t->waiting)
                    FAIL("record %llu written by the decoder: wait %llu of tid "
                         "%llu while its last wait has no woken",
                         (unsigned long long)n, (unsigned long long)r->id,
                         (unsigned long long)r->tid);
                t->waiting = true;
                CHECK(argus_get_text(r, ARGUS_K_REASON, NULL));
            } else if (r->type == ARGUS_T_WOKEN) {
                if (!t->waiting)
                    FAIL("record %llu written by the decoder: woken %llu of tid "
                         "%llu, which has no wait open (DEC-WOKEN)",
                         (unsigned long long)n, (unsigned long long)r->id,
                         (unsigned long long)r->tid);
                t->waiting = false;
            } else if (r->type == ARGUS_T_IPC) {
                uint64_t msg;
                CHECK(argus_get_uint(r, ARGUS_K_MSG, &msg));
                bool created;
                if (argus_text_is(r, ARGUS_K_VIA, "binder")) {
                    /* binder's msg is the kernel's transaction number
                     * (DEC-BINDER): a receipt's send may be before the
                     * trace, a text may number two alike */
                    CHECK(argus_text_is(r, ARGUS_K_DIR, "send") ||
                          argus_text_is(r, ARGUS_K_DIR, "recv"));
                } else if (argus_text_is(r, ARGUS_K_DIR, "send")) {
                    *(uint8_t *)argus_table_put(&sent, msg, &created) = 1;
                    CHECK(created);
                } else {
                    CHECK(argus_text_is(r, ARGUS_K_DIR, "recv"));
                    uint8_t *open = argus_table_get(&sent, msg);
                    if (!open || !*open)
                        FAIL("record %llu written by the decoder: ipc recv %llu "
                             "of msg %llu, not sent or received before",
                             (unsigned long long)n, (unsigned long long)r->id,
                             (unsigned long long)msg);
                    *open = 0;
                }
            } else if (r->type == ARGUS_T_OTHER) {
                /* the decoder's own types: ftrace lines, exec, exit, a
                 * thread switched out runnable (preempted) */
                const char *type = r->type_name;
                size_t tl = r->type_len;
                bool ftrace = tl == 6 && memcmp(type, "ftrace", 6) == 0;
                CHECK(ftrace || (tl == 4 && memcmp(type, "exec", 4) == 0) ||
                      (tl == 4 && memcmp(type, "exit", 4) == 0) ||
                      (tl == 9 && memcmp(type, "preempted", 9) == 0));
                if (ftrace)
                    CHECK(argus_get_named(r, "text"));
            }
        }
        off += used;
    }
    argus_table_free(&sent);
    argus_table_free(&tids);
    argus_parser_free(p);
}

#endif
