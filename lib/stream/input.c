#include "argus/stream/input.h"
#include "argus/stream/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#define FIRST_BLOCK (4u << 20)
#define PACKED_BLOCK (1u << 20)

/* Compressed input being read: what was read of the file and not yet
 * decompressed is src[lo, hi). */
enum unpack_kind { UNPACK_GZIP = 1, UNPACK_ZSTD };

struct argus_unpack {
    enum unpack_kind kind;
    z_stream z;
    ZSTD_DStream *zs;
    uint8_t *src;
    size_t lo, hi;
    bool src_eof;
    bool between;         /* at the end of a gzip member or zstd frame */
    uint64_t used;        /* compressed bytes decompressed, for messages */
};

void argus_input_open_raw(argus_input *in, const char *path, size_t max)
{
    argus_input_open(in, path, max);
    in->raw = true;
}

/* IN reading the open file FD, named NAME in messages, through a window
 * of at most MAX bytes: its first block, nothing read yet. */
static void input_on_fd(argus_input *in, int fd, const char *name, size_t max)
{
    memset(in, 0, sizeof *in);
    in->fd = fd;
    in->name = argus_xstrdup(name, "input name");
    in->cap = FIRST_BLOCK < max ? FIRST_BLOCK : max;
    in->max = max;
    in->buf = argus_xmalloc(in->cap, "the input block");
}

