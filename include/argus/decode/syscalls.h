/* Syscall numbers and their arguments' names, by architecture
 * (lib/decode/syscalls.c, made by scripts/gen-syscalls.sh): what the
 * Perfetto decoder renders raw_syscalls' numbers with. */
#ifndef ARGUS_SYSCALLS_H
#define ARGUS_SYSCALLS_H

typedef struct argus_syscall {
    int nr;
    const char *name;
    const char *args; /* names separated by spaces; NULL: not known */
} argus_syscall;

/* Ended by {-1, NULL, NULL}; in number order. */
extern const argus_syscall argus_syscalls_x86_64[];
extern const argus_syscall argus_syscalls_arm64[];

#endif
