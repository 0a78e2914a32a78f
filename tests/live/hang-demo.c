/* hang-demo: a three-hop hang across two processes, for recording live
 * (tests/live-hang.bats; the scenario is in tests/live/README.md).
 *
 *   hangui main    --request pipe-->  hangsvc main  --condvar-->  cruncher
 *   hangui main   <--reply pipe----   hangsvc main  <--condvar--  cruncher
 *
 * hangui's main thread (the "UI thread") sends a request to the process
 * hangsvc and blocks reading the reply; hangsvc's main thread hands the
 * work to its thread "cruncher" and blocks until it is done; cruncher
 * spins on the CPU for --work MS (1500 by default, 20 with --normal).
 * Nothing else sleeps or waits for long: the only long thing is the work.
 *
 * Usage: hang-demo [--normal] [--work MS]
 * Exit: 0 when the reply came and hangsvc exited cleanly, 64 on a bad
 * command line, 71 when a system call failed (EX_OSERR). */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { EXIT_USAGE = 64, EXIT_OSERR = 71 };
enum { HANG_WORK_MS = 1500, NORMAL_WORK_MS = 20 };

/* The messages on the pipes: small fixed records, written whole (a pipe
 * write of at most PIPE_BUF bytes is atomic). */
#define MAGIC_READY 0x52454459u   /* hangsvc -> hangui: cruncher is up */
#define MAGIC_REQUEST 0x52455155u /* hangui -> hangsvc: do work_ms of work */
#define MAGIC_REPLY 0x5245504cu   /* hangsvc -> hangui: the work is done */

struct message {
    uint32_t magic;
    uint32_t work_ms;
    uint64_t result;
};

/* hangsvc's hand-off between its main thread and cruncher: a one-slot
 * queue under a mutex, a condition variable for each direction. */
struct work_slot {
    pthread_mutex_t lock;
    pthread_cond_t to_cruncher; /* has_work was set */
    pthread_cond_t to_main;     /* idle or done was set */
    bool idle;                  /* cruncher is waiting for work */
    bool has_work;              /* set by main, taken by cruncher */
    bool done;                  /* set by cruncher when the work is finished */
    uint32_t work_ms;
    uint64_t result;
};

static void die(const char *where)
{
    fprintf(stderr, "hang-demo: %s: %s\n", where, strerror(errno));
    exit(EXIT_OSERR);
}

/* The thread's comm in the trace (16 bytes with the NUL). */
static void name_self(const char *name)
{
    if (prctl(PR_SET_NAME, name, 0, 0, 0) != 0)
        die("prctl(PR_SET_NAME)");
}

static void write_message(int fd, uint32_t magic, uint32_t work_ms, uint64_t result)
{
    struct message m = {.magic = magic, .work_ms = work_ms, .result = result};
    ssize_t n;
    do
        n = write(fd, &m, sizeof m);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof m)
        die("write");
}

/* Reads one whole message of the expected kind; EOF or another kind is
 * a broken peer. */
