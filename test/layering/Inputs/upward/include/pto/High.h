/* public */
#include "pto/Low.h"
