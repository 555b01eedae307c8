// Pipelines, generated from the plan's nodes: each segment (a phase, or the part of a
// nested pipeline between sorts) is one loop per source, the stages inlined into it in
// the order the elements flow; a sort's run formation ends a segment, its merge starts
// the next.
#include "codegen/generator.hpp"

#include <algorithm>

namespace flow::codegen {

using namespace flow::ast;
using plan::Node;
using sema::Symbol;
using sema::Type;

namespace {
bool isPipelineNode(Node::Kind k) { return k != Node::Queue && k != Node::VectorPush; }
} // namespace

std::string Generator::var(const Node& n, const char* role) const {
  return std::string("fl_") + role + std::to_string(n.id);
}

std::string Generator::memoryOf(const Node& n) const {
  // The memory plan made at start for this run's params and --memory (emitMemoryPlan).
  return "fl_nodes[" + std::to_string(n.id) + "].memory";
}

void Generator::emitOwner(const void* owner, bool topLevel) {
  std::vector<int> nodes;
  for (const Node& n : plan_.nodes)
    if (n.owner == owner && isPipelineNode(n.kind)) nodes.push_back(n.id);
  if (nodes.empty()) return;
  // Segments: a merge runs one segment after its run formation; everything else runs in
  // the segment of its latest input. Nodes are numbered after their inputs.
  std::map<int, int> segmentOf;
  int last = 0;
  for (int id : nodes) {
    const Node& n = plan_.nodes[id];
    int seg = 0;
    for (int in : n.inputs) {
      auto it = segmentOf.find(in);
      if (it == segmentOf.end()) continue; // produced by another statement (re-read)
      seg = std::max(seg, it->second + (plan_.nodes[in].kind == Node::SortRuns ? 1 : 0));
    }
    segmentOf[id] = seg;
    last = std::max(last, seg);
  }
  // Results an aggregate hands to the expression that called it live beyond the loops.
  for (int id : nodes) {
    const Node& n = plan_.nodes[id];
    if (n.kind != Node::Aggregate) continue;
    const std::string T = type(static_cast<const CallExpr*>(n.ast)->type);
    std::string fn = n.name;
    if (fn == "count") line("uint64_t " + var(n, "count") + " = 0;");
    else if (fn == "sum") line(T + " " + var(n, "sum") + " = 0;");
    else {
      line(T + " " + var(n, fn.c_str()) + "{};");
      line("bool " + var(n, "any") + " = false;");
    }
  }
  // A materialized stream outlives this statement: later ones read it back.
  for (int id : nodes) {
    const Node& n = plan_.nodes[id];
    if (n.kind == Node::Materialize)
      line("flow::containers::vector<" + type(n.symbol->type) + ", " + std::to_string(plan_.blockBytes) + "> " +
           var(n, "mat") + "(" + memoryOf(n) + ");");
  }
  // Everything else (readers, sorters, writers) ends with the statement, so a vector's
  // scan ends before the next statement reads or changes it.
  line("{");
  ++indent_;
  for (int seg = 0; seg <= last; ++seg) {
    std::vector<int> inSeg;
    for (int id : nodes)
      if (segmentOf[id] == seg) inSeg.push_back(id);
    if (inSeg.empty()) continue;
    if (topLevel) {
      const Node& first = plan_.nodes[inSeg.front()];
      const plan::Phase* phase = nullptr;
      for (const plan::Phase& p : plan_.phases)
        if (p.id == first.phase) phase = &p;
      std::string label = phase ? phase->label : first.name;
      line("");
      line("// phase " + std::to_string(first.phase) + ": " + label + " (estimated read " +
           plan::formatBytes(phase ? phase->readBytes : 0) + ", write " + plan::formatBytes(phase ? phase->writeBytes : 0) +
           ", memory " + plan::formatBytes(phase ? static_cast<double>(phase->memoryBytes) : 0) + ")");
      // The elements its sources are expected to put out, for the progress bar.
      double expected = 0;
      for (int id : inSeg) {
        const Node& n = plan_.nodes[id];
        bool source = true;
        for (int in : n.inputs) source = source && !segmentOf.count(in);
        if (source && n.kind != Node::SortRuns) expected += n.elements;
      }
      line("fl_program.begin_phase(" + std::to_string(first.phase) + ", " + quote(label) + ", " +
           std::to_string(static_cast<uint64_t>(expected)) + ");");
    }
    emitSegment(inSeg, seg, segmentOf, topLevel);
    if (topLevel) line("fl_program.end_phase();");
  }
  --indent_;
  line("}");
}

void Generator::emitSegment(const std::vector<int>& nodes, int segment, const std::map<int, int>& segmentOf,
                            bool topLevel) {
  (void)topLevel;
  std::set<int> inSegment(nodes.begin(), nodes.end());
  // 1. State of the nodes (sorters, writers, counters), in flow order.
  for (int id : nodes) declareNode(plan_.nodes[id], segmentOf, segment);
  std::vector<std::string> stops;
  for (int id : nodes)
    if (plan_.nodes[id].kind == Node::Loop && downstreamOfForStage(plan_.nodes[id], inSegment)) {
      stops.push_back(var(plan_.nodes[id], "stop"));
      line("bool " + stops.back() + " = false;");
    }
  // 2. The downstream of each for stage as a lambda its `emit` calls; later stages first,
  //    since an earlier stage's lambda calls the later ones.
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    const Node& n = plan_.nodes[*it];
    if (n.kind != Node::ForStage) continue;
    line("auto " + var(n, "emit") + " = [&](const " + type(static_cast<const Stage*>(n.ast)->elementType) + "& " +
         var(n, "v") + ") {");
    {
      Indent in(*this);
      emitTargets_.push_back(var(n, "emit"));
      consume(n, var(n, "v"), inSegment);
      emitTargets_.pop_back();
    }
    line("};");
  }
  // 3. One loop per source of the segment. Inputs of a merge are pulled by the merge.
  std::set<int> pulled;
  for (int id : nodes)
    if (plan_.nodes[id].kind == Node::Merge)
      for (int in : plan_.nodes[id].inputs) pulled.insert(in);
  for (int id : nodes) {
    const Node& n = plan_.nodes[id];
    bool root = !pulled.count(id);
    for (int in : n.inputs) root = root && (!inSegment.count(in) || n.kind == Node::Merge);
    if (!root) continue;
    const std::string v = var(n, "v");
    switch (n.kind) {
    case Node::Generate: {
      auto& g = *static_cast<const GenerateSource*>(n.ast);
      std::string i = name(g.indexSymbol);
      line("const uint64_t " + var(n, "n") + " = " + expr(*g.count) + ";");
      line("for (uint64_t " + i + " = 0; " + i + " < " + var(n, "n") + "; ++" + i + ") {");
      {
        Indent in(*this);
        stopChecks(stops);
        line("const " + type(g.elementType) + " " + v + " = " + expr(*g.body) + ";");
        consume(n, v, inSegment);
      }
      line("}");
      break;
    }
    case Node::Range: {
      auto& r = *static_cast<const RangeSource*>(n.ast);
      std::string T2 = type(r.elementType);
      line("const " + T2 + " " + var(n, "end") + " = " + expr(*r.end) + ";");
      line("for (" + T2 + " " + v + " = " + expr(*r.begin) + "; " + v + " < " + var(n, "end") + "; ++" + v + ") {");
      {
        Indent in(*this);
        stopChecks(stops);
        consume(n, v, inSegment);
      }
      line("}");
      break;
    }
    case Node::ReadFile:
    case Node::ReadText:
    case Node::ScanVector:
    case Node::Reread:
    case Node::SortMerge:
    case Node::Merge: {
      std::string source = pullSource(n);
      line("for (; !" + source + ".empty(); ++" + source + ") {");
      {
        Indent in(*this);
        stopChecks(stops);
        line("const auto& " + v + " = *" + source + ";");
        consume(n, v, inSegment);
      }
      line("}");
      break;
    }
    default: break;
    }
  }
  // 4. What ends with the segment: files are completed, vectors flushed.
  for (int id : nodes) finishNode(plan_.nodes[id]);
}

