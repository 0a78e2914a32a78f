/* A tiny program with a shared flag for tests/record.bats (argus-record
 * --watch). The test compiles it with cc.
 *
 *   flagprog         main writes sFlag = 1, a second thread reads it, main
 *                    writes sFlag = 2; then prints "pid=P reader=T addr=A"
 *   flagprog loop N  writes sFlag = 1..N, one every 50 ms, then prints the
 *                    same line (reader=0)
 *
 * Each access is one instruction (volatile), and each is followed by a
 * pause so that a recorder reading values at drain time sees them too. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile int sFlag;
volatile long sWide[2]; /* too wide for one watchpoint */
static pid_t reader_tid;

static void *reader(void *arg)
{
    (void)arg;
    reader_tid = gettid();
    int seen = sFlag;
    usleep(100000);
    return seen == 1 ? NULL : (void *)1;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "loop") == 0) {
        int n = atoi(argv[2]);
        for (int i = 1; i <= n; i++) {
            sFlag = i;
            usleep(50000);
        }
    } else {
        usleep(100000);
        sFlag = 1;
        usleep(100000);
        pthread_t t;
        void *bad;
        if (pthread_create(&t, NULL, reader, NULL) != 0 || pthread_join(t, &bad) != 0 || bad)
            return 1;
        sFlag = 2;
        usleep(200000);
    }
    printf("pid=%d reader=%d addr=%p\n", (int)getpid(), (int)reader_tid, (void *)&sFlag);
    return 0;
}
