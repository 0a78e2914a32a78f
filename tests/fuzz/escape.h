/* For the targets that run the programs' own code, where bad input ends
 * in argus_die: its flush hook (argus_cli_on_die(escape, NULL)) jumps
 * back to the setjmp(escape_to) before the run, where a program would
 * exit 65. A target that leaves behind what a run cut short held has
 * LeakSanitizer off (the sanitizer suite checks the programs' leaks);
 * one that frees it (fuzz-link: the stages' argus_stage_def discard)
 * defines ESCAPE_FREES before including this, and keeps it on. */
#ifndef ARGUS_FUZZ_ESCAPE_H
#define ARGUS_FUZZ_ESCAPE_H

#include <setjmp.h>

static jmp_buf escape_to;

static void escape(void *arg)
{
    (void)arg;
    longjmp(escape_to, 1);
}

#ifndef ESCAPE_FREES
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void) { return 1; }
#endif

#endif