bool Generator::downstreamOfForStage(const Node& n, const std::set<int>& inSegment) const {
  for (int in : n.inputs)
    if (inSegment.count(in) &&
        (plan_.nodes[in].kind == Node::ForStage || downstreamOfForStage(plan_.nodes[in], inSegment)))
      return true;
  return false;
}

void Generator::stopChecks(const std::vector<std::string>& stops) {
  // A `break` in a loop body inside a for stage's lambda sets its flag.
  for (const std::string& s : stops) line("if (" + s + ") break;");
  // Progress of the phase (--progress, and the elements column of --stats): a counter.
  if (loops_.empty() && emitTargets_.empty()) line("fl_program.advance();");
}

std::string Generator::quote(const std::string& text) {
  std::string q = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') q += '\\';
    if (c == '\n') {
      q += "\\n";
      continue;
    }
    if (c == '\t') {
      q += "\\t";
      continue;
    }
    q += c;
  }
  return q + "\"";
}

std::string Generator::keyPath(const Expr& key) const {
  if (auto* nm = key.as<NameExpr>()) return "." + mangle(nm->name.str());
  if (auto* f = key.as<FieldExpr>()) return keyPath(*f->object) + "." + mangle(f->field);
  if (auto* i = key.as<IndexExpr>()) {
    auto v = sema::evaluate(*i->index, [](const Symbol*) { return std::nullopt; });
    return keyPath(*i->object) + "[" + (v ? v->str() : "0") + "]";
  }
  return "";
}

