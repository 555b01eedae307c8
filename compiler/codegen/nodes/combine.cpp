// Nodes of several inputs: merge (a loser tree over inputs in one order), join and
// left_join (two inputs in key order, each group of equal keys on the right kept in
// memory or spilled), the hash join (a table of the right input, probed with the left),
// zip (inputs side by side), all pulling their inputs element by element; and concat,
// which runs its inputs one after the other into one stream.
#include "codegen/generator.hpp"

namespace flow::codegen {

namespace {

struct MergeCodegen : KindCodegen<Node::Merge> {
  void declare(const Node& n) override {
    // The runtime's merge (a loser tree; ties go to the earlier input) over the inputs'
    // pull streams.
    std::string inputs;
    for (int in : n.inputs) inputs += ", " + g->pulledInput(g->plan_.nodes[in]);
    g->line("auto " + g->var(n, "in") + " = flow::stream::merge<" + g->orderType(n.get<MergeSource>()->order.order) +
            ">(" + inputs.substr(2) + ");");
  }
  std::string count(const Node& n) override { return g->sumOfCounts(n); }
};

/// What both joins declare: `compare`, the keys compared across the two sides, and
/// `fn`, the script's function of a pair.
void declareCompareAndFn(Generator* g, const Node& n, const JoinSource& j) {
  const std::string L = g->type(j.inputs[0]->elementType), R = g->type(j.inputs[1]->elementType);
  g->line("auto " + g->var(n, "compare") + " = [](const " + L + "& a, const " + R + "& b) -> int {");
  {
    Generator::Indent in(*g);
    const auto& left = j.keys[0].resolved;
    const auto& right = j.keys[1].resolved;
    const std::vector<sema::OrderKeyInfo> lk = Generator::keysOf(left), rk = Generator::keysOf(right);
    for (size_t k = 0; k < lk.size(); ++k) {
      const std::string a = "a" + g->keyPath(lk[k], left->type), b = "b" + g->keyPath(rk[k], right->type);
      const bool desc = lk[k].descending;
      g->line("if (" + (desc ? Generator::keyLess(lk[k].type, b, a) : Generator::keyLess(lk[k].type, a, b)) +
              ") return -1;");
      g->line("if (" + (desc ? Generator::keyLess(lk[k].type, a, b) : Generator::keyLess(lk[k].type, b, a)) +
              ") return 1;");
    }
    g->line("return 0;");
  }
  g->line("};");
  std::string params = "const " + L + "& " + g->name(j.fn.params[0].symbol) + ", const " + R + "& " +
                       g->name(j.fn.params[1].symbol);
  if (j.left) params += ", [[maybe_unused]] bool " + g->name(j.fn.params[2].symbol); // the script may ignore it
  g->line("auto " + g->var(n, "fn") + " = [&](" + params + ") -> " + g->type(j.elementType) + " { return " +
          g->expr(*j.fn.body) + "; };");
}

struct JoinCodegen : KindCodegen<Node::Join> {
  void declare(const Node& n) override {
    auto& j = *n.get<JoinSource>();
    declareCompareAndFn(g, n, j);
    // The right side's groups of equal keys.
    g->line("auto " + g->var(n, "same") + " = " +
            g->sameKeys(Generator::keysOf(j.keys[1].resolved), j.keys[1].resolved->type) + ";");
    g->line("auto " + g->var(n, "in") + " = flow::stream::" + (j.left ? "left_join" : "join") + "(" +
            g->pulledInput(g->plan_.nodes[n.inputs[0]]) + ", " + g->pulledInput(g->plan_.nodes[n.inputs[1]]) + ", " +
            g->var(n, "compare") + ", " + g->var(n, "same") + ", " + g->var(n, "fn") + ", " + g->memoryOf(n) +
            ", fl_program.block());");
  }
};

/// A join whose output is read in no particular order (a reduce reads it): a table of
/// the right input, probed with the left; neither is sorted.
struct HashJoinCodegen : KindCodegen<Node::HashJoin> {
  void declare(const Node& n) override {
    auto& j = *n.get<JoinSource>();
    declareCompareAndFn(g, n, j);
    // Equal keys hash alike on both sides: integers by value (the sides may differ in
    // width, not in signedness).
    for (int side = 0; side < 2; ++side) {
      const auto& order = j.keys[side].resolved;
      std::string h = "uint64_t h = 0;";
      for (const sema::OrderKeyInfo& k : Generator::keysOf(order)) {
        std::string key = "x" + g->keyPath(k, order->type);
        if (k.type->isInteger() || k.type->kind == sema::Type::Bool)
          key = std::string(k.type->isSigned() ? "static_cast<int64_t>(" : "static_cast<uint64_t>(") + key + ")";
        h += " h = (h ^ flow::script::hash(" + key + ")) * 0x9E3779B97F4A7C15ull;";
      }
      g->line("auto " + g->var(n, side == 0 ? "left_hash" : "right_hash") + " = [](const " +
              g->type(j.inputs[side]->elementType) + "& x) -> uint64_t { " + h + " return h; };");
    }
    g->line("auto " + g->var(n, "in") + " = flow::stream::hash_join(" + g->pulledInput(g->plan_.nodes[n.inputs[0]]) +
            ", " + g->pulledInput(g->plan_.nodes[n.inputs[1]]) + ", " + g->var(n, "left_hash") + ", " +
            g->var(n, "right_hash") + ", " + g->var(n, "compare") + ", " + g->var(n, "fn") + ", " + g->memoryOf(n) +
            ", fl_program.block(), fl_program.threads());");
  }
};

struct ZipCodegen : KindCodegen<Node::Zip> {
  void declare(const Node& n) override {
    auto& z = *n.get<ZipSource>();
    std::string params, inputs;
    for (size_t i = 0; i < z.inputs.size(); ++i) {
      params += (i ? ", const " : "const ") + g->type(z.inputs[i]->elementType) + "& " + g->name(z.fn.params[i].symbol);
      inputs += ", " + g->pulledInput(g->plan_.nodes[n.inputs[i]]);
    }
    g->line("auto " + g->var(n, "fn") + " = [&](" + params + ") -> " + g->type(z.elementType) + " { return " +
            g->expr(*z.fn.body) + "; };");
    g->line("auto " + g->var(n, "in") + " = flow::stream::zip(" + g->where(n.loc) + ", " + g->var(n, "fn") + inputs + ");");
  }
};

/// Its inputs run one after the other in its segment, each calling its downstream.
struct ConcatCodegen : KindCodegen<Node::Concat> {
  std::string count(const Node& n) override { return g->sumOfCounts(n); }
  bool downstreamLambda(const Node&) const override { return true; }
  void element(const Node& n, const std::string& in, const Segment&) override {
    g->line(g->var(n, "emit") + "(" + in + ");");
  }
};

} // namespace

void addCombineCodegen(NodeCodegenTable& table) {
  table.add<MergeCodegen>();
  table.add<JoinCodegen>({"flow/stream/join.hpp"});
  table.add<HashJoinCodegen>({"flow/stream/hash_join.hpp"});
  table.add<ZipCodegen, ConcatCodegen>({"flow/stream/combine.hpp"});
}

} // namespace flow::codegen
