#pragma once
// C++ interop: reads a header with Clang libTooling and describes what a Flow script may
// use from it — records (layout, fields), free functions and comparator classes — in
// terms sema can map to Flow types. Nothing here knows Flow's type system.
#include "ast/diagnostics.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace flow::sema {

/// A C++ type as far as Flow cares about it.
struct CppType {
  enum Kind {
    Scalar,      // `scalar` is one of: bool u8 u16 u32 u64 i8 i16 i32 i64 f32 f64
    Record,      // `name` is the record's qualified name, e.g. "geo::Point" (no "cpp::")
    Array,       // `element[length]`
    Void,        // only as a function result
    Unsupported  // anything else; `spelling` says what it is
  } kind = Unsupported;
  std::string scalar;
  std::string name;
  std::shared_ptr<CppType> element;
  uint64_t length = 0;
  bool stdArray = false; // an Array spelled `std::array<T, N>` (same layout as the C array `T[N]`)
  std::string spelling; // the C++ spelling, for diagnostics ("std::string", "int *")
};

/// A position in an imported header (1-based), for diagnostics that point into it.
struct CppLoc {
  std::string file;
  uint32_t line = 0, column = 0;
  /// The header's text, kept alive by the DiagnosticEngine given to importCppHeader, so
  /// a diagnostic (or note) can point into the header with its line and caret: pass
  /// `source` and `{line, column}` to DiagnosticEngine. Null if the location is unknown.
  const SourceFile* source = nullptr;
  SourceLoc sourceLoc() const { return {line, column}; }
};

struct CppField {
  std::string name;
  CppType type;
  uint64_t offset = 0; // bytes
  bool isPublic = true; // false: private or protected in C++, so generated code cannot name it
  CppLoc loc;
};

struct CppRecord {
  std::string name; // qualified, e.g. "geo::Point"
  uint64_t size = 0, align = 0;
  bool triviallyCopyable = false;
  bool aggregate = false; // a C++ aggregate: can be built as `Name{field, …}` (brace elision covers bases)
  std::string notTriviallyCopyableBecause; // e.g. "member 'label' of type 'std::string' is not trivially copyable"
  CppLoc whyLoc;                           // where that member (or user-provided special member) is declared
  std::vector<CppField> fields;            // in declaration order, including those of base classes first
  CppLoc loc;
};

struct CppFunction {
  std::string name; // qualified, e.g. "geo::distance"
  CppType result;
  std::vector<CppType> params; // by value or by const reference, reference stripped
  std::vector<std::string> paramNames;
  CppLoc loc;
};

/// A class usable as an order: `bool operator()(const T&, const T&) const`, and
/// optionally `static T min_value()` / `static T max_value()` (the sentinels merging needs).
struct CppComparator {
  std::string name; // qualified
  CppType argument; // T
  bool hasMinValue = false, hasMaxValue = false;
  CppLoc loc;
};

struct CppHeader {
  std::string path; // as resolved
  std::vector<CppRecord> records;
  std::vector<CppFunction> functions;
  std::vector<CppComparator> comparators;

  const CppRecord* findRecord(const std::string& qualifiedName) const;
  const CppFunction* findFunction(const std::string& qualifiedName) const; // first overload
  std::vector<const CppFunction*> findOverloads(const std::string& qualifiedName) const;
  const CppComparator* findComparator(const std::string& qualifiedName) const;
};

struct CppImportOptions {
  std::vector<std::string> includeDirs; // -I; the script's own directory is added by the caller
  std::string standard = "c++20";       // -std=
  std::vector<std::string> extraArgs;   // passed through to Clang
};

/// Parses `headerPath` with Clang libTooling (the clang 14 resource dir is found
/// automatically so system headers resolve). Errors Clang reports inside the header are
/// reported to `diags` at the header's own file:line:col (the header's text is loaded
/// so the line and caret print). Returns nullopt if the header could not be parsed.
/// Only declarations in the header itself (and headers it includes from the same
/// directory tree, not system headers) are described.
std::optional<CppHeader> importCppHeader(const std::string& headerPath, const CppImportOptions& options,
                                         DiagnosticEngine& diags);

/// Where Clang's resource directory is (e.g. /usr/lib/llvm-14/lib/clang/14.0.6).
std::string clangResourceDir();

} // namespace flow::sema