static struct message read_message(int fd, uint32_t magic)
{
    struct message m;
    size_t got = 0;
    while (got < sizeof m) {
        ssize_t n = read(fd, (char *)&m + got, sizeof m - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            die("read");
        if (n == 0) {
            fprintf(stderr, "hang-demo: read: the peer closed the pipe\n");
            exit(EXIT_OSERR);
        }
        got += (size_t)n;
    }
    if (m.magic != magic) {
        fprintf(stderr, "hang-demo: read: unexpected message 0x%08x\n", (unsigned)m.magic);
        exit(EXIT_OSERR);
    }
    return m;
}

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t); /* vDSO: no syscall in the loop */
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The long work: pure CPU for ms milliseconds, no syscalls, no waits. */
static uint64_t burn_cpu(uint32_t ms)
{
    uint64_t end = now_ns() + (uint64_t)ms * 1000000u;
    uint64_t x = 88172645463325252u; /* xorshift64, so the loop does real work */
    do {
        for (int i = 0; i < 100000; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
    } while (now_ns() < end);
    return x;
}

static void *cruncher(void *arg)
{
    struct work_slot *slot = arg;
    name_self("cruncher");
    pthread_mutex_lock(&slot->lock);
    slot->idle = true;
    pthread_cond_signal(&slot->to_main);
    while (!slot->has_work)
        pthread_cond_wait(&slot->to_cruncher, &slot->lock);
    slot->idle = false;
    slot->has_work = false;
    uint32_t ms = slot->work_ms;
    pthread_mutex_unlock(&slot->lock);

    uint64_t result = burn_cpu(ms);

    pthread_mutex_lock(&slot->lock);
    slot->result = result;
    slot->done = true;
    pthread_cond_signal(&slot->to_main); /* futex wake of hangsvc main */
    pthread_mutex_unlock(&slot->lock);
    return NULL;
}

/* hangsvc: serve one request, then exit. */
static int run_service(int request_fd, int reply_fd)
{
    name_self("hangsvc");
    static struct work_slot slot = {.lock = PTHREAD_MUTEX_INITIALIZER,
                                    .to_cruncher = PTHREAD_COND_INITIALIZER,
                                    .to_main = PTHREAD_COND_INITIALIZER};
    pthread_t worker;
    int err = pthread_create(&worker, NULL, cruncher, &slot);
    if (err != 0) {
        errno = err;
        die("pthread_create");
    }
    /* Ready only once cruncher waits for work, so that every run hands the
     * work over the same way: main's futex wake ends cruncher's wait. */
    pthread_mutex_lock(&slot.lock);
    while (!slot.idle)
        pthread_cond_wait(&slot.to_main, &slot.lock);
    pthread_mutex_unlock(&slot.lock);
    write_message(reply_fd, MAGIC_READY, 0, 0);

    struct message request = read_message(request_fd, MAGIC_REQUEST);

    pthread_mutex_lock(&slot.lock);
    slot.work_ms = request.work_ms;
    slot.has_work = true;
    pthread_cond_signal(&slot.to_cruncher); /* futex wake of cruncher */
    while (!slot.done)
        pthread_cond_wait(&slot.to_main, &slot.lock); /* the second hop */
    uint64_t result = slot.result;
    pthread_mutex_unlock(&slot.lock);

    write_message(reply_fd, MAGIC_REPLY, request.work_ms, result);
    pthread_join(worker, NULL);
    return 0;
}

static void usage(FILE *to)
{
    fprintf(to,
            "Usage: hang-demo [--normal] [--work MS]\n"
            "hangui's main thread asks hangsvc over a pipe and waits for the reply;\n"
            "hangsvc's main thread waits on its thread cruncher, which spins for MS ms.\n"
            "  --work MS   cruncher's work (default %d ms)\n"
            "  --normal    the baseline run: %d ms of work unless --work says otherwise\n",
            HANG_WORK_MS, NORMAL_WORK_MS);
}

int main(int argc, char **argv)
{
    long work_ms = -1;
    bool normal = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--normal") == 0) {
            normal = true;
        } else if (strcmp(argv[i], "--work") == 0 && i + 1 < argc) {
            char *end;
            errno = 0;
            work_ms = strtol(argv[++i], &end, 10);
            if (errno != 0 || *end != '\0' || end == argv[i] || work_ms < 0
                || work_ms > 600000) {
                fprintf(stderr, "hang-demo: --work: '%s' is not 0..600000 ms\n", argv[i]);
                return EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "hang-demo: bad argument '%s'\n", argv[i]);
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (work_ms < 0)
        work_ms = normal ? NORMAL_WORK_MS : HANG_WORK_MS;

    int request_pipe[2], reply_pipe[2];
    if (pipe(request_pipe) != 0 || pipe(reply_pipe) != 0)
        die("pipe");
    fflush(stdout);
    pid_t service = fork();
    if (service < 0)
        die("fork");
    if (service == 0) {
        close(request_pipe[1]);
        close(reply_pipe[0]);
        _exit(run_service(request_pipe[0], reply_pipe[1]));
    }
    close(request_pipe[0]);
    close(reply_pipe[1]);
    name_self("hangui"); /* after the fork: hangsvc is never named hangui */

    read_message(reply_pipe[0], MAGIC_READY);
    write_message(request_pipe[1], MAGIC_REQUEST, (uint32_t)work_ms, 0);
    read_message(reply_pipe[0], MAGIC_REPLY); /* the hang: blocked for the work */

    int status;
    pid_t reaped;
    do
        reaped = waitpid(service, &status, 0);
    while (reaped < 0 && errno == EINTR);
    if (reaped < 0)
        die("waitpid");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "hang-demo: hangsvc did not exit cleanly (status 0x%x)\n", status);
        return EXIT_OSERR;
    }
    return 0;
}
