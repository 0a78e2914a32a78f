/* argus-watch: the last --buffer-mb of trace text, in chunks of 1 MB; the
 * oldest chunk goes when a new one would pass the limit. A window of it
 * goes to a hang's folder (WATCH-WINDOW). */
#include "watch.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK (1u << 20)

typedef struct chunk {
    struct chunk *next;
    uint64_t first_ts, last_ts; /* of its lines with a time; 0: none yet */
    size_t used, cap;
    char data[];
} chunk;

static chunk *oldest, *newest;
static size_t bytes, max_bytes;
static uint64_t dropped_until;

void ring_init(size_t max)
{
    max_bytes = max < 2 * CHUNK ? 2 * CHUNK : max;
}

size_t ring_bytes(void)
{
    return bytes;
}

uint64_t ring_dropped_until(void)
{
    return dropped_until;
}

static void drop_oldest(void)
{
    chunk *c = oldest;
    oldest = c->next;
    if (!oldest)
        newest = NULL;
    if (c->last_ts)
        dropped_until = c->last_ts;
    bytes -= c->cap;
    free(c);
}

void ring_add(const char *line, size_t len, uint64_t ts)
{
    if (!newest || newest->cap - newest->used < len + 1) {
        size_t cap = len + 1 > CHUNK ? len + 1 : CHUNK;
        while (oldest && bytes + cap > max_bytes)
            drop_oldest();
        chunk *c = malloc(sizeof *c + cap);
        if (!c)
            abort();
        *c = (chunk){.cap = cap};
        if (newest)
            newest->next = c;
        else
            oldest = c;
        newest = c;
        bytes += cap;
    }
    memcpy(newest->data + newest->used, line, len);
    newest->data[newest->used + len] = '\n';
    newest->used += len + 1;
    if (ts) {
        if (!newest->first_ts)
            newest->first_ts = ts;
        newest->last_ts = ts;
    }
}

uint64_t ring_write(uint64_t from, uint64_t to)
{
    uint64_t n = 0;
    bool in = false; /* the last line with a time was in the window */
    for (chunk *c = oldest; c; c = c->next) {
        if (c->last_ts && c->last_ts < from)
            continue;
        if (c->first_ts > to)
            break;
        bool whole = c->first_ts >= from && c->last_ts && c->last_ts <= to;
        for (size_t at = 0; at < c->used;) {
            const char *line = c->data + at;
            const char *nl = memchr(line, '\n', c->used - at);
            size_t len = (size_t)(nl - line);
            at += len + 1;
            struct event_line ev;
            if (!whole && parse_event_line(line, len, &ev))
                in = ev.ts >= from && ev.ts <= to;
            else if (whole)
                in = true;
            if (in) {
                out_write(line, len + 1);
                n++;
            }
        }
    }
    return n;
}

void ring_free(void)
{
    while (oldest)
        drop_oldest();
    dropped_until = 0;
}
