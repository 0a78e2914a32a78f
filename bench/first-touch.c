/* bench/first-touch MB [huge]: what the first write to fresh memory costs
 * on this machine, beside writing it again (docs/performance.md). Maps MB
 * megabytes, writes one byte a page (timed), then all of it (timed); with
 * "huge", asks for transparent huge pages first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc < 2 || strtoul(argv[1], NULL, 10) == 0) {
        fprintf(stderr, "usage: first-touch MB [huge]\n");
        return 64;
    }
    size_t mb = strtoul(argv[1], NULL, 10), len = mb << 20;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "first-touch: cannot map %zu MB\n", mb);
        return 71;
    }
    if (argc > 2)
        madvise(p, len, MADV_HUGEPAGE);
    double t0 = now();
    for (size_t i = 0; i < len; i += 4096)
        p[i] = 1;
    double t1 = now();
    memset(p, 2, len);
    double t2 = now();
    printf("%zu MB: first touch %.3f s (%.2f ms/MB), rewrite %.3f s\n", mb, t1 - t0,
           (t1 - t0) * 1000 / (double)mb, t2 - t1);
    return 0;
}
