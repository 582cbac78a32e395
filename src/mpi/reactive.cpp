#include "reactive.hpp"

#include <algorithm>
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

// A reactive collective's line, as data: the builder, the root (where the
// line starts or ends) and whether the root's Program feeds the first in
// line (broadcast) or ends the line (reduce).
using Build = core::Program (*)(const core::Params &, int, const core::ArrivalLinks &, bool);
struct Line {
  Build build = nullptr;
  int root = 0;
  bool root_sends = false;
};

Line line_of(const core::Params &params) {
  switch (params.collective) {
    case core::Collective::reduce:
      return {core::reduce_reactive_links, params.root, false};
    case core::Collective::allreduce:
      return {core::allreduce_reactive_links, 0, false};  // the reduce ends at rank 0
    case core::Collective::bcast:
      return {core::bcast_reactive_links, params.root, true};
    default:
      return {};
  }
}

}  // namespace

void release_reactive(CommState &state) {
  ReactiveControl &w = state.reactive;
  if (w.control != MPI_COMM_NULL) MPI_Comm_free(&w.control);
}

int run_reactive(CommState &state, const core::Algorithm &algorithm, const core::Params &params,
                 const ExecutionBuffers &buffers, const ExecutionContext &context) {
  const Line line = line_of(params);
  if (!(algorithm.capabilities & core::reactive) || !line.build)
    return fail(MPI_ERR_INTERN, "no reactive mechanism for " + std::string(algorithm.name));
  if (int rc = ensure_control(state); rc != MPI_SUCCESS) return rc;
  const MPI_Comm control = state.reactive.control;
  const int tag = context.tag;
  const int rank = state.rank, procs = state.size;
  const int root = line.root;
  core::ArrivalLinks links;
  std::vector<MPI_Request> sends;
  std::vector<int> answers;  // the root's: two ints per hello, alive until their sends complete
  // The root's next hello, or another rank's successor's "I am here".
  MPI_Request pending = MPI_REQUEST_NULL;
  char none = 0, inbox = 0;
  int answered = 0, previous = -1, first = -1;  // the root's hellos so far
  auto finish = [&](int result) -> int {
    if (pending != MPI_REQUEST_NULL) {  // after an error only
      MPI_Cancel(&pending);
      MPI_Wait(&pending, MPI_STATUS_IGNORE);
    }
    if (sends.empty()) return result;
    const int rc = MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
    return result == MPI_SUCCESS && rc != MPI_SUCCESS ? mpi_failure(rc, "MPI_Waitall") : result;
  };
  // The root: answers the hello of `source` with its predecessor and
  // whether it is the last, and waits for the next hello.
  auto serve = [&](int source) -> int {
    int *answer = &answers[2 * static_cast<std::size_t>(answered)];
    answer[0] = previous;
    answer[1] = answered + 2 == procs ? 1 : 0;
    MPI_Request &request = sends.emplace_back(MPI_REQUEST_NULL);
    if (int rc = MPI_Isend(answer, 2, MPI_INT, source, tag, control, &request); rc != MPI_SUCCESS) {
      sends.pop_back();
      return mpi_failure(rc, "MPI_Isend");
    }
    if (first < 0) first = source;
    previous = source;
    if (++answered + 1 < procs)
      if (int rc = MPI_Irecv(&inbox, 0, MPI_BYTE, MPI_ANY_SOURCE, tag, control, &pending); rc != MPI_SUCCESS)
        return mpi_failure(rc, "MPI_Irecv");
    return MPI_SUCCESS;
  };
  // Whether the awaited control message came (blocking or not); the root
  // serves it, another rank learns its successor.
  auto poll = [&](bool block, bool &came) -> int {
    MPI_Status status;
    int flag = 1;
    const int rc = block ? MPI_Wait(&pending, &status) : MPI_Test(&pending, &flag, &status);
    if (rc != MPI_SUCCESS) return mpi_failure(rc, block ? "MPI_Wait" : "MPI_Test");
    came = flag != 0;
    if (!came) return MPI_SUCCESS;
    if (rank == root) return serve(status.MPI_SOURCE);
    links.next = status.MPI_SOURCE;
    return MPI_SUCCESS;
  };

  if (rank == root) {
    // Hellos in arrival order. The root waits for those its own links
    // need (the reduce's: all, its predecessor is the last; the
    // broadcast's: the first, its successor) and serves the rest while
    // its Program runs.
    answers.resize(2 * static_cast<std::size_t>(procs));
    sends.reserve(static_cast<std::size_t>(procs));
    if (int rc = MPI_Irecv(&inbox, 0, MPI_BYTE, MPI_ANY_SOURCE, tag, control, &pending); rc != MPI_SUCCESS)
      return mpi_failure(rc, "MPI_Irecv");
    const int needed = line.root_sends ? 1 : procs - 1;
    for (bool came = false; answered < needed;)
      if (int rc = poll(true, came); rc != MPI_SUCCESS) return finish(rc);
    if (line.root_sends) links.next = first;
    else links.previous = previous;
  } else {
    int answer[2] = {-1, 0};
    if (int rc = MPI_Send(&none, 0, MPI_BYTE, root, tag, control); rc != MPI_SUCCESS)
      return mpi_failure(rc, "MPI_Send");
    if (int rc = MPI_Recv(answer, 2, MPI_INT, root, tag, control, MPI_STATUS_IGNORE); rc != MPI_SUCCESS)
      return mpi_failure(rc, "MPI_Recv");
    links.previous = answer[0] >= 0 ? answer[0] : line.root_sends ? root : -1;
    if (answer[0] >= 0) {
      MPI_Request &request = sends.emplace_back(MPI_REQUEST_NULL);
      if (int rc = MPI_Isend(&none, 0, MPI_BYTE, answer[0], tag, control, &request); rc != MPI_SUCCESS) {
        sends.pop_back();
        return mpi_failure(rc, "MPI_Isend");
      }
    }
    if (answer[1]) {
      links.next = line.root_sends ? -1 : root;
    } else {
      links.next = core::kUnknownPeer;
      if (int rc = MPI_Irecv(&inbox, 0, MPI_BYTE, MPI_ANY_SOURCE, tag, control, &pending); rc != MPI_SUCCESS)
        return finish(mpi_failure(rc, "MPI_Irecv"));
    }
  }

  Workspace workspace;
  Execution execution;
  int result = MPI_SUCCESS;
  auto note = [&](int rc) {
    if (result == MPI_SUCCESS) result = rc;
  };
  std::size_t done = 0;
  if (links.next == core::kUnknownPeer) {
    // The steps that need no successor, one at a time, while it is on its
    // way; links.held: the steps done when it came (at least one).
    const core::Program part = line.build(params, rank, links, false);
    const std::size_t known = core::known_steps(part);
    const ProgramShape shape = ProgramShape::of(part);
    core::Program prefix{part.rank, part.procs, part.scratch_count, {}};
    bool came = false;
    while (!came && done < known) {
      if (int rc = poll(false, came); rc != MPI_SUCCESS) return finish(rc);
      if (came) break;
      prefix.steps.push_back(part.steps[done]);
      note(execution.start(prefix, shape, buffers, context, workspace, done));
      for (bool complete = !execution.active(); !complete;) {
        note(execution.test(complete));
        if (!came && !complete)
          if (int rc = poll(false, came); rc != MPI_SUCCESS) return finish(rc);
      }
      ++done;
    }
    if (!came)
      if (int rc = poll(true, came); rc != MPI_SUCCESS) return finish(rc);
    links.held = static_cast<std::int64_t>(std::max<std::size_t>(done, 1));
  }
  const core::Program program = line.build(params, rank, links, false);
  note(execution.start(program, ProgramShape::of(program), buffers, context, workspace, done));
  // The root serves the remaining hellos while its Program runs, and after.
  for (bool complete = !execution.active(); !complete;) {
    if (pending == MPI_REQUEST_NULL) {
      note(execution.wait());
      break;
    }
    note(execution.test(complete));
    bool came = false;
    if (int rc = poll(false, came); rc != MPI_SUCCESS) note(rc);
  }
  for (bool came = false; pending != MPI_REQUEST_NULL;)
    if (int rc = poll(true, came); rc != MPI_SUCCESS) return finish(rc);
  return finish(result);
}

}  // namespace patcoll::mpi
