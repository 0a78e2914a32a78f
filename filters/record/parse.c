/* argus-record: what it parses of the text the kernel gives it (tracefs's
 * trace file, /proc/PID/maps, /proc/PID/task/TID/stat), apart from the
 * files, so that tests/fuzz/fuzz-record.c can feed it bytes. */
#include "record.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define PF_KTHREAD_FLAG 0x00200000u

/* The timestamp of an event line "COMM-TID [(TGID)] [CPU] [FLAGS] S.F: ..."
 * in ns; false for other lines. COMM may hold " [", so each " [" is tried. */
bool trace_line_time(const char *line, uint64_t *ns)
{
    for (const char *p = strstr(line, " ["); p; p = strstr(p + 1, " [")) {
        const char *q = p + 2;
        if (!isdigit((unsigned char)*q))
            continue;
        while (isdigit((unsigned char)*q))
            q++;
        if (*q++ != ']')
            continue;
        while (*q == ' ')
            q++;
        /* FLAGS, when the column is there: a word not starting with a digit */
        if (*q && !isdigit((unsigned char)*q)) {
            while (*q && *q != ' ')
                q++;
            while (*q == ' ')
                q++;
        }
        uint64_t sec = 0, frac = 0;
        int digits = 0;
        if (!isdigit((unsigned char)*q))
            continue;
        while (isdigit((unsigned char)*q))
            sec = sec * 10 + (uint64_t)(*q++ - '0');
        if (*q++ != '.')
            continue;
        while (isdigit((unsigned char)*q) && digits < 9) {
            frac = frac * 10 + (uint64_t)(*q++ - '0');
            digits++;
        }
        if (*q != ':' || digits < 1)
            continue;
        for (; digits < 9; digits++)
            frac *= 10;
        *ns = sec * 1000000000u + frac;
        return true;
    }
    return false;
}

/* The events the ring buffer dropped, from the trace file's header line
 * "# entries-in-buffer/entries-written: IN/WRITTEN   #P:N"; false for
 * other lines, or when none were dropped. */
bool trace_header_overwritten(const char *line, uint64_t *lost)
{
    unsigned long long in_buffer, written;
    const char *e = strstr(line, "entries-in-buffer/entries-written:");
    if (!e || sscanf(e + 34, " %llu/%llu", &in_buffer, &written) != 2 || written <= in_buffer)
        return false;
    *lost = written - in_buffer;
    return true;
}

bool parse_maps_line(char *line, struct mapping *mp)
{
    unsigned long long start, end, offset;
    int name_at = 0;
    if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &start, &end, &offset, &name_at) != 3)
        return false;
    char *name = line + name_at;
    name[strcspn(name, "\n")] = 0;
    mp->start = start;
    mp->end = end;
    mp->offset = offset;
    mp->path = name[0] == '/' ? argus_xstrdup(name, "a process's memory map") : NULL;
    return true;
}

/* A thread's comm, its process's parent and whether it is a kernel
 * thread, from the text of its /proc stat file BUF (NUL-terminated); false
 * when it is not one. */
bool parse_thread_stat(const char *buf, struct thread_info *t)
{
    /* "TID (COMM) STATE PPID PGRP SESSION TTY TPGID FLAGS ...": COMM may
     * hold spaces and parentheses, so it ends at the last ')' */
    const char *open_paren = strchr(buf, '('), *close_paren = strrchr(buf, ')');
    if (!open_paren || !close_paren || close_paren < open_paren)
        return false;
    size_t len = (size_t)(close_paren - open_paren - 1);
    if (len >= sizeof t->comm)
        len = sizeof t->comm - 1;
    memcpy(t->comm, open_paren + 1, len);
    t->comm[len] = 0;
    for (char *c = t->comm; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?'; /* one line per thread */
    unsigned long long flags;
    int ppid;
    if (sscanf(close_paren + 1, " %*c %d %*d %*d %*d %*d %llu", &ppid, &flags) != 2)
        return false;
    t->ppid = ppid > 0 ? ppid : 0;
    /* every kernel thread, kthreadd's children too, has PF_KTHREAD; a
     * parent pid of 2 is no proof (in a pid namespace, 2 is a process) */
    t->kernel = (flags & PF_KTHREAD_FLAG) != 0;
    return true;
}
