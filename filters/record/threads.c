/* argus-record: the threads in /proc, scanned at the start and at the end
 * of a recording, for argus's "# argus-thread:" lines. */
#include "record.h"
#include "argus/stream/procname.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Reads /proc/TGID/task/TID/stat into T; false when the thread is gone. */
bool read_thread(int tgid, int tid, struct thread_info *t)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", tgid, tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = 0;
    if (!parse_thread_stat(buf, t))
        return false;
    t->tid = tid;
    t->tgid = tgid;
    t->cmdline = NULL;
    return true;
}

size_t read_cmdline(int pid, char *args, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, args, size);
    close(fd);
    if (n <= 0)
        return 0;
    /* a command line longer than the buffer is cut at an argument; a
     * process that rewrote its own may lack the last NUL */
    if ((size_t)n == size && args[n - 1] != '\0') {
        const char *last = memrchr(args, '\0', (size_t)n);
        n = last ? last - args + 1 : 0;
    }
    return (size_t)n;
}

bool cmdline_words(int pid, char *words, size_t size)
{
    size_t n = size ? read_cmdline(pid, words, size - 1) : 0;
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (words[i] == '\0' || words[i] == '\n')
            words[i] = words[i] ? '?' : '\n';
    words[n] = '\0';
    return true;
}

/* PID's command line, escaped for "# argus-cmdline:"; NULL when it has
 * none (a kernel thread, a zombie) or is gone. */
static char *escaped_cmdline(int pid)
{
    char args[4096], line[8192];
    size_t n = read_cmdline(pid, args, sizeof args);
    return n > 0 && argus_cmdline_escape(line, sizeof line, args, n) > 0
               ? argus_xstrdup(line, "a command line") : NULL;
}

void scan_threads(struct thread_list *list)
{
    DIR *proc = opendir("/proc");
    if (!proc)
        argus_die(ARGUS_EX_UNAVAILABLE, "/proc: %s", strerror(errno));
    struct dirent *pe;
    while ((pe = readdir(proc))) {
        if (!isdigit((unsigned char)pe->d_name[0]))
            continue;
        int tgid = atoi(pe->d_name);
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/task", tgid);
        DIR *task = opendir(path);
        if (!task)
            continue; /* gone */
        struct dirent *te;
        while ((te = readdir(task))) {
            if (!isdigit((unsigned char)te->d_name[0]))
                continue;
            struct thread_info t;
            if (!read_thread(tgid, atoi(te->d_name), &t))
                continue;
            if (t.tid == tgid && !t.kernel)
                t.cmdline = escaped_cmdline(tgid);
            if (list->n == list->cap) {
                list->cap = list->cap ? list->cap * 2 : 512;
                list->v = argus_xrealloc(list->v, list->cap * sizeof *list->v, "thread table");
            }
            list->v[list->n++] = t;
        }
        closedir(task);
    }
    closedir(proc);
}

void free_threads(struct thread_list *list)
{
    for (size_t i = 0; i < list->n; i++)
        free(list->v[i].cmdline);
    free(list->v);
    *list = (struct thread_list){0};
}

static int by_tid(const void *a, const void *b)
{
    const struct thread_info *x = a, *y = b;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

const struct thread_info *find_thread(const struct thread_list *l, int tid)
{
    struct thread_info key = {.tid = tid};
    return l->n ? bsearch(&key, l->v, l->n, sizeof *l->v, by_tid) : NULL;
}

void sort_threads(struct thread_list *list)
{
    argus_sort(list->v, list->n, sizeof *list->v, by_tid);
}

int running_process(int pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    int tgid = 0;
    while (fgets(buf, sizeof buf, f))
        if (strncmp(buf, "Tgid:", 5) == 0) {
            tgid = atoi(buf + 5);
            break;
        }
    fclose(f);
    return tgid > 0 ? tgid : 0;
}

/* Whether NAME names process PID: its comm, or its program or script
 * (argus_proc_named). */
static bool process_named(int pid, const char *name)
{
    char path[64], comm[64], words[4096];
    snprintf(path, sizeof path, "/proc/%d/comm", pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    bool got = fgets(comm, sizeof comm, f) != NULL;
    fclose(f);
    if (!got)
        return false;
    comm[strcspn(comm, "\n")] = 0;
    return argus_proc_named(name, comm, cmdline_words(pid, words, sizeof words) ? words : NULL);
}

/* A process's comm is its name's first 15 bytes (TASK_COMM_LEN - 1): a
 * comm of 15 bytes matches a longer NAME that starts with it, as
 * find-spinning's --proc does. */
size_t processes_named(const char *name, int **pids, size_t *n)
{
    DIR *proc = opendir("/proc");
    if (!proc)
        return 0;
    size_t found = 0;
    struct dirent *de;
    while ((de = readdir(proc))) {
        char *end;
        long pid = strtol(de->d_name, &end, 10);
        if (*end || pid <= 0 || pid > INT_MAX || pid == getpid())
            continue;
        if (!process_named((int)pid, name))
            continue;
        found++;
        bool seen = false;
        for (size_t i = 0; i < *n && !seen; i++)
            seen = (*pids)[i] == pid;
        if (seen)
            continue;
        *pids = argus_xrealloc(*pids, (*n + 1) * sizeof **pids, "processes named by --proc");
        (*pids)[(*n)++] = (int)pid;
    }
    closedir(proc);
    return found;
}
