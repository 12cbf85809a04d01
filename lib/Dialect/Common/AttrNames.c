/* The attribute-name table the Tensor and Tile dialects declare, so that
 * each context interns the names once (pto/Dialect/AttrNames.h). */
#include "pto/Dialect/AttrNames.h"

const char *const pto_attr_name_table[PTO_ATTR_NUM_IDS] = {
#define PTO_ATTR_NAME_OF_(ID) [PTO_ATTR_ID_##ID] = PTO_ATTR_##ID,
    PTO_ATTR_NAMES(PTO_ATTR_NAME_OF_)
#undef PTO_ATTR_NAME_OF_
};
