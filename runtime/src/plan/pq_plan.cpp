#include "flow/containers/pq/plan.hpp"

namespace flow::containers {

std::string describe(const pq_config& c) {
  if (!c.feasible) return std::string("not feasible: ") + c.problem;
  const auto n = [](std::uint64_t v) { return std::to_string(v); };
  return "blocks of " + n(c.block_bytes) + " bytes, insertion heap " + n(c.insertion_items) + " items, deletion buffer " +
         n(c.deletion_items) + " items, chunks of " + n(c.chunk_bytes) + " bytes, internal arity " + n(c.internal_arity) +
         ", pool " + n(c.pool_bytes) + " bytes, write pool " + n(c.write_blocks) + " blocks, " +
         n(c.read_blocks_per_array) + " read blocks per external array, external arity " + n(c.external_arity) +
         ", flush " + n(c.flush_items) + " items, " + n(c.external_levels) + " external levels";
}

} // namespace flow::containers
