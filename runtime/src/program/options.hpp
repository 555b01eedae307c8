#pragma once
// The options every Flow program takes (--memory, --disk, ...), one row each: its name,
// how --help shows it, how its value is read and what --help says of it. The parser
// (command_line.cpp) and --help (help.cpp) both walk this one table. Internal to the
// runtime's program layer.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "flow/program/flags.hpp"

namespace flow::detail {

/// One flag on the command line as the parser meets it: "--NAME" or "--NAME=VALUE",
/// and the arguments after it, from which a separate value is taken.
class flag_argument {
public:
  flag_argument(std::string_view name, std::optional<std::string_view> inline_value,
                const std::vector<std::string_view>& args, std::size_t& index)
      : flag("--" + std::string(name)), inline_value_(inline_value), args_(args), index_(index) {}

  const std::string flag; ///< "--NAME", as messages name it

  /// The value after '=', if the flag has one.
  const std::optional<std::string_view>& inline_value() const noexcept { return inline_value_; }
  /// The value after '=' or else the next argument; throws usage_error ("needs a value
  /// (`what`)") when there is none or the next argument is a flag.
  std::string_view take_value(const std::string& what);
  /// The next argument when it is a bool (true/on/1...): "--verbose off" but not "--verbose --x".
  std::optional<std::string_view> take_bool_value();
  /// Throws usage_error when the flag has a value after '='.
  void no_value() const;
  /// A usage error of this flag.
  usage_error error(const std::string& message) const { return usage_error(flag, message); }

private:
  std::optional<std::string_view> inline_value_;
  const std::vector<std::string_view>& args_;
  std::size_t& index_; // the argument now read; a separate value advances it
};

/// The program's own defaults, which --help shows beside the options.
struct help_defaults {
  std::uint64_t memory = 0;       // the budget without --memory
  std::uint64_t script_memory = 0; // the script's memory default, 0 if it sets none
  std::uint64_t script_block = 0;  // the script's block default, 0 if it sets none
};

struct option_row {
  const char* name;   ///< without "--"
  const char* syntax; ///< --help's left column
  /// Reads the flag's value into the options; throws usage_error or std::invalid_argument.
  /// Null for --help and --version, which program::parse answers before reading the rest.
  void (*read)(flag_argument& arg, program_options& options);
  /// --help's text for the option.
  std::string (*describe)(const help_defaults& defaults);
};

/// The options in --help's order.
std::span<const option_row> builtin_options();

/// Without --threads, the threads of $FLOW_THREADS (as OMP_NUM_THREADS sets OpenMP's);
/// throws usage_error if it is not a count from 1 to 4096.
void read_threads_from_environment(program_options& options);

/// Whether `name` (without "--") is an option of every program, so no param may have it.
bool is_builtin_option(std::string_view name);

/// A flag name with '-' read as '_': --min-degree sets the param min_degree.
std::string normalize_flag_name(std::string_view name);

} // namespace flow::detail
