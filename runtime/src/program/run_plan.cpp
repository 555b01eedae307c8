// A program's --plan: the plan of this run as text or JSON (run_plan.hpp).
#include "flow/program/run_plan.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "flow/format.hpp"

namespace flow {

namespace {

/// A phase of the plan: its label, the memory of the nodes that live in it, its I/O.
struct plan_phase {
  std::string label;
  std::uint64_t memory_bytes = 0;
  double read_bytes = 0, write_bytes = 0, rounds = 1;
};

/// Phases by id: every phase with an estimate or a node's memory.
std::map<unsigned, plan_phase> phases_of(const run_plan& p) {
  std::map<unsigned, plan_phase> phases;
  for (const auto& e : p.estimate.phases()) {
    plan_phase& ph = phases[e.id];
    ph.label = e.label;
    ph.read_bytes = e.read_bytes;
    ph.write_bytes = e.write_bytes;
    ph.rounds = e.rounds;
  }
  for (const auto& n : p.estimate.nodes())
    for (unsigned id : n.memory_phases) phases[id].memory_bytes += n.memory_bytes;
  return phases;
}

std::vector<estimate::node_estimate> nodes_by_id(const run_plan& p) {
  std::vector<estimate::node_estimate> nodes = p.estimate.nodes();
  std::stable_sort(nodes.begin(), nodes.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  return nodes;
}

std::string whole(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

} // namespace

std::string plan_to_text(const run_plan& p) {
  std::ostringstream o;
  o << p.program << ": plan (nothing runs)\n  memory " << format_bytes(static_cast<double>(p.memory_bytes))
    << ", blocks of " << format_bytes(static_cast<double>(p.block_bytes)) << ", threads " << p.threads << "\n";
  if (!p.params.empty()) {
    o << "  params";
    for (const auto& [name, value] : p.params) o << " " << name << "=" << value;
    o << "\n";
  }
  const auto nodes = nodes_by_id(p);
  for (const auto& [id, ph] : phases_of(p)) {
    o << "phase " << id << (ph.label.empty() ? "" : ": " + ph.label) << "  (memory "
      << format_bytes(static_cast<double>(ph.memory_bytes)) << ", read " << format_bytes(ph.read_bytes) << ", write "
      << format_bytes(ph.write_bytes) << (ph.rounds != 1 ? ", per round" : "") << ")\n";
    for (const auto& n : nodes) {
      const bool here = n.phase == id;
      if (!here && std::find(n.memory_phases.begin(), n.memory_phases.end(), id) == n.memory_phases.end()) continue;
      o << "  n" << n.id << " " << n.name << ": memory " << format_bytes(static_cast<double>(n.memory_bytes));
      if (here) o << ", read " << format_bytes(n.read_bytes) << ", write " << format_bytes(n.write_bytes);
      o << "\n";
      if (here && !n.queue.empty()) o << "    queue: " << n.queue << "\n";
    }
  }
  return o.str();
}

std::string plan_to_json(const run_plan& p) {
  std::ostringstream o;
  o << "{\"program\": " << json_string(p.program) << ", \"memory_bytes\": " << p.memory_bytes
    << ", \"block_bytes\": " << p.block_bytes << ", \"threads\": " << p.threads << ", \"params\": {";
  for (std::size_t i = 0; i < p.params.size(); ++i)
    o << (i ? ", " : "") << json_string(p.params[i].first) << ": " << p.params[i].second;
  o << "},\n \"phases\": [";
  bool first = true;
  double read = 0, write = 0;
  for (const auto& [id, ph] : phases_of(p)) {
    o << (first ? "\n  " : ",\n  ") << "{\"id\": " << id << ", \"label\": " << json_string(ph.label)
      << ", \"memory_bytes\": " << ph.memory_bytes << ", \"read_bytes\": " << whole(ph.read_bytes)
      << ", \"write_bytes\": " << whole(ph.write_bytes) << ", \"rounds\": " << ph.rounds << "}";
    first = false;
    read += ph.read_bytes * ph.rounds;
    write += ph.write_bytes * ph.rounds;
  }
  o << "],\n \"nodes\": [";
  first = true;
  for (const auto& n : nodes_by_id(p)) {
    o << (first ? "\n  " : ",\n  ") << "{\"id\": " << n.id << ", \"name\": " << json_string(n.name)
      << ", \"phase\": " << n.phase << ", \"memory_bytes\": " << n.memory_bytes
      << ", \"read_bytes\": " << whole(n.read_bytes) << ", \"write_bytes\": " << whole(n.write_bytes);
    if (!n.queue.empty()) o << ", \"queue\": " << json_string(n.queue);
    o << "}";
    first = false;
  }
  o << "],\n \"total\": {\"read_bytes\": " << whole(read) << ", \"write_bytes\": " << whole(write) << "}}\n";
  return o.str();
}

} // namespace flow
