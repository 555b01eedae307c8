// `flowc explain` output: a table for people, JSON for tools, DOT for drawings.
#include "plan/plan.hpp"

#include "flow/escape.hpp"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace flow::plan {

namespace {

std::string cell(const Node& n, double v, bool bytes) {
  if (!n.counted && v == 0) return "?";
  return bytes ? formatBytes(v) : formatCount(v);
}

/// A queue's I/O without a calibrated peak is the bound for holding every push at once.
// A queue's static estimate, and a calibrated one whose peak does not fit its internal
// arrays, is the all-pushes-at-once value: exact for pushes then pops, a bound otherwise.
// A bound of its pushes' count, which is not one when a while loop without `~ ROUNDS`
// (counted once) may push (graph.components_external's, docs/estimates.md): no bound is
// claimed in a plan with such a loop.
bool upperBound(const Plan& plan, const Node& n) {
  return n.kind == Node::Queue &&
         (!(n.calibrated && n.calibrated->peakFraction > 0) || n.readBytes + n.writeBytes > 0) &&
         std::none_of(plan.phases.begin(), plan.phases.end(), [](const Phase& ph) { return ph.roundsAssumed; });
}

/// Whether explain's "passes" column shows the node's merge passes: a sort's, a queue's levels.
bool hasPasses(const Node& n) {
  const io_rule io = n.traits().io;
  return io == io_rule::sort_runs || io == io_rule::sort_merge || io == io_rule::queue;
}

/// A read or write cell: "≤ X" for an upper bound.
std::string ioCell(const Plan& plan, const Node& n, double v) {
  std::string c = cell(n, v, true);
  return upperBound(plan, n) && v > 0 ? "\u2264 " + c : c;
}

/// The column width of a read or write cell: "≤" is three bytes of UTF-8 in one column.
int width(const Plan& plan, const Node& n, double v) { return upperBound(plan, n) && v > 0 ? 13 : 11; }

std::string saving(const Totals& pipelined, const Totals& materialized) {
  double p = pipelined.readBytes + pipelined.writeBytes;
  double m = materialized.readBytes + materialized.writeBytes;
  if (m <= 0) return "";
  // A program that streams everything anyway (a file sorted into a file) saves nothing;
  // runs' partly filled blocks can make it cost a hair more.
  double saved = 100.0 * (m - p) / m;
  if (saved < 0.5) return "pipelining saves nothing here: every stream is read or written once anyway";
  char buf[64];
  std::snprintf(buf, sizeof buf, "pipelining saves %.0f%% of the I/O volume", saved);
  return buf;
}

/// Bytes as a whole number, for JSON and the exact-number tests.
std::string integer(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

/// A fraction or a time for JSON: enough digits to read it back.
std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string jsonString(const std::string& s) { return flow::json_string(s); } // valid JSON for any bytes

const char* threadsName(Threads t) { return t == Threads::all ? "all" : t == Threads::two ? "two" : "one"; }

/// Which of a phase's nodes work on the program's threads (--threads), which on its
/// thread and a helper, and that the rest run on the phase's one thread; a for stage is
/// named there, since it is why its stretch of the phase cannot be split.
std::string threadsOf(const Plan& plan, const Phase& ph) {
  std::string all, batched, two, forStages;
  const auto add = [](std::string& list, const std::string& name) { list += (list.empty() ? "" : ", ") + name; };
  for (int id : ph.nodes) {
    const Node& n = plan.nodes[id];
    if (n.threads() == Threads::all && n.batchFirst < 0) // a hash join is an asynchronous stage of its own
      add(all, n.kind == Node::HashJoin ? n.name + " (probing its next batch while the stages after it run)"
               : n.insertsOnCaller && n.hashed ? n.name + " (its spills' sort; its table filled on the phase's thread)"
                                               : n.name);
    if (n.batchFirst >= 0) // a stretch's stages joined by arrows, stretches by commas
      batched += (batched.empty() ? "" : n.batchFirst == n.id ? ", " : " → ") + n.name;
    if (n.threads() == Threads::two) add(two, n.name);
    if (n.kind == Node::ForStage && n.batchFirst < 0) add(forStages, n.name);
  }
  std::string out;
  if (!all.empty()) out += "all of --threads for " + all + "; ";
  if (!batched.empty()) out += "all of --threads in batches for " + batched + "; ";
  if (!two.empty()) out += "two (its own and a helper) for " + two + "; ";
  out += out.empty() ? "one for every node" : "one for the rest";
  if (!forStages.empty()) out += " (" + forStages + ": a for stage keeps its state from one element to the next)";
  return out;
}

/// A phase of a program built with --mpi as `plan.ranks` ranks run it (explain --ranks P):
/// which nodes are spread over the ranks and which every rank computes whole, and at most
/// what one rank reads, writes and sends. A spread node's I/O is shared by the ranks (a
/// sort's exchange comes before its runs are written), and the first rank writes a
/// spread write's whole file.
std::string ranksOf(const Plan& plan, const Phase& ph) {
  const double p = plan.ranks;
  std::string spread, whole;
  double read = 0, write = 0, sent = 0, network = 0;
  const auto add = [](std::string& list, const std::string& name) { list += (list.empty() ? "" : ", ") + name; };
  for (int id : ph.nodes) {
    const Node& n = plan.nodes[id];
    add(n.spread ? spread : whole, n.name);
    if (n.phase != ph.id) continue;
    if (!n.spread) {
      read += n.readBytes;
      write += n.writeBytes;
      sent += n.networkBytes / p; // standard input, which the first rank sends the others
      network += n.networkBytes;
      continue;
    }
    read += n.readBytes / p;
    write += n.kind == Node::WriteFile ? n.writeBytes : n.writeBytes / p;
    sent += n.networkBytes / p;
    network += n.networkBytes;
  }
  std::string out = "  ranks: " + std::to_string(plan.ranks) + "; spread over them: " + (spread.empty() ? "none" : spread) +
                    "; whole on every rank: " + (whole.empty() ? "none" : whole) + "\n";
  // What made them whole: the nodes that cannot be spread, wherever their stream goes.
  std::vector<int> causes;
  for (int id : ph.nodes)
    if (const int c = plan.nodes[id].wholeCause; c >= 0 && std::find(causes.begin(), causes.end(), c) == causes.end())
      causes.push_back(c);
  for (int c : causes) {
    const Node& n = plan.nodes[c];
    const std::string line = n.loc.origin == 0 && n.loc.valid() ? " (line " + std::to_string(n.loc.line) + ")" : "";
    out += "  whole because of " + n.name + line + ": " + n.whyWhole + "\n";
  }
  out += "  each rank: read " + formatBytes(read) + ", write " + formatBytes(write) + ", send " + formatBytes(sent) +
         " (the network: " + formatBytes(network) + " in all)\n";
  return out;
}

/// A DOT string: quotes escaped, `\n` kept as DOT's line break.
std::string dotString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '\\';
    out += c;
  }
  return out + "\"";
}

} // namespace

