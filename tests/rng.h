/* rng.h — the tests' deterministic xorshift64* generator, so that every failure
 * reproduces. Each test program includes it once and seeds it as it likes. */
#ifndef BITMAPD_TESTS_RNG_H
#define BITMAPD_TESTS_RNG_H

#include <stdint.h>

static uint64_t rng_state = 88172645463325252ULL;

static inline uint32_t rng32(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545F4914F6CDD1DULL) >> 32);
}

/* 64 bits: two draws. */
static inline uint64_t rng64(void) { return (uint64_t)rng32() << 32 | rng32(); }

#endif
