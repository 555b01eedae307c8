#pragma once
// Command-line values of a Flow executable: the options every program takes (--memory,
// --disk, ...), the error a bad flag raises, and the parsers of param values. Used by
// flow::program (program.hpp); exposed for tests and for code that parses the same syntax.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "flow/mng/config.hpp"

namespace flow {

/// A bad flag or value. what() is one line that names the flag, e.g.
/// "--memory: 'lots' is not a size; write ...". program::run prints it as
/// "NAME: error: <what>" and returns exit status 2.
class usage_error : public std::invalid_argument {
public:
  usage_error(std::string flag, const std::string& message)
      : std::invalid_argument(message), flag_(std::move(flag)) {}
  /// The flag as the user wrote its name ("--memory", "--edges"), or the argument itself
  /// for an unknown flag or a stray argument.
  const std::string& flag() const noexcept { return flag_; }

private:
  std::string flag_;
};

/// Where --stats sends its report.
enum class stats_format { none, text, json };

/// The program-wide flags, as parsed (params are written straight into their variables).
/// Unset optionals mean "the program's default".
struct program_options {
  std::optional<std::uint64_t> memory;  ///< --memory SIZE (bytes, > 0)
  std::optional<std::uint64_t> block;   ///< --block SIZE (a power of two >= 4096)
  std::vector<mng::disk_spec> disks;    ///< --disk PATH[:SIZE] in order; empty: the default
  bool direct = true;                   ///< --direct on|off
  std::optional<unsigned> threads;      ///< --threads N (1 to 4096)
  std::uint64_t seed = 1;               ///< --seed N (any u64; default flow::default_seed)
  stats_format stats = stats_format::none; ///< --stats[=text|json][:PATH]
  std::string stats_path;               ///< --stats=FORMAT:PATH ("" = stderr)
  std::optional<bool> progress;         ///< --progress[=on|off]; default: on when stderr is a terminal
  std::string trace_path;               ///< --trace PATH ("" = no trace)
  stats_format plan = stats_format::none; ///< --plan[=text|json]: print the plan, run nothing
  bool help = false;                    ///< --help or -h
  bool version = false;                 ///< --version
  std::vector<std::string> params_given; ///< names of the params set on the command line
};

namespace flags {

/// An integer as the user may write it: an optional sign, then decimal digits, 0x hex,
/// 0o octal or 0b binary digits, with single '_' between digits (1_000_000, 0xff_ff), or
/// a decimal float literal whose value is a whole number (4e9, 2.5e3, 1.0). The result is
/// a sign and a magnitude; `overflow` is set when the magnitude exceeds 2^64 - 1.
/// Throws std::invalid_argument("'TEXT' is not a whole number" / "... not a number")
/// without a flag name.
struct integer_text {
  bool negative = false;
  std::uint64_t magnitude = 0;
  bool overflow = false;
};
integer_text parse_integer_text(std::string_view text);

/// A signed / unsigned integer of `bits` (8, 16, 32, 64) bits; throws std::invalid_argument
/// ("'300' is out of range for u8 (0 to 255)"; `type` names the type in the message).
std::int64_t parse_signed(std::string_view text, unsigned bits, std::string_view type);
std::uint64_t parse_unsigned(std::string_view text, unsigned bits, std::string_view type);
/// A finite float ("1.5", "-2e-3", "1_000.5", "4"); `bits` 32 checks the f32 range.
double parse_float(std::string_view text, unsigned bits, std::string_view type);
/// true/false, on/off, yes/no, 1/0 (any case).
bool parse_bool(std::string_view text);
/// Whether parse_bool accepts `text`.
bool is_bool(std::string_view text) noexcept;

/// Shortest text that reads back as the same double / float ("0.1", "1e+20", "3").
std::string format_float(double value, unsigned bits);

} // namespace flags
} // namespace flow