void printText(const Plan& plan, std::ostream& out) {
  out << "plan of " << plan.script << "\n";
  out << "  memory " << formatBytes(static_cast<double>(plan.memoryBytes))
      << (plan.memoryDefaulted ? " (default; set it with 'memory' or --memory)" : "") << ", blocks of "
      << formatBytes(static_cast<double>(plan.blockBytes)) << (plan.blockDefaulted ? " (chosen by the planner)" : "")
      << "\n";
  if (plan.strCapacity)
    out << "  str: at most " << plan.strCapacity << " bytes each, held inline (" << plan.strCapacity + 2
        << " bytes; set it with --max-str)\n";
  if (!plan.params.empty()) {
    out << "  params";
    for (size_t i = 0; i < plan.params.size(); ++i)
      out << (i ? ", " : " ") << plan.params[i].first << " = " << plan.params[i].second;
    out << "\n";
  }
  if (plan.calibration) {
    const Calibration& c = *plan.calibration;
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.1f s", c.seconds);
    out << "  calibrated by a run (" << seconds << ") with";
    for (size_t i = 0; i < c.params.size(); ++i) out << (i ? ", " : " ") << c.params[i].first << " = " << c.params[i].second;
    if (c.params.empty()) out << " the same params";
    out << "; " << (c.scaled.empty() ? "no param scaled down" : "scaled down:");
    for (size_t i = 0; i < c.scaled.size(); ++i) out << (i ? ", " : " ") << c.scaled[i];
    out << "\n  nodes marked * count what that run measured, extrapolated linearly\n";
  }
  for (const Phase& ph : plan.phases) {
    // A phase in a while loop shows one round; the totals count every round.
    const std::string rounds = ph.loops.empty() ? ""
                               : ph.roundsAssumed
                                   ? " x 1 round (a while loop without ~ ROUNDS: counted once)"
                                   : " x " + formatCount(ph.rounds) + " rounds";
    out << "\nphase " << ph.id << ": " << ph.label << rounds << "  (memory "
        << formatBytes(static_cast<double>(ph.memoryBytes)) << (ph.loops.empty() ? ", read " : ", per round: read ")
        << formatBytes(ph.readBytes) << ", write " << formatBytes(ph.writeBytes) << ", temporary disk "
        << formatBytes(ph.tempDiskBytes) << ")\n";
    out << "  " << std::left << std::setw(5) << "id" << std::setw(34) << "node" << std::right << std::setw(10)
        << "elements" << std::setw(11) << "bytes" << std::setw(11) << "memory" << std::setw(7) << "passes"
        << std::setw(11) << "read" << std::setw(11) << "write" << "\n";
    for (int id : ph.nodes) {
      const Node& n = plan.nodes[id];
      std::string name = n.name;
      if (name.size() > 33) name = name.substr(0, 30) + "...";
      bool here = n.phase == ph.id; // a queue shows its I/O in its first phase
      const std::string nodeId = "n" + std::to_string(n.id) + (n.calibrated ? "*" : "");
      out << "  " << std::left << std::setw(5) << nodeId << std::setw(34) << name << std::right
          << std::setw(10) << cell(n, n.elements, false) << std::setw(11) << cell(n, n.elements * n.elementBytes, true)
          << std::setw(11) << (n.memoryBytes ? formatBytes(static_cast<double>(n.memoryBytes)) : "-") << std::setw(7)
          << (hasPasses(n) && here
                  ? (n.inMemory ? std::string("mem") : std::to_string(n.passes))
                  : std::string("-"))
          << std::setw(width(plan, n, n.readBytes)) << (here ? ioCell(plan, n, n.readBytes) : "")
          << std::setw(width(plan, n, n.writeBytes)) << (here ? ioCell(plan, n, n.writeBytes) : "") << "\n";
      if (!n.note.empty() && here) out << "       note: " << n.note << "\n";
      if (!n.queue.empty() && here) out << "       queue: " << n.queue << "\n";
    }
    out << "  threads: " << threadsOf(plan, ph) << "\n";
    if (plan.ranks) out << ranksOf(plan, ph);
  }
  const bool bounded = std::any_of(plan.nodes.begin(), plan.nodes.end(),
                                   [&](const Node& n) { return upperBound(plan, n) && n.readBytes + n.writeBytes > 0; });
  out << "\ntotal:        read " << (bounded ? "\u2264 " : "") << formatBytes(plan.total.readBytes) << ", write " << (bounded ? "\u2264 " : "") << formatBytes(plan.total.writeBytes)
      << " (" << integer(plan.total.readBytes + plan.total.writeBytes) << " bytes, "
      << integer((plan.total.readBytes + plan.total.writeBytes) / static_cast<double>(plan.blockBytes)) << " blocks)\n";
  out << "materialized: read " << formatBytes(plan.materialized.readBytes) << ", write "
      << formatBytes(plan.materialized.writeBytes) << " (" << integer(plan.materialized.readBytes + plan.materialized.writeBytes)
      << " bytes) if every stream were written to disk and read back\n";
  std::string s = saving(plan.total, plan.materialized);
  if (!s.empty()) out << s << "\n";
  if (plan.ranks) {
    double network = 0;
    for (const Node& n : plan.nodes) network += n.networkBytes;
    out << "network:      " << formatBytes(network) << " sent between " << plan.ranks
        << " ranks in all (keys spread evenly)\n";
  }
}

