/* wait-times: reads an argus event stream (a file, or stdin) with
 * libargus and prints, per thread, how many waits it made and how long
 * it spent in them (wait -> its next woken), then the record count.
 *
 *   cc -o wait-times wait-times.c $(pkg-config --cflags --libs argus)
 *   argus decode trace.jsonl | ./wait-times
 *
 * See docs/library.md. */
#include <argus/stream/cli.h>
#include <argus/stream/stream.h>

#include <inttypes.h>
#include <stdio.h>

#define MAX_THREADS 1024

struct thread { uint64_t tid, since, waits, waited; bool waiting; };

int main(int argc, char **argv)
{
    /* the program's name in messages, and SIGPIPE's default */
    argus_cli_init(argc, argv);
    /* NULL or "-": stdin; a bad or missing header exits 65 or 66 */
    argus_reader *rd = argus_reader_open(argc > 1 ? argv[1] : NULL);
    static struct thread t[MAX_THREADS];
    size_t n = 0;
    uint64_t records = 1; /* the header */
    const argus_record *r;
    while ((r = argus_read(rd))) { /* NULL at the end; a bad record exits 65 */
        records++;
        if (!r->is_event || (r->type != ARGUS_T_WAIT && r->type != ARGUS_T_WOKEN))
            continue;
        size_t i = 0;
        while (i < n && t[i].tid != r->tid)
            i++;
        if (i == n) {
            if (n == MAX_THREADS)
                continue;
            t[n++] = (struct thread){.tid = r->tid};
        }
        if (r->type == ARGUS_T_WAIT) {
            t[i].waiting = true;
            t[i].since = r->ts;
            t[i].waits++;
        } else if (t[i].waiting) {
            t[i].waiting = false;
            t[i].waited += r->ts - t[i].since;
        }
    }
    for (size_t i = 0; i < n; i++)
        printf("tid %" PRIu64 ": %" PRIu64 " waits, %" PRIu64 " ns waiting\n", t[i].tid,
               t[i].waits, t[i].waited);
    printf("%" PRIu64 " records\n", records);
    argus_reader_close(rd);
    return 0;
}
