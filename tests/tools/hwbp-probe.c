/* Whether this machine's hardware breakpoints fire: a perf breakpoint on a
 * variable of this program, three writes, the count read back. Exit 0 when
 * it counted them, 1 (with the reason on stdout) when not: some virtual
 * machines accept the perf event but never trip it. tests/record.bats
 * skips the --watch tests then. */
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile int watched;

int main(void)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_BREAKPOINT;
    a.size = sizeof a;
    a.bp_type = HW_BREAKPOINT_W;
    a.bp_addr = (uintptr_t)&watched;
    a.bp_len = HW_BREAKPOINT_LEN_4;
    a.sample_period = 1;
    a.exclude_kernel = 1;
    a.disabled = 1;
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
    if (fd < 0) {
        printf("perf_event_open of a hardware breakpoint failed: %m\n");
        return 1;
    }
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    for (int i = 0; i < 3; i++)
        watched = i;
    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    uint64_t n = 0;
    if (read(fd, &n, sizeof n) != sizeof n || n == 0) {
        printf("hardware breakpoints do not fire on this machine (3 writes, %llu counted)\n",
               (unsigned long long)n);
        return 1;
    }
    return 0;
}
