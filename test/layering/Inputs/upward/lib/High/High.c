/* A higher layer using a lower one: fine. */
#include "Low/Low.h"
#include "pto/Low.h"
