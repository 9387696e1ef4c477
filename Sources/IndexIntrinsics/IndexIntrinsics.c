// Everything lives in the header as static inline functions; SwiftPM wants one source file.
#include "IndexIntrinsics.h"
