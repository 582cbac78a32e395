// The C API of patcoll.h: argument checks with the MPI standard's error
// classes, algorithm selection, and the hand-off to native PMPI or to the
// executor with a (cached) Program.
#include "patcoll.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <cerrno>
#include <climits>
#include <cstring>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/algorithm.hpp"
#include "mpi/comm_cache.hpp"
#include "mpi/datatype.hpp"
#include "mpi/error.hpp"
#include "mpi/executor.hpp"
#include "mpi/handle.hpp"
#include "mpi/op_check.hpp"
#include "mpi/registry.hpp"

namespace patcoll::mpi {
namespace {

using core::Collective;

bool mpi_usable() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

bool parse_collective_name(const char *text, Collective &out) {
  return text && core::parse_collective(text, out);
}

// Environment overrides of segmentation, shared by every call. A value
// that is not a positive integer is an error (MPI_ERR_ARG), not ignored.
bool parse_positive(const char *text, long long &out) {
  errno = 0;
  char *end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value <= 0) return false;
  out = value;
  return true;
}

int apply_environment(core::Params &params) {
  long long value = 0;
  if (const char *s = std::getenv("PATCOLL_SEGMENTS"); s && *s) {
    if (!parse_positive(s, value))
      return fail(MPI_ERR_ARG, std::string("PATCOLL_SEGMENTS='") + s + "' is not a positive integer");
    params.segment_count = value;
  }
  // PATCOLL_CLAIRVOYANT_JOIN=start|end (core::ClairvoyantJoin; unknown text: the default).
  if (const char *s = std::getenv("PATCOLL_CLAIRVOYANT_JOIN"); s && *s) {
    core::parse_clairvoyant_join(s, params.clairvoyant_join);
  }
  if (const char *s = std::getenv("PATCOLL_SEGMENT_BYTES"); s && *s) {
    if (!parse_positive(s, value))
      return fail(MPI_ERR_ARG, std::string("PATCOLL_SEGMENT_BYTES='") + s + "' is not a positive integer");
    params.segment_elements = std::max<long long>(1, value / std::max<std::int64_t>(1, params.element_bytes));
  }
  return MPI_SUCCESS;
}

std::string cache_key(const Entry &entry, const core::Params &p, int rank) {
  std::ostringstream os;
  os.precision(17);
  os << static_cast<int>(p.collective) << ' ' << entry.name << ' ' << rank << ' ' << p.procs << ' ' << p.root << ' '
     << p.count << ' ' << p.element_bytes << ' ' << p.commutative << ' ' << p.segment_count << ' '
     << p.segment_elements << ' ' << static_cast<int>(p.clairvoyant_join) << ' ' << p.cost.alpha << ' ' << p.cost.beta << ' ' << p.cost.gamma << " r";
  for (int k : p.radix) os << ' ' << k;
  os << " s";
  for (std::int64_t size : p.segment_sizes) os << ' ' << size;
  os << " a";
  for (double a : p.arrivals) os << ' ' << a;
  return os.str();
}

void warn_once(const std::string &message) {
  static std::mutex mutex;
  static std::set<std::string> said;
  std::lock_guard<std::mutex> lock(mutex);
  if (said.insert(message).second) std::fprintf(stderr, "patcoll: %s\n", message.c_str());
}

// Schedule inputs every rank must agree on (docs/agreement.md). The
// per-communicator setters are collective: each rank hashes its value and
// one PMPI_Allreduce(MAX) over {hash, ~hash, invalid} on patcoll's private
// duplicate tells every rank the same verdict, so a vector or model that
// differs between ranks is refused everywhere (MPI_ERR_ARG) and the old
// value stays in place on every rank, instead of two ranks building
// different schedules and returning a wrong result with MPI_SUCCESS.
std::uint64_t fnv1a(const void *data, std::size_t bytes, std::uint64_t hash = 1469598103934665603ull) {
  const auto *p = static_cast<const unsigned char *>(data);
  for (std::size_t i = 0; i < bytes; ++i) hash = (hash ^ p[i]) * 1099511628211ull;
  return hash;
}

std::uint64_t hash_values(const double *values, std::size_t n) {
  std::uint64_t hash = fnv1a(&n, sizeof n);
  for (std::size_t i = 0; i < n; ++i) {
    const double v = values[i] + 0.0;  // -0.0 and 0.0 are the same value
    hash = fnv1a(&v, sizeof v, hash);
  }
  return hash;
}

// `local_error` is this rank's own complaint ("" if its value is valid).
// Returns MPI_SUCCESS only when every rank's value is valid and identical.
int agree_across_ranks(const CommState &state, std::uint64_t hash, const std::string &local_error, const char *what) {
  std::uint64_t mine[3] = {hash, ~hash, local_error.empty() ? 0u : 1u}, top[3] = {0, 0, 0};
  PATCOLL_MPI_CHECK(PMPI_Allreduce(mine, top, 3, MPI_UINT64_T, MPI_MAX, state.comm));
  if (!local_error.empty()) return fail(MPI_ERR_ARG, local_error);
  if (top[2] != 0) return fail(MPI_ERR_ARG, std::string(what) + " refused: another rank passed an invalid value");
  if (top[0] != mine[0] || top[1] != mine[1])  // max == min == mine on every rank iff all hashes are equal
    return fail(MPI_ERR_ARG, std::string(what) + " differs between ranks (it must be the same on every rank); "
                                                 "the previous value is kept");
  return MPI_SUCCESS;
}

// The environment and process defaults that shape schedules, applied to
// `params`; at the first collective on a communicator they are checked to
// be the same on every rank (one allreduce per communicator, collective
// even when this rank's environment is malformed, so nobody hangs).
int process_inputs(CommState &state, core::Params &params) {
  const int rc = apply_environment(params);
  if (state.process_inputs_agreed) return rc;
  const double model[3] = {params.cost.alpha, params.cost.beta, params.cost.gamma};
  std::uint64_t hash = hash_values(model, 3);
  for (const char *variable : {"PATCOLL_SEGMENTS", "PATCOLL_SEGMENT_BYTES", "PATCOLL_CLAIRVOYANT_JOIN"}) {
    const char *value = std::getenv(variable);
    const std::string text = value ? std::string("=") + value : std::string("unset");
    hash = fnv1a(text.data(), text.size() + 1, hash);
  }
  const std::string mine = rc == MPI_SUCCESS ? std::string() : last_error();
  if (int agreed = agree_across_ranks(state, hash, mine,
                                      "the process-wide cost model or segmentation (PATCOLL_MODEL, PATCOLL_SEGMENTS, "
                                      "PATCOLL_SEGMENT_BYTES, PAT_Set_cost_model(MPI_COMM_NULL))");
      agreed != MPI_SUCCESS)
    return agreed;
  state.process_inputs_agreed = true;
  return MPI_SUCCESS;
}

std::string milliseconds(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", seconds * 1e3);
  return buf;
}

// One line per change of auto's choice, from rank 0 of the communicator.
void say_choice(const CommState &state, const core::Params &params, const core::Selection &selection) {
  std::string line = "patcoll: auto on ";
  char name[MPI_MAX_OBJECT_NAME] = "";
  int length = 0;
  if (MPI_Comm_get_name(state.comm, name, &length) == MPI_SUCCESS && length > 0) line += std::string("'") + name + "' ";
  line += "(" + std::to_string(state.size) + " ranks): " + std::string(core::to_string(params.collective)) + " of " +
          std::to_string(params.count * params.element_bytes) + " bytes -> " + std::string(selection.name);
  if (selection.predictions.empty()) {
    line += selection.deferred ? " (kept: a new pattern is predicted once per period)"
                               : " (no imbalance to exploit, or below the size auto predicts)";
  } else {
    line += "; predicted ms:";
    for (const core::Prediction &p : selection.predictions) line += " " + std::string(p.name) + "=" + milliseconds(p.seconds);
  }
  line += "; PATs ms:";
  for (double a : selection.arrivals) line += " " + milliseconds(a);
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

// `auto`: without a PAT vector the size-and-P rule; with one, the model's
// prediction on it (core/select.hpp, docs/selection.md) with the
// communicator's selector (cache, hysteresis). PATCOLL_VERBOSE=1: rank 0
// says every change.
const Entry *choose_auto(CommState &state, const core::Params &params) {
  const core::Selection selection = state.selectors[static_cast<std::size_t>(params.collective)].select(params);
  const Entry *entry = find_entry(params.collective, selection.name);
  if (!entry) entry = auto_choice(params);
  const char *verbose = std::getenv("PATCOLL_VERBOSE");
  if (selection.changed && state.rank == 0 && verbose && std::atoi(verbose) > 0 && !params.arrivals.empty())
    say_choice(state, params, selection);
  return entry;
}

// Selection order of patcoll.h. `out` is native, a catalogue algorithm, or
// the auto choice; recorded in state.last_algorithm.
int select(CommState &state, Collective collective, const char *explicit_name, const core::Params &params,
           const Entry *&out) {
  const int index = static_cast<int>(collective);
  std::string name;
  if (explicit_name && *explicit_name) name = explicit_name;
  else if (!state.algorithm[index].empty()) name = state.algorithm[index];
  else if (!process_defaults().algorithm[index].empty()) name = process_defaults().algorithm[index];
  else if (const char *env = std::getenv(environment_variable(collective)); env && *env) name = env;
  else name = "auto";

  if (name == "auto") {
    out = choose_auto(state, params);
    state.last_algorithm[static_cast<std::size_t>(index)] = out->name;
    return MPI_SUCCESS;
  }
  const Entry *entry = find_entry(collective, name);
  if (!entry)
    return fail(MPI_ERR_ARG, "unknown " + std::string(core::to_string(collective)) + " algorithm '" + name +
                                 "' (patcoll-bench --list shows the registered ones)");
  if (!entry->native()) {
    const std::string reason = core::unsupported_reason(*entry->algorithm, params);
    if (!reason.empty()) {
      const char *fallback = std::getenv("PATCOLL_FALLBACK");
      if (fallback && std::strcmp(fallback, "1") == 0) {
        out = choose_auto(state, params);
        warn_once(reason + "; falling back to " + std::string(out->name));
        state.last_algorithm[static_cast<std::size_t>(index)] = out->name;
        return MPI_SUCCESS;
      }
      const bool op_problem = (entry->restrictions & core::needs_commutative) && !params.commutative;
      return fail(op_problem ? MPI_ERR_OP : MPI_ERR_ARG, reason);
    }
  }
  out = entry;
  state.last_algorithm[static_cast<std::size_t>(index)] = out->name;
  return MPI_SUCCESS;
}

// What a builder sees: PATs only for PAP-aware algorithms (so a changing
// pattern does not evict the classic Programs), quantised to a quarter of
// the default round time d = α + B(β + γ) so that a jittering but stable
// pattern reuses its schedule. Every rank derives the same input.
core::Params builder_params(const Entry &entry, core::Params params) {
  if (!(entry.restrictions & core::pap_aware) || params.arrivals.empty()) {
    params.arrivals.clear();
    return params;
  }
  const std::int64_t segments = core::segment_count_for(
      params, params.count, core::optimal_segment_count(params.cost, params.procs, params.count, params.element_bytes));
  const double segment_bytes = static_cast<double>(params.count * params.element_bytes) / static_cast<double>(segments);
  params.arrivals = core::quantise_arrivals(params.arrivals, params.cost.round_time(segment_bytes) / 4);
  return params;
}

std::shared_ptr<CachedProgram> program_for(CommState &state, const Entry &entry, const core::Params &requested) {
  const core::Params params = builder_params(entry, requested);
  std::string key = cache_key(entry, params, state.rank);
  if (std::shared_ptr<CachedProgram> cached = state.programs.find(key)) return cached;
  return state.programs.insert(std::move(key), core::build_rank(*entry.algorithm, params, state.rank));
}



// PATCOLL_MODEL names a cost-model file (patcoll-calibrate writes one); it
// is read once. A file that cannot be read or parsed is reported once on
// stderr and the built-in model is used.
const std::optional<core::CostModel> &environment_cost_model() {
  static const std::optional<core::CostModel> model = []() -> std::optional<core::CostModel> {
    const char *path = std::getenv("PATCOLL_MODEL");
    if (!path || !*path) return std::nullopt;
    std::ifstream in(path);
    if (!in) {
      warn_once(std::string("cannot read PATCOLL_MODEL file '") + path + "'; using the built-in cost model");
      return std::nullopt;
    }
    std::stringstream text;
    text << in.rdbuf();
    core::CostModel parsed;
    const std::string error = core::parse_cost_model(text.str(), parsed);
    if (!error.empty()) {
      warn_once(std::string("PATCOLL_MODEL file '") + path + "': " + error + "; using the built-in cost model");
      return std::nullopt;
    }
    return parsed;
  }();
  return model;
}

core::CostModel cost_for(const CommState &state) {
  if (state.cost) return *state.cost;
  if (process_defaults().cost) return *process_defaults().cost;
  if (environment_cost_model()) return *environment_cost_model();
  return {};
}

// Checks shared by every collective; fills state, size and rank.
int common_checks(MPI_Comm comm, CommState *&state, bool &inter) {
  if (!mpi_usable()) return fail(MPI_ERR_OTHER, "MPI is not initialised or already finalised");
  if (comm == MPI_COMM_NULL) return fail(MPI_ERR_COMM, "the communicator is MPI_COMM_NULL");
  int flag = 0;
  PATCOLL_MPI_CHECK(MPI_Comm_test_inter(comm, &flag));
  inter = flag != 0;
  if (inter) return MPI_SUCCESS;
  if (int rc = comm_state(comm, state); rc != MPI_SUCCESS) return rc;
  state->mailbox->take(state->arrivals);  // the PAT runtime's newest vector, if any
  return MPI_SUCCESS;
}

int check_type(MPI_Datatype type, const char *which) {
  if (type == MPI_DATATYPE_NULL) return fail(MPI_ERR_TYPE, std::string(which) + " is MPI_DATATYPE_NULL");
  return MPI_SUCCESS;
}

// A null buffer is an error when it would be addressed (count > 0) and the
// datatype does not use absolute addresses (MPI_BOTTOM).
int check_buffer(const void *buffer, int count, const TypeInfo &type, const char *which) {
  if (buffer == nullptr && count > 0 && type.true_lb == 0)
    return fail(MPI_ERR_BUFFER, std::string(which) + " is NULL with a count of " + std::to_string(count));
  return MPI_SUCCESS;
}

// A reduction's start: the checks, the selection and the Program of the
// call, into `run` (handle.hpp), which the blocking call runs at once and a
// non-blocking or persistent one keeps.
int prepare_reduction(Collective collective, const char *algorithm, const void *sendbuf, void *recvbuf, int count,
                      MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, Run &run) {
  set_last_error({});
  run.kind = Run::Kind::nothing;
  run.native = NativeCall{collective, sendbuf, recvbuf, count, 0, datatype, MPI_DATATYPE_NULL, op, root, comm};
  CommState *state = nullptr;
  bool inter = false;
  if (int rc = common_checks(comm, state, inter); rc != MPI_SUCCESS) return rc;
  if (inter) {  // intercommunicators: the MPI library's own
    run.kind = Run::Kind::native;
    return MPI_SUCCESS;
  }
  const bool is_root = collective == Collective::allreduce || state->rank == root;
  if (count < 0) return fail(MPI_ERR_COUNT, "count is negative (" + std::to_string(count) + ")");
  if (int rc = check_type(datatype, "datatype"); rc != MPI_SUCCESS) return rc;
  if (op == MPI_OP_NULL) return fail(MPI_ERR_OP, "op is MPI_OP_NULL");
  // Before any data moves: a pair MPI rejects would abort the job inside
  // MPI_Reduce_local (MPI_ERRORS_ARE_FATAL), for native as well.
  if (int rc = check_op_datatype(op, datatype); rc != MPI_SUCCESS) return rc;
  if (collective == Collective::reduce && (root < 0 || root >= state->size))
    return fail(MPI_ERR_ROOT, "root " + std::to_string(root) + " is not a rank of a communicator of size " +
                                  std::to_string(state->size));
  if (recvbuf == MPI_IN_PLACE) return fail(MPI_ERR_BUFFER, "recvbuf must not be MPI_IN_PLACE");
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && !is_root) return fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is only allowed at the root");
  TypeInfo type;
  if (int rc = TypeInfo::describe(datatype, type); rc != MPI_SUCCESS) return rc;
  if (!in_place)
    if (int rc = check_buffer(sendbuf, count, type, "sendbuf"); rc != MPI_SUCCESS) return rc;
  if (is_root)
    if (int rc = check_buffer(recvbuf, count, type, "recvbuf"); rc != MPI_SUCCESS) return rc;

  int commutative = 1;
  PATCOLL_MPI_CHECK(MPI_Op_commutative(op, &commutative));
  core::Params params;
  params.collective = collective;
  params.procs = state->size;
  params.root = collective == Collective::reduce ? root : 0;
  params.count = count;
  params.element_bytes = std::max(1, type.size);
  params.commutative = commutative != 0;
  params.arrivals = state->arrivals;
  params.cost = cost_for(*state);
  if (int rc = process_inputs(*state, params); rc != MPI_SUCCESS) return rc;

  const Entry *entry = nullptr;
  if (int rc = select(*state, collective, algorithm, params, entry); rc != MPI_SUCCESS) return rc;
  if (entry->native()) {
    run.kind = Run::Kind::native;
    return MPI_SUCCESS;
  }
  const int tag = state->next_tag();
  if (count == 0 || state->size == 1) {
    if (count > 0 && !in_place) {
      std::vector<char> pack;
      return copy_elements(type, sendbuf, recvbuf, count, pack);
    }
    return MPI_SUCCESS;
  }
  run.kind = Run::Kind::program;
  run.program = program_for(*state, *entry, params);
  run.state = state;
  run.reusable = !(entry->restrictions & core::pap_aware);
  run.context = ExecutionContext{state->comm, tag, op, type};
  run.buffers = ExecutionBuffers{in_place ? recvbuf : sendbuf, recvbuf};
  return MPI_SUCCESS;
}

int reduction(Collective collective, const char *algorithm, const void *sendbuf, void *recvbuf, int count,
              MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
  Run run;
  if (int rc = prepare_reduction(collective, algorithm, sendbuf, recvbuf, count, datatype, op, root, comm, run);
      rc != MPI_SUCCESS)
    return rc;
  return run_blocking(run);
}

// Scatter and gather run in bytes: one IR element is one byte of a rank's
// block, so the send and receive datatypes may differ (matching
// signatures). A buffer whose datatype is not dense is packed before and
// unpacked after the run.
// `packed` holds the bytes of a non-dense buffer (kept in the Run while it
// is active; its heap storage does not move with the Run).
int pack_view(const void *buffer, int count, const TypeInfo &type, std::vector<char> &packed, void *&bytes_out,
              bool copy_in) {
  if (type.dense) {
    bytes_out = const_cast<char *>(static_cast<const char *>(buffer)) + type.true_lb;
    return MPI_SUCCESS;
  }
  int bytes = 0;
  PATCOLL_MPI_CHECK(MPI_Pack_size(count, type.type, MPI_COMM_SELF, &bytes));
  packed.resize(static_cast<std::size_t>(bytes));
  bytes_out = packed.data();
  if (copy_in) {
    int position = 0;
    PATCOLL_MPI_CHECK(MPI_Pack(buffer, count, type.type, packed.data(), bytes, &position, MPI_COMM_SELF));
  }
  return MPI_SUCCESS;
}

int prepare_movement(Collective collective, const char *algorithm, const void *sendbuf, int sendcount,
                     MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                     MPI_Comm comm, Run &run) {
  set_last_error({});
  run.kind = Run::Kind::nothing;
  run.native = NativeCall{collective, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype, MPI_OP_NULL, root, comm};
  CommState *state = nullptr;
  bool inter = false;
  if (int rc = common_checks(comm, state, inter); rc != MPI_SUCCESS) return rc;
  auto native = [&] {
    run.kind = Run::Kind::native;
    return MPI_SUCCESS;
  };
  if (inter) return native();
  if (root < 0 || root >= state->size)
    return fail(MPI_ERR_ROOT, "root " + std::to_string(root) + " is not a rank of a communicator of size " +
                                  std::to_string(state->size));
  const bool is_root = state->rank == root;
  const bool scatter = collective == Collective::scatter;
  // The side every rank has (scatter: recv; gather: send) and the root's
  // whole-communicator side.
  const bool in_place = is_root && (scatter ? recvbuf == MPI_IN_PLACE : sendbuf == MPI_IN_PLACE);
  const void *own_buffer = scatter ? recvbuf : sendbuf;
  const int own_count = scatter ? recvcount : sendcount;
  const MPI_Datatype own_type = scatter ? recvtype : sendtype;
  const void *whole_buffer = scatter ? sendbuf : recvbuf;
  const int whole_count = scatter ? sendcount : recvcount;  // per rank
  const MPI_Datatype whole_type = scatter ? sendtype : recvtype;
  if (!is_root && (scatter ? recvbuf == MPI_IN_PLACE : sendbuf == MPI_IN_PLACE))
    return fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is only allowed at the root");

  TypeInfo own, whole;
  if (!in_place) {
    if (own_count < 0) return fail(MPI_ERR_COUNT, "count is negative (" + std::to_string(own_count) + ")");
    if (int rc = check_type(own_type, scatter ? "recvtype" : "sendtype"); rc != MPI_SUCCESS) return rc;
    if (int rc = TypeInfo::describe(own_type, own); rc != MPI_SUCCESS) return rc;
    if (int rc = check_buffer(own_buffer, own_count, own, scatter ? "recvbuf" : "sendbuf"); rc != MPI_SUCCESS) return rc;
  }
  if (is_root) {
    if (whole_count < 0) return fail(MPI_ERR_COUNT, "count is negative (" + std::to_string(whole_count) + ")");
    if (int rc = check_type(whole_type, scatter ? "sendtype" : "recvtype"); rc != MPI_SUCCESS) return rc;
    if (int rc = TypeInfo::describe(whole_type, whole); rc != MPI_SUCCESS) return rc;
    if (int rc = check_buffer(whole_buffer, whole_count, whole, scatter ? "sendbuf" : "recvbuf"); rc != MPI_SUCCESS)
      return rc;
    if (!in_place && static_cast<long long>(whole_count) * whole.size != static_cast<long long>(own_count) * own.size)
      return fail(MPI_ERR_TRUNCATE, "the root's send and receive blocks have different sizes (type signatures do not match)");
  }
  // Block size in bytes: the root's whole side defines it; the others use
  // their own side (a mismatch then shows as MPI_ERR_TRUNCATE from MPI).
  const long long block = is_root ? static_cast<long long>(whole_count) * whole.size
                                  : static_cast<long long>(own_count) * own.size;

  core::Params params;
  params.collective = collective;
  params.procs = state->size;
  params.root = root;
  params.count = block;
  params.element_bytes = 1;
  params.arrivals = state->arrivals;
  params.cost = cost_for(*state);
  if (int rc = process_inputs(*state, params); rc != MPI_SUCCESS) return rc;

  const Entry *entry = nullptr;
  if (int rc = select(*state, collective, algorithm, params, entry); rc != MPI_SUCCESS) return rc;
  if (entry->native()) return native();
  const int tag = state->next_tag();
  if (block == 0) return MPI_SUCCESS;

  void *own_bytes = nullptr, *whole_bytes = nullptr;
  if (!in_place)
    if (int rc = pack_view(own_buffer, own_count, own, run.own_pack, own_bytes, !scatter); rc != MPI_SUCCESS) return rc;
  if (is_root)
    if (int rc = pack_view(whole_buffer, whole_count * state->size, whole, run.whole_pack, whole_bytes,
                           scatter || in_place);
        rc != MPI_SUCCESS)
      return rc;
  ExecutionBuffers &buffers = run.buffers;
  if (scatter) {
    buffers.send = whole_bytes;
    buffers.recv = in_place ? static_cast<char *>(whole_bytes) + block * root : own_bytes;
  } else {
    buffers.send = in_place ? static_cast<char *>(whole_bytes) + block * root : own_bytes;
    buffers.recv = whole_bytes;
  }
  TypeInfo bytes;
  if (int rc = TypeInfo::describe(MPI_BYTE, bytes); rc != MPI_SUCCESS) return rc;
  run.kind = Run::Kind::program;
  run.program = program_for(*state, *entry, params);
  run.state = state;
  run.reusable = !(entry->restrictions & core::pap_aware) && run.own_pack.empty() && run.whole_pack.empty();
  run.context = ExecutionContext{state->comm, tag, MPI_OP_NULL, bytes};
  // The received bytes of a non-dense buffer are unpacked once complete.
  const bool unpack_own = scatter && !in_place && !own.dense && own_count > 0;
  const bool unpack_whole = !scatter && is_root && !whole.dense && whole_count > 0;
  if (unpack_own || unpack_whole) {
    const std::vector<char> &packed = unpack_own ? run.own_pack : run.whole_pack;
    run.finish = [data = packed.data(), size = static_cast<int>(packed.size()), recvbuf,
                  count = unpack_own ? own_count : whole_count * state->size,
                  type = unpack_own ? own.type : whole.type]() -> int {
      int position = 0;
      PATCOLL_MPI_CHECK(MPI_Unpack(data, size, &position, recvbuf, count, type, MPI_COMM_SELF));
      return MPI_SUCCESS;
    };
  }
  return MPI_SUCCESS;
}

int movement(Collective collective, const char *algorithm, const void *sendbuf, int sendcount,
             MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  Run run;
  if (int rc = prepare_movement(collective, algorithm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                root, comm, run);
      rc != MPI_SUCCESS)
    return rc;
  return run_blocking(run);
}

}  // namespace

