#include "parse/literals.hpp"

#include <cerrno>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace flow::parse {

namespace {
std::string withoutUnderscores(const std::string& text) {
  std::string s;
  for (char c : text)
    if (c != '_') s += c;
  return s;
}

int digitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool isContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }
} // namespace

std::optional<uint64_t> parseInteger(const std::string& text, std::string& error) {
  std::string digits = withoutUnderscores(text);
  unsigned base = 10;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    base = 16;
    digits = digits.substr(2);
  }
  if (digits.empty()) {
    error = "invalid number '" + text + "'";
    return std::nullopt;
  }
  uint64_t value = 0;
  for (char c : digits) {
    int d = digitValue(c);
    if (d < 0 || static_cast<unsigned>(d) >= base) {
      error = "invalid number '" + text + "'";
      return std::nullopt;
    }
    if (value > (UINT64_MAX - static_cast<uint64_t>(d)) / base) {
      error = "integer literal '" + text + "' does not fit in 64 bits";
      return std::nullopt;
    }
    value = value * base + static_cast<uint64_t>(d);
  }
  return value;
}

std::optional<double> parseFloat(const std::string& text, std::string& error) {
  std::string digits = withoutUnderscores(text);
  errno = 0;
  char* end = nullptr;
  double value = std::strtod(digits.c_str(), &end);
  if (end != digits.c_str() + digits.size()) {
    error = "invalid number '" + text + "'";
    return std::nullopt;
  }
  if (errno == ERANGE && std::isinf(value)) {
    error = "floating-point literal '" + text + "' is out of range";
    return std::nullopt;
  }
  return value;
}

void splitSize(const std::string& text, std::string& number, std::string& unit) {
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '_' ||
                             text[i] == '.'))
    ++i;
  number = text.substr(0, i);
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  unit = text.substr(i);
}

std::optional<uint64_t> parseSize(const std::string& number, const std::string& unit,
                                  std::string& error) {
  static const struct { const char* name; unsigned shift; } units[] = {
      {"B", 0}, {"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40}};
  int shift = -1;
  for (const auto& u : units)
    if (unit == u.name) shift = static_cast<int>(u.shift);
  if (shift < 0) {
    error = "unknown size unit '" + unit + "' (use B, KiB, MiB, GiB or TiB)";
    return std::nullopt;
  }
  std::string text = number + (unit.empty() ? "" : " " + unit);
  if (number.find('.') == std::string::npos) {
    auto value = parseInteger(number, error);
    if (!value) return std::nullopt;
    if (shift > 0 && *value > (UINT64_MAX >> shift)) {
      error = "size " + text + " does not fit in 64 bits";
      return std::nullopt;
    }
    return *value << shift;
  }
  auto value = parseFloat(number, error);
  if (!value) return std::nullopt;
  double bytes = std::ldexp(*value, shift);
  if (bytes >= 18446744073709551616.0) {
    error = "size " + text + " does not fit in 64 bits";
    return std::nullopt;
  }
  if (bytes != std::floor(bytes)) {
    error = "size " + text + " is not a whole number of bytes";
    return std::nullopt;
  }
  return static_cast<uint64_t>(bytes);
}

bool hasOpenInterpolation(const std::string& literal) {
  bool open = false;
  for (size_t i = 0; i < literal.size(); ++i) {
    const char c = literal[i];
    if (c == '\\') ++i; // an escape: the next character is not a brace
    else if (!open && (c == '{' || c == '}') && i + 1 < literal.size() && literal[i + 1] == c) ++i;
    else if (c == '{') open = true;
    else if (c == '}') open = false;
  }
  return open;
}

const char* const kStringEndsInInterpolation =
    "the string ends at the '\"' inside its '{…}' (an interpolated expression may not contain strings); compute "
    "the value first, `let x = …;`, and interpolate its name: \"{x}\"";

std::vector<StringPiece> decodeString(const std::string& literal, std::vector<StringError>& errors) {
  std::vector<StringPiece> pieces;
  // Offsets count characters, not bytes, so they map straight onto columns.
  size_t chars = 1;
  auto appendText = [&](const std::string& s, size_t offset) {
    if (pieces.empty() || pieces.back().isExpr) pieces.push_back({false, "", offset});
    pieces.back().text += s;
  };
  size_t end = literal.size() >= 2 ? literal.size() - 1 : literal.size();
  for (size_t i = 1; i < end; ++i) {
    char c = literal[i];
    size_t here = chars;
    if (!isContinuationByte(c)) ++chars;
    if (c == '\\' && i + 1 < end) {
      char e = literal[++i];
      ++chars;
      switch (e) {
      case 'n': appendText("\n", here); break;
      case 't': appendText("\t", here); break;
      case '"': appendText("\"", here); break;
      case '\\': appendText("\\", here); break;
      default:
        errors.push_back({here, std::string("unknown escape sequence '\\") + e +
                                    "' (use \\n, \\t, \\\" or \\\\)"});
      }
    } else if (c == '{' && i + 1 < end && literal[i + 1] == '{') {
      appendText("{", here);
      ++i;
      ++chars;
    } else if (c == '}' && i + 1 < end && literal[i + 1] == '}') {
      appendText("}", here);
      ++i;
      ++chars;
    } else if (c == '{') {
      size_t close = literal.find('}', i + 1);
      if (close == std::string::npos || close >= end) {
        errors.push_back({here, "unterminated '{' in string (write '{{' for a literal brace)"});
        return pieces;
      }
      std::string expr = literal.substr(i + 1, close - i - 1);
      bool blank = expr.find_first_not_of(" \t") == std::string::npos;
      if (blank) errors.push_back({here, "empty '{}' in string (write '{{' for a literal brace)"});
      else pieces.push_back({true, expr, here + 1});
      for (size_t k = i + 1; k <= close; ++k)
        if (!isContinuationByte(literal[k])) ++chars;
      i = close;
    } else if (c == '}') {
      errors.push_back({here, "unmatched '}' in string (write '}}' for a literal brace)"});
    } else {
      appendText(std::string(1, c), here);
    }
  }
  return pieces;
}

} // namespace flow::parse
