// Nodes outside the pipelines: a priority queue, the pushes on a vector, an in-memory
// array and the block cache of `v[i]`. They take no elements from a segment, so they
// generate nothing there: their code is their statements' (emit_program.cpp: the
// declaration of a queue or an array, the cache sized around a statement that indexes a
// vector; emit_expr.cpp: pushes), and the plan gives them memory and counters.
#include "codegen/generator.hpp"

namespace flow::codegen {

void addContainerCodegen(NodeCodegenTable& table) {
  table.addPlain({Node::Queue, Node::VectorPush, Node::ArrayAlloc, Node::VectorIndex});
}

} // namespace flow::codegen
