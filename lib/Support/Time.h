/* Wall-clock time for timing reports. */
#ifndef PTO_SUPPORT_TIME_H
#define PTO_SUPPORT_TIME_H

/* Seconds on a monotonic clock (an arbitrary origin). */
double pto_now_seconds(void);

#endif
