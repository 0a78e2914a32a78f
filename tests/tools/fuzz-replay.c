/* Runs a libFuzzer target's LLVMFuzzerTestOneInput over the files named
 * on the command line, without libFuzzer: a reproducer replayed by the
 * Bats suite with any compiler (tests/fuzz-crashes.bats). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            perror(argv[i]);
            return 66;
        }
        size_t cap = 1 << 16, n = 0, r;
        uint8_t *buf = malloc(cap);
        while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0)
            if ((n += r) == cap)
                buf = realloc(buf, cap *= 2);
        fclose(f);
        if (!buf)
            abort();
        LLVMFuzzerTestOneInput(buf, n);
        free(buf);
        printf("%s: ok\n", argv[i]);
    }
    return 0;
}
