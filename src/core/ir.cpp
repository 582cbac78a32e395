#include "ir.hpp"

#include <sstream>

#include "traits.hpp"

namespace patcoll::core {

std::string_view to_string(Collective c) { return traits(c).name; }

bool parse_collective(std::string_view text, Collective &out) {
  for (const CollectiveTraits &t : collectives()) {
    if (text == t.name) {
      out = t.collective;
      return true;
    }
  }
  return false;
}

std::string_view to_string(Buffer b) {
  switch (b) {
    case Buffer::send: return "send";
    case Buffer::recv: return "recv";
    case Buffer::scratch: return "scratch";
  }
  return "?";
}

std::string_view to_string(OpKind k) {
  switch (k) {
    case OpKind::send: return "send";
    case OpKind::recv: return "recv";
    case OpKind::local: return "local";
  }
  return "?";
}

std::string_view to_string(Combine c) {
  switch (c) {
    case Combine::store: return "store";
    case Combine::left: return "left";
    case Combine::right: return "right";
  }
  return "?";
}

Program &add_step(Program &program, std::vector<Op> ops, int round) {
  if (!ops.empty()) program.steps.push_back(Step{round, std::move(ops)});
  return program;
}

std::int64_t message_count(const Program &program) {
  std::int64_t n = 0;
  for (const Step &step : program.steps)
    for (const Op &op : step.ops) n += op.kind == OpKind::send;
  return n;
}

std::int64_t elements_sent(const Program &program) {
  std::int64_t n = 0;
  for (const Step &step : program.steps)
    for (const Op &op : step.ops)
      if (op.kind == OpKind::send) n += op.src.count;
  return n;
}

namespace {
void dependency_text(std::ostream &os, const Op &op) {
  if (op.tag != 0) os << " tag " << op.tag;
  if (op.group >= 0) os << " group " << op.group;
  if (op.after >= 0) os << " after " << op.after;
  if (op.synchronous) os << " synchronous";
}
void dependency_json(std::ostream &os, const Op &op) {
  if (op.tag != 0) os << ",\"tag\":" << op.tag;
  if (op.group >= 0) os << ",\"group\":" << op.group;
  if (op.after >= 0) os << ",\"after\":" << op.after;
  if (op.synchronous) os << ",\"synchronous\":true";
}
void region_text(std::ostream &os, const Region &r) {
  os << to_string(r.buffer) << '[' << r.offset << '+' << r.count << ']';
}
void region_json(std::ostream &os, const Region &r) {
  os << "{\"buffer\":\"" << to_string(r.buffer) << "\",\"offset\":" << r.offset << ",\"count\":" << r.count << '}';
}
}  // namespace

std::string to_table(const Program &program) {
  std::ostringstream os;
  os << "rank " << program.rank << " of " << program.procs << ", scratch " << program.scratch_count
     << " elements, " << program.steps.size() << " steps" << (program.synchronous_sends ? ", synchronous sends" : "")
     << '\n';
  for (std::size_t s = 0; s < program.steps.size(); ++s) {
    const Step &step = program.steps[s];
    os << "  step " << s;
    if (step.round >= 0) os << " (round " << step.round << ")";
    os << ":";
    for (const Op &op : step.ops) {
      os << "  ";
      switch (op.kind) {
        case OpKind::send:
          os << "send->" << op.peer << ' ';
          region_text(os, op.src);
          break;
        case OpKind::recv:
          os << "recv<-" << op.peer << ' ' << to_string(op.combine) << ' ';
          region_text(os, op.dst);
          break;
        case OpKind::local:
          os << to_string(op.combine) << ' ';
          region_text(os, op.src);
          os << "->";
          region_text(os, op.dst);
          break;
      }
      dependency_text(os, op);
      os << ';';
    }
    os << '\n';
  }
  return os.str();
}

std::string to_json(const Program &program) {
  std::ostringstream os;
  os << "{\"rank\":" << program.rank << ",\"procs\":" << program.procs
     << ",\"scratch_count\":" << program.scratch_count;
  if (program.synchronous_sends) os << ",\"synchronous_sends\":true";
  os << ",\"steps\":[";
  for (std::size_t s = 0; s < program.steps.size(); ++s) {
    const Step &step = program.steps[s];
    if (s) os << ',';
    os << "{\"round\":" << step.round << ",\"ops\":[";
    for (std::size_t i = 0; i < step.ops.size(); ++i) {
      const Op &op = step.ops[i];
      if (i) os << ',';
      os << "{\"kind\":\"" << to_string(op.kind) << '"';
      if (op.kind != OpKind::send) os << ",\"combine\":\"" << to_string(op.combine) << '"';
      if (op.kind != OpKind::local) os << ",\"peer\":" << op.peer;
      if (op.kind != OpKind::recv) {
        os << ",\"src\":";
        region_json(os, op.src);
      }
      if (op.kind != OpKind::send) {
        os << ",\"dst\":";
        region_json(os, op.dst);
      }
      dependency_json(os, op);
      os << '}';
    }
    os << "]}";
  }
  os << "]}";
  return os.str();
}

std::string to_json(const std::vector<Program> &programs) {
  std::string out = "[";
  for (std::size_t i = 0; i < programs.size(); ++i) {
    if (i) out += ',';
    out += to_json(programs[i]);
  }
  return out + "]";
}

}  // namespace patcoll::core
