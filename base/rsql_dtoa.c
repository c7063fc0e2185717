/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The shortest decimal that reads back to a double, in integer arithmetic (the method of Ulf
 * Adams' Ryu, PLDI 2018, written here from the paper's mathematics): a double is m x 2^e; the
 * doubles next to it bound the interval of reals that round to it; one 64 x 128-bit product
 * with an approximation of 5^i or 5^-q scales the value and both bounds to decimal integers of
 * about 17 digits at a chosen power of ten; then digits are dropped from all three while the
 * bounds still differ, and the last kept digit is rounded. The scale factors are computed once,
 * at first use, from exact big-integer powers of five (no table is stored in the source).
 *
 * Entry point: rsql_dtoa_shortest (rsql_dtoa.h), used by rsql_value_format_double
 * (rsql_value.c), which lays the digits out and handles zero, NaN and the infinities.
 */
#include "config.h"
#include "base/rsql_dtoa.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

typedef unsigned __int128 u128;

/* A 128-bit scale factor, high and low words. */
typedef struct scale {
    uint64_t lo, hi;
} scale_t;

/* Bits of the scale factors: each is in [2^124, 2^125 + 1]. */
#define SCALE_BITS 125
/*
** pow5[i] ~ 5^i / 2^(bitlen(5^i) - SCALE_BITS) for the doubles below 2^2 (e2 < 0: i up to
** 325 for the smallest subnormal); inv5[q] ~ 2^(bitlen(5^q) - 1 + SCALE_BITS) / 5^q, rounded
** up, for the others (q up to 290 for DBL_MAX).
*/
#define POW5_N 326
#define INV5_N 291

static scale_t pow5[POW5_N];
static scale_t inv5[INV5_N];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;
static int tables_ready; /* set (release) once the tables are written; read with acquire */

/* ---- the tables, from big integers (32-bit limbs, least significant first) */

#define BIG_LIMBS 40 /* 1,280 bits: 5^325 has 755, 2^INV_TOP 1,025 */
#define INV_TOP 1024 /* inv5 from floor(2^INV_TOP / 5^q), q = 0, 1, ... */

typedef struct big {
    uint32_t w[BIG_LIMBS];
} big_t;

static int big_bitlen(const big_t *b)
{
    for (int i = BIG_LIMBS - 1; i >= 0; i--) {
        if (b->w[i]) {
            return i * 32 + 32 - __builtin_clz(b->w[i]);
        }
    }
    return 0;
}

/* Limb i of b (0 past either end). */
static uint64_t big_limb(const big_t *b, int i)
{
    return i >= 0 && i < BIG_LIMBS ? b->w[i] : 0;
}

/* floor(b x 2^-shift) (shift may be negative: a left shift), its low 128 bits. */
static scale_t big_window(const big_t *b, int shift)
{
    uint32_t w[4];
    for (int k = 0; k < 4; k++) {
        int bit = shift + 32 * k;
        int i = bit >= 0 ? bit / 32 : -((-bit + 31) / 32); /* floor(bit / 32) */
        int r = bit - 32 * i;
        w[k] = (uint32_t)(((big_limb(b, i + 1) << 32) | big_limb(b, i)) >> r);
    }
    scale_t s = {((uint64_t)w[1] << 32) | w[0], ((uint64_t)w[3] << 32) | w[2]};
    return s;
}

static void big_mul_small(big_t *b, uint32_t f)
{
    uint64_t carry = 0;
    for (int i = 0; i < BIG_LIMBS; i++) {
        uint64_t t = (uint64_t)b->w[i] * f + carry;
        b->w[i] = (uint32_t)t;
        carry = t >> 32;
    }
}

static void big_div_small(big_t *b, uint32_t f)
{
    uint64_t rem = 0;
    for (int i = BIG_LIMBS - 1; i >= 0; i--) {
        uint64_t t = (rem << 32) | b->w[i];
        b->w[i] = (uint32_t)(t / f);
        rem = t % f;
    }
}

static void tables_init(void)
{
    big_t p;
    memset(&p, 0, sizeof p);
    p.w[0] = 1; /* 5^0 */
    for (int i = 0; i < POW5_N; i++) {
        pow5[i] = big_window(&p, big_bitlen(&p) - SCALE_BITS);
        big_mul_small(&p, 5);
    }
    /*
    ** x = floor(2^INV_TOP / 5^q), one exact division by 5 per step (floor(floor(a / b) / c) is
    ** floor(a / bc)); inv5[q] = floor(x / 2^s) + 1 = floor(2^(INV_TOP - s) / 5^q) + 1 with
    ** INV_TOP - s = bitlen(5^q) - 1 + SCALE_BITS.
    */
    big_t x, p5;
    memset(&x, 0, sizeof x);
    x.w[INV_TOP / 32] = 1u << (INV_TOP % 32);
    memset(&p5, 0, sizeof p5);
    p5.w[0] = 1;
    for (int q = 0; q < INV5_N; q++) {
        int s = INV_TOP - (big_bitlen(&p5) - 1 + SCALE_BITS);
        scale_t v = big_window(&x, s);
        v.lo++;
        v.hi += v.lo == 0;
        inv5[q] = v;
        big_div_small(&x, 5);
        big_mul_small(&p5, 5);
    }
    __atomic_store_n(&tables_ready, 1, __ATOMIC_RELEASE);
}

