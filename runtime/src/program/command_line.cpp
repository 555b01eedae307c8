// program::parse: the command line of a Flow program, read with the option table
// (options.cpp) and the script's params.
#include <algorithm>
#include <vector>

#include "flow/edit_distance.hpp"
#include "flow/excerpt.hpp"
#include "flow/program.hpp"
#include "messages.hpp"
#include "options.hpp"

namespace flow {

namespace {

// The param a flag names: its exact name, else the same with '-' read as '_'.
template <class Params> auto* find_param(Params& params, std::string_view name) {
  for (auto& p : params)
    if (p.name == name) return &p;
  const std::string n = detail::normalize_flag_name(name);
  for (auto& p : params)
    if (detail::normalize_flag_name(p.name) == n) return &p;
  return static_cast<decltype(&params.front())>(nullptr);
}

// "unknown flag '--NAME'", with the nearest option or param when one is close.
template <class Params> usage_error unknown_flag(const Params& params, const std::string& name, const std::string& flag) {
  std::vector<std::string> names;
  for (const auto& o : detail::builtin_options()) names.emplace_back(o.name);
  for (const auto& q : params) names.push_back(q.name);
  const std::string best = nearest_name(name, names);
  std::string msg = "unknown flag '" + excerpt(flag) + "'";
  if (!best.empty() && !name.empty()) msg += "; did you mean --" + best + "?";
  msg += " (see --help)";
  return usage_error(flag, msg);
}

// An argument that is not "--NAME[=VALUE]".
usage_error not_a_flag(std::string_view a) {
  if (a.size() > 1 && a[0] == '-')
    return usage_error(std::string(a), "unknown flag '" + excerpt(a) + "': flags start with -- (see --help)");
  return usage_error(std::string(a), "unexpected argument '" + excerpt(a) +
                                         "': the program takes only flags, e.g. --NAME=VALUE (see --help)");
}

} // namespace

const program_options& program::parse(int argc, const char* const* argv) {
  options_ = program_options{};
  for (auto& p : params_) p.given = false;
  std::vector<std::string_view> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);

  const auto apply_defaults = [&] {
    for (auto& p : params_)
      if (!p.given && p.apply_default) p.apply_default();
  };

  // --help and --version answer wherever they stand (before "--"); nothing else is read.
  for (auto a : args) {
    if (a == "--") break;
    if (a == "--help" || a == "-h") {
      options_.help = true;
      apply_defaults();
      return options_;
    }
    if (a == "--version") {
      options_.version = true;
      return options_;
    }
  }

  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view a = args[i];
    if (a == "--") {
      if (i + 1 < args.size()) {
        throw usage_error(std::string(args[i + 1]), "unexpected argument '" + excerpt(args[i + 1]) +
                                                        "': the program takes only flags (see --help)");
      }
      break;
    }
    if (a.size() < 3 || a.substr(0, 2) != "--") throw not_a_flag(a);
    const std::size_t eq = a.find('=');
    const std::string name(a.substr(2, eq == std::string_view::npos ? std::string_view::npos : eq - 2));
    detail::flag_argument arg(name, eq == std::string_view::npos ? std::nullopt : std::optional(a.substr(eq + 1)),
                              args, i);
    try {
      const auto options = detail::builtin_options();
      const auto option = std::find_if(options.begin(), options.end(),
                                       [&](const detail::option_row& o) { return o.read && name == o.name; });
      if (option != options.end()) {
        option->read(arg, options_);
        continue;
      }
      auto* p = find_param(params_, name);
      if (!p) throw unknown_flag(params_, name, arg.flag);
      const std::string pflag = "--" + p->name;
      std::string_view v;
      if (p->is_bool && !arg.inline_value()) v = arg.take_bool_value().value_or("true");
      else v = arg.take_value("a " + p->type);
      try {
        p->set(v);
      } catch (const std::invalid_argument& e) {
        throw usage_error(pflag, pflag + ": " + e.what());
      }
      p->given = true;
      if (std::find(options_.params_given.begin(), options_.params_given.end(), p->name) ==
          options_.params_given.end())
        options_.params_given.push_back(p->name);
    } catch (const usage_error&) {
      throw;
    } catch (const std::invalid_argument& e) {
      // from parse_size, disk_spec::parse, parse_unsigned
      std::string m = detail::clean_message(e.what());
      if (m.rfind(arg.flag, 0) != 0) m = arg.flag + ": " + m;
      throw usage_error(arg.flag, m);
    }
  }
  detail::read_threads_from_environment(options_);
  apply_defaults();
  return options_;
}

} // namespace flow
