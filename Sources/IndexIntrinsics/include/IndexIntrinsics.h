#ifndef INDEX_INTRINSICS_H
#define INDEX_INTRINSICS_H

// What the index needs and Swift cannot say. Everything is static inline: Swift inlines it.

#ifndef _GNU_SOURCE
#define _GNU_SOURCE  // glibc declares sincos only for GNU sources
#endif
#include <math.h>

/// Asks the CPU to start loading the cache line holding `address`, without waiting for it and
/// without faulting.
static inline void index_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

/// The sine and cosine of `x` in one call: the C library computes both from one argument
/// reduction, and its results are the very values `sin` and `cos` return (the conformance
/// suite holds them bit for bit against the textbook formulas).
static inline void index_sincos(double x, double *sine, double *cosine) {
#if defined(__APPLE__)
    __sincos(x, sine, cosine);
#else
    sincos(x, sine, cosine);
#endif
}

#endif
