// Stages of one input: map, filter, unique, take (pushed: their code inlined in the
// segment's loop; pulled by a merge, join or zip: the runtime's pull nodes), for stages
// (the script's statements, their emits calling the downstream lambda) and a branch
// (one stream handed to several consumers).
#include "codegen/generator.hpp"

namespace flow::codegen {

namespace {

struct MapCodegen : KindCodegen<Node::Map> {
  void declare(const Node& n) override { g->declareRandStage(n); }
  bool declarePulled(const Node& n) override {
    auto& m = *n.get<MapStage>();
    g->declareRandStage(n);
    return pullNode(n, "map", "[&](const " + g->type(m.varSymbol->type) + "& " + g->name(m.varSymbol) + ") -> " +
                                  g->type(m.elementType) + " { return " + g->drawnAt(n, "", g->expr(*m.body)) + "; }");
  }
  std::string count(const Node& n) override { return g->runtimeCount(g->plan_.nodes[n.inputs[0]]); }
  void element(const Node& n, const std::string& in, const Segment& segment) override {
    auto& m = *n.get<MapStage>();
    const std::string v = g->var(n, "v");
    g->block("{", [&] {
      g->line("const auto& " + g->name(m.varSymbol) + " = " + in + ";");
      g->line("const " + g->type(m.elementType) + " " + v + " = " + g->drawnAt(n, "", g->expr(*m.body)) + ";");
      g->consume(n, v, segment);
    });
  }
};

struct FilterCodegen : KindCodegen<Node::Filter> {
  void declare(const Node& n) override { g->declareRandStage(n); }
  bool declarePulled(const Node& n) override {
    auto& f = *n.get<FilterStage>();
    g->declareRandStage(n);
    return pullNode(n, "filter", "[&](const " + g->type(f.varSymbol->type) + "& " + g->name(f.varSymbol) +
                                     ") -> bool { return " + g->drawnAt(n, "", g->expr(*f.cond)) + "; }");
  }
  void element(const Node& n, const std::string& in, const Segment& segment) override {
    auto& f = *n.get<FilterStage>();
    g->block("{", [&] {
      g->line("const auto& " + g->name(f.varSymbol) + " = " + in + ";");
      g->block("if (" + g->drawnAt(n, "", g->expr(*f.cond)) + ") {", [&] {
        g->consume(n, in, segment);
      });
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
/// downstream lambda.
struct ForStageCodegen : KindCodegen<Node::ForStage> {
  bool downstreamLambda(const Node&) const override { return true; }
  void element(const Node& n, const std::string& in, const Segment&) override {
    auto& f = *n.get<ForStage>();
    g->block("{", [&] {
      g->line("const auto& " + g->name(f.varSymbol) + " = " + in + ";");
      g->emitStageStatements(n, f.body);
    });
  }
  void finish(const Node& n) override {
    auto& f = *n.get<ForStage>();
    if (!f.hasEnd) return;
    g->block("{ // end block of the for stage at " + describe(f.loc) + ", after its last element", [&] {
      g->emitStageStatements(n, f.end);
    });
  }
};

struct BranchCodegen : KindCodegen<Node::Branch> {
  void element(const Node& n, const std::string& in, const Segment& segment) override { g->consume(n, in, segment); }
};

} // namespace

void addStageCodegen(NodeCodegenTable& table) {
  table.add<MapCodegen, FilterCodegen, UniqueCodegen, TakeCodegen, ForStageCodegen, BranchCodegen>();
}

} // namespace flow::codegen
