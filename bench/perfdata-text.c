/* perfdata-text FILE: the ftrace text lines argus-decode renders from the
 * perf.data FILE (argus_pd_render), on stdout; make bench times the text
 * decoder on them against argus-decode on the perf.data itself (the same
 * events). Exit 65 when FILE is not a perf.data argus reads. */
#include "argus/decode/perfdata.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: perfdata-text FILE\n");
        return 64;
    }
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || st.st_size == 0) {
        perror(argv[1]);
        return 66;
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
        perror(argv[1]);
        return 66;
    }
    char err[512];
    if (argus_pd_render(stdout, p, (size_t)st.st_size, argv[1], err, sizeof err) < 0) {
        fprintf(stderr, "perfdata-text: %s\n", err);
        return 65;
    }
    return fflush(stdout) == 0 ? 0 : 74;
}
