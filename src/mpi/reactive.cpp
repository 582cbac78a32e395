#include "reactive.hpp"

#include <algorithm>
#include <list>
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

// The control messages of one call, on the control duplicate with the
// call's tag: the sends in flight (complete before the call returns) and
// the one zero-byte receive from any source that is awaited.
struct Control {
  Control(MPI_Comm control, int call_tag) : comm(control), tag(call_tag) {}
  MPI_Comm comm;
  int tag;
  std::vector<MPI_Request> sends;
  MPI_Request pending = MPI_REQUEST_NULL;
  std::vector<MPI_Request> awaited;  // listen_all's
  std::vector<int> indices;
  std::vector<MPI_Status> statuses;
  char none = 0, inbox = 0;

  int send(const void *data, int count, MPI_Datatype type, int dest) {
    MPI_Request &request = sends.emplace_back(MPI_REQUEST_NULL);
    if (int rc = MPI_Isend(data, count, type, dest, tag, comm, &request); rc != MPI_SUCCESS) {
      sends.pop_back();
      return mpi_failure(rc, "MPI_Isend");
    }
    return MPI_SUCCESS;
  }
  // A non-coordinator's hello to `coordinator` and its answer (at most
  // `count` of `type` into `answer`; `status`: what came).
  int hello(int coordinator, void *answer, int count, MPI_Datatype type, MPI_Status *status) {
    if (int rc = MPI_Send(&none, 0, MPI_BYTE, coordinator, tag, comm); rc != MPI_SUCCESS)
      return mpi_failure(rc, "MPI_Send");
    if (int rc = MPI_Recv(answer, count, type, coordinator, tag, comm, status); rc != MPI_SUCCESS)
      return mpi_failure(rc, "MPI_Recv");
    return MPI_SUCCESS;
  }
  int listen() {
    if (int rc = MPI_Irecv(&inbox, 0, MPI_BYTE, MPI_ANY_SOURCE, tag, comm, &pending); rc != MPI_SUCCESS)
      return mpi_failure(rc, "MPI_Irecv");
    return MPI_SUCCESS;
  }
  // Whether the awaited message came (blocking or not), and from whom.
  int poll(bool block, bool &came, int &source) {
    MPI_Status status;
    int flag = 1;
    const int rc = block ? MPI_Wait(&pending, &status) : MPI_Test(&pending, &flag, &status);
    if (rc != MPI_SUCCESS) return mpi_failure(rc, block ? "MPI_Wait" : "MPI_Test");
    came = flag != 0;
    source = came ? status.MPI_SOURCE : -1;
    return MPI_SUCCESS;
  }
  // `n` zero-byte receives from any source posted at once (the all-to-all:
  // one per later rank): the i-th message to come matches the i-th, and
  // none waits for its receive to be posted.
  int listen_all(int n) {
    awaited.assign(static_cast<std::size_t>(n), MPI_REQUEST_NULL);
    for (MPI_Request &request : awaited)
      if (int rc = MPI_Irecv(&inbox, 0, MPI_BYTE, MPI_ANY_SOURCE, tag, comm, &request); rc != MPI_SUCCESS)
        return mpi_failure(rc, "MPI_Irecv");
    return MPI_SUCCESS;
  }
  // Waits until at least one of them is complete; `sources`: the senders
  // of those complete now, in the order they came.
  int come(std::vector<int> &sources) {
    indices.resize(awaited.size());
    statuses.resize(awaited.size());
    int complete = 0;
    if (int rc = MPI_Waitsome(static_cast<int>(awaited.size()), awaited.data(), &complete, indices.data(),
                              statuses.data());
        rc != MPI_SUCCESS)
      return mpi_failure(rc, "MPI_Waitsome");
    std::vector<std::pair<int, int>> by_index;  // (receive, source): the receive's index is the order of coming
    for (int i = 0; i < std::max(complete, 0); ++i)
      by_index.emplace_back(indices[static_cast<std::size_t>(i)], statuses[static_cast<std::size_t>(i)].MPI_SOURCE);
    std::sort(by_index.begin(), by_index.end());
    sources.clear();
    for (const auto &[index, source] : by_index) sources.push_back(source);
    return MPI_SUCCESS;
  }
  // The call's end: the sends complete (awaited receives are cancelled:
  // after an error only).
  int finish(int result) {
    if (pending != MPI_REQUEST_NULL) {
      MPI_Cancel(&pending);
      MPI_Wait(&pending, MPI_STATUS_IGNORE);
    }
    for (MPI_Request &request : awaited)
      if (request != MPI_REQUEST_NULL) {
        MPI_Cancel(&request);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
      }
    if (sends.empty()) return result;
    const int rc = MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
    return result == MPI_SUCCESS && rc != MPI_SUCCESS ? mpi_failure(rc, "MPI_Waitall") : result;
  }
};