int prepare_call(const NativeCall &c, const char *algorithm, Run &run) {
  if (c.collective == Collective::reduce || c.collective == Collective::allreduce)
    return prepare_reduction(c.collective, algorithm, c.sendbuf, c.recvbuf, c.sendcount, c.sendtype, c.op, c.root,
                             c.comm, run);
  return prepare_movement(c.collective, algorithm, c.sendbuf, c.sendcount, c.sendtype, c.recvbuf, c.recvcount,
                          c.recvtype, c.root, c.comm, run);
}

}  // namespace patcoll::mpi

using namespace patcoll::mpi;
using patcoll::core::Collective;

extern "C" {

int PAT_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm) {
  return reduction(Collective::reduce, nullptr, sendbuf, recvbuf, count, datatype, op, root, comm);
}
int PAT_Reduce_with(const char *algorithm, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, int root, MPI_Comm comm) {
  return reduction(Collective::reduce, algorithm, sendbuf, recvbuf, count, datatype, op, root, comm);
}
int PAT_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return reduction(Collective::allreduce, nullptr, sendbuf, recvbuf, count, datatype, op, 0, comm);
}
int PAT_Allreduce_with(const char *algorithm, const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return reduction(Collective::allreduce, algorithm, sendbuf, recvbuf, count, datatype, op, 0, comm);
}
int PAT_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return movement(Collective::scatter, nullptr, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}
int PAT_Scatter_with(const char *algorithm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return movement(Collective::scatter, algorithm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                  comm);
}
int PAT_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return movement(Collective::gather, nullptr, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}
int PAT_Gather_with(const char *algorithm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return movement(Collective::gather, algorithm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                  comm);
}