void printJson(const Plan& plan, std::ostream& out) {
  out << "{\n  \"script\": " << jsonString(plan.script) << ",\n";
  out << "  \"memory_bytes\": " << plan.memoryBytes << ",\n  \"block_bytes\": " << plan.blockBytes << ",\n";
  if (plan.strCapacity) out << "  \"str_bytes\": " << plan.strCapacity << ",\n";
  out << "  \"params\": {";
  for (size_t i = 0; i < plan.params.size(); ++i)
    out << (i ? ", " : "") << jsonString(plan.params[i].first) << ": " << plan.params[i].second;
  out << "},\n  \"nodes\": [\n";
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    const Node& n = plan.nodes[i];
    out << "    {\"id\": " << n.id << ", \"kind\": " << jsonString(n.kindName()) << ", \"name\": " << jsonString(n.name)
        << ", \"line\": " << n.loc.line << ", \"column\": " << n.loc.column << ", \"phase\": " << n.phase
        << ", \"elements\": " << integer(n.elements) << ", \"counted\": " << (n.counted ? "true" : "false")
        << ", \"element_bytes\": " << n.elementBytes << ", \"memory_bytes\": " << n.memoryBytes
        << ", \"passes\": " << n.passes << ", \"read_bytes\": " << integer(n.readBytes)
        << ", \"write_bytes\": " << integer(n.writeBytes) << ", \"inputs\": [";
    for (size_t k = 0; k < n.inputs.size(); ++k) out << (k ? ", " : "") << n.inputs[k];
    out << "]";
    if (n.kind == Node::Queue) {
      out << ", \"phases\": [";
      for (size_t k = 0; k < n.livePhases.size(); ++k) out << (k ? ", " : "") << n.livePhases[k];
      out << "]";
    }
    if (upperBound(plan, n)) out << ", \"upper_bound\": true";
    if (plan.ranks)
      out << ", \"spread\": " << (n.spread ? "true" : "false") << ", \"network_bytes\": " << integer(n.networkBytes);
    if (n.calibrated) {
      out << ", \"calibrated\": {\"elements\": " << integer(n.calibrated->elements)
          << ", \"fraction\": " << number(n.calibrated->fraction);
      if (n.kind == Node::Queue) out << ", \"peak_fraction\": " << number(n.calibrated->peakFraction);
      out << "}";
    }
    if (n.kind == Node::Queue) out << ", \"queue\": " << jsonString(n.queue);
    out << ", \"threads\": \"" << threadsName(n.threads()) << "\"";
    if (!n.note.empty()) out << ", \"note\": " << jsonString(n.note);
    out << "}" << (i + 1 < plan.nodes.size() ? "," : "") << "\n";
  }
  out << "  ],\n  \"phases\": [\n";
  for (size_t i = 0; i < plan.phases.size(); ++i) {
    const Phase& ph = plan.phases[i];
    out << "    {\"id\": " << ph.id << ", \"label\": " << jsonString(ph.label) << ", \"memory_bytes\": " << ph.memoryBytes
        << ", \"read_bytes\": " << integer(ph.readBytes) << ", \"write_bytes\": " << integer(ph.writeBytes)
        << ", \"temp_disk_bytes\": " << integer(ph.tempDiskBytes)
        << ", \"rounds\": " << ph.rounds << ", \"nodes\": [";
    for (size_t k = 0; k < ph.nodes.size(); ++k) out << (k ? ", " : "") << ph.nodes[k];
    out << "]}" << (i + 1 < plan.phases.size() ? "," : "") << "\n";
  }
  out << "  ],\n";
  if (plan.calibration) {
    const Calibration& c = *plan.calibration;
    out << "  \"calibration\": {\"params\": {";
    for (size_t i = 0; i < c.params.size(); ++i)
      out << (i ? ", " : "") << jsonString(c.params[i].first) << ": " << c.params[i].second;
    out << "}, \"scaled\": [";
    for (size_t i = 0; i < c.scaled.size(); ++i) out << (i ? ", " : "") << jsonString(c.scaled[i]);
    out << "], \"seconds\": " << number(c.seconds) << "},\n";
  }
  out << "  \"total\": {\"read_bytes\": " << integer(plan.total.readBytes)
      << ", \"write_bytes\": " << integer(plan.total.writeBytes)
      << (std::any_of(plan.nodes.begin(), plan.nodes.end(),
                      [&](const Node& n) { return upperBound(plan, n) && n.readBytes + n.writeBytes > 0; })
              ? ", \"upper_bound\": true"
              : "")
      << "},\n";
  out << "  \"materialized_total\": {\"read_bytes\": " << integer(plan.materialized.readBytes)
      << ", \"write_bytes\": " << integer(plan.materialized.writeBytes) << "}\n}\n";
}


