/* rng.h - a seeded, portable generator for test and benchmark inputs (splitmix64), so
 * every input can be regenerated from its logged seed. Header only. */
#ifndef TETRA_RNG_H
#define TETRA_RNG_H

#include <math.h>
#include <stdint.h>

typedef struct { uint64_t s; } tetra_rng;

static inline uint64_t tetra_rng_next(tetra_rng *r) {
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* uniform in [0, 1) */
static inline double tetra_rng_uniform(tetra_rng *r) {
    return (double)(tetra_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* standard normal (Box-Muller) */
static inline double tetra_rng_normal(tetra_rng *r) {
    double u1 = tetra_rng_uniform(r), u2 = tetra_rng_uniform(r);
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

#endif
