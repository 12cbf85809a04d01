/* Constants of the .npy format shared by its reader and writer. */
#ifndef PTO_ARRAY_NPYFORMAT_H
#define PTO_ARRAY_NPYFORMAT_H

#include "pto/Npy.h"

#define PTO_NPY_MAGIC "\x93NUMPY"
#define PTO_NPY_MAGIC_LEN 6
/* numpy aligns the data (prefix + header) to 64 bytes. */
#define PTO_NPY_ALIGN 64

#endif
