// patcoll Program IR — the one description of "who sends what to whom, when".
//
// Every algorithm is a builder that turns collective parameters into one
// Program per rank. The MPI executor runs a Program with MPI_Isend/Irecv/
// Waitall and MPI_Reduce_local; the validator executes all ranks' Programs
// symbolically; the simulator executes them under the α-β-γ cost model.
// None of this header knows about MPI.
//
// Vocabulary
//   element   one item of the user's MPI datatype (offsets and counts are
//             always in elements, never bytes, so derived datatypes work)
//   buffer    a logical buffer of the calling rank: the user's send buffer,
//             the user's receive buffer, or the Program's scratch buffer
//   region    (buffer, offset, count)
//   step      a group of operations executed as
//               1. every `local` op, in order;
//               2. every `send` and `recv` posted (MPI_Isend/MPI_Irecv),
//                  in op order;
//               3. wait for all of them (MPI_Waitall);
//               4. every `recv` with a combining disposition applied, in
//                  op order.
//             A send reads its region as it is after phase 1.
//             An executor may apply a combining recv as soon as its own
//             message is in, provided the result is that of phase 4: the
//             MPI executor waits for the step's sends and stores touching
//             the same memory, and orders combines into overlapping memory
//             by op order when the op is not commutative (mpi/executor.hpp;
//             the simulator models the same, SimulateOptions).
//   matching  messages between an ordered pair of ranks match first-in
//             first-out per tag: the k-th send from a to b with tag t is
//             received by the k-th recv at b from a with tag t (MPI's
//             non-overtaking rule). Most Programs use tag 0 only.
//   dependencies (within one step) a send or recv may name a group of
//             the same step (`after`): it is posted only once every op of
//             that group (`group`) has completed, a combining or storing
//             recv applied; a send reads its region when it is posted.
//             So one step can hold a relay (receive, then forward what
//             came) or a window of sends (each after the one W earlier),
//             and an executor runs each part as soon as its inputs are
//             in, whatever order they come in. Rules (the validator's):
//             local ops have no `after`; the groups' dependencies form no
//             cycle; an op with an `after` is the only op of its kind,
//             peer and tag in its step (so matching stays static); a send
//             posted after a group may read memory that a recv of the
//             step writes only if that recv is among the ops it waits for
//             (directly or through their own `after`).
//
// Buffer conventions per collective (count = Params::count):
//   reduce     send: count at every rank;   recv: count at the root only
//   allreduce  send: count at every rank;   recv: count at every rank
//   scatter    send: procs*count at the root; recv: count at every rank
//   gather     send: count at every rank;   recv: procs*count at the root
//   alltoall   send: procs*count at every rank (pair for d at d*count);
//              recv: procs*count at every rank (pair from s at s*count);
//              alltoallv: the pairs of Params::counts, packed (layout.hpp)
// The send buffer is read-only. MPI_IN_PLACE makes send and recv the same
// storage (reduce/allreduce: where MPI allows it; scatter: root's recv
// block is send block `root`; gather: root's send block is recv block
// `root`; alltoall(v): send = recv at every rank); builders are written so
// that they stay correct when aliased, and
// the validator checks both cases.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace patcoll::core {

// One enumerator per row of collectives.def (the list the surface above
// core is generated from).
enum class Collective : std::uint8_t {
#define PATCOLL_COLLECTIVE(name, Name, NAME, kind) name,
#include "collectives.def"
#undef PATCOLL_COLLECTIVE
};

std::string_view to_string(Collective);
// false when `text` names no collective.
bool parse_collective(std::string_view text, Collective &out);

enum class Buffer : std::uint8_t { send, recv, scratch };
std::string_view to_string(Buffer);

struct Region {
  Buffer buffer = Buffer::scratch;
  std::int64_t offset = 0;  // elements
  std::int64_t count = 0;   // elements
  friend bool operator==(const Region &, const Region &) = default;
};

enum class OpKind : std::uint8_t { send, recv, local };
std::string_view to_string(OpKind);

// What a recv or a local op does with the incoming data `in` at `dst`:
//   store  dst = in                        (the Clairvoyant "replace")
//   left   dst = in ∘ dst   (MPI_Reduce_local(in, dst); `in` holds lower ranks)
//   right  dst = dst ∘ in   (`in` holds higher ranks; needs staging)
enum class Combine : std::uint8_t { store, left, right };
std::string_view to_string(Combine);

struct Op {
  OpKind kind = OpKind::local;
  Combine combine = Combine::store;  // recv and local
  int peer = -1;                     // send and recv
  Region src;                        // send and local: the data read
  Region dst;                        // recv and local: where it lands
  int tag = 0;                       // send and recv: the matching channel (>= 0)
  int group = -1;                    // the op's group within its step (-1: none)
  int after = -1;                    // send and recv: posted once group `after` of the step is complete (-1: at the step's start)
  bool synchronous = false;          // send: complete only once the receiver has taken it (MPI_Issend), as
                                     // every send of a Program with synchronous_sends; a window of sends
                                     // (each after the one W earlier) counts taken sends this way
  friend bool operator==(const Op &, const Op &) = default;
};

struct Step {
  int round = -1;  // the algorithm's round, where it has rounds
  std::vector<Op> ops;
  friend bool operator==(const Step &, const Step &) = default;
};

struct Program {
  int rank = 0;
  int procs = 1;
  std::int64_t scratch_count = 0;  // elements of scratch this rank needs
  std::vector<Step> steps;
  // The plan assumes a send holds the sender until the receiver has taken
  // the message (the simulator's rendezvous transfers, one per port): the
  // executor then posts MPI_Issend, so a small message sent eagerly cannot
  // let the sender run ahead and share its link with its next send.
  // Schedule generators (Clairvoyant, greedy) set it: their rounds are
  // planned per port (docs/results/reproductions.md, the [PO] Fig. 10 1 ms case).
  bool synchronous_sends = false;
  friend bool operator==(const Program &, const Program &) = default;
};

// Convenience constructors used by every builder.
inline Region send_buf(std::int64_t offset, std::int64_t count) { return {Buffer::send, offset, count}; }
inline Region recv_buf(std::int64_t offset, std::int64_t count) { return {Buffer::recv, offset, count}; }
inline Region scratch_buf(std::int64_t offset, std::int64_t count) { return {Buffer::scratch, offset, count}; }

inline Op send_op(int peer, Region src) { return {OpKind::send, Combine::store, peer, src, {}}; }
inline Op recv_op(int peer, Region dst, Combine how = Combine::store) {
  return {OpKind::recv, how, peer, {}, dst};
}
inline Op copy_op(Region src, Region dst) { return {OpKind::local, Combine::store, -1, src, dst}; }
inline Op combine_op(Region src, Region dst, Combine how) { return {OpKind::local, how, -1, src, dst}; }
// The same op on channel `tag`, in group `group`, posted after group `after`.
inline Op tagged(Op op, int tag, int group = -1, int after = -1) {
  op.tag = tag;
  op.group = group;
  op.after = after;
  return op;
}
// The same send, synchronous (Op::synchronous).
inline Op synchronous(Op op) {
  op.synchronous = true;
  return op;
}

// Appends a step (skipping empty op lists) and returns the program for chaining.
Program &add_step(Program &program, std::vector<Op> ops, int round = -1);

// Number of messages (send ops) and elements sent by a program.
std::int64_t message_count(const Program &);
std::int64_t elements_sent(const Program &);

// Human-readable table and JSON for patcoll-sched and debugging.
std::string to_table(const Program &);
std::string to_json(const Program &);
std::string to_json(const std::vector<Program> &);

}  // namespace patcoll::core
