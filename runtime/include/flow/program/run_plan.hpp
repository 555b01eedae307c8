#pragma once
// What a program's --plan prints: the plan it would run with for its params, --memory,
// --block and input files — the block size, each phase's memory and I/O, each node's
// memory and I/O, a queue's configuration — as text for people or JSON with the field
// names of `flowc explain --format json` (so the two can be compared number by number).
// program::run fills it from the estimate and exits without running the body.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "flow/program/report.hpp"

namespace flow {

struct run_plan {
  std::string program;
  std::uint64_t memory_bytes = 0;
  std::uint64_t block_bytes = 0;
  unsigned threads = 0;
  /// (name, value as JSON).
  std::vector<std::pair<std::string, std::string>> params;
  flow::estimate estimate; ///< phases' I/O and the nodes (estimate::node)
};

/// Aligned text, one line per phase and per node (ends with a newline).
std::string plan_to_text(const run_plan& p);
/// One JSON object: program, memory_bytes, block_bytes, threads, params {name: value},
/// phases [{id, label, memory_bytes, read_bytes, write_bytes, rounds}] by id, nodes [{id,
/// name, phase, memory_bytes, read_bytes, write_bytes, queue (queues)}] by id, total
/// {read_bytes, write_bytes} (every round). Bytes are whole numbers (newline at the end).
std::string plan_to_json(const run_plan& p);

} // namespace flow
