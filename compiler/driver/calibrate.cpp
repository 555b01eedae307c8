#include "driver/calibrate.hpp"

#include "driver/environment.hpp"

#include <llvm/Support/JSON.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <unistd.h>

namespace fs = std::filesystem;

namespace flow::driver {

using plan::Calibration;
using plan::Node;

namespace {

/// The count the calibration run aims at for the node that handles the most elements:
/// large enough that per-element fractions settle, small enough for a few seconds.
constexpr double kCalibrationElements = 1 << 20;

/// The most elements a node of the stream handles (a queue's or a vector's pushes are
/// not among them: the static plan counts a push for every loop iteration).
double largestCount(const plan::Plan& p) {
  double most = 0;
  for (const Node& n : p.nodes)
    if (n.traits().count != plan::Count::pushes) most = std::max(most, n.elements);
  return most;
}

/// A param value as the plan shows it, if it is a whole number ("1048576").
std::optional<double> wholeNumber(const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::strtod(text.c_str(), nullptr);
}

std::string integerText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

/// The params the program runs with, scaled down where they are counts: a param is a
/// count when doubling it makes the largest node's count grow by half or more.
struct Scale {
  plan::PlanOptions options; // the small run's --set values
  std::vector<std::string> scaled;
};

Scale scaleDown(const BuildOptions& options, const sema::CheckedProgram& program, const plan::Plan& full) {
  Scale s{options.plan, {}};
  const double largest = largestCount(full);
  if (largest <= kCalibrationElements) return s;
  const double factor = kCalibrationElements / largest;
  for (const auto& [name, value] : full.params) {
    const std::optional<double> v = wholeNumber(value);
    if (!v || *v < 2) continue;
    plan::PlanOptions probe = options.plan;
    probe.setParams[name] = integerText(2 * *v);
    std::ostringstream ignored; // a doubled value may not fit its type: then it is no count to scale
    DiagnosticEngine quiet(ignored);
    const std::optional<plan::Plan> doubled = plan::makePlan(program, probe, quiet);
    if (!doubled || largestCount(*doubled) < 1.5 * largest) continue;
    const double small = std::max(1.0, std::floor(*v * factor));
    s.options.setParams[name] = integerText(small);
    s.scaled.push_back(name + " " + value + " -> " + integerText(small));
  }
  return s;
}

/// A temporary folder of the calibration run's own, removed with everything in it when
/// the calibration ends: the program's outputs (at the small scale) never replace the
/// user's files.
struct RunFolder {
  fs::path path;
  RunFolder() {
    std::string pattern = (temporaryFolder() / "flow-calibrate-XXXXXX").string();
    if (::mkdtemp(pattern.data())) path = pattern;
  }
  ~RunFolder() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

/// The last lines of a program's output, for an error message.
std::string tail(const fs::path& log) {
  std::ifstream in(log);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::string out;
  for (size_t i = lines.size() > 10 ? lines.size() - 10 : 0; i < lines.size(); ++i) out += "  " + lines[i] + "\n";
  return out;
}

struct Measured {
  std::map<int, double> elements; // node id -> elements it put out (a queue: pushes)
  std::map<int, double> peak;     // queue id -> most items at once
};

/// A node's name without the values quoted in it (`read input="numbers.bin"`): the
/// calibration run gives path params other values (made absolute, or in its own folder).
std::string withoutQuotedValues(std::string_view name) {
  std::string out;
  bool quoted = false;
  for (char c : name) {
    if (c == '"') quoted = !quoted;
    if (!quoted || c == '"') out += c;
  }
  return out;
}

/// Reads "nodes" and "queues" of a program's --stats=json; checks that each names the
/// node of the plan with its id (a program of another version of the script would not).
std::optional<Measured> readStats(const fs::path& file, const plan::Plan& plan, std::string& why) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(text.str());
  if (!value) {
    why = "its --stats=json does not parse: " + llvm::toString(value.takeError());
    return std::nullopt;
  }
  const llvm::json::Object* root = value->getAsObject();
  const llvm::json::Array* nodes = root ? root->getArray("nodes") : nullptr;
  const llvm::json::Array* queues = root ? root->getArray("queues") : nullptr;
  if (!nodes || !queues) {
    why = "its --stats=json has no \"nodes\" and \"queues\" (a program of an older flowc?)";
    return std::nullopt;
  }
  Measured m;
  auto read = [&](const llvm::json::Array& list, const char* field, std::map<int, double>& into) {
    for (const llvm::json::Value& entry : list) {
      const llvm::json::Object* o = entry.getAsObject();
      if (!o) {
        why = "its --stats=json has a node that is not an object";
        return false;
      }
      llvm::Optional<int64_t> id = o->getInteger("id");
      llvm::Optional<llvm::StringRef> name = o->getString("name");
      llvm::Optional<double> count = o->getNumber(field);
      if (!id || !name || !count || *id < 0 || *id >= static_cast<int64_t>(plan.nodes.size()) ||
          withoutQuotedValues(plan.nodes[static_cast<size_t>(*id)].name) != withoutQuotedValues(name->str())) {
        why = "its --stats=json names nodes the plan does not have";
        return false;
      }
      into[static_cast<int>(*id)] = *count;
    }
    return true;
  };
  std::map<int, double> pushes;
  if (!read(*nodes, "elements", m.elements) || !read(*queues, "peak", m.peak) || !read(*queues, "pushes", pushes))
    return std::nullopt;
  return m;
}

/// The elements node `id` put out in the run: its counter, or for a node that passes
/// every element on (a map, a sort's halves) its input's.
std::optional<double> elementsOf(const plan::Plan& plan, const Measured& m, int id) {
  if (auto it = m.elements.find(id); it != m.elements.end()) return it->second;
  const Node& n = plan.nodes[static_cast<size_t>(id)];
  if (n.traits().count == plan::Count::each_input && n.inputs.size() == 1) return elementsOf(plan, m, n.inputs[0]);
  return std::nullopt;
}

/// Filters, uniques, reduces, for stages and joins: the fraction of their input (a
/// join's larger input) they put out.
void selectivities(const plan::Plan& small, const Measured& m, Calibration& c) {
  for (const Node& n : small.nodes) {
    const bool selective = n.traits().count == plan::Count::fraction;
    auto out = m.elements.find(n.id);
    if (!selective || out == m.elements.end() || n.inputs.empty()) continue;
    // A reduce's merge counts from the input of its run formation.
    const std::vector<int>& inputs =
        n.kind == Node::ReduceMerge ? small.nodes[static_cast<size_t>(n.partner)].inputs : n.inputs;
    double in = 0;
    bool known = true;
    for (int i : inputs) {
      const std::optional<double> e = elementsOf(small, m, i);
      known = known && e;
      if (e) in = std::max(in, *e);
    }
    if (!known || in <= 0) continue; // nothing reached it: the assumption stands
    c.nodes[n.id] = {.fraction = out->second / in, .elements = out->second};
  }
}

/// The rounds a phase is planned to run (a phase in a top-level while loop: its `~ N`).
double roundsOf(const plan::Plan& p, int phase) {
  for (const plan::Phase& ph : p.phases)
    if (ph.id == phase) return ph.rounds;
  return 1;
}

/// Queues and vector pushes: the fraction of the pushes planned (with the selectivities
/// in place) that ran, and a queue's peak as a fraction of its pushes.
void pushes(const plan::Plan& small, const Measured& m, Calibration& c) {
  for (const Node& n : small.nodes) {
    auto count = m.elements.find(n.id);
    if (count == m.elements.end()) continue;
    if (n.kind == Node::Queue) {
      if (n.elements <= 0) continue;
      const double peak = m.peak.count(n.id) ? m.peak.at(n.id) : 0;
      c.nodes[n.id] = {.fraction = count->second / n.elements,
                       .elements = count->second,
                       .peakFraction = count->second > 0 ? peak / count->second : 0};
    } else if (n.kind == Node::VectorPush) {
      // Counted on the vector's first push node, for all of them (codegen's pushCounter);
      // a push node in a while loop's phase is planned per round, the counter counts all.
      double planned = 0;
      for (const Node& other : small.nodes)
        if (other.kind == Node::VectorPush && other.get<sema::Symbol>() == n.get<sema::Symbol>())
          planned += other.elements * roundsOf(small, other.phase);
      if (planned > 0) c.nodes[n.id] = {.fraction = count->second / planned, .elements = count->second};
    }
  }
}

/// The calibration for makePlan (PlanOptions::calibration), measured by a run at a
/// small scale of the params of `full` (the static plan at the params asked for) of the
/// program `options` builds; or nullopt after reporting why not (to `diags` or
/// standard error).
std::optional<Calibration> calibrate(const BuildOptions& options, const sema::CheckedProgram& program,
                                     const plan::Plan& full, DiagnosticEngine& diags) {
  const Scale scale = scaleDown(options, program, full);
  std::optional<plan::Plan> small = plan::makePlan(program, scale.options, diags);
  diags.flush();
  if (!small) return std::nullopt;
  auto fail = [&](const std::string& why) -> std::optional<Calibration> {
    std::cerr << "flowc: error: --calibrate: " << why << "\n";
    return std::nullopt;
  };
  // The run's standard input is flowc's: a script that reads it would take the user's.
  for (const Node& n : full.nodes) {
    if (n.traits().io != plan::io_rule::reads_file) continue;
    if (full.pathValue(n.get<ast::ReadSource>()->path) == "-")
      return fail("the script reads standard input (line " + std::to_string(n.loc.line) +
                  "), which a calibration run cannot have; give it a file (--set for a path param) to calibrate");
  }
  if (small->nodes.size() != full.nodes.size())
    return fail("the plan at the small scale has other nodes than at the params asked for; calibrate at a scale "
                "closer to them (--set)");

  // The program, as `flowc run` builds it (the same cache).
  std::variant<std::string, int> exe = cachedProgram(options);
  if (std::holds_alternative<int>(exe)) return std::nullopt;

  RunFolder folder;
  if (folder.path.empty()) return fail(std::string("cannot create a temporary folder: ") + std::strerror(errno));
  std::vector<std::string> args = {std::get<std::string>(exe)};
  // Input files the script reads and does not write are read where they are: a path
  // param's made absolute, a literal's linked into the run's folder.
  std::map<std::string, std::string> placedParams; // path params' values for the run
  for (const Node& n : full.nodes) {
    if (n.traits().io != plan::io_rule::reads_file) continue;
    const ast::ReadSource& r = *n.get<ast::ReadSource>();
    if (!full.readsInput(r)) continue;
    if (r.path.isParam()) {
      auto value = full.pathValues.find(r.path.symbol);
      if (value != full.pathValues.end() && value->second != "-")
        placedParams[r.path.param] = fs::absolute(value->second).string();
      continue;
    }
    const std::string path = r.path.literal.text();
    if (path == "-" || fs::path(path).is_absolute()) continue;
    std::error_code ec;
    fs::create_directories((folder.path / path).parent_path(), ec);
    fs::create_symlink(fs::absolute(path), folder.path / path, ec);
  }
  // Output files go into the run's folder, never over the user's: a literal's folders are
  // made there, a path param's value is moved there (outputs/ and the path as given); a
  // literal absolute path cannot be moved, so it stops the calibration.
  for (const Node& n : full.nodes) {
    if (n.traits().io != plan::io_rule::writes_file) continue;
    const ast::PathRef& p = n.get<ast::WriteStmt>()->path;
    std::error_code ec;
    if (p.isParam()) {
      auto value = full.pathValues.find(p.symbol);
      if (value == full.pathValues.end() || value->second == "-" || value->second.empty()) continue;
      const fs::path inside = folder.path / "outputs" / fs::path(value->second).relative_path();
      fs::create_directories(inside.parent_path(), ec);
      placedParams[p.param] = inside.string();
      continue;
    }
    const std::string path = p.literal.text();
    if (path == "-" || path == "/dev/null") continue;
    if (fs::path(path).is_absolute())
      return fail("the script writes '" + path + "' (line " + std::to_string(n.loc.line) +
                  "), which a calibration run would replace; make it a path param to calibrate");
    fs::create_directories((folder.path / path).parent_path(), ec);
  }
  // Every param as the small plan has it (a path as given, not as JSON shows it), but the
  // files placed above.
  std::map<std::string, std::string> paths;
  for (const auto& [symbol, value] : small->pathValues) paths[symbol->name] = value;
  for (const auto& [name, value] : small->params) {
    auto placed = placedParams.find(name);
    auto path = paths.find(name);
    args.push_back("--" + name + "=" +
                   (placed != placedParams.end() ? placed->second : path != paths.end() ? path->second : value));
  }
  args.push_back("--memory=" + std::to_string(full.memoryBytes));
  const fs::path stats = folder.path / "stats.json", log = folder.path / "output.log";
  args.push_back("--stats=json:" + stats.string());

  std::string command; // the run, as a person would type it
  for (size_t i = 1; i < args.size(); ++i) command += " " + args[i];
  // The run takes seconds: say so on a terminal, where the wait is seen.
  if (isatty(STDERR_FILENO))
    std::cerr << "flowc: calibrating: " << fs::path(args[0]).filename().string() << command << "\n";
  const auto start = std::chrono::steady_clock::now();
  const int status = runLogged(args, log.string(), folder.path.string());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (status < 0) return std::nullopt;
  if (status != 0) {
    return fail("the calibration run (" + fs::path(args[0]).filename().string() + command + ") ended with exit status " +
                std::to_string(status) + "; it said:\n" + tail(log));
  }
  std::string why;
  std::optional<Measured> measured = readStats(stats, *small, why);
  if (!measured) return fail(why);

  Calibration c;
  c.params = small->params;
  c.scaled = scale.scaled;
  c.seconds = seconds;
  selectivities(*small, *measured, c);
  // The pushes planned depend on the selectivities upstream: plan the small scale again
  // with them in place, and compare.
  plan::PlanOptions withSelectivities = scale.options;
  withSelectivities.calibration = &c;
  std::optional<plan::Plan> selective = plan::makePlan(program, withSelectivities, diags);
  diags.flush();
  if (!selective) return std::nullopt;
  pushes(*selective, *measured, c);
  return c;
}

} // namespace

std::optional<plan::Plan> calibratedPlan(const BuildOptions& program, const sema::CheckedProgram& checked,
                                         const plan::Plan& full, DiagnosticEngine& diags) {
  std::optional<Calibration> calibration = calibrate(program, checked, full, diags);
  if (!calibration) return std::nullopt;
  plan::PlanOptions options = program.plan;
  options.calibration = &*calibration;
  options.programPlan = &full; // the memory split is the static plan's, which the program makes
  std::optional<plan::Plan> calibrated = plan::makePlan(checked, options, diags);
  diags.flush();
  return calibrated;
}

} // namespace flow::driver
