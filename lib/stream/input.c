#include "argus/stream/input.h"
#include "argus/stream/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FIRST_BLOCK (4u << 20)

void argus_input_open(argus_input *in, const char *path, size_t max)
{
    memset(in, 0, sizeof *in);
    if (!path || strcmp(path, "-") == 0) {
        in->fd = 0;
        in->name = strdup("<stdin>");
    } else {
        in->fd = open(path, O_RDONLY);
        if (in->fd < 0)
            argus_die(ARGUS_EX_NOINPUT, "%s: %s", path, strerror(errno));
        /* open(2) takes a directory; its read would fail later as an I/O
         * error (74), where the input is the wrong thing to open (66) */
        struct stat st;
        if (fstat(in->fd, &st) == 0 && S_ISDIR(st.st_mode))
            argus_die(ARGUS_EX_NOINPUT, "%s: %s", path, strerror(EISDIR));
        in->name = strdup(path);
    }
#ifdef POSIX_FADV_SEQUENTIAL
    posix_fadvise(in->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    in->cap = FIRST_BLOCK < max ? FIRST_BLOCK : max;
    in->max = max;
    in->buf = malloc(in->cap);
    if (!in->buf || !in->name)
        abort();
}

void argus_input_channel(argus_input *in, argus_channel *ch, const char *name,
                         size_t max)
{
    memset(in, 0, sizeof *in);
    in->fd = -1;
    in->channel = ch;
    in->name = strdup(name);
    in->max = max;
    if (!in->name)
        abort();
}

/* The next block from the channel: it becomes the buffer when nothing is
 * left unread, else it is copied after what is. A block holds whole
 * records, so bytes left unread are a record cut by its writer; one that
 * would pass the limit is dropped with the block, and the reader's error
 * about that record follows. */
static bool fill_from_channel(argus_input *in)
{
    if (in->lo == in->hi) {
        in->lo = in->hi = 0;
        if (!argus_channel_get(in->channel, &in->buf, &in->cap, &in->hi))
            in->eof = true;
        return true;
    }
    uint8_t *block = NULL;
    size_t cap = 0, len = 0;
    if (!argus_channel_get(in->channel, &block, &cap, &len)) {
        in->eof = true;
        return true;
    }
    size_t unread = in->hi - in->lo;
    if (unread + len > in->max) {
        argus_channel_give_back(in->channel, block, cap);
        return false;
    }
    if (in->lo > 0 || unread + len > in->cap) {
        uint8_t *p = malloc(unread + len);
        if (!p)
            abort();
        memcpy(p, in->buf + in->lo, unread);
        free(in->buf);
        in->buf = p;
        in->cap = unread + len;
        in->lo = 0;
        in->hi = unread;
    }
    memcpy(in->buf + in->hi, block, len);
    in->hi += len;
    argus_channel_give_back(in->channel, block, cap);
    return true;
}

bool argus_input_fill(argus_input *in)
{
    if (in->channel)
        return fill_from_channel(in);
    if (in->lo > 0) {
        memmove(in->buf, in->buf + in->lo, in->hi - in->lo);
        in->hi -= in->lo;
        in->lo = 0;
    }
    if (in->hi == in->cap) {
        if (in->cap >= in->max)
            return false;
        in->cap = in->cap * 2 < in->max ? in->cap * 2 : in->max;
        in->buf = realloc(in->buf, in->cap);
        if (!in->buf)
            abort();
    }
    for (;;) {
        ssize_t n = read(in->fd, in->buf + in->hi, in->cap - in->hi);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            argus_die(ARGUS_EX_IOERR, "%s: read error: %s", in->name, strerror(errno));
        if (n == 0)
            in->eof = true;
        in->hi += (size_t)n;
        return true;
    }
}

void argus_input_close(argus_input *in)
{
    if (in->fd > 0)
        close(in->fd);
    free(in->buf);
    free(in->name);
    memset(in, 0, sizeof *in);
}