void argus_input_open(argus_input *in, const char *path, size_t max)
{
    if (!path || strcmp(path, "-") == 0) {
        input_on_fd(in, 0, "<stdin>", max);
    } else {
        int fd = open(path, O_RDONLY);
        if (fd < 0)
            argus_die(ARGUS_EX_NOINPUT, "%s: %s", path, strerror(errno));
        /* open(2) takes a directory; its read would fail later as an I/O
         * error (74), where the input is the wrong thing to open (66) */
        struct stat st;
        if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
            argus_die(ARGUS_EX_NOINPUT, "%s: %s", path, strerror(EISDIR));
        input_on_fd(in, fd, path, max);
    }
#ifdef POSIX_FADV_SEQUENTIAL
    posix_fadvise(in->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
}

void argus_input_channel(argus_input *in, argus_channel *ch, const char *name,
                         size_t max)
{
    memset(in, 0, sizeof *in);
    in->fd = -1;
    in->channel = ch;
    in->name = argus_xstrdup(name, "input name");
    in->max = max;
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
        uint8_t *p = argus_xmalloc(unread + len, "the input block");
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

/* read(2) into DST, up to N bytes: 0 at the end; a read error reports and
 * exits 74. */
static size_t read_some(argus_input *in, uint8_t *dst, size_t n)
{
    for (;;) {
        ssize_t got = read(in->fd, dst, n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            argus_die(ARGUS_EX_IOERR, "%s: read error: %s", in->name, strerror(errno));
        return (size_t)got;
    }
}

static bool gzip_magic(const uint8_t *b, size_t n)
{
    return n >= 2 && b[0] == 0x1f && b[1] == 0x8b;
}

static bool zstd_magic(const uint8_t *b, size_t n)
{
    return n >= 4 && b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd;
}

static const char *unpack_name(const struct argus_unpack *u)
{
    return u->kind == UNPACK_GZIP ? "gzip" : "zstd";
}

/* The first bytes say whether the input is compressed: then they become
 * the decompressor's input. */
static void sniff(argus_input *in)
{
    in->sniffed = true;
    size_t limit = in->cap < PACKED_BLOCK ? in->cap : PACKED_BLOCK;
    while (in->hi < 4 && in->hi < limit && !in->eof) {
        size_t got = read_some(in, in->buf + in->hi, limit - in->hi);
        if (got == 0)
            in->eof = true;
        in->hi += got;
    }
    const uint8_t *b = in->buf + in->lo;
    size_t n = in->hi - in->lo;
    if (in->raw || (!gzip_magic(b, n) && !zstd_magic(b, n)))
        return;
    struct argus_unpack *u = argus_xcalloc(1, sizeof *u, "decompressor");
    u->src = argus_xmalloc(PACKED_BLOCK, "compressed input");
    /* each library allocates its own state: its failure here is a shortage */
    if (gzip_magic(b, n)) {
        u->kind = UNPACK_GZIP;
        if (inflateInit2(&u->z, 15 + 16) != Z_OK) /* + 16: a gzip header */
            argus_die(ARGUS_EX_IOERR, "out of memory (gzip decompressor)");
    } else {
        u->kind = UNPACK_ZSTD;
        if (!(u->zs = ZSTD_createDStream()))
            argus_die(ARGUS_EX_IOERR, "out of memory (zstd decompressor)");
    }
    memcpy(u->src, b, n);
    u->hi = n;
    u->src_eof = in->eof;
    in->eof = false;
    in->lo = in->hi = 0;
    in->unpack = u;
}

/* Decompresses into the buffer after hi: at least one byte, or the end. */
static void unpack_more(argus_input *in)
{
    struct argus_unpack *u = in->unpack;
    for (;;) {
        if (u->lo == u->hi && !u->src_eof) {
            u->lo = 0;
            u->hi = read_some(in, u->src, PACKED_BLOCK);
            u->src_eof = u->hi == 0;
        }
        if (u->lo == u->hi) {
            if (!u->between)
                argus_die(ARGUS_EX_DATAERR,
                          "%s: %s data cut short: the file ends inside it, after %llu "
                          "compressed bytes", in->name, unpack_name(u),
                          (unsigned long long)u->used);
            in->eof = true;
            return;
        }
        if (u->between && u->kind == UNPACK_GZIP) {
            /* another member (gzip -c a >> b), or bytes that are none */
            if (u->hi - u->lo < 2 && !u->src_eof) {
                memmove(u->src, u->src + u->lo, u->hi - u->lo);
                u->hi -= u->lo;
                u->lo = 0;
                size_t got = read_some(in, u->src + u->hi, PACKED_BLOCK - u->hi);
                u->src_eof = got == 0;
                u->hi += got;
                continue;
            }
            if (!gzip_magic(u->src + u->lo, u->hi - u->lo))
                argus_die(ARGUS_EX_DATAERR,
                          "%s: gzip data: bytes that are not gzip after its end, at "
                          "compressed byte %llu", in->name, (unsigned long long)u->used);
            inflateReset(&u->z);
        }
        size_t before_in = u->lo, before_out = in->hi;
        if (u->kind == UNPACK_GZIP) {
            u->z.next_in = u->src + u->lo;
            u->z.avail_in = (uInt)(u->hi - u->lo);
            u->z.next_out = in->buf + in->hi;
            size_t room = in->cap - in->hi;
            u->z.avail_out = room > UINT32_MAX ? UINT32_MAX : (uInt)room;
            int rc = inflate(&u->z, Z_NO_FLUSH);
            u->lo = (size_t)(u->z.next_in - u->src);
            in->hi = (size_t)(u->z.next_out - in->buf);
            if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
                argus_die(ARGUS_EX_DATAERR, "%s: gzip data corrupt at compressed byte %llu: %s",
                          in->name, (unsigned long long)(u->used + (u->lo - before_in)),
                          u->z.msg ? u->z.msg : "bad data");
            u->between = rc == Z_STREAM_END;
        } else {
            ZSTD_inBuffer zin = {u->src, u->hi, u->lo};
            ZSTD_outBuffer zout = {in->buf, in->cap, in->hi};
            size_t rc = ZSTD_decompressStream(u->zs, &zout, &zin);
            u->lo = zin.pos;
            in->hi = zout.pos;
            if (ZSTD_isError(rc))
                argus_die(ARGUS_EX_DATAERR, "%s: zstd data corrupt at compressed byte %llu: %s",
                          in->name, (unsigned long long)(u->used + (u->lo - before_in)),
                          ZSTD_getErrorName(rc));
            u->between = rc == 0;
        }
        u->used += u->lo - before_in;
        if (in->hi > before_out)
            return;
    }
}

int argus_input_file_fd(const argus_input *in)
{
    struct stat st;
    if (in->channel || in->unpack || in->fd < 0 || fstat(in->fd, &st) != 0 ||
        !S_ISREG(st.st_mode))
        return -1;
    return in->fd;
}

bool argus_input_reopen(const argus_input *in, argus_input *again, size_t max)
{
    struct stat st;
    if (in->channel || in->fd < 0 || fstat(in->fd, &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    /* a new open file description: a dup would share IN's offset */
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", in->fd);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return false;
    input_on_fd(again, fd, in->name, max);
    again->raw = in->raw;
    return true;
}

const char *argus_input_compression(const argus_input *in)
{
    return in->unpack ? unpack_name(in->unpack) : NULL;
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
        in->buf = argus_xrealloc(in->buf, in->cap, "the input buffer");
    }
    if (!in->sniffed) {
        sniff(in);
        if (!in->unpack)
            return true;
    }
    if (in->unpack) {
        unpack_more(in);
        return true;
    }
    size_t n = read_some(in, in->buf + in->hi, in->cap - in->hi);
    if (n == 0)
        in->eof = true;
    in->hi += n;
    return true;
}

void argus_input_close(argus_input *in)
{
    if (in->unpack) {
        if (in->unpack->kind == UNPACK_GZIP)
            inflateEnd(&in->unpack->z);
        else
            ZSTD_freeDStream(in->unpack->zs);
        free(in->unpack->src);
        free(in->unpack);
    }
    if (in->fd > 0)
        close(in->fd);
    free(in->buf);
    free(in->name);
    memset(in, 0, sizeof *in);
}

int argus_input_seekable_fd(argus_input *in)
{
    if (argus_input_file_fd(in) >= 0) {
        int fd = dup(in->fd);
        if (fd >= 0 && lseek(fd, 0, SEEK_SET) == 0)
            return fd;
        if (fd >= 0)
            close(fd);
        return -1;
    }
    /* an unlinked file in $TMPDIR (disk, not memory: a trace can be
     * gigabytes); a memory file where none can be made */
    char path[4096];
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/argus-input-XXXXXX",
             dir && *dir && strlen(dir) < sizeof path - 32 ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd >= 0)
        unlink(path);
    else
        fd = memfd_create("argus-input", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    for (;;) {
        const uint8_t *p = in->buf + in->lo;
        size_t n = in->hi - in->lo;
        while (n) {
            ssize_t w = write(fd, p, n);
            if (w < 0) {
                close(fd);
                return -1;
            }
            p += w;
            n -= (size_t)w;
        }
        in->lo = in->hi;
        if (in->eof)
            break;
        argus_input_fill(in); /* the window is empty: it cannot be full */
    }
    if (lseek(fd, 0, SEEK_SET) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}