// A Program's run in stages (each continuing the steps the earlier ones
// ran, in the same workspace), with the first error of its data.
struct Stages {
  Stages(const ExecutionBuffers &data, const ExecutionContext &call) : buffers(data), context(call) {}
  const ExecutionBuffers &buffers;
  const ExecutionContext &context;
  Workspace workspace;
  Execution execution;
  int result = MPI_SUCCESS;

  void note(int rc) {
    if (result == MPI_SUCCESS) result = rc;
  }
  void start(const core::Program &program, const ProgramShape &shape, std::size_t first_step) {
    note(execution.start(program, shape, buffers, context, workspace, first_step));
  }
  // Runs the started execution to its end; between tests, `serve(came)`
  // (non-blocking) takes the control message that came, while one is
  // awaited. Errors go to `result` (the data still complete).
  template <typename Serve>
  void drive(Control &control, Serve &&serve) {
    for (bool complete = !execution.active(); !complete;) {
      if (control.pending == MPI_REQUEST_NULL) {
        note(execution.wait());
        break;
      }
      note(execution.test(complete));
      bool came = false;
      if (int rc = serve(came); rc != MPI_SUCCESS) note(rc);
    }
  }
};

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
      // The reduce ends at the coordinator (the rank predicted earliest).
      return {core::allreduce_reactive_links, core::reactive_coordinator(params), false};
    case core::Collective::bcast:
      return {core::bcast_reactive_links, params.root, true};
    default:
      return {};
  }
}

