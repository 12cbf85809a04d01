/* The coefficients of the f64 log and sine / cosine that both the random
 * generator's C kernel (lib/Kernels/KernelRandom.c) and the compiled
 * kernels (lib/Target/LLVMIR/EmitMathF64.c) evaluate, in the same order,
 * so that both compute the same bits, and erf's that the compiled erf
 * and erfc (EmitMathTrig.c) share: Taylor series, highest degree first,
 * for Horner's scheme with fused multiply-adds. */
#ifndef PTO_POLYF64_H
#define PTO_POLYF64_H

/* log(m) = 2s + 2s z P(z), s = (m - 1) / (m + 1), z = s^2 <= 0.0295 for
 * m in [sqrt(1/2), sqrt(2)): P's coefficients 1/(2k+1), k = 11 down to 1 */
static const double pto_poly_atanh[11] = {1.0 / 23, 1.0 / 21, 1.0 / 19, 1.0 / 17,
                                          1.0 / 15, 1.0 / 13, 1.0 / 11, 1.0 / 9,
                                          1.0 / 7,  1.0 / 5,  1.0 / 3};
/* sin(r) = r + r z S(z), cos(r) = 1 + z C(z), z = r^2, |r| <= pi/4:
 * (-1)^k / (2k+1)!, k = 8 down to 1, and (-1)^k / (2k)!, k = 9 down to 1 */
static const double pto_poly_sin[8] = {1.0 / 355687428096000.0, -1.0 / 1307674368000.0,
                                       1.0 / 6227020800.0,      -1.0 / 39916800.0,
                                       1.0 / 362880.0,          -1.0 / 5040.0,
                                       1.0 / 120.0,             -1.0 / 6.0};
static const double pto_poly_cos[9] = {-1.0 / 6402373705728000.0, 1.0 / 20922789888000.0,
                                       -1.0 / 87178291200.0,      1.0 / 479001600.0,
                                       -1.0 / 3628800.0,          1.0 / 40320.0,
                                       -1.0 / 720.0,              1.0 / 24.0,
                                       -0.5};
/* erf(x) = x P(x^2) for |x| < 1: 2/sqrt(pi) (-1)^n / (n! (2n+1)),
 * n = 15 down to 0 */
static const double pto_poly_erf[16] = {
    -2.7835162072109215e-14, 4.4632242632864775e-13, -6.7113668551641105e-12,
    9.422759064650411e-11,   -1.2290555301717928e-09, 1.4807192815879218e-08,
    -1.6365844691234924e-07, 1.6462114365889248e-06,  -1.492565035840625e-05,
    0.00012055332981789664,  -0.0008548327023450853,  0.005223977625442188,
    -0.026866170645131252,   0.11283791670955126,     -0.37612638903183754,
    1.1283791670955126};
/* ln 2 split so that n * hi is exact for |n| < 2^20; pi/2 as three
 * doubles; 2/pi */
#define PTO_LN2_HI 6.93147180369123816490e-01
#define PTO_LN2_LO 1.90821492927058770002e-10
#define PTO_PIO2_1 1.5707963267948966
#define PTO_PIO2_2 6.123233995736766e-17
#define PTO_PIO2_3 -1.4973849048591698e-33
#define PTO_2_OVER_PI 0.6366197723675814

#endif
