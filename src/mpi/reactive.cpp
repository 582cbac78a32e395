#include "reactive.hpp"

#include <string>
#include <vector>

#include "core/builders/reactive.hpp"
#include "error.hpp"

namespace patcoll::mpi {
namespace {

int ensure_control(CommState &state) {
  ReactiveControl &w = state.reactive;
  if (w.control != MPI_COMM_NULL) return MPI_SUCCESS;
  if (int rc = MPI_Comm_dup(state.comm, &w.control); rc != MPI_SUCCESS) {
    w.control = MPI_COMM_NULL;
    return mpi_failure(rc, "MPI_Comm_dup");
  }
  return MPI_SUCCESS;
}

}  // namespace

void release_reactive(CommState &state) {
  ReactiveControl &w = state.reactive;
  if (w.control != MPI_COMM_NULL) MPI_Comm_free(&w.control);
}

int run_reactive(CommState &state, const core::Algorithm &algorithm, const core::Params &params,
                 const ExecutionBuffers &buffers, const ExecutionContext &context) {
  using Build = core::Program (*)(const core::Params &, int, const core::ArrivalLinks &, bool);
  Build build = nullptr;
  if (params.collective == core::Collective::reduce) build = core::reduce_reactive_links;
  if (params.collective == core::Collective::allreduce) build = core::allreduce_reactive_links;
  if (!(algorithm.capabilities & core::reactive) || !build)
    return fail(MPI_ERR_INTERN, "no reactive mechanism for " + std::string(algorithm.name));
  if (int rc = ensure_control(state); rc != MPI_SUCCESS) return rc;
  const MPI_Comm control = state.reactive.control;
  const int tag = context.tag;
  const int rank = state.rank, procs = state.size;
  const int root = params.collective == core::Collective::reduce ? params.root : 0;  // where the reduce ends
  core::ArrivalLinks links;
  std::vector<MPI_Request> sends;
  std::vector<int> answers;  // the root's: two ints per hello, alive until their sends complete
  MPI_Request successor = MPI_REQUEST_NULL;
  char none = 0, inbox = 0;
  auto finish_sends = [&](int result) {
    if (sends.empty()) return result;
    const int rc = MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
    return result == MPI_SUCCESS && rc != MPI_SUCCESS ? mpi_failure(rc, "MPI_Waitall") : result;
  };
  if (rank == root) {
    // Hellos in arrival order; each answered with its predecessor.
    answers.resize(2 * static_cast<std::size_t>(procs));
    sends.reserve(static_cast<std::size_t>(procs));
    int previous = -1;
    for (int place = 0; place + 1 < procs; ++place) {
      MPI_Status status;
      if (int rc = MPI_Recv(&inbox, 0, MPI_BYTE, MPI_ANY_SOURCE, tag, control, &status); rc != MPI_SUCCESS)
        return finish_sends(mpi_failure(rc, "MPI_Recv"));
      int *answer = &answers[2 * static_cast<std::size_t>(place)];
      answer[0] = previous;
      answer[1] = place + 2 == procs ? 1 : 0;
      MPI_Request &request = sends.emplace_back(MPI_REQUEST_NULL);
      if (int rc = MPI_Isend(answer, 2, MPI_INT, status.MPI_SOURCE, tag, control, &request); rc != MPI_SUCCESS) {
        sends.pop_back();
        return finish_sends(mpi_failure(rc, "MPI_Isend"));
      }
      previous = status.MPI_SOURCE;
    }
    links.previous = previous;
  } else {
    int answer[2] = {-1, 0};
    if (int rc = MPI_Send(&none, 0, MPI_BYTE, root, tag, control); rc != MPI_SUCCESS)
      return mpi_failure(rc, "MPI_Send");
    if (int rc = MPI_Recv(answer, 2, MPI_INT, root, tag, control, MPI_STATUS_IGNORE); rc != MPI_SUCCESS)
      return mpi_failure(rc, "MPI_Recv");
    links.previous = answer[0];
    if (links.previous >= 0) {
      MPI_Request &request = sends.emplace_back(MPI_REQUEST_NULL);
      if (int rc = MPI_Isend(&none, 0, MPI_BYTE, links.previous, tag, control, &request); rc != MPI_SUCCESS) {
        sends.pop_back();
        return mpi_failure(rc, "MPI_Isend");
      }
    }
    if (answer[1]) {
      links.next = root;
    } else {
      links.next = core::kUnknownPeer;
      if (int rc = MPI_Irecv(&inbox, 0, MPI_BYTE, MPI_ANY_SOURCE, tag, control, &successor); rc != MPI_SUCCESS)
        return finish_sends(mpi_failure(rc, "MPI_Irecv"));
    }
  }

  Workspace workspace;
  int result = MPI_SUCCESS;
  std::size_t done = 0;
  if (successor != MPI_REQUEST_NULL) {
    // The steps that need no successor run while it is on its way.
    core::Program part = build(params, rank, links, false);
    done = core::known_steps(part);
    part.steps.resize(done);
    if (done > 0) result = execute(part, ProgramShape::of(part), buffers, context, workspace);
    MPI_Status status;
    if (int rc = MPI_Wait(&successor, &status); rc != MPI_SUCCESS) return finish_sends(mpi_failure(rc, "MPI_Wait"));
    links.next = status.MPI_SOURCE;
  }
  const core::Program program = build(params, rank, links, false);
  const int rc = execute(program, ProgramShape::of(program), buffers, context, workspace, done);
  if (result == MPI_SUCCESS) result = rc;
  return finish_sends(result);
}

}  // namespace patcoll::mpi
