/* trace-cmd's binary trace.dat (versions 6 and 7, 7 compressed or not),
 * read with libtracecmd and libtraceevent (docs/inputs/linux.md).
 *
 * Each record is rendered, through the event's own format in the file
 * (field offsets and prev_state bits differ between kernels), into the
 * line `trace-cmd report -t` prints for it, and that line goes to the
 * ftrace text decoder (include/argus/decode/ftrace.h): a trace.dat and
 * the report of it decode to the same stream, by construction. */
#ifndef ARGUS_TRACEDAT_H
#define ARGUS_TRACEDAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "argus/decode/ftrace.h"
#include "argus/stream/input.h"

/* Whether the first bytes are trace.dat's magic ("\027\010Dtracing"). */
bool argus_td_sniff(const uint8_t *buf, size_t len);

/* Reads the trace.dat IN (from its start; a pipe is copied to memory
 * first: libtracecmd seeks) into the ftrace decoder D: the first pass
 * (argus_ft_prescan_line) over every line, then every line, then
 * argus_ft_finish. Returns 0, or -1 with a message in ERR ("FILE: ...")
 * when the file is not a trace.dat libtracecmd can read; or -2 when D
 * failed (argus_ft_error). */
int argus_td_read(argus_ft *d, argus_input *in, char *err, size_t errlen);

#endif
