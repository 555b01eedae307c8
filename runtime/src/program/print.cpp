// The text of print()'s arguments (flow/program.hpp, detail::append_text).
#include <charconv>

#include "flow/program.hpp"

namespace flow::detail {

namespace {
template <class Integer> void append_integer(std::string& out, Integer v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}
} // namespace

void append_text(std::string& out, std::string_view s) { out += s; }
void append_text(std::string& out, const char* s) { out += s ? s : "(null)"; }
void append_text(std::string& out, const std::string& s) { out += s; }
void append_text(std::string& out, char c) { out += c; }
void append_text(std::string& out, bool b) { out += b ? "true" : "false"; }
void append_signed(std::string& out, long long v) { append_integer(out, v); }
void append_unsigned(std::string& out, unsigned long long v) { append_integer(out, v); }
void append_float(std::string& out, double v, unsigned bits) { out += flags::format_float(v, bits); }

} // namespace flow::detail
