/* CHECK for the fuzz targets: a broken check aborts with a line naming
 * the target, so that libFuzzer saves the input as a crash. The including
 * file defines HARNESS (its name). */
#ifndef ARGUS_FUZZ_CHECK_H
#define ARGUS_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                         \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, HARNESS ": %s:%d: check failed: %s\n",           \
                    __FILE__, __LINE__, #cond);                             \
            abort();                                                        \
        }                                                                   \
    } while (0)

#endif