/* ---- exponent arithmetic (exact over the exponents of a double) */

/* floor(e x log10(2)), 0 <= e <= 1650. */
static inline int log10_pow2(int e)
{
    return (int)(((uint32_t)e * 78913u) >> 18);
}

/* floor(e x log10(5)), 0 <= e <= 2620. */
static inline int log10_pow5(int e)
{
    return (int)(((uint32_t)e * 732923u) >> 20);
}

/* The bit length of 5^e: floor(e x log2(5)) + 1, 0 <= e <= 3528. */
static inline int pow5_bits(int e)
{
    return (int)(((uint32_t)e * 1217359u) >> 19) + 1;
}

static inline bool divisible_pow5(uint64_t v, int q)
{
    for (int i = 0; i < q; i++) {
        if (v % 5 != 0) {
            return false;
        }
        v /= 5;
    }
    return true;
}

static inline bool divisible_pow2(uint64_t v, int q)
{
    return q < 64 && (v & ((UINT64_C(1) << q) - 1)) == 0;
}

/* floor(m x f / 2^j), 64 <= j (m < 2^55, so the sum below fits 128 bits). */
static inline uint64_t mul_shift(uint64_t m, scale_t f, int j)
{
    u128 lo = (u128)m * f.lo;
    u128 hi = (u128)m * f.hi;
    return (uint64_t)(((lo >> 64) + hi) >> (j - 64));
}

/* ---- dropping digits */

/*
** The value (vr), the upper (vp) and lower (vm) bounds as decimal integers at one power of
** ten, while digits are dropped: last is the remainder of vr at the last drop (divisor
** last_div), below_zero whether vr was exact and every digit dropped before that remainder
** was 0 (so last_div / 2 is an exact tie), vm_zero whether vm was exact and every digit
** dropped from it was 0 (the lower bound itself is a candidate).
*/
typedef struct cut {
    uint64_t vr, vp, vm, last, last_div;
    int dropped;
    bool below_zero, vm_zero;
} cut_t;

/* Drop n digits (c = 10^n) if the bounds still differ above them; no exactness kept. */
static inline __attribute__((always_inline)) bool cut_drop_fast(cut_t *s, uint64_t c, int n)
{
    uint64_t m = s->vm / c;
    if (s->vp < (m + 1) * c) { /* no multiple of c in (vm, vp] */
        return false;
    }
    uint64_t p = s->vp / c;
    uint64_t r = s->vr / c;
    s->last = s->vr - r * c;
    s->last_div = c;
    s->vr = r;
    s->vp = p;
    s->vm = m;
    s->dropped += n;
    return true;
}

/* Drop n digits (c = 10^n) if the bounds still differ above them. */
static inline __attribute__((always_inline)) bool cut_drop(cut_t *s, uint64_t c, int n)
{
    uint64_t m = s->vm / c;
    if (s->vp < (m + 1) * c) { /* no multiple of c in (vm, vp] */
        return false;
    }
    uint64_t p = s->vp / c;
    s->vm_zero = s->vm_zero && s->vm - m * c == 0;
    s->below_zero = s->below_zero && s->last == 0;
    uint64_t r = s->vr / c;
    s->last = s->vr - r * c;
    s->last_div = c;
    s->vr = r;
    s->vp = p;
    s->vm = m;
    s->dropped += n;
    return true;
}

/*
** The digits dropped when vr or the lower bound is exact at the starting power of ten
** (integers past 2^53, short binary fractions such as 0.5 or 2.75, the lower bound of an even
** significand): exactness is tracked for ties to even and for the lower bound as a candidate.
** Sets *up (round vr up) and *vr_out (vr is below the interval).
*/
static void cut_exact(cut_t *s, bool vr_zero, bool vm_zero, bool even, bool *up,
                      bool *vr_out)
{
    s->below_zero = vr_zero;
    s->vm_zero = vm_zero;
    /* the most digits that can go while the bounds differ above them (monotone: halving) */
    if (cut_drop(s, 100000000, 8)) {
        cut_drop(s, 100000000, 8);
    }
    cut_drop(s, 10000, 4);
    cut_drop(s, 100, 2);
    cut_drop(s, 10, 1);
    if (s->vm_zero) {
        /* the lower bound is a candidate and exact: its trailing zeros can go too */
        while (s->vm != 0 && s->vm % 10 == 0) {
            s->below_zero = s->below_zero && s->last == 0;
            s->last = s->vr % 10;
            s->last_div = 10;
            s->vr /= 10;
            s->vp /= 10;
            s->vm /= 10;
            s->dropped++;
        }
    }
    if (s->last * 2 != s->last_div) {
        *up = s->last * 2 > s->last_div;
    } else {
        *up = !s->below_zero || (s->vr & 1) != 0; /* exactly half: to even */
    }
    *vr_out = s->vr == s->vm && !(even && s->vm_zero); /* vr is below the interval */
}

