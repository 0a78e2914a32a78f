/* The PRNG of the bench generators (bench/gen.c, bench/gen-kdebug.c):
 * splitmix64, small, fast and the same on every platform, so that a seed
 * names one trace. */
#ifndef ARGUS_BENCH_RNG_H
#define ARGUS_BENCH_RNG_H

#include <stdint.h>

static uint64_t rng_state;

static inline uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Uniform in [0, n) for n < 2^32, by multiply-shift (no division). */
static inline uint32_t rng_below(uint32_t n)
{
    return (uint32_t)(((rng_next() >> 32) * n) >> 32);
}

#endif
