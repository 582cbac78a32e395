// PAP-aware allreduce ([PA]) and the scatter/gather families ([PS]).
#pragma once

#include <vector>

#include "../algorithm.hpp"

namespace patcoll::core {

// Every rank sorted by predicted arrival, earliest first; ties are broken by
// rank ([PO] §4.4), so equal or missing PATs give rank order.
std::vector<int> arrival_order(const Params &);

// MPI_Allreduce, PAP-aware ([PA] §4)
Program allreduce_slt(const Params &, int rank);
Program allreduce_prr(const Params &, int rank);
// prr's regime: true when the latest process is late enough for the
// prereduced form (presteps among the others, then P−1 exchanges with it).
bool prr_uses_presteps(const Params &);

// MPI_Scatter ([PS] §2.1, §4.1)
Program scatter_lin(const Params &, int rank);
Program scatter_bnom(const Params &, int rank);
Program scatter_slin(const Params &, int rank);
Program scatter_sbn(const Params &, int rank);

// MPI_Gather ([PS] §2.1, §4.2)
Program gather_lin(const Params &, int rank);
Program gather_ls(const Params &, int rank);
Program gather_bnom(const Params &, int rank);
Program gather_sls(const Params &, int rank);
Program gather_sbn(const Params &, int rank);

}  // namespace patcoll::core