// The reduce, allreduce and broadcast line.
int run_line(const Line &line, Control &control, int rank, int procs, const core::Params &params,
             const ExecutionBuffers &buffers, const ExecutionContext &context) {
  const int root = line.root;
  core::ArrivalLinks links;
  std::vector<int> answers;  // the root's: two ints per hello, alive until their sends complete
  int answered = 0, previous = -1, first = -1;  // the root's hellos so far
  // The root: answers the hello of `source` with its predecessor and
  // whether it is the last, and waits for the next hello.
  auto serve = [&](int source) -> int {
    int *answer = &answers[2 * static_cast<std::size_t>(answered)];
    answer[0] = previous;
    answer[1] = answered + 2 == procs ? 1 : 0;
    if (int rc = control.send(answer, 2, MPI_INT, source); rc != MPI_SUCCESS) return rc;
    if (first < 0) first = source;
    previous = source;
    if (++answered + 1 < procs) return control.listen();
    return MPI_SUCCESS;
  };
  // Whether the awaited control message came (blocking or not); the root
  // serves it, another rank learns its successor.
  auto poll = [&](bool block, bool &came) -> int {
    int source = -1;
    if (int rc = control.poll(block, came, source); rc != MPI_SUCCESS || !came) return rc;
    if (rank == root) return serve(source);
    links.next = source;
    return MPI_SUCCESS;
  };

  if (rank == root) {
    // Hellos in arrival order. The root waits for those its own links
    // need (the reduce's: all, its predecessor is the last; the
    // broadcast's: the first, its successor) and serves the rest while
    // its Program runs.
    answers.resize(2 * static_cast<std::size_t>(procs));
    control.sends.reserve(static_cast<std::size_t>(procs));
    if (int rc = control.listen(); rc != MPI_SUCCESS) return rc;
    const int needed = line.root_sends ? 1 : procs - 1;
    for (bool came = false; answered < needed;)
      if (int rc = poll(true, came); rc != MPI_SUCCESS) return control.finish(rc);
    if (line.root_sends) links.next = first;
    else links.previous = previous;
  } else {
    int answer[2] = {-1, 0};
    if (int rc = control.hello(root, answer, 2, MPI_INT, MPI_STATUS_IGNORE); rc != MPI_SUCCESS) return rc;
    links.previous = answer[0] >= 0 ? answer[0] : line.root_sends ? root : -1;
    if (answer[0] >= 0)
      if (int rc = control.send(&control.none, 0, MPI_BYTE, answer[0]); rc != MPI_SUCCESS) return rc;
    if (answer[1]) {
      links.next = line.root_sends ? -1 : root;
    } else {
      links.next = core::kUnknownPeer;
      if (int rc = control.listen(); rc != MPI_SUCCESS) return control.finish(rc);
    }
  }

  Stages stages(buffers, context);
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
      if (int rc = poll(false, came); rc != MPI_SUCCESS) return control.finish(rc);
      if (came) break;
      prefix.steps.push_back(part.steps[done]);
      stages.start(prefix, shape, done);
      for (bool complete = !stages.execution.active(); !complete;) {
        stages.note(stages.execution.test(complete));
        if (!came && !complete)
          if (int rc = poll(false, came); rc != MPI_SUCCESS) return control.finish(rc);
      }
      ++done;
    }
    if (!came)
      if (int rc = poll(true, came); rc != MPI_SUCCESS) return control.finish(rc);
    links.held = static_cast<std::int64_t>(std::max<std::size_t>(done, 1));
  }
  const core::Program program = line.build(params, rank, links, false);
  stages.start(program, ProgramShape::of(program), done);
  // The root serves the remaining hellos while its Program runs, and after.
  stages.drive(control, [&](bool &came) { return poll(false, came); });
  for (bool came = false; control.pending != MPI_REQUEST_NULL;)
    if (int rc = poll(true, came); rc != MPI_SUCCESS) return control.finish(rc);
  return control.finish(stages.result);
}

// One exchange of the all-to-all in flight: a group's Program, its
// workspace and its Execution (destroyed in this order's reverse: an
// active Execution completes before its Program goes).
struct GroupRun {
  core::Program program;
  Workspace workspace;
  Execution execution;
};

