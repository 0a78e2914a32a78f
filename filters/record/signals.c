/* argus-record and argus-watch: the signals that end a recording, read
 * from a signalfd in the program's loop. */
#include "record.h"

#include <errno.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

int stop_signals_open(sigset_t *blocked, sigset_t *old_mask)
{
    sigemptyset(blocked);
    sigaddset(blocked, SIGINT);
    sigaddset(blocked, SIGTERM);
    sigaddset(blocked, SIGHUP);
    sigaddset(blocked, SIGCHLD);
    sigprocmask(SIG_BLOCK, blocked, old_mask);
    int fd = signalfd(-1, blocked, SFD_NONBLOCK | SFD_CLOEXEC);
    if (fd < 0)
        argus_die(ARGUS_EX_UNAVAILABLE, "signalfd: %s", strerror(errno));
    signal(SIGPIPE, SIG_IGN);
    return fd;
}

bool stop_signals_take(int fd)
{
    bool child_changed = false;
    struct signalfd_siginfo si;
    while (read(fd, &si, sizeof si) == (ssize_t)sizeof si) {
        if (si.ssi_signo == SIGCHLD) {
            child_changed = true;
        } else {
            rec.stop.count++;
            rec.stop.last = (int)si.ssi_signo;
        }
    }
    return child_changed;
}
