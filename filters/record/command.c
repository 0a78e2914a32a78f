/* argus-record: CMD, forked before tracing starts and held until it is on;
 * with watches of its process, stopped after its exec (ptrace) until its
 * watchpoints are in. */
#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

void start_child(bool traced, const sigset_t *old_mask)
{
    /* the go pipe's EOF lets the child exec; the err pipe brings back
     * its exec's errno, or EOF when the exec closes it */
    int go_pipe[2], err_pipe[2];
    if (pipe2(go_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0)
        argus_die(ARGUS_EX_UNAVAILABLE, "pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        argus_die(ARGUS_EX_UNAVAILABLE, "fork: %s", strerror(errno));
    if (pid == 0) {
        /* the command gets the dispositions the recorder's caller gave */
        signal(SIGPIPE, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        signal(SIGCHLD, SIG_DFL);
        sigprocmask(SIG_SETMASK, old_mask, NULL);
        close(go_pipe[1]);
        close(err_pipe[0]);
        if (traced && ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0) {
            int e = errno;
            (void)!write(err_pipe[1], &e, sizeof e);
            _exit(ARGUS_EX_NOTFOUND);
        }
        /* wait until tracing is on: EOF or a byte */
        char c;
        while (read(go_pipe[0], &c, 1) < 0 && errno == EINTR)
            ;
        execvp(rec.opt.cmd[0], rec.opt.cmd);
        int e = errno;
        (void)!write(err_pipe[1], &e, sizeof e);
        _exit(e == ENOENT ? ARGUS_EX_NOTFOUND : ARGUS_EX_NOEXEC);
    }
    rec.child.pid = pid;
    rec.child.go_fd = go_pipe[1];
    rec.child.exec_err_fd = err_pipe[0];
    close(go_pipe[0]);
    close(err_pipe[1]);
}

/* Waits for the traced child to stop with SIGTRAP, passing other signals
 * on; false when it ended. */
static bool wait_trap(pid_t pid)
{
    for (;;) {
        int status;
        if (waitpid(pid, &status, 0) < 0) {
            if (errno == EINTR)
                continue;
            argus_die(ARGUS_EX_UNAVAILABLE, "waitpid: %s", strerror(errno));
        }
        if (WIFEXITED(status) || WIFSIGNALED(status)) {
            rec.child.reaped = true;
            rec.child.status = status;
            return false;
        }
        if (WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP)
            return true;
        ptrace(PTRACE_CONT, pid, NULL, (void *)(uintptr_t)WSTOPSIG(status));
    }
}

/* Runs the stopped child to its program's entry point (AT_ENTRY), where
 * the dynamic linker has mapped its libraries: an int3 there, then the
 * original instruction back. */
static void run_to_entry(pid_t pid)
{
#if defined(__x86_64__)
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/auxv", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    uint64_t auxv[2 * 64], entry = 0;
    ssize_t n = fd >= 0 ? read(fd, auxv, sizeof auxv) : -1;
    if (fd >= 0)
        close(fd);
    for (ssize_t i = 0; i + 1 < n / 8; i += 2)
        if (auxv[i] == AT_ENTRY)
            entry = auxv[i + 1];
    if (!entry)
        argus_die(ARGUS_EX_UNAVAILABLE, "%s: no entry point in %s", rec.opt.cmd[0], path);
    errno = 0;
    long word = ptrace(PTRACE_PEEKTEXT, pid, (void *)(uintptr_t)entry, NULL);
    if (errno)
        argus_die(ARGUS_EX_UNAVAILABLE, "ptrace peek at %s's entry: %s", rec.opt.cmd[0],
                  strerror(errno));
    long trap = (long)(((unsigned long)word & ~0xfful) | 0xcc);
    if (ptrace(PTRACE_POKETEXT, pid, (void *)(uintptr_t)entry, (void *)trap) != 0 ||
        ptrace(PTRACE_CONT, pid, NULL, NULL) != 0)
        argus_die(ARGUS_EX_UNAVAILABLE, "ptrace to %s's entry: %s", rec.opt.cmd[0],
                  strerror(errno));
    if (!wait_trap(pid))
        argus_die(ARGUS_EX_UNAVAILABLE, "%s ended before its entry point", rec.opt.cmd[0]);
    struct user_regs_struct regs;
    if (ptrace(PTRACE_POKETEXT, pid, (void *)(uintptr_t)entry, (void *)word) != 0 ||
        ptrace(PTRACE_GETREGS, pid, NULL, &regs) != 0)
        argus_die(ARGUS_EX_UNAVAILABLE, "ptrace at %s's entry: %s", rec.opt.cmd[0],
                  strerror(errno));
    regs.rip = entry; /* the int3 ran: run the original instruction */
    if (ptrace(PTRACE_SETREGS, pid, NULL, &regs) != 0)
        argus_die(ARGUS_EX_UNAVAILABLE, "ptrace at %s's entry: %s", rec.opt.cmd[0],
                  strerror(errno));
#else
    (void)pid;
    argus_die(ARGUS_EX_USAGE, "--watch: a symbol of a shared library of CMD needs x86-64 here; use SYMBOL@PID");
#endif
}

/* Lets the command run; with TRACED, stops it right after its exec to put
 * the watchpoints in, then lets it go. */
void release_child(bool traced)
{
    close(rec.child.go_fd);
    rec.child.go_fd = -1;
    int e = 0;
    ssize_t n;
    while ((n = read(rec.child.exec_err_fd, &e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(rec.child.exec_err_fd);
    rec.child.exec_err_fd = -1;
    if (n == (ssize_t)sizeof e) {
        /* exec failed: the child exits by itself */
        waitpid(rec.child.pid, &rec.child.status, 0);
        rec.child.reaped = true;
        argus_die(e == ENOENT ? ARGUS_EX_NOTFOUND : ARGUS_EX_NOEXEC, "%s: %s", rec.opt.cmd[0],
                  strerror(e));
    }
    if (!traced) {
        rec.child.released = true;
        return;
    }
    /* stopped right after the exec */
    if (!wait_trap(rec.child.pid))
        argus_die(ARGUS_EX_UNAVAILABLE, "%s ended before its watchpoints were set", rec.opt.cmd[0]);
    /* right after the exec only the program and the dynamic linker are
     * mapped: a symbol of a shared library needs the run to its entry */
    bool all_found = true;
    for (size_t i = 0; i < rec.opt.n_watches; i++)
        if (rec.opt.watches[i].of_command)
            all_found &= resolve_watch(&rec.opt.watches[i], rec.child.pid, false);
    if (!all_found) {
        run_to_entry(rec.child.pid);
        for (size_t i = 0; i < rec.opt.n_watches; i++)
            if (rec.opt.watches[i].of_command)
                resolve_watch(&rec.opt.watches[i], rec.child.pid, true);
    }
    watch_command(rec.child.pid);
    if (ptrace(PTRACE_DETACH, rec.child.pid, NULL, NULL) != 0)
        argus_die(ARGUS_EX_UNAVAILABLE, "ptrace detach of %d: %s", (int)rec.child.pid,
                  strerror(errno));
    rec.child.released = true;
}
