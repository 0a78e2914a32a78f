/* perf's perf.data (`perf record -e sched:... -e syscalls:...`, `perf
 * sched record`), read without libperf (Debian packages none): the file
 * header, the event attributes, the data section's records, and the
 * tracing data (the event formats, as in a trace.dat v6 header), which
 * libtraceevent parses (docs/inputs/perf.md).
 *
 * Each tracepoint sample is rendered, through its event's format in the
 * file, into the ftrace text line tracefs would print for it
 * (`COMM-TID (TGID) [CPU] SECONDS: EVENT: FIELDS`), in time order, and
 * that line goes to the ftrace text decoder (include/argus/decode/ftrace.h),
 * as lib/decode/tracedat.c does for a trace.dat: one mapping serves both.
 * The threads alive when the recording began (perf's synthesized COMM and
 * FORK records) become the `# argus-thread:` lines argus-record writes.
 * A file of `perf record -z` has its records in PERF_RECORD_COMPRESSED
 * (and COMPRESSED2) records: one zstd stream, decompressed as it is
 * walked (libzstd), memory held to the records of the rounds not yet
 * passed on. */
#ifndef ARGUS_PERFDATA_H
#define ARGUS_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "argus/decode/ftrace.h"
#include "argus/stream/input.h"

/* Whether the first bytes are perf.data's magic ("PERFILE2", either byte
 * order; a piped perf.data has it too). */
bool argus_pd_sniff(const uint8_t *buf, size_t len);

/* Decodes the perf.data in BUF (LEN bytes, all of it; NAME for messages)
 * into the ftrace decoder D: the first pass (argus_ft_prescan_line) over
 * every line, then every line, then argus_ft_finish. Returns 0; -1 with
 * "NAME: byte N: what" in ERR when the file is not a perf.data argus
 * reads; -2 when D failed (argus_ft_error). */
int argus_pd_decode(argus_ft *d, const uint8_t *buf, size_t len, const char *name,
                    char *err, size_t errlen);

/* The lines argus_pd_decode would give the ftrace decoder, once each, to
 * FILE (a FILE *): for make bench, which times the text decoder on them.
 * Returns 0 or -1 with ERR as argus_pd_decode. */
int argus_pd_render(void *file, const uint8_t *buf, size_t len, const char *name, char *err,
                    size_t errlen);

/* argus_pd_decode on the input IN, mapped from its file (a pipe is copied
 * to a memory file first). */
int argus_pd_read(argus_ft *d, argus_input *in, char *err, size_t errlen);

#endif