int PAT_Set_algorithm(MPI_Comm comm, const char *collective, const char *name) {
  set_last_error({});
  Collective c;
  if (!parse_collective_name(collective, c))
    return fail(MPI_ERR_ARG, std::string("unknown collective '") + (collective ? collective : "(null)") + "'");
  const std::string value = name ? name : "";
  if (!value.empty() && value != "auto" && !find_entry(c, value))
    return fail(MPI_ERR_ARG, "unknown " + std::string(patcoll::core::to_string(c)) + " algorithm '" + value + "'");
  if (comm == MPI_COMM_NULL) {
    process_defaults().algorithm[static_cast<int>(c)] = value;
    return MPI_SUCCESS;
  }
  if (!mpi_usable()) return fail(MPI_ERR_OTHER, "MPI is not initialised or already finalised");
  CommState *state = nullptr;
  if (int rc = comm_state(comm, state); rc != MPI_SUCCESS) return rc;
  state->algorithm[static_cast<int>(c)] = value;
  return MPI_SUCCESS;
}

int PAT_Set_arrivals(MPI_Comm comm, const double *arrivals) {
  set_last_error({});
  if (!mpi_usable()) return fail(MPI_ERR_OTHER, "MPI is not initialised or already finalised");
  if (comm == MPI_COMM_NULL) return fail(MPI_ERR_COMM, "the communicator is MPI_COMM_NULL");
  CommState *state = nullptr;
  if (int rc = comm_state(comm, state); rc != MPI_SUCCESS) return rc;
  std::string invalid;
  const std::size_t n = arrivals ? static_cast<std::size_t>(state->size) : 0;
  for (std::size_t i = 0; i < n && invalid.empty(); ++i)
    if (!std::isfinite(arrivals[i]) || std::fabs(arrivals[i]) > 1e9)
      invalid = "arrival time of rank " + std::to_string(i) + " is not a finite number of seconds";
  if (int rc = agree_across_ranks(*state, invalid.empty() ? hash_values(arrivals, n) : 0, invalid, "the PAT vector");
      rc != MPI_SUCCESS)
    return rc;
  if (arrivals) state->arrivals.assign(arrivals, arrivals + state->size);
  else state->arrivals.clear();
  return MPI_SUCCESS;
}