std::string Generator::pullSource(const Node& n) {
  switch (n.kind) {
  case Node::SortMerge: return var(n, "merge");
  default: return var(n, "in");
  }
}

void Generator::declareNode(const Node& n, const std::map<int, int>& segmentOf, int segment) {
  (void)segmentOf;
  (void)segment;
  const std::string B = std::to_string(plan_.blockBytes);
  switch (n.kind) {
  case Node::SortRuns: {
    auto& s = *static_cast<const SortStage*>(n.ast);
    std::string T = type(s.elementType);
    line("// " + n.name + ": " + (n.inMemory ? std::string("in memory") : std::to_string(n.runs) + " runs") +
         " estimated");
    line("flow::algo::runs_creator<" + T + ", " + orderType(s.order->order) + "> " + var(n, "runs") + "(" +
         memoryOf(n) + ", {}, fl_sort_options);");
    break;
  }
  case Node::SortMerge: {
    const Node& creator = plan_.nodes[n.partner];
    auto& s = *static_cast<const SortStage*>(creator.ast);
    line("// " + n.name + ": " + (n.inMemory ? std::string("in memory") : std::to_string(n.passes) + " pass(es)") +
         " estimated");
    line("flow::algo::runs_merger<" + type(s.elementType) + ", " + orderType(s.order->order) + "> " + var(n, "merge") +
         "(std::move(" + var(creator, "sorted") + "), " + memoryOf(n) + ", {}, fl_sort_options);");
    break;
  }
  case Node::ReadFile: {
    auto& r = *static_cast<const ReadSource*>(n.ast);
    line("flow::io::file_reader<" + type(r.elementType) + "> " + var(n, "in") + "(" + quote(r.path.text()) + ");");
    break;
  }
  case Node::ReadText: {
    auto& r = *static_cast<const ReadSource*>(n.ast);
    line("flow::script::text_reader<" + type(r.elementType) + ", " + textFields(r.elementType) + "> " + var(n, "in") +
         "(" + quote(r.path.text()) + ");");
    break;
  }
  case Node::ScanVector: {
    // The vector's symbol is the scan's source (scan(v) or a bare vector name).
    line("auto " + var(n, "in") + " = " + name(n.symbol) + ".scan();");
    break;
  }
  case Node::Reread: line("auto " + var(n, "in") + " = " + var(plan_.nodes[n.inputs[0]], "mat") + ".scan();"); break;
  case Node::Merge: {
    auto& m = *static_cast<const MergeSource*>(n.ast);
    std::string inputs, types;
    for (int in : n.inputs) {
      const Node& i = plan_.nodes[in];
      inputs += (inputs.empty() ? "" : ", ") + pullSource(i);
      types += ", decltype(" + pullSource(i) + ")";
    }
    line("flow::script::merged<" + type(m.elementType) + ", " + orderType(m.order.order) + types + "> " +
         var(n, "in") + "(" + inputs + ");");
    break;
  }
  case Node::Unique: {
    auto& u = *static_cast<const UniqueStage*>(n.ast);
    line("bool " + var(n, "seen") + " = false;");
    line(type(u.elementType) + " " + var(n, "last") + "{};");
    break;
  }
  case Node::Take: {
    auto& t = *static_cast<const TakeStage*>(n.ast);
    line("uint64_t " + var(n, "taken") + " = 0;");
    line("const uint64_t " + var(n, "limit") + " = " + expr(*t.count) + ";");
    break;
  }
  case Node::WriteFile: {
    auto& w = *static_cast<const WriteStmt*>(n.ast);
    line("flow::io::file_writer<" + type(w.pipeline->elementType) + "> " + var(n, "out") + "(" + quote(w.path.text()) +
         ");");
    break;
  }
  case Node::WriteText: {
    auto& w = *static_cast<const WriteStmt*>(n.ast);
    line("flow::script::text_writer<" + type(w.pipeline->elementType) + ", " + textFields(w.pipeline->elementType) +
         "> " + var(n, "out") + "(" + quote(w.path.text()) + ");");
    break;
  }
  default: break;
  }
}

void Generator::consume(const Node& from, const std::string& v, const std::set<int>& inSegment) {
  for (int c : consumers_[from.id])
    if (inSegment.count(c)) emitNode(plan_.nodes[c], v, inSegment);
}

