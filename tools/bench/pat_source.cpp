#include "pat_source.hpp"

#include <chrono>
#include <thread>

#include "patcoll.h"
#include "mpi/arrival_history.hpp"

namespace patcoll::bench {

bool parse_pat_source(const std::string &text, PatSourceKind &out) {
  for (PatSourceKind k : {PatSourceKind::oracle, PatSourceKind::none, PatSourceKind::runtime, PatSourceKind::history})
    if (text == to_string(k)) {
      out = k;
      return true;
    }
  return false;
}

const char *to_string(PatSourceKind kind) {
  switch (kind) {
    case PatSourceKind::oracle: return "oracle";
    case PatSourceKind::none: return "none";
    case PatSourceKind::runtime: return "runtime";
    case PatSourceKind::history: return "history";
  }
  return "?";
}

PatSource::PatSource(PatSourceKind kind, double edge_fraction, int window, MPI_Comm comm)
    : kind_(kind), edge_fraction_(edge_fraction), window_(window < 1 ? 1 : window), comm_(comm) {
  MPI_Comm_size(comm, &procs_);
}

std::string PatSource::start() {
  if (kind_ != PatSourceKind::runtime) return "";
  if (PAT_Init(comm_) != MPI_SUCCESS) return std::string("PAT runtime: ") + PAT_Last_error();
  return "";
}

std::string PatSource::stop() {
  if (kind_ != PatSourceKind::runtime) return "";
  if (PAT_Finalize() != MPI_SUCCESS) return std::string("PAT runtime: ") + PAT_Last_error();
  return "";
}

void PatSource::before_iteration(const std::vector<double> &pap) {
  switch (kind_) {
    case PatSourceKind::oracle: current_ = pap; break;
    case PatSourceKind::none:
    case PatSourceKind::runtime: current_.clear(); break;
    case PatSourceKind::history:
      if (measured_.empty()) {
        current_.clear();
      } else {
        // The shim's estimator over the window: rank-major samples.
        const int width = static_cast<int>(measured_.size());
        std::vector<double> samples(static_cast<std::size_t>(procs_) * measured_.size());
        for (int call = 0; call < width; ++call)
          for (int r = 0; r < procs_; ++r)
            samples[static_cast<std::size_t>(r) * width + call] = measured_[call][r];
        current_ = mpi::mean_relative_arrivals(samples, procs_, width);
      }
      break;
  }
  if (kind_ != PatSourceKind::runtime) PAT_Set_arrivals(comm_, current_.empty() ? nullptr : current_.data());
}

namespace {
void spend(double seconds, bool busy) {
  if (seconds <= 0) return;
  if (!busy) {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    return;
  }
  const double end = MPI_Wtime() + seconds;
  while (MPI_Wtime() < end) {
  }
}
}  // namespace

void PatSource::compute(double seconds, bool busy) {
  if (kind_ != PatSourceKind::runtime) {
    spend(seconds, busy);
    return;
  }
  // The edge is at a fixed fraction of this rank's computation; a rank with
  // nothing to compute still marks its (immediate) edge, as every rank must.
  PAT_ProcessingStart();
  spend(seconds * edge_fraction_, busy);
  PAT_Edge(edge_fraction_);
  spend(seconds * (1 - edge_fraction_), busy);
  PAT_ProcessingEnd();
}

void PatSource::after_iteration(double measured_delay) {
  if (kind_ != PatSourceKind::history) return;
  std::vector<double> all(static_cast<std::size_t>(procs_));
  MPI_Allgather(&measured_delay, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, comm_);
  measured_.push_back(std::move(all));
  if (static_cast<int>(measured_.size()) > window_) measured_.erase(measured_.begin());
}

}  // namespace patcoll::bench
