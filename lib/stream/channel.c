#include "argus/stream/channel.h"
#include "argus/stream/cli.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct block {
    uint8_t *p;
    size_t cap, len;
} block;

struct argus_channel {
    pthread_mutex_t lock;
    pthread_cond_t changed; /* a block put or taken, or the end */
    block *full;            /* a ring of the blocks not read yet */
    int slots, head, count;
    block *spare;           /* blocks read, for the writer to fill again */
    int spares;
    bool closed;
    void (*first_put)(void *); /* argus_channel_on_first_put's, until called */
    void *first_put_arg;
};

argus_channel *argus_channel_new(int slots)
{
    argus_channel *ch = argus_xcalloc(1, sizeof *ch, "channel");
    ch->full = argus_xcalloc((size_t)slots, sizeof *ch->full, "channel");
    ch->spare = argus_xcalloc((size_t)slots + 1, sizeof *ch->spare, "channel");
    ch->slots = slots;
    pthread_mutex_init(&ch->lock, NULL);
    pthread_cond_init(&ch->changed, NULL);
    return ch;
}

void argus_channel_free(argus_channel *ch)
{
    if (!ch)
        return;
    for (int i = 0; i < ch->count; i++)
        free(ch->full[(ch->head + i) % ch->slots].p);
    for (int i = 0; i < ch->spares; i++)
        free(ch->spare[i].p);
    pthread_mutex_destroy(&ch->lock);
    pthread_cond_destroy(&ch->changed);
    free(ch->full);
    free(ch->spare);
    free(ch);
}

void argus_channel_on_first_put(argus_channel *ch, void (*fn)(void *), void *arg)
{
    ch->first_put = fn;
    ch->first_put_arg = arg;
}

void argus_channel_put(argus_channel *ch, uint8_t **buf, size_t *cap, size_t len,
                       size_t min)
{
    if (ch->first_put) { /* the writer's own: no lock */
        void (*fn)(void *) = ch->first_put;
        ch->first_put = NULL;
        fn(ch->first_put_arg);
    }
    pthread_mutex_lock(&ch->lock);
    while (ch->count == ch->slots)
        pthread_cond_wait(&ch->changed, &ch->lock);
    ch->full[(ch->head + ch->count) % ch->slots] = (block){*buf, *cap, len};
    ch->count++;
    /* the reader waits only on an empty channel */
    if (ch->count == 1)
        pthread_cond_broadcast(&ch->changed);
    block next = {0};
    if (ch->spares > 0)
        next = ch->spare[--ch->spares];
    pthread_mutex_unlock(&ch->lock);
    if (next.cap < min) {
        free(next.p);
        next.p = argus_xmalloc(min, "a channel block");
        next.cap = min;
    }
    *buf = next.p;
    *cap = next.cap;
}

void argus_channel_close(argus_channel *ch)
{
    pthread_mutex_lock(&ch->lock);
    ch->closed = true;
    pthread_cond_broadcast(&ch->changed);
    pthread_mutex_unlock(&ch->lock);
}

bool argus_channel_get(argus_channel *ch, uint8_t **buf, size_t *cap, size_t *len)
{
    pthread_mutex_lock(&ch->lock);
    while (ch->count == 0 && !ch->closed)
        pthread_cond_wait(&ch->changed, &ch->lock);
    if (ch->count == 0) {
        pthread_mutex_unlock(&ch->lock);
        return false;
    }
    block b = ch->full[ch->head];
    ch->head = (ch->head + 1) % ch->slots;
    ch->count--;
    /* the writer waits only on a full channel */
    if (ch->count == ch->slots - 1)
        pthread_cond_broadcast(&ch->changed);
    pthread_mutex_unlock(&ch->lock);
    if (*buf)
        argus_channel_give_back(ch, *buf, *cap);
    *buf = b.p;
    *cap = b.cap;
    *len = b.len;
    return true;
}

void argus_channel_give_back(argus_channel *ch, uint8_t *buf, size_t cap)
{
    pthread_mutex_lock(&ch->lock);
    if (ch->spares <= ch->slots) { /* else one of the reader's own */
        ch->spare[ch->spares++] = (block){buf, cap, 0};
        buf = NULL;
    }
    pthread_mutex_unlock(&ch->lock);
    free(buf);
}
