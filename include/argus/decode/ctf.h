/* CTF 1.8 traces (a directory: a `metadata` file and stream files), the
 * LTTng kernel tracer's and `perf data convert --to-ctf`'s, read with
 * libbabeltrace2 (docs/inputs/ctf.md).
 *
 * Each event is rendered into the ftrace text line the kernel's tracefs
 * prints for its tracepoint (LTTng's names mapped to the kernel's:
 * prev_tid -> prev_pid, syscall_entry_X -> sys_enter_X, ...), with the
 * head "COMM-TID (PID) [CPU] TS:" from the event's context when the trace
 * has one, else from the task each CPU runs (its sched_switch events) and
 * the process table of LTTng's statedump and the forks; those lines go to
 * the ftrace text decoder (include/argus/decode/ftrace.h), so one mapping
 * serves every form of a Linux trace. */
#ifndef ARGUS_CTF_H
#define ARGUS_CTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "argus/decode/ftrace.h"

/* Whether the first bytes are a CTF metadata file's: the text form's
 * "/" "* CTF 1." or the packetized form's magic 0x75D11D57 (either byte
 * order). */
bool argus_ctf_sniff(const uint8_t *buf, size_t len);

/* Whether DIR holds a CTF trace: a `metadata` file that sniffs as one in
 * it or in a directory below (LTTng writes SESSION/kernel/), at most 4
 * levels down. */
bool argus_ctf_dir(const char *dir);

/* Reads the CTF trace(s) under DIR (NAME names it in messages) into the
 * ftrace decoder D: a trial in a child over every message (babeltrace2
 * aborts on some damaged traces), the first pass (argus_ft_prescan_line)
 * over every event, then the process table as "# argus-thread:" lines,
 * then every event, then argus_ft_finish. Returns 0; -1 with a message in ERR
 * ("NAME: ...") when babeltrace2 cannot read the trace (the message names
 * the file and what is wrong where babeltrace2 says it); -2 when D failed
 * (argus_ft_error). Records written before an error stay valid. */
int argus_ctf_read(argus_ft *d, const char *dir, const char *name, char *err,
                   size_t errlen);

#endif