void printDot(const Plan& plan, std::ostream& out) {
  // Phases top to bottom in the order they run, each a cluster of its pipelined nodes;
  // vectors and queues outside, with dashed edges from the nodes that fill them to those
  // that read them, possibly phases later.
  out << "digraph flow {\n  rankdir=TB;\n  node [shape=box, fontname=\"Helvetica\"];\n"
      << "  edge [fontname=\"Helvetica\", fontsize=10];\n";
  auto label = [&](const Node& n) {
    std::string text = n.name + "\\n" + cell(n, n.elements, false) + (n.kind == Node::Queue ? " pushes" : " elements");
    if (n.memoryBytes > 0) text += "\\nmemory " + formatBytes(static_cast<double>(n.memoryBytes));
    if (n.readBytes > 0 || n.writeBytes > 0)
      text += "\\nread " + formatBytes(n.readBytes) + ", write " + formatBytes(n.writeBytes);
    return dotString(text);
  };
  std::vector<int> firstOfPhase, lastOfPhase;
  for (const Phase& ph : plan.phases) {
    out << "  subgraph cluster_phase" << ph.id << " {\n    label=" << dotString("phase " + std::to_string(ph.id) + ": " + ph.label)
        << ";\n    style=rounded;\n";
    int first = -1, last = -1;
    for (int id : ph.nodes) {
      const Node& n = plan.nodes[id];
      if (n.kind == Node::Queue) continue; // drawn once, outside the phases
      const io_rule io = n.traits().io;
      const std::string shape = n.traits().sortHalf()                                    ? "box3d"
                                : io == io_rule::reads_file || io == io_rule::writes_file ? "cylinder"
                                                                                           : "box";
      out << "    n" << n.id << " [label=" << label(n) << ", shape=" << shape << "];\n";
      if (first < 0) first = n.id;
      last = n.id;
    }
    out << "  }\n";
    firstOfPhase.push_back(first);
    lastOfPhase.push_back(last);
  }
  for (const Node& n : plan.nodes)
    for (int i : n.inputs) out << "  n" << i << " -> n" << n.id << ";\n";
  // Keeps each phase below the one before, also where no data edge joins them.
  for (size_t k = 1; k < plan.phases.size(); ++k)
    if (lastOfPhase[k - 1] >= 0 && firstOfPhase[k] >= 0)
      out << "  n" << lastOfPhase[k - 1] << " -> n" << firstOfPhase[k] << " [style=invis];\n";

  // Vectors: one node each, filled and read by the nodes that name them.
  std::vector<const sema::Symbol*> vectors;
  auto vectorId = [&](const sema::Symbol* v) {
    for (size_t k = 0; k < vectors.size(); ++k)
      if (vectors[k] == v) return k;
    vectors.push_back(v);
    out << "  v" << vectors.size() - 1 << " [label=" << dotString("vector " + v->name) << ", shape=cylinder, style=dashed];\n";
    return vectors.size() - 1;
  };
  for (const Node& n : plan.nodes) {
    if (const sema::Symbol* v = n.kind == Node::Materialize ? nullptr : n.storeWritten()) {
      const size_t k = vectorId(v); // declares it first
      out << "  n" << n.id << " -> v" << k << " [style=dashed];\n";
    }
    if (const sema::Symbol* v = n.kind == Node::Reread ? nullptr : n.storeRead()) {
      const size_t k = vectorId(v);
      out << "  v" << k << " -> n" << n.id << " [style=dashed];\n";
    }
  }
  // Queues: pushed and popped by the loops of the phases they live through.
  for (const Node& q : plan.nodes) {
    if (q.kind != Node::Queue) continue;
    out << "  n" << q.id << " [label=" << label(q) << ", shape=box3d, style=dashed];\n";
    for (int phase : q.livePhases)
      for (const Node& m : plan.nodes)
        if (m.phase == phase && (m.kind == Node::Loop || m.kind == Node::ForStage))
          out << "  n" << m.id << " -> n" << q.id << " [style=dashed, dir=both, label=\"push / pop\"];\n";
  }

  out << "  subgraph cluster_legend {\n    label=\"legend\";\n    style=dotted;\n"
         "    legend_stage [label=\"pipelined stage\", shape=box];\n"
         "    legend_sort [label=\"sort or reduce:\\nruns, then merge\", shape=box3d];\n"
         "    legend_file [label=\"file read or written\", shape=cylinder];\n"
         "    legend_store [label=\"vector or queue\\n(across phases)\", shape=cylinder, style=dashed];\n"
         "    legend_stage -> legend_sort [label=\"elements, pipelined\"];\n"
         "    legend_sort -> legend_file;\n"
         "    legend_file -> legend_store [style=dashed, label=\"stored, read later\"];\n  }\n";
  out << "}\n";
}

} // namespace flow::plan