// The all-to-all (core/builders/reactive.hpp, alltoall/reactive): the
// coordinator (core::reactive_coordinator) answers each hello with the
// ranks answered before it (a prefix of `order`, sent from the array
// itself: reserved to P, it never moves). Every rank starts the exchange
// with its earlier ranks, then one with the later ranks whose notices
// (the coordinator: hellos) came together, each as soon as they come,
// alongside those still in flight, and completes them all once every
// later rank's has started.
int run_alltoall(Control &control, int rank, int procs, const core::Params &params, const ExecutionBuffers &buffers,
                 const ExecutionContext &context) {
  const int coordinator = core::reactive_coordinator(params);
  std::vector<int> order;
  int expected = 0;               // later ranks still to come
  int position = 0;
  if (rank == coordinator) {
    order.reserve(static_cast<std::size_t>(procs));
    order.push_back(coordinator);
    control.sends.reserve(static_cast<std::size_t>(procs));
    expected = procs - 1;
  } else {
    order.resize(static_cast<std::size_t>(procs));
    MPI_Status status;
    if (int rc = control.hello(coordinator, order.data(), procs, MPI_INT, &status); rc != MPI_SUCCESS) return rc;
    if (int rc = MPI_Get_count(&status, MPI_INT, &position); rc != MPI_SUCCESS) return mpi_failure(rc, "MPI_Get_count");
    order.resize(static_cast<std::size_t>(position));
    expected = procs - 1 - position;
    for (int i = 1; i < position; ++i)  // the notices (the coordinator has the hello)
      if (int rc = control.send(&control.none, 0, MPI_BYTE, order[static_cast<std::size_t>(i)]); rc != MPI_SUCCESS)
        return control.finish(rc);
  }
  if (int rc = control.listen_all(expected); rc != MPI_SUCCESS) return control.finish(rc);

  int result = MPI_SUCCESS;
  auto note = [&](int rc) {
    if (result == MPI_SUCCESS) result = rc;
  };
  std::list<GroupRun> runs;  // in flight (stable addresses: an Execution does not move)
  auto launch = [&](const std::vector<int> &peers, bool own) {
    GroupRun &run = runs.emplace_back();
    run.program = core::alltoall_reactive_group(params, rank, peers, own);
    note(run.execution.start(run.program, ProgramShape::of(run.program), buffers, context, run.workspace));
  };
  launch(rank == coordinator ? std::vector<int>{} : order, true);  // the earlier ranks and the own pair
  // Every exchange's messages are posted when it starts (its only other
  // step is the copy into place): waiting for the next later ranks in
  // MPI_Waitsome lets MPI progress them all, and no busy loop of tests
  // runs (which SMPI charges, and which would delay the coordinator's
  // answers).
  // (A failed control message ends the loop; a failed exchange does not:
  // the others still wait for this rank's answers and sides.)
  std::vector<int> group;  // the later ranks come since the last exchange started
  for (int rc = MPI_SUCCESS; expected > 0 && rc == MPI_SUCCESS;) {
    rc = control.come(group);
    for (std::size_t i = 0; rc == MPI_SUCCESS && rank == coordinator && i < group.size(); ++i) {
      // The coordinator answers with the ranks answered before.
      rc = control.send(order.data(), static_cast<int>(order.size()), MPI_INT, group[i]);
      order.push_back(group[i]);
    }
    if (rc != MPI_SUCCESS) {
      note(rc);
      break;
    }
    expected -= static_cast<int>(group.size());
    launch(group, false);
  }
  for (GroupRun &run : runs) note(run.execution.wait());
  return control.finish(result);
}

