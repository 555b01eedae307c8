#pragma once
// The facts about each kind of plan node, from the one table plan/node_kinds.def: how it
// takes part in a pipeline, what it asks of the memory budget, how its I/O is priced,
// how its count follows its inputs'. Passes ask these instead of listing kinds.
#include "flow/plan/memory_plan.hpp"

namespace flow::plan {

/// How a node takes part in a pipeline (node_kinds.def explains each).
enum class PipelineRole { source, sort_output, side_by_side, one_after, pull_stage, push_stage, fork, sink, off_pipeline };

/// How a node's element count follows its inputs' (node_kinds.def explains each).
enum class Count { exact_at_start, input_file, store, each_input, sum_of_inputs, fraction, pushes, other };

/// Where a node's runtime node works: on the program's threads, on its phase's and a
/// helper, or on its phase's one (node_kinds.def).
enum class Threads { all, two, one };

struct NodeTraits {
  const char* label;
  PipelineRole pipeline;
  bool endsSegment;
  memory_role memory;
  io_rule io;
  Count count;
  Threads threads;

  /// A pipeline node: generated as part of a segment's loop (not a container or an allocation).
  bool inPipeline() const { return pipeline != PipelineRole::off_pipeline; }
  /// A consumer can pull from it without its own inputs: a source, a sort's output, and
  /// the nodes that pull their inputs side by side.
  bool startsPull() const { return pipeline == PipelineRole::source || pipeline == PipelineRole::sort_output || pipeline == PipelineRole::side_by_side; }
  /// A stage a consumer can pull through (the runtime has a pull node for it).
  bool passesPull() const { return pipeline == PipelineRole::pull_stage; }
  bool pullsInputs() const { return pipeline == PipelineRole::side_by_side; }
  /// Where the runs of its phase start: a source, or the merge of a sort in an earlier phase.
  bool startsStretch() const { return pipeline == PipelineRole::source || pipeline == PipelineRole::sort_output; }
  /// Holds memory over all the phases it lives in (Node::livePhases), not just its own.
  bool spansPhases() const { return spans_phases(memory); }
  bool readsElements() const { return io == io_rule::reads_file || io == io_rule::reads_store; }
  bool writesElements() const { return io == io_rule::writes_file || io == io_rule::writes_store; }
  /// One of a sort's or a reduce's two halves (Node::partner is the other).
  bool sortHalf() const {
    return io == io_rule::sort_runs || io == io_rule::sort_merge || io == io_rule::reduce_runs ||
           io == io_rule::reduce_merge;
  }
};

} // namespace flow::plan
