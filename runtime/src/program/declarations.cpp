// flow::program's declarations (params, files, defaults, the estimate) and the queries
// that read them back, as the generated main() makes and asks them. See flow/program.hpp.
#include <stdexcept>

#include "flow/format.hpp"
#include "flow/plan/memory_plan.hpp"
#include "flow/plan/input_size.hpp"
#include "flow/program.hpp"
#include "flow/ranks.hpp"
#include "options.hpp"

namespace flow {

// ---- declarations ----------------------------------------------------------------------

program::program(std::string name, std::string description)
    : name_(std::move(name)), description_(std::move(description)) {
  report_.program = name_;
}

program::~program() = default;

void program::add_param_info(param_info info) {
  const std::string n = detail::normalize_flag_name(info.name);
  if (info.name.empty() || detail::is_builtin_option(info.name) || detail::is_builtin_option(n)) {
    throw std::logic_error("flow::program::param: '" + info.name +
                           "' cannot be a param name: the option --" + info.name +
                           " of every program has it");
  }
  for (const auto& p : params_) {
    if (detail::normalize_flag_name(p.name) == n) {
      throw std::logic_error("flow::program::param: '" + info.name + "' is declared twice");
    }
  }
  params_.push_back(std::move(info));
}

void program::memory_default(std::uint64_t bytes) {
  if (bytes == 0) throw std::logic_error("flow::program::memory_default: a budget of 0 bytes");
  memory_default_ = bytes;
}

void program::block_default(std::uint64_t bytes) {
  if (bytes == 0 || bytes % 4096 != 0) {
    throw std::logic_error("flow::program::block_default: " + std::to_string(bytes) +
                           " bytes is not a positive multiple of 4096");
  }
  block_default_ = bytes;
}

void program::input_file(std::string path, std::size_t element_bytes, std::string type_name) {
  if (element_bytes == 0) throw std::logic_error("flow::program::input_file: element size 0");
  inputs_.push_back({std::move(path), element_bytes, std::move(type_name), 0, 0, {}, false});
}

void program::input_file(std::function<std::string()> path, std::size_t element_bytes, std::string type_name) {
  if (element_bytes == 0) throw std::logic_error("flow::program::input_file: element size 0");
  inputs_.push_back({{}, element_bytes, std::move(type_name), 0, 0, std::move(path), false});
}

void program::output_file(std::function<std::string()> path) { outputs_.push_back(std::move(path)); }

void program::output_file(std::string path) {
  outputs_.push_back([p = std::move(path)] { return p; });
}

void program::param(std::string_view name, std::string& variable, std::string_view type,
                    std::string_view default_text, std::string_view description) {
  if (type != "path") {
    throw std::logic_error("flow::program::param: '" + std::string(name) + "' is declared " + std::string(type) +
                           " but its variable is a path (std::string)");
  }
  param_info info;
  info.name = std::string(name);
  info.type = "path";
  info.default_text = std::string(default_text);
  info.description = std::string(description);
  std::string* v = &variable;
  info.set = [v](std::string_view text) {
    if (text.empty()) throw std::invalid_argument("a path cannot be empty (- is standard input or output)");
    *v = std::string(text);
  };
  auto quoted = [v] { return json_string(*v); };
  info.text = quoted;
  info.json = quoted;
  add_param_info(std::move(info));
}

std::string program::with_given_paths(std::string_view label) const {
  std::string out(label);
  for (const param_info& p : params_) {
    if (p.type != "path" || !p.given) continue;
    const std::string from = p.name + "=" + p.default_text, to = p.name + "=" + p.text();
    if (from == to) continue;
    for (std::size_t at = out.find(from); at != std::string::npos; at = out.find(from, at + to.size()))
      out.replace(at, from.size(), to);
  }
  return out;
}

void program::estimate(std::function<void(flow::estimate&)> fill) { estimate_fn_ = std::move(fill); }

void program::calibrated_estimate(std::string by, std::function<void(flow::estimate&)> fill) {
  calibrated_by_ = std::move(by);
  calibrated_fn_ = std::move(fill);
}

void program::disk_need(unsigned phase, std::string_view label, std::uint64_t bytes) {
  if (bytes > disk_need_.bytes) disk_need_ = {phase, with_given_paths(label), bytes};
}

// ---- queries ---------------------------------------------------------------------------

std::uint64_t program::memory() const noexcept {
  return options_.memory.value_or(memory_default_ ? memory_default_ : fallback_memory);
}

void program::memory_too_small(const plan::memory_shortfall& shortfall, const std::vector<plan::memory_node>& nodes,
                               const std::vector<std::pair<std::string, std::uint64_t>>& arrays) const {
  std::string held;
  for (const auto& [name, bytes] : arrays)
    held += (held.empty() ? "" : ", ") + name + " (" + flow::format_bytes(bytes, true) + ")";
  const std::optional<std::uint64_t> fixed_block =
      options_.block ? options_.block : block_default_ ? std::optional<std::uint64_t>(block_default_) : std::nullopt;
  const std::uint64_t least = plan::least_budget(nodes, memory(), fixed_block);
  // The least budget exactly: rounded up it could reach the next block size, which may
  // not hold the plan.
  // A smaller block is advice only where it lowers the least budget by a tenth or more
  // (it need not: smaller blocks mean more runs and more of them merged at once): the
  // block, halving down to 4 KiB, whose least budget is the lowest, with that budget.
  std::uint64_t best = least, best_block = 0;
  for (std::uint64_t b = block() / 2; b >= 4096; b /= 2) {
    const bool fits_now = !plan::shortfall_at(nodes, memory(), b);
    if (const std::uint64_t l = fits_now ? memory() : plan::least_budget(nodes, memory(), b); l && (!best || l < best)) {
      best = l;
      best_block = b;
    }
  }
  const auto flag_size = [](std::uint64_t b) { // a power of two of 4 KiB or more
    return b % (std::uint64_t{1} << 20) == 0 ? std::to_string(b >> 20) + "MiB" : std::to_string(b >> 10) + "KiB";
  };
  std::string smaller_block;
  if (best_block && best == memory()) smaller_block = ", or --block " + flag_size(best_block) + " (this budget holds its plan)";
  else if (best_block && (!least || best <= least - least / 10))
    smaller_block = ", or --block " + flag_size(best_block) + " --memory " + std::to_string(best);
  const std::string advice =
      least ? "; the least budget that holds this run's plan is " + flow::format_bytes(least, true) +
                  (fixed_block ? "" : " (blocks of " + flow::format_bytes(block_for_memory(least)) + ")") +
                  ": give --memory " + std::to_string(least) + smaller_block
            : "; no budget holds this run's plan: give smaller params" + smaller_block;
  // Two sizes that print alike (the need rounded up, the budget down) get their bytes.
  std::string needed = flow::format_bytes(shortfall.needed, true), budget = flow::format_bytes(memory());
  if (needed == budget) {
    needed += " (" + std::to_string(shortfall.needed) + " bytes)";
    budget += " (" + std::to_string(memory()) + " bytes)";
  }
  // Why the least budget is not the phase's need: planned for that need, the plan is
  // another (longer runs, so fewer to merge; other blocks) and a phase falls short again.
  std::string then;
  if (least > shortfall.needed) {
    const std::uint64_t b = flow::block_size(std::nullopt, fixed_block, shortfall.needed);
    if (const auto again = plan::shortfall_at(nodes, shortfall.needed, b))
      then = "; planned for " + needed + (b != block() ? " (blocks of " + flow::format_bytes(b) + ")" : "") +
             ", phase " + std::to_string(again->phase) + " would need " + flow::format_bytes(again->needed, true) +
             " (a phase's need changes with the budget it is planned for)";
  }
  throw usage_error("--memory", "--memory: phase " + std::to_string(shortfall.phase) + " needs " + needed +
                                    " with blocks of " + flow::format_bytes(block()) +
                                    (held.empty() ? "" : ", holding " + held) + ", but the budget is " + budget +
                                    then + advice);
}

void program::warn_hash_join_passes(const plan::memory_planner& planner, const std::vector<plan::memory_node>& nodes,
                                    std::span<const estimate::listed_node> listed) const {
  // Every rank plans the same: the first one says it for all.
  if (ranks::world().rank() != 0) return;
  for (const estimate::listed_node& n : listed) {
    if (nodes[n.id].role != plan::memory_role::hash_join) continue;
    const plan::node_cost cost = planner.cost(n.id);
    if (cost.passes <= 1) continue;
    // The script's line, as the phase's label ends: "… (join.flow:11)".
    const std::string_view label = n.phase_label;
    const std::size_t at = label.rfind(" (");
    const std::string where = at != std::string_view::npos && label.ends_with(")") ? std::string(label.substr(at)) : "";
    std::fprintf(stderr,
                 "%s: warning: %s%s: its right input does not fit its table in this run's memory (%s), so it takes %u "
                 "passes, its left input written to the temporary disk and read back for each pass after the first (%s "
                 "read); more --memory, or a program built for this budget (flowc build --memory %s: a merge join, "
                 "which sorts both inputs once), avoids them\n",
                 name_.c_str(), std::string(n.name).c_str(), where.c_str(), flow::format_bytes(memory()).c_str(),
                 cost.passes, flow::format_bytes(cost.read_bytes).c_str(), std::to_string(memory()).c_str());
  }
}

std::uint64_t program::block() const noexcept {
  return block_size(options_.block, block_default_ ? std::optional<std::uint64_t>(block_default_) : std::nullopt,
                    memory());
}

unsigned program::threads() const noexcept {
  return options_.threads ? *options_.threads : hardware_threads();
}

std::uint64_t program::input_elements(std::string_view path) const {
  for (const auto& in : inputs_)
    if (in.path == path) return in.elements;
  throw std::logic_error("flow::program::input_elements: '" + std::string(path) +
                         "' is not a declared input file");
}

std::uint64_t program::input_line_bytes(std::string_view path, std::uint64_t planned) const {
  for (const auto& in : inputs_)
    if (in.path == path) return in.known ? plan::text_line_bytes(in.bytes, in.elements, planned) : planned;
  throw std::logic_error("flow::program::input_line_bytes: '" + std::string(path) + "' is not a declared input file");
}

bool program::input_size_known(std::string_view path) const {
  for (const auto& in : inputs_)
    if (in.path == path) return in.known;
  throw std::logic_error("flow::program::input_size_known: '" + std::string(path) +
                         "' is not a declared input file");
}

bool program::given(std::string_view name) const {
  for (const auto& p : params_)
    if (p.name == name) return p.given;
  throw std::logic_error("flow::program::given: no param '" + std::string(name) + "'");
}


// The param types' add_param, compiled here once (program.hpp declares them extern).
#define FLOW_DEFINE_ADD_PARAM(T)                                                                                \
  template void program::add_param<T>(std::string_view, T&, std::string_view, std::string_view, std::string_view, \
                                      std::function<void()>);
FLOW_PARAM_TYPES(FLOW_DEFINE_ADD_PARAM)
#undef FLOW_DEFINE_ADD_PARAM

} // namespace flow