// allreduce/reactive_owners (core/builders/reactive.hpp): the coordinator
// (core::reactive_coordinator, the same on every rank) answers
// each hello with the ranks answered before (a prefix of `order`, sent
// from the array itself: sized P, it never moves); once the first K ranks
// (the owners) are known it sends them that prefix, and once every rank is,
// the whole order. A later rank knows every owner from its answer and runs
// its whole Program. An owner runs its exchange with the other owners (the
// Program's steps that need no later rank) as soon as it knows them, then
// the rest once it knows the whole order. The coordinator is an owner; it
// answers the hellos that come during its exchange as they come.
int run_owners(Control &control, int rank, int procs, const core::Params &params, const ExecutionBuffers &buffers,
               const ExecutionContext &context) {
  const int owners = core::reactive_owners_count(procs);
  const int coordinator = core::reactive_coordinator(params);
  std::vector<int> order(static_cast<std::size_t>(procs), core::kUnknownPeer);
  order[0] = coordinator;
  int answered = 1;  // the coordinator's: the ranks placed so far (itself first)
  auto serve = [&](int source) -> int {
    if (int rc = control.send(order.data(), answered, MPI_INT, source); rc != MPI_SUCCESS) return rc;
    order[static_cast<std::size_t>(answered++)] = source;
    if (answered == owners)
      for (int o = 1; o < owners; ++o)
        if (int rc = control.send(order.data(), owners, MPI_INT, order[static_cast<std::size_t>(o)]); rc != MPI_SUCCESS)
          return rc;
    if (answered < procs) return control.listen();
    for (int o = 1; o < owners; ++o)
      if (int rc = control.send(order.data(), procs, MPI_INT, order[static_cast<std::size_t>(o)]); rc != MPI_SUCCESS)
        return rc;
    return MPI_SUCCESS;
  };
  auto poll = [&](bool block, bool &came) -> int {
    int source = -1;
    if (int rc = control.poll(block, came, source); rc != MPI_SUCCESS || !came) return rc;
    return serve(source);
  };
  int position = 0;
  if (rank == coordinator) {
    if (procs > 1)
      if (int rc = control.listen(); rc != MPI_SUCCESS) return rc;
    for (bool came = false; answered < owners;)
      if (int rc = poll(true, came); rc != MPI_SUCCESS) return control.finish(rc);
  } else {
    MPI_Status status;
    if (int rc = control.hello(coordinator, order.data(), procs, MPI_INT, &status); rc != MPI_SUCCESS) return rc;
    if (int rc = MPI_Get_count(&status, MPI_INT, &position); rc != MPI_SUCCESS) return mpi_failure(rc, "MPI_Get_count");
    order[static_cast<std::size_t>(position)] = rank;
    if (position < owners)  // the owners
      if (int rc = MPI_Recv(order.data(), owners, MPI_INT, coordinator, control.tag, control.comm, MPI_STATUS_IGNORE);
          rc != MPI_SUCCESS)
        return control.finish(mpi_failure(rc, "MPI_Recv"));
  }
  Stages stages(buffers, context);
  std::size_t done = 0;
  if (position < owners && owners < procs) {
    // The exchange among the owners (the coordinator answers the later ranks
    // meanwhile), then the whole order.
    const core::Program part = core::allreduce_reactive_owners_order(params, rank, order, false);
    done = core::known_steps(part);
    core::Program prefix{part.rank, part.procs, part.scratch_count, {}};
    prefix.steps.assign(part.steps.begin(), part.steps.begin() + static_cast<std::ptrdiff_t>(done));
    stages.start(prefix, ProgramShape::of(part), 0);
    if (rank == coordinator) {
      stages.drive(control, [&](bool &came) { return poll(false, came); });
      for (bool came = false; answered < procs;)
        if (int rc = poll(true, came); rc != MPI_SUCCESS) return control.finish(rc);
    } else {
      stages.note(stages.execution.wait());
      if (int rc = MPI_Recv(order.data(), procs, MPI_INT, coordinator, control.tag, control.comm, MPI_STATUS_IGNORE);
          rc != MPI_SUCCESS)
        return control.finish(mpi_failure(rc, "MPI_Recv"));
    }
  }
  const core::Program program = core::allreduce_reactive_owners_order(params, rank, order, false);
  stages.start(program, ProgramShape::of(program), done);
  stages.note(stages.execution.wait());
  return control.finish(stages.result);
}

// Which of the mechanisms above runs `algorithm` (none: not reactive, or
// no mechanism for its collective).
enum class Mechanism { none, line, all_to_all, owners };
Mechanism mechanism_of(const core::Algorithm &algorithm, const core::Params &params) {
  if (!(algorithm.capabilities & core::reactive)) return Mechanism::none;
  if (params.collective == core::Collective::alltoall || params.collective == core::Collective::alltoallv)
    return Mechanism::all_to_all;
  if (params.collective == core::Collective::allreduce && algorithm.name == "reactive_owners") return Mechanism::owners;
  return line_of(params).build ? Mechanism::line : Mechanism::none;
}

}  // namespace

void release_reactive(CommState &state) {
  ReactiveControl &w = state.reactive;
  if (w.control != MPI_COMM_NULL) MPI_Comm_free(&w.control);
}

int run_reactive(CommState &state, const core::Algorithm &algorithm, const core::Params &params,
                 const ExecutionBuffers &buffers, const ExecutionContext &context) {
  const Mechanism mechanism = mechanism_of(algorithm, params);
  if (mechanism == Mechanism::none)
    return fail(MPI_ERR_INTERN, "no reactive mechanism for " + std::string(algorithm.name));
  if (int rc = ensure_control(state); rc != MPI_SUCCESS) return rc;
  Control control(state.reactive.control, context.tag);
  switch (mechanism) {
    case Mechanism::all_to_all:
      return run_alltoall(control, state.rank, state.size, params, buffers, context);
    case Mechanism::owners:
      return run_owners(control, state.rank, state.size, params, buffers, context);
    default:
      return run_line(line_of(params), control, state.rank, state.size, params, buffers, context);
  }
}

}  // namespace patcoll::mpi