/*
** See rsql_dtoa.h. The digits are Ryu's: the shortest in the rounding interval (ends included
** when the significand is even, as strtod rounds ties to even), of those the nearest to d,
** ties to even. That is the first length at which the rounding of d reads back, because the
** interval is symmetric about d (a candidate in it means the nearest one is too) except at a
** power of two, whose lower half is half as wide: there, when the shortest candidate is above
** d and the rounding below falls outside, false.
*/
bool rsql_dtoa_shortest(double d, uint64_t *digits, int *exp10)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    uint64_t frac = bits & ((UINT64_C(1) << 52) - 1);
    int bexp = (int)((bits >> 52) & 0x7ff);
    uint64_t m2;
    int e2;
    if (bexp == 0x7ff || (bexp == 0 && frac == 0)) {
        return false; /* not for NaN, the infinities or zero (the caller's cases) */
    }
    if (bexp == 0) {
        m2 = frac;
        e2 = 1 - 1075;
    } else {
        m2 = frac | (UINT64_C(1) << 52);
        e2 = bexp - 1075;
    }
    /* an integer below 2^53: its own digits (any shorter decimal is at least 1 away) */
    if (e2 <= 0 && e2 >= -52 && (m2 & ((UINT64_C(1) << -e2) - 1)) == 0) {
        uint64_t v = m2 >> -e2;
        int e = 0;
        while (v % 10 == 0) {
            v /= 10;
            e++;
        }
        *digits = v;
        *exp10 = e;
        return true;
    }
    if (!__atomic_load_n(&tables_ready, __ATOMIC_ACQUIRE)) {
        pthread_once(&tables_once, tables_init);
    }

    /* d = mv x 2^e2 with two more bits, the bounds mm and mp in the same units */
    e2 -= 2;
    bool even = (m2 & 1) == 0;
    bool narrow_below = frac == 0 && bexp > 1; /* a power of two: the double below is closer */
    uint64_t mv = 4 * m2;
    uint64_t mp = mv + 2;
    uint64_t mm = mv - (narrow_below ? 1 : 2);
    cut_t s = {.last = 0, .last_div = 1, .dropped = 0};
    bool vr_zero = false, vm_zero = false;
    int e10;
    if (e2 >= 0) {
        /* divide by 10^q = 2^q 5^q: multiply by inv5[q] and shift */
        int q = log10_pow2(e2) - (e2 > 3);
        int j = -e2 + q + pow5_bits(q) - 1 + SCALE_BITS;
        e10 = q;
        s.vr = mul_shift(mv, inv5[q], j);
        s.vp = mul_shift(mp, inv5[q], j);
        s.vm = mul_shift(mm, inv5[q], j);
        if (q <= 24) { /* past 24, 5^q > 2^55 > mp divides none of them */
            vr_zero = divisible_pow5(mv, q);
            if (even) {
                vm_zero = divisible_pow5(mm, q);
            } else if (divisible_pow5(mp, q)) {
                s.vp--; /* the upper bound is exact here and excluded */
            }
        }
    } else {
        /* multiply by 10^-e10 = 2^-e10 5^-e10: by pow5[i], a shift for the rest */
        int q = log10_pow5(-e2) - (-e2 > 1);
        int i = -e2 - q;
        int j = q - (pow5_bits(i) - SCALE_BITS);
        e10 = q + e2;
        s.vr = mul_shift(mv, pow5[i], j);
        s.vp = mul_shift(mp, pow5[i], j);
        s.vm = mul_shift(mm, pow5[i], j);
        vr_zero = divisible_pow2(mv, q);
        if (even) {
            vm_zero = divisible_pow2(mm, q);
        } else if (divisible_pow2(mp, q)) {
            s.vp--;
        }
    }
    bool up, vr_out;
    if (!vr_zero && !vm_zero) {
        /* the common case: neither vr nor the lower bound is exact at this power of ten */
        if (cut_drop_fast(&s, 100000000, 8)) {
            cut_drop_fast(&s, 100000000, 8);
        }
        cut_drop_fast(&s, 10000, 4);
        cut_drop_fast(&s, 100, 2);
        cut_drop_fast(&s, 10, 1);
        up = s.last * 2 >= s.last_div; /* never an exact tie: vr was not exact */
        vr_out = s.vr == s.vm;
    } else {
        cut_exact(&s, vr_zero, vm_zero, even, &up, &vr_out);
    }
    if (vr_out && !up && narrow_below) {
        return false; /* the nearest rounding at this length does not read back */
    }
    uint64_t out = s.vr + (vr_out || up);
    int e = e10 + s.dropped;
    while (out != 0 && out % 10 == 0) {
        out /= 10;
        e++;
    }
    *digits = out;
    *exp10 = e;
    return true;
}