int PAT_Set_cost_model(MPI_Comm comm, double alpha, double beta, double gamma) {
  set_last_error({});
  patcoll::core::CostModel model{alpha, beta, gamma};
  const std::string invalid = patcoll::core::check_cost_model(model);
  if (comm == MPI_COMM_NULL) {  // this process only: nothing to agree with
    if (!invalid.empty()) return fail(MPI_ERR_ARG, "cost model: " + invalid);
    process_defaults().cost = model;
    return MPI_SUCCESS;
  }
  if (!mpi_usable()) return fail(MPI_ERR_OTHER, "MPI is not initialised or already finalised");
  CommState *state = nullptr;
  if (int rc = comm_state(comm, state); rc != MPI_SUCCESS) return rc;
  const double values[3] = {alpha, beta, gamma};
  if (int rc = agree_across_ranks(*state, invalid.empty() ? hash_values(values, 3) : 0,
                                  invalid.empty() ? invalid : "cost model: " + invalid, "the cost model");
      rc != MPI_SUCCESS)
    return rc;
  state->cost = model;
  return MPI_SUCCESS;
}

int PAT_Algorithm_count(const char *collective) {
  Collective c;
  if (!parse_collective_name(collective, c)) return -1;
  return static_cast<int>(entries(c).size());
}

