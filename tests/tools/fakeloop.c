/* A main loop on tests/tools/fakelib.c's GLib: three iterations, each a
 * poll of 5 ms and a dispatch of context 0x5eed000 (tests/record.bats). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <time.h>

int g_main_context_dispatch(void *context);
int g_poll(void *fds, unsigned int nfds, int timeout);

int main(void)
{
    struct timespec five_ms = {0, 5000000};
    for (int i = 0; i < 3; i++) {
        g_poll(0, 0, 5);
        nanosleep(&five_ms, 0);
        g_main_context_dispatch((void *)(uintptr_t)0x5eed000);
    }
    return 0;
}
