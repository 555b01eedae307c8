// Stages of one input: map, filter, unique, take (pushed: their code inlined in the
// segment's loop; pulled by a merge, join or zip: the runtime's pull nodes), for stages
// (the script's statements, their emits calling the downstream lambda) and a branch
// (one stream handed to several consumers).
#include "codegen/generator.hpp"

namespace flow::codegen {

namespace {

/// Map, filter and for stage: their code inlined where each element reaches them, or, in
/// a stretch the planner runs in batches on the program's threads (Node::batchFirst, plan/
/// batches.cpp), inlined into the function of a flow::stream::batched_stages that the
/// stretch's first node declares and hands its elements to; what leaves the stretch goes
/// on through its last node's downstream lambda, in the order one thread gives.
template <Node::Kind K> struct BatchableStage : KindCodegen<K> {
  using KindCodegen<K>::g;
  /// The element's code, inlined (`position`: where a drawing stage draws; "" for its
  /// rand_stage's own count).
  virtual void inlined(const Node& n, const std::string& in, const std::string& position, const Segment& segment) = 0;
  /// The type of its elements out (a filter's are its input's).
  virtual const sema::Type* elementOut(const Node& n) const = 0;
  virtual const sema::Type* elementIn(const Node& n) const = 0;

  bool downstreamLambda(const Node& n) const override { return n.batchLast == n.id; }
  const sema::Type* outputType(const Node& n) const override { return elementOut(n); }
  void declare(const Node& n) override {
    g->declareRandStage(n);
    if (n.batchFirst != n.id) return;
    const std::vector<const Node*> stretch = stretchFrom(n);
    const Node& last = *stretch.back();
    std::set<int> nodes;
    std::string names;
    for (const Node* s : stretch) {
      nodes.insert(s->id);
      names += (names.empty() ? "" : " → ") + s->name;
    }
    const std::vector<std::string> noStops;
    const std::string stages = g->var(n, "stages"), in = g->type(elementIn(n));
    g->line("// " + names + ": in batches on the program's threads (flow/stream/batched_stages.hpp)");
    g->line("auto " + stages + " = [&](const " + in +
            "& fl_bin, [[maybe_unused]] uint64_t fl_position, auto&& fl_out, [[maybe_unused]] uint64_t* fl_counted) {");
    {
      Generator::Indent indent(*g);
      g->batchBody_ = n.id;
      inlined(n, "fl_bin", "fl_position", Segment{nodes, noStops, false}); // only its first stage may draw
      g->batchBody_ = -1;
    }
    g->line("};");
    g->line("flow::stream::batched_stages<" + in + ", " + g->type(g->codeOf(last).outputType(last)) + ", decltype(" +
            stages + ")>");
    const std::string room = n.batchOutputs > 1 || n.batchFoldsInto >= 0 ? ", " + std::to_string(n.batchOutputs) : "";
    const std::string folds = n.batchFoldsInto >= 0 ? ", flow::stream::folds_outputs" : "";
    g->line("    " + g->var(n, "batches") + "(fl_program.threads(), " + g->memoryOf(n) + ", " +
            std::to_string(stretch.size() - 1) + ", " + stages + room + folds + ");");
  }
  void element(const Node& n, const std::string& in, const Segment& segment) override {
    if (n.batchFirst != n.id || g->batchBody_ == n.id) return inlined(n, in, "", segment);
    // A `break` in a loop downstream stops the batches' output there: one thread would
    // not have computed the rest.
    std::string stopped;
    for (const std::string& s : segment.stops) stopped += (stopped.empty() ? "" : " || ") + s;
    stopped_[n.id] = stopped.empty() ? "[] { return false; }" : "[&] { return " + stopped + "; }";
    g->line(g->var(n, "batches") + ".push(" + in + ", " + g->var(g->plan_.nodes[n.batchLast], "emit") + ", " +
            stopped_[n.id] + fold(n) + ");");
  }
  void finish(const Node& n) override {
    if (n.batchFirst != n.id) return;
    const std::vector<const Node*> stretch = stretchFrom(n);
    const auto stopped = stopped_.find(n.id);
    g->line(g->var(n, "batches") + ".finish(" + g->var(*stretch.back(), "emit") + ", " +
            (stopped == stopped_.end() ? "[] { return false; }" : stopped->second) + fold(n) + ");");
    // The counts of its stages but the last (whose are its downstream lambda's).
    for (size_t i = 0; i + 1 < stretch.size(); ++i)
      g->line(g->counter(*stretch[i]) + ".elements += " + g->var(n, "batches") + ".counted(" + std::to_string(i) + ");");
    if (n.batchFoldsInto >= 0)
      g->line(g->counter(*stretch.back()) + ".elements += " + g->var(n, "batches") +
              ".folded(); // and those combined into others before its downstream");
  }

private:
  /// The fold of a stretch whose chunks' outputs are combined by its reduce's key
  /// (Node::batchFoldsInto): the reduce declares it.
  std::string fold(const Node& n) const {
    return n.batchFoldsInto >= 0 ? ", " + g->var(g->plan_.nodes[n.batchFoldsInto], "fold") : "";
  }
  /// The stretch that starts at `first`, first to last.
  std::vector<const Node*> stretchFrom(const Node& first) const {
    std::vector<const Node*> stretch{&g->plan_.nodes[first.batchLast]};
    while (stretch.front()->id != first.id) stretch.insert(stretch.begin(), &g->plan_.nodes[stretch.front()->inputs[0]]);
    return stretch;
  }
  std::map<int, std::string> stopped_; // a stretch's first node: whether its downstream has stopped
};

struct MapCodegen : BatchableStage<Node::Map> {
  bool declarePulled(const Node& n) override {
    auto& m = *n.get<MapStage>();
    g->declareRandStage(n);
    return pullNode(n, "map", "[&](const " + g->type(m.varSymbol->type) + "& " + g->name(m.varSymbol) + ") -> " +
                                  g->type(m.elementType) + " { return " + g->drawnAt(n, "", g->expr(*m.body)) + "; }");
  }
  std::string count(const Node& n) override { return g->runtimeCount(g->plan_.nodes[n.inputs[0]]); }
  const sema::Type* elementIn(const Node& n) const override { return n.get<MapStage>()->varSymbol->type; }
  const sema::Type* elementOut(const Node& n) const override { return n.get<MapStage>()->elementType; }
  void inlined(const Node& n, const std::string& in, const std::string& position, const Segment& segment) override {
    auto& m = *n.get<MapStage>();
    const std::string v = g->var(n, "v");
    g->block("{", [&] {
      g->line("const auto& " + g->name(m.varSymbol) + " = " + in + ";");
      g->line("const " + g->type(m.elementType) + " " + v + " = " + g->drawnAt(n, position, g->expr(*m.body)) + ";");
      g->consume(n, v, segment);
    });
  }
};

struct FilterCodegen : BatchableStage<Node::Filter> {
  bool declarePulled(const Node& n) override {
    auto& f = *n.get<FilterStage>();
    g->declareRandStage(n);
    return pullNode(n, "filter", "[&](const " + g->type(f.varSymbol->type) + "& " + g->name(f.varSymbol) +
                                     ") -> bool { return " + g->drawnAt(n, "", g->expr(*f.cond)) + "; }");
  }
  const sema::Type* elementIn(const Node& n) const override { return n.get<FilterStage>()->varSymbol->type; }
  const sema::Type* elementOut(const Node& n) const override { return n.get<FilterStage>()->varSymbol->type; }
  void inlined(const Node& n, const std::string& in, const std::string& position, const Segment& segment) override {
    auto& f = *n.get<FilterStage>();
    g->block("{", [&] {
      g->line("const auto& " + g->name(f.varSymbol) + " = " + in + ";");
      g->block("if (" + g->drawnAt(n, position, g->expr(*f.cond)) + ") {", [&] { g->consume(n, in, segment); });
    });
  }
};

/// The first element of each run of equal ones (in the order its input has).
struct UniqueCodegen : KindCodegen<Node::Unique> {
  bool declarePulled(const Node& n) override {
    return pullNode(n, "unique", g->uniqueKeysEqual(*n.get<UniqueStage>()));
  }
  void declare(const Node& n) override {
    auto& u = *n.get<UniqueStage>();
    const std::string T = g->type(u.elementType), same = g->uniqueKeysEqual(u);
    if (same.empty()) {
      g->line("flow::stream::first_of_group<" + T + "> " + g->var(n, "unique") + ";");
      return;
    }
    g->line("auto " + g->var(n, "same") + " = " + same + ";");
    g->line("flow::stream::first_of_group<" + T + ", decltype(" + g->var(n, "same") + ")> " + g->var(n, "unique") + "(" +
            g->var(n, "same") + ");");
  }
  void element(const Node& n, const std::string& in, const Segment& segment) override {
    passIf(n, g->var(n, "unique") + ".admit(" + in + ")", in, segment);
  }
};

struct TakeCodegen : KindCodegen<Node::Take> {
  bool declarePulled(const Node& n) override {
    return pullNode(n, "take", g->expr(*n.get<TakeStage>()->count));
  }
  void declare(const Node& n) override {
    g->line("flow::stream::take_count " + g->var(n, "take") + "(" + g->expr(*n.get<TakeStage>()->count) + ");");
  }
  void element(const Node& n, const std::string& in, const Segment& segment) override {
    passIf(n, g->var(n, "take") + ".admit()", in, segment);
  }
};

/// The script's statements per element; its emits (and its end block's) call the
/// downstream lambda — or, in batches (a for stage that keeps no state), the batch's
/// output, which hands them to the downstream lambda in order.
struct ForStageCodegen : BatchableStage<Node::ForStage> {
  bool downstreamLambda(const Node&) const override { return true; }
  const sema::Type* elementIn(const Node& n) const override { return n.get<ForStage>()->varSymbol->type; }
  const sema::Type* elementOut(const Node& n) const override { return n.get<ForStage>()->elementType; }
  void inlined(const Node& n, const std::string& in, const std::string&, const Segment&) override {
    auto& f = *n.get<ForStage>();
    g->block("{", [&] {
      g->line("const auto& " + g->name(f.varSymbol) + " = " + in + ";");
      g->emitStageStatements(f.body, g->batchBody_ == n.id ? "fl_out" : g->var(n, "emit"));
    });
  }
  void finish(const Node& n) override {
    BatchableStage::finish(n);
    auto& f = *n.get<ForStage>();
    if (!f.hasEnd) return;
    g->block("{ // end block of the for stage at " + describe(f.loc) + ", after its last element", [&] {
      g->emitStageStatements(f.end, g->var(n, "emit"));
    });
  }
};

struct BranchCodegen : KindCodegen<Node::Branch> {
  void element(const Node& n, const std::string& in, const Segment& segment) override { g->consume(n, in, segment); }
};

} // namespace

void addStageCodegen(NodeCodegenTable& table) {
  table.add<MapCodegen, FilterCodegen, ForStageCodegen>({"flow/stream/batched_stages.hpp"});
  table.add<UniqueCodegen, TakeCodegen, BranchCodegen>();
}

} // namespace flow::codegen
