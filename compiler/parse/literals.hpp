#pragma once
// Values of number, size and string literals, with the reason when one is malformed.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace flow::parse {

/// `42`, `1_000_000`, `0xff` → value; nullopt and `error` when it does not fit in 64 bits.
std::optional<uint64_t> parseInteger(const std::string& text, std::string& error);

/// `0.5`, `4e9` → value; nullopt and `error` when out of range.
std::optional<double> parseFloat(const std::string& text, std::string& error);

/// `256MiB`, `256 MiB`, `1.5 GiB`, or `256` with unit "MiB" → bytes.
std::optional<uint64_t> parseSize(const std::string& number, const std::string& unit,
                                  std::string& error);
/// Splits a SIZE token's text into its number and unit.
void splitSize(const std::string& text, std::string& number, std::string& unit);

/// One piece of a string literal's body: literal text or the source text of a `{expr}`.
struct StringPiece {
  bool isExpr = false;
  std::string text;    // decoded text, or the expression's source text
  size_t offset = 0;   // character offset of the piece's text within the literal (quote = 0)
};

struct StringError {
  size_t offset;       // character offset within the literal (opening quote = 0)
  std::string message;
};

/// Decodes a string literal (with its quotes): escapes `\n \t \" \\`, literal braces
/// `{{` and `}}`, and `{expr}` interpolations. Reports every malformed piece.
std::vector<StringPiece> decodeString(const std::string& literal, std::vector<StringError>& errors);

/// Whether a string literal's text (with its quotes) ends inside an interpolation: a '{'
/// (not '{{') with no '}' after it — as when a '"' inside the braces, meant to start a
/// string there, ended it.
bool hasOpenInterpolation(const std::string& literal);
/// The error at what follows such a string (the parser's or the lexer's).
extern const char* const kStringEndsInInterpolation;

} // namespace flow::parse
