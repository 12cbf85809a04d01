/* A lower layer reaching up. */
#include "pto/Low.h"
#include "High/Inner.h"
#include "pto/High.h"
#include "pto/Stray.h"
