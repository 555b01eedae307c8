// A sort: run formation (flow::algo::runs_creator) ends a segment with the runs written;
// the merge (flow::algo::runs_merger) starts the next one, pulled element by element.
#include "codegen/generator.hpp"

namespace flow::codegen {

namespace {

struct SortRunsCodegen : RunsCodegen<Node::SortRuns> {
  void declare(const Node& n) override {
    auto& s = *n.get<SortStage>();
    const std::string types = g->type(s.elementType) + ", " + g->orderType(s.order->order) + ">";
    const std::string creator = "flow::algo::runs_creator<" + types;
    g->line("// " + n.name + ": " + (n.inMemory ? std::string("in memory") : std::to_string(n.runs) + " runs") +
            " estimated");
    // A run formation given far more data than planned merges runs with its sort's merger.
    g->compiledApart(creator, kRunsCreatorCost, {"flow::algo::runs_merger<" + types});
    // Spread over the ranks: a sample sort, whose runs hold this rank's key range.
    const std::string sorter = n.spread ? "flow::ranks::sample_sort<" + types : creator;
    g->line(sorter + " " + g->var(n, "runs") + "(" + g->memoryOf(n) + ", {}, " + g->runOptions(n) + ");");
  }
};

struct SortMergeCodegen : RunsMergeCodegen<Node::SortMerge> {
  void declare(const Node& n) override {
    const Node& creator = g->plan_.nodes[n.partner];
    auto& s = *n.get<SortStage>();
    const std::string merger = "flow::algo::runs_merger<" + g->type(s.elementType) + ", " + g->orderType(s.order->order) + ">";
    g->line("// " + n.name + ": " + (n.inMemory ? std::string("in memory") : std::to_string(n.passes) + " pass(es)") +
            " estimated");
    g->compiledApart(merger, kRunsMergerCost);
    g->line(merger + " " + g->var(n, "merge") + "(std::move(" + g->var(creator, "sorted") + "), " + g->memoryOf(n) +
            ", {}, fl_sort_options);");
  }
  std::string count(const Node& n) override { return g->var(n, "merge") + ".size()"; } // the elements sorted
};

} // namespace

void addSortCodegen(NodeCodegenTable& table) { table.add<SortRunsCodegen, SortMergeCodegen>({"flow/ranks/sample_sort.hpp"}); }

} // namespace flow::codegen