const char *PAT_Algorithm_name(const char *collective, int index) {
  Collective c;
  if (!parse_collective_name(collective, c)) return nullptr;
  const auto &list = entries(c);
  if (index < 0 || index >= static_cast<int>(list.size())) return nullptr;
  return list[static_cast<std::size_t>(index)].name.data();
}

int PAT_Get_last_algorithm(MPI_Comm comm, const char *collective, const char **name) {
  Collective c;
  if (!parse_collective_name(collective, c)) return fail(MPI_ERR_ARG, "unknown collective");
  if (!name) return fail(MPI_ERR_ARG, "name is NULL");
  if (comm == MPI_COMM_NULL) return fail(MPI_ERR_COMM, "the communicator is MPI_COMM_NULL");
  if (!mpi_usable()) return fail(MPI_ERR_OTHER, "MPI is not initialised or already finalised");
  CommState *state = nullptr;
  if (int rc = existing_comm_state(comm, state); rc != MPI_SUCCESS) return rc;
  const std::string_view last = state ? state->last_algorithm[static_cast<std::size_t>(c)] : std::string_view();
  *name = last.empty() ? nullptr : last.data();
  return MPI_SUCCESS;
}

const char *PAT_Last_error(void) { return last_error().c_str(); }

int PAT_Get_version(int *major, int *minor, int *patch) {
  if (major) *major = PATCOLL_VERSION_MAJOR;
  if (minor) *minor = PATCOLL_VERSION_MINOR;
  if (patch) *patch = PATCOLL_VERSION_PATCH;
  return MPI_SUCCESS;
}

}  // extern "C"
