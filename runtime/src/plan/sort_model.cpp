// The sort model (flow/plan/sort_model.hpp), compiled once: flowc's planner, the
// generated programs' memory plans and the sorts call these.
#include "flow/plan/sort_model.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <utility>

namespace flow::plan {

sort_geometry sort_block(const sort_setup& s, std::uint64_t memory) {
  const std::uint64_t unit = std::lcm(s.element_bytes, std::uint64_t{4096});
  const std::uint64_t target = s.block_bytes ? s.block_bytes : std::min(max_default_block_bytes, memory / 64);
  const std::uint64_t bytes = std::max<std::uint64_t>(1, target / unit) * unit;
  return {bytes, bytes / s.element_bytes};
}

std::uint64_t run_list_bytes(std::uint64_t runs) {
  std::uint64_t capacity = 16;
  while (capacity < runs && capacity < max_elements) capacity *= 2;
  return sat_mul(capacity, run_info_bytes);
}

run_formation_shape run_formation(const sort_setup& s, std::uint64_t memory) {
  run_formation_shape p;
  p.geometry = sort_block(s, memory);
  const std::uint64_t per_block = p.geometry.elements;
  // The reserve holds the finished runs' metadata (1/16 of the budget) and, beside it,
  // the metadata of the run being written (its first element and write requests per
  // block): that part grows with the run, so the runs are sized with it. (Large records
  // in small blocks, a quarter of a block each, need a quarter of a run's bytes there.)
  const std::uint64_t base_reserve = std::max<std::uint64_t>(memory / 16, 4096) + 4096;
  const std::uint64_t per_block_claim = run_block_metadata(s.element_bytes);
  const bool indirect = s.indirect();
  p.slots = indirect ? 2 : 3;
  p.bytes_per_element = p.slots * s.element_bytes + (indirect ? 2 * key_index_bytes + s.element_bytes / 2 : 0);
  const std::uint64_t ring = indirect ? 4 * p.geometry.bytes : 0;
  const std::uint64_t usable = memory > base_reserve + ring ? memory - base_reserve - ring : 0;
  // r elements cost r * bytes_per_element in the slots and r / per_block claims.
  const unsigned __int128 blocks =
      static_cast<unsigned __int128>(usable) / (static_cast<unsigned __int128>(p.bytes_per_element) * per_block + per_block_claim);
  std::uint64_t r = static_cast<std::uint64_t>(std::min<unsigned __int128>(blocks, max_elements / per_block)) * per_block;
  if (indirect) r = std::min<std::uint64_t>(r, std::uint64_t{UINT32_MAX} / per_block * per_block);
  if (indirect && r) p.ring_blocks = 4 + r / per_block / 2;
  p.run_elements = r;
  p.slot_bytes = r * s.element_bytes;
  p.extra_bytes = indirect ? r * 2 * key_index_bytes : 0;
  p.metadata_reserve = base_reserve + r / per_block * per_block_claim;
  p.fixed_bytes = p.metadata_reserve + ring;
  p.least_bytes = std::max(base_reserve + ring + p.bytes_per_element * per_block + per_block_claim,
                           metadata_merge_memory(s, p.geometry, 2));
  if (memory < p.least_bytes) { // it could not merge its runs where their descriptions outgrow the reserve
    p.run_elements = p.slot_bytes = p.extra_bytes = p.ring_blocks = 0;
  }
  return p;
}

sort_geometry spilled_firsts_buffer(const sort_setup& s, const sort_geometry& g) {
  return {g.bytes + firsts_page_bytes + 2 * s.element_bytes, g.elements};
}

namespace {
// The runs' descriptions with their firsts on disk, doubled while the merged run's is
// built, and the page the merged run's firsts are written through.
std::uint64_t spilled_metadata(std::uint64_t runs) {
  return sat_add(sat_mul(2, run_list_bytes(runs)), sat_add(sat_mul(sat_add(runs, 2), run_info_bytes), firsts_page_bytes));
}
} // namespace

std::uint64_t metadata_merge_memory(const sort_setup& s, const sort_geometry& g, std::uint64_t runs) {
  const std::uint64_t writer = g.bytes + firsts_page_bytes + run_info_bytes; // one buffer, firsts through a page
  const std::uint64_t meta = spilled_metadata(runs);
  const std::uint64_t merger = smallest_budget(
      [&](std::uint64_t m) { return merge(s, spilled_firsts_buffer(s, g), m, meta).fan_in >= 2; }, g.bytes);
  return sat_add(writer, merger);
}

std::uint64_t runs_a_merge_takes(const sort_setup& s, const sort_geometry& g, std::uint64_t memory) {
  const auto takes = [&](std::uint64_t runs) {
    return merge(s, spilled_firsts_buffer(s, g), memory, spilled_metadata(runs)).fan_in >= 2;
  };
  if (!takes(2)) return 1;
  // one less than the fewest runs it does not take (saturated: no budget below 2^64 bytes is that large)
  const std::uint64_t fewest_not_taken = smallest_budget([&](std::uint64_t runs) { return !takes(runs); }, 4);
  return fewest_not_taken == saturated ? saturated : fewest_not_taken - 1;
}

std::uint64_t merge_buffer_overhead(unsigned threads) { return 384 + 96 * std::uint64_t{threads}; }

unsigned merge_threads(const sort_geometry& g) {
  return static_cast<unsigned>(std::clamp<std::uint64_t>(g.bytes / (64 << 10), 2, 64));
}

merge_shape merge(const sort_setup& s, const sort_geometry& g, std::uint64_t memory,
                  std::uint64_t metadata_bytes) {
  merge_shape p;
  p.output_elements = std::max<std::uint64_t>(g.elements, std::min<std::uint64_t>(4 * g.elements, memory / 16 / s.element_bytes));
  // The prediction sequence takes nothing here: the merger builds it as it goes from the
  // runs' first elements (in the metadata) through a heap of one entry per run.
  const std::uint64_t fixed = sat_add(sat_add(metadata_bytes, sat_mul(p.output_elements, s.element_bytes)),
                                     16384 /* objects, threads, the heap */);
  const std::uint64_t rest = memory > fixed ? memory - fixed : 0;
  p.buffers = rest / (g.bytes + merge_buffer_overhead(merge_threads(g)));
  const std::uint64_t prefetch = std::clamp<std::uint64_t>(p.buffers / 8, 1, 16);
  p.fan_in = p.buffers > prefetch ? p.buffers - prefetch : 0;
  // An earlier pass writes through two buffers and reads ahead into one beside its
  // inputs'; with fewer buffers it writes through one (waiting on each write) and reads
  // no block ahead, so that three buffers still merge two runs at a time: a sort whose
  // runs are more than its merge was planned for (its count an estimate) finishes.
  p.intermediate_write_buffers = p.fan_in > 3 ? 2 : 1;
  p.intermediate_fan_in = p.fan_in > 3 ? p.fan_in - 2 : p.buffers >= 3 ? 2 : 0;
  return p;
}

std::uint64_t merge_metadata_bytes(const sort_setup& s, std::uint64_t runs, std::uint64_t blocks) {
  return sat_add(sat_mul(2, sat_add(run_list_bytes(runs), sat_mul(blocks, s.element_bytes))),
                 sat_mul(sat_add(runs, 2), run_info_bytes));
}

sort_cost sort_estimate(const sort_setup& s, std::uint64_t n, std::uint64_t run_memory,
                        std::uint64_t merge_memory, bool keep_last_run,
                        std::uint64_t distinct) {
  sort_cost c;
  const run_formation_shape rf = run_formation(s, run_memory);
  const sort_geometry g = rf.geometry;
  c.block_bytes = g.bytes;
  if (rf.run_elements == 0) {
    c.feasible = false;
    return c;
  }
  if (n <= rf.in_memory_elements()) {
    c.in_memory = true;
    return c;
  }
  const std::uint64_t R = rf.run_elements;
  c.runs = ceil_div(n, R);
  const std::uint64_t last_pushed = n - (c.runs - 1) * R;
  // elements a run holds (after combining)
  auto held = [distinct](std::uint64_t elements) { return std::min(elements, distinct); };
  const std::uint64_t full = held(R), last = held(last_pushed);
  auto blocks_of = [&](std::uint64_t elements) { return ceil_div(elements, g.elements); };
  auto bytes_of = [&](std::uint64_t runs, std::uint64_t elements) { // of `runs` runs of `elements`
    return sat_mul(runs, sat_mul(blocks_of(elements), g.bytes));
  };
  const std::uint64_t blocks = (c.runs - 1) * blocks_of(full) + blocks_of(last);
  const std::uint64_t meta = merge_metadata_bytes(s, c.runs, blocks);
  std::uint64_t disk_runs = c.runs;
  merge_shape mp;
  if (keep_last_run) {
    const merge_shape with_last = merge(s, g, merge_memory > rf.slot_bytes ? merge_memory - rf.slot_bytes : 0, meta);
    c.last_run_in_memory = with_last.fan_in >= c.runs - 1;
    if (c.last_run_in_memory) {
      mp = with_last;
      disk_runs = c.runs - 1;
    }
  }
  if (!c.last_run_in_memory) mp = merge(s, g, merge_memory, meta);
  c.fan_in = mp.fan_in;
  c.runs_write = sat_mul(c.last_run_in_memory ? blocks - blocks_of(last) : blocks, g.bytes);
  std::uint64_t on_disk = c.runs_write; // allocated now
  c.disk_peak = on_disk;
  // The intermediate passes: while more runs are left than the final merge takes, merge
  // the smallest ones — kk at a time, or as few as leave the final merge exactly its
  // fan-in k. Runs of the same size and pass level are one group with a count (all runs
  // but the last have R elements), and the merges that take kk runs of one group are done
  // together, so the loop runs over groups and levels, never over runs: it takes as long
  // for 10^18 elements as for 10^6, and computes exactly what merging run by run would.
  std::map<std::pair<std::uint64_t, unsigned>, std::uint64_t> pending; // (elements, level) → runs
  if (disk_runs > 1) pending[{full, 0}] += disk_runs - 1;
  if (disk_runs) pending[{c.last_run_in_memory ? full : last, 0}] += 1;
  std::uint64_t left = disk_runs;
  unsigned deepest = 0;
  const std::uint64_t k = std::max<std::uint64_t>(mp.fan_in, 1);
  const std::uint64_t kk = std::max<std::uint64_t>(mp.intermediate_fan_in, 2);
  while (left > k) {
    const std::uint64_t take = std::min<std::uint64_t>(kk, left - k + 1);
    const auto smallest = pending.begin();
    const auto [elements, level] = smallest->first;
    if (take == kk && smallest->second >= kk) {
      // m merges of kk runs of the smallest group: each leaves the rest of the group the
      // smallest runs (the merged run is larger, or when combining as large but a level
      // up) and at least kk runs over k - 1.
      const std::uint64_t m = std::min(smallest->second / kk, (left - k + 1 - kk) / (kk - 1) + 1);
      c.merge_read = sat_add(c.merge_read, bytes_of(m * kk, elements));
      const std::uint64_t merged = held(sat_mul(elements, kk));
      c.merge_write = sat_add(c.merge_write, bytes_of(m, merged));
      // The first of the m merges peaks highest: each frees its inputs' blocks, at least
      // as many as its output takes.
      c.disk_peak = std::max(c.disk_peak, sat_add(on_disk, bytes_of(1, merged)));
      on_disk = sat_add(on_disk - std::min(on_disk, bytes_of(m * kk, elements)), bytes_of(m, merged));
      if ((smallest->second -= m * kk) == 0) pending.erase(smallest);
      pending[{merged, level + 1}] += m;
      left -= m * (kk - 1);
      deepest = std::max(deepest, level + 1);
      continue;
    }
    // One merge of the `take` smallest runs, across groups.
    std::uint64_t merged = 0, read = 0;
    unsigned merged_level = 0;
    for (std::uint64_t need = take; need > 0;) {
      const auto it = pending.begin();
      const std::uint64_t t = std::min(need, it->second);
      c.merge_read = sat_add(c.merge_read, bytes_of(t, it->first.first));
      read = sat_add(read, bytes_of(t, it->first.first));
      merged = sat_add(merged, sat_mul(t, it->first.first));
      merged_level = std::max(merged_level, it->first.second);
      need -= t;
      if ((it->second -= t) == 0) pending.erase(it);
    }
    merged = held(merged);
    c.merge_write = sat_add(c.merge_write, bytes_of(1, merged));
    c.disk_peak = std::max(c.disk_peak, sat_add(on_disk, bytes_of(1, merged)));
    on_disk = sat_add(on_disk - std::min(on_disk, read), bytes_of(1, merged));
    pending[{merged, merged_level + 1}] += 1;
    left -= take - 1;
    deepest = std::max(deepest, merged_level + 1);
  }
  for (const auto& [run, count] : pending) c.merge_read = sat_add(c.merge_read, bytes_of(count, run.first));
  c.passes = deepest + 1;
  return c;
}

std::uint64_t merge_memory_for(const sort_setup& s, const sort_geometry& g, std::uint64_t runs,
                               std::uint64_t blocks) {
  const std::uint64_t meta = merge_metadata_bytes(s, runs, blocks);
  return smallest_budget(
      [&](std::uint64_t m) { return merge(s, g, m, meta).fan_in >= std::max<std::uint64_t>(runs, 2); }, g.bytes);
}

runs_written written_by(const run_formation_shape& rf, std::uint64_t elements,
                        std::uint64_t distinct) {
  if (rf.run_elements == 0) return {};
  const std::uint64_t runs = ceil_div(elements, rf.run_elements);
  const std::uint64_t blocks =
      distinct >= rf.run_elements ? sat_add(ceil_div(elements, rf.geometry.elements), runs)
                                  : sat_mul(runs, ceil_div(std::max<std::uint64_t>(distinct, 1), rf.geometry.elements));
  return {runs, blocks};
}

bool run_metadata_fits(const sort_setup& s, const run_formation_shape& rf, std::uint64_t elements,
                       std::uint64_t distinct) {
  if (rf.run_elements == 0) return false;
  const runs_written w = written_by(rf, elements, distinct);
  const std::uint64_t run_blocks = rf.run_elements / rf.geometry.elements;
  return sat_add(sat_add(sat_mul(w.blocks, s.element_bytes), run_list_bytes(w.runs)),
                 run_blocks * run_block_metadata(s.element_bytes) + 4096) <= rf.metadata_reserve;
}

std::uint64_t run_memory_for_metadata(const sort_setup& s, std::uint64_t elements,
                                      std::uint64_t distinct) {
  return smallest_budget([&](std::uint64_t m) { return run_metadata_fits(s, run_formation(s, m), elements, distinct); });
}

std::uint64_t merge_memory_to_finish(const sort_setup& s, const sort_geometry& g, std::uint64_t runs,
                                     std::uint64_t blocks) {
  const std::uint64_t meta = merge_metadata_bytes(s, runs, blocks);
  const std::uint64_t fan_in = std::min<std::uint64_t>(std::max<std::uint64_t>(runs, 2), 4);
  return smallest_budget([&](std::uint64_t m) { return merge(s, g, m, meta).fan_in >= fan_in; }, g.bytes);
}

std::uint64_t run_memory_for(const sort_setup& s, std::uint64_t elements) {
  return smallest_budget([&](std::uint64_t m) {
    const run_formation_shape rf = run_formation(s, m);
    return rf.run_elements > 0 && rf.in_memory_elements() >= std::max<std::uint64_t>(elements, 1);
  });
}

std::vector<std::size_t> intermediate_pick(std::span<const std::uint64_t> sizes, std::size_t take) {
  std::vector<std::size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return sizes[a] < sizes[b]; });
  order.resize(std::min(take, order.size()));
  std::sort(order.begin(), order.end());
  return order;
}

std::uint64_t intermediate_elements(std::span<const std::uint64_t> sizes, std::size_t fan_in,
                                    std::size_t intermediate_fan_in, std::uint64_t merged_before) {
  std::vector<std::uint64_t> left(sizes.begin(), sizes.end());
  std::uint64_t total = merged_before;
  while (left.size() > fan_in && intermediate_fan_in >= 2) {
    const std::size_t take = std::min(intermediate_fan_in, left.size() - fan_in + 1);
    std::stable_sort(left.begin(), left.end());
    const std::uint64_t merged =
        std::accumulate(left.begin(), left.begin() + static_cast<std::ptrdiff_t>(take), std::uint64_t{0});
    left.erase(left.begin(), left.begin() + static_cast<std::ptrdiff_t>(take));
    left.push_back(merged);
    total += merged;
  }
  return total;
}

} // namespace flow::plan
