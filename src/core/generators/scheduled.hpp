// Schedule-based reduce algorithms: Clairvoyant ([M], [PO]) and the
// Lowery–Langou greedy reductions ([LL]). The generators themselves are
// declared in their own headers in this folder.
#pragma once

#include <vector>

#include "../algorithm.hpp"

namespace patcoll::core {

}  // namespace patcoll::core
