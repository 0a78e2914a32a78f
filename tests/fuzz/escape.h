/* For the targets that run the programs' own code, where bad input ends
 * in argus_die: its flush hook (argus_cli_on_die(escape, NULL)) jumps
 * back to the setjmp(escape_to) before the run, where a program would
 * exit 65. What a run cut short held is left behind, so LeakSanitizer
 * is off for these targets (the sanitizer suite checks the programs'
 * leaks). */
#ifndef ARGUS_FUZZ_ESCAPE_H
#define ARGUS_FUZZ_ESCAPE_H

#include <setjmp.h>

static jmp_buf escape_to;

static void escape(void *arg)
{
    (void)arg;
    longjmp(escape_to, 1);
}

int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void) { return 1; }

#endif
