// PAP-aware allreduce ([PA]) and the scatter/gather families ([PS]).
#pragma once

#include "../algorithm.hpp"

namespace patcoll::core {

}  // namespace patcoll::core
