// A reduce (flow/stream/reduce.hpp): on input already in key order a streaming fold of
// each group; else a sort that combines equal keys — run formation, or a hash table that
// spills sorted runs when its keys do not fit, then a merge that combines across runs.
// Its combine function is the script's, with the group's keys put back (emit_keys.cpp).
#include "codegen/generator.hpp"

namespace flow::codegen {

namespace {

struct ReduceRunsCodegen : RunsCodegen<Node::ReduceRuns> {
  void declare(const Node& n) override {
    auto& r = *n.get<ReduceStage>();
    const std::string T = g->type(r.elementType), combine = g->var(n, "combine");
    g->declareCombine(n, r);
    const std::string order = g->orderType(r.keyOrder);
    g->line("// " + n.name + ": " + (n.hashed ? "a hash table" : "run formation") + " that combines equal keys");
    g->classesInRunCost_ += n.hashed ? kHashReduceCost : kRunsCreatorCost;
    if (n.spread && !n.hashed) { // over the ranks: a sample sort whose runs fold the equal keys of this rank's range
      g->line("flow::ranks::sample_sort<" + T + ", " + order + ", decltype(" + combine + ")> " + g->var(n, "runs") + "(" +
              g->memoryOf(n) + ", " + order + "{}, " + combine + ", " + g->runOptions(n) + ");");
      return;
    }
    if (!n.hashed) {
      g->line("flow::stream::reduce_runs<" + T + ", " + order + ", decltype(" + combine + ")> " + g->var(n, "runs") + "(" +
              g->memoryOf(n) + ", " + combine + ", " + g->runOptions(n) + ");");
      return;
    }
    // Over the ranks, each rank's part folded in its table before the rest goes to the
    // rank of its key range.
    const std::string hash = g->var(n, "hash"), same = g->var(n, "same");
    g->line("auto " + hash + " = " + g->hashKeys(r) + ";");
    g->line("auto " + same + " = " + g->sameKeys(Generator::keysOf(r.keyOrder), r.elementType) + ";");
    const std::string table = n.spread ? "flow::ranks::spread_reduce<" : "flow::stream::hash_reduce_runs<";
    if (n.insertsOnCaller) g->line("// its input's batches keep the other threads busy: the table is filled here");
    const std::string options = n.insertsOnCaller ? "fl_sort_options.inserting_on_caller()" : "fl_sort_options";
    g->line(table + T + ", " + order + ", decltype(" + hash + "), decltype(" + same + "), decltype(" + combine + ")> " +
            g->var(n, "runs") + "(" + g->memoryOf(n) + ", " + combine + ", " + options + ", " + hash + ", " + same +
            ", " + order + "{}, static_cast<uint64_t>(fl_nodes[" + std::to_string(n.partner) + "].elements));");
    const Node& input = g->plan_.nodes[n.inputs[0]];
    if (input.batchLast == input.id && g->plan_.nodes[input.batchFirst].batchFoldsInto == n.id) {
      g->line("// its combine is associative: its input's batches combine each chunk's outputs by its key first");
      g->line("const auto " + g->var(n, "fold") + " = flow::stream::folded_by(" + hash + ", " + same + ", " + combine + ");");
    }
  }
};

struct ReduceMergeCodegen : RunsMergeCodegen<Node::ReduceMerge> {
  void declare(const Node& n) override {
    auto& r = *n.get<ReduceStage>();
    const Node& runs = g->plan_.nodes[n.partner];
    g->classesInRunCost_ += kRunsMergerCost;
    g->line("flow::stream::reduce_merge<" + g->type(r.elementType) + ", " + g->orderType(r.keyOrder) + ", decltype(" +
            g->var(runs, "combine") + ")> " + g->var(n, "merge") + "(std::move(" + g->var(runs, "sorted") + "), " +
            g->memoryOf(n) + ", " + g->var(runs, "combine") + ", fl_sort_options);");
  }
};

/// A reduce of input in key order: each group folded as it streams by.
struct FoldCodegen : KindCodegen<Node::Fold> {
  bool declarePulled(const Node& n) override {
    auto& r = *n.get<ReduceStage>();
    g->declareCombine(n, r);
    return pullNode(n, "reduce_sorted", g->sameKeys(Generator::keysOf(r.keyOrder), r.elementType) + ", " + g->var(n, "combine"));
  }
  void declare(const Node& n) override {
    auto& r = *n.get<ReduceStage>();
    const std::string same = g->var(n, "same"), combine = g->var(n, "combine");
    g->declareCombine(n, r);
    g->line("auto " + same + " = " + g->sameKeys(Generator::keysOf(r.keyOrder), r.elementType) + ";");
    g->line("flow::stream::fold_groups<" + g->type(r.elementType) + ", decltype(" + same + "), decltype(" + combine +
            ")> " + g->var(n, "fold") + "(" + same + ", " + combine + ");");
  }
  // Pushed, a group is complete when the next begins or the input ends: it puts out from
  // its push and from its flush.
  bool downstreamLambda(const Node& n) const override { return !g->pulled_.count(n.id); }
  void element(const Node& n, const std::string& in, const Segment&) override {
    g->line(g->var(n, "fold") + ".push(" + in + ", " + g->var(n, "emit") + ");");
  }
  void finish(const Node& n) override {
    if (!g->pulled_.count(n.id)) g->line(g->var(n, "fold") + ".finish(" + g->var(n, "emit") + "); // the last group");
  }
};

} // namespace

void addReduceCodegen(NodeCodegenTable& table) {
  table.add<ReduceRunsCodegen, ReduceMergeCodegen, FoldCodegen>(
      {"flow/stream/reduce.hpp", "flow/ranks/sample_sort.hpp", "flow/ranks/spread_reduce.hpp"});
}

} // namespace flow::codegen