void Generator::emitNode(const Node& n, const std::string& in, const std::set<int>& inSegment) {
  const std::string v = var(n, "v");
  switch (n.kind) {
  case Node::Map: {
    auto& m = *static_cast<const MapStage*>(n.ast);
    line("{");
    Indent x(*this);
    line("const auto& " + name(m.varSymbol) + " = " + in + ";");
    line("const " + type(m.elementType) + " " + v + " = " + expr(*m.body) + ";");
    consume(n, v, inSegment);
    --indent_;
    line("}");
    ++indent_;
    break;
  }
  case Node::Filter: {
    auto& f = *static_cast<const FilterStage*>(n.ast);
    line("{");
    {
      Indent x(*this);
      line("const auto& " + name(f.varSymbol) + " = " + in + ";");
      line("if (" + expr(*f.cond) + ") {");
      {
        Indent y(*this);
        consume(n, in, inSegment);
      }
      line("}");
    }
    line("}");
    break;
  }
  case Node::Unique: {
    auto& u = *static_cast<const UniqueStage*>(n.ast);
    std::string same;
    if (u.keys.empty()) {
      same = "flow::script::equal(" + var(n, "last") + ", " + in + ")";
    } else {
      for (const ExprPtr& k : u.keys) {
        std::string path = keyPath(*k);
        same += (same.empty() ? "" : " && ") + var(n, "last") + path + " == " + in + path;
      }
    }
    line("if (!" + var(n, "seen") + " || !(" + same + ")) {");
    {
      Indent x(*this);
      line(var(n, "seen") + " = true;");
      line(var(n, "last") + " = " + in + ";");
      consume(n, in, inSegment);
    }
    line("}");
    break;
  }
  case Node::Take:
    line("if (" + var(n, "taken") + " < " + var(n, "limit") + ") {");
    {
      Indent x(*this);
      line("++" + var(n, "taken") + ";");
      consume(n, in, inSegment);
    }
    line("}");
    break;
  case Node::ForStage: {
    auto& f = *static_cast<const ForStage*>(n.ast);
    line("{");
    {
      Indent x(*this);
      line("const auto& " + name(f.varSymbol) + " = " + in + ";");
      emitTargets_.push_back(var(n, "emit"));
      loops_.push_back({false, ""}); // break and continue are not allowed here (sema)
      emitStatements(f.body);
      loops_.pop_back();
      emitTargets_.pop_back();
    }
    line("}");
    break;
  }
  case Node::SortRuns: line(var(n, "runs") + ".push(" + in + ");"); break;
  case Node::Branch: consume(n, in, inSegment); break;
  case Node::Materialize: line(var(n, "mat") + ".push_back(" + in + ");"); break;
  case Node::VectorBuild: line(name(static_cast<const VectorDecl*>(n.ast)->symbol) + ".push_back(" + in + ");"); break;
  case Node::WriteFile:
  case Node::WriteText: line(var(n, "out") + ".push(" + in + ");"); break;
  case Node::Aggregate: {
    const std::string& fn = n.name;
    if (fn == "count") line("++" + var(n, "count") + ";");
    else if (fn == "sum") line(var(n, "sum") + " += " + in + ";");
    else {
      std::string acc = var(n, fn.c_str());
      line("if (!" + var(n, "any") + " || " + (fn == "min" ? in + " < " + acc : acc + " < " + in) + ") {");
      line("  " + acc + " = " + in + ";");
      line("  " + var(n, "any") + " = true;");
      line("}");
    }
    break;
  }
  case Node::Loop: {
    auto& f = *static_cast<const ForInStmt*>(n.ast);
    line("{");
    {
      Indent x(*this);
      line("const auto& " + name(f.varSymbol) + " = " + in + ";");
      bool inLambda = !emitTargets_.empty();
      std::string stop = inLambda ? var(n, "stop") : "";
      loops_.push_back({inLambda, stop});
      emitStatements(f.body);
      loops_.pop_back();
    }
    line("}");
    break;
  }
  default: break;
  }
}

void Generator::finishNode(const Node& n) {
  switch (n.kind) {
  case Node::SortRuns:
    // The last runs are written before the phase ends, so their I/O counts in it.
    line("auto " + var(n, "sorted") + " = " + var(n, "runs") + ".result();");
    break;
  case Node::WriteFile:
  case Node::WriteText: line(var(n, "out") + ".finish();"); break;
  case Node::Materialize: line(var(n, "mat") + ".flush();"); break;
  case Node::VectorBuild: line(name(static_cast<const VectorDecl*>(n.ast)->symbol) + ".flush();"); break;
  case Node::Aggregate:
    if (n.name == "min" || n.name == "max")
      line("if (!" + var(n, "any") + ") throw flow::script::script_error(std::string(" + where(n.loc) + ") + \": " +
           n.name + " of an empty stream\");");
    break;
  default: break;
  }
}

} // namespace flow::codegen
