// flow-import-dump: prints everything sema's C++ import reads from a header, in a stable
// text format, for the lit tests in test/compiler/import/.
//
//   flow-import-dump [-I DIR | -IDIR]... [-std=STD] [--extra-arg=ARG]... HEADER
//
// Output (locations are `@line:col` in HEADER, `@file:line:col` in another header):
//   header <absolute path>
//   record <name> size <n> align <n> [trivially-copyable | not-trivially-copyable] [aggregate] @loc
//     because <reason> @loc                      (only when not trivially copyable)
//     field <name>: <type> offset <n> [private] @loc
//   function <name>(<param>: <type>, ...) -> <type> @loc
//   comparator <name> on <type> [min_value] [max_value] @loc
// Types: a scalar (`i32`), a record name (`geo::Point`), a C array `[T; N]`, a
// `std::array<T, N>`, `void`, or `unsupported 'C++ spelling'`. A field without a name
// (an anonymous union) is `<anonymous>`, a parameter without one `_`. Diagnostics go to
// stderr; the exit status is 1 if the header could not be imported.
#include "sema/cpp_import.hpp"

#include <iostream>
#include <string>

using namespace flow;
using namespace flow::sema;

namespace {

std::string typeText(const CppType& t) {
  switch (t.kind) {
  case CppType::Scalar: return t.scalar;
  case CppType::Record: return t.name;
  case CppType::Array:
    if (t.stdArray) return "std::array<" + typeText(*t.element) + ", " + std::to_string(t.length) + ">";
    return "[" + typeText(*t.element) + "; " + std::to_string(t.length) + "]";
  case CppType::Void: return "void";
  case CppType::Unsupported: return "unsupported '" + t.spelling + "'";
  }
  return "?";
}

std::string locText(const CppLoc& loc, const std::string& header) {
  if (loc.line == 0) return "@?";
  std::string at = "@";
  if (loc.file != header) at += loc.file + ":";
  return at + std::to_string(loc.line) + ":" + std::to_string(loc.column);
}

int usage() {
  std::cerr << "usage: flow-import-dump [-I DIR]... [-std=STD] [--extra-arg=ARG]... HEADER\n";
  return 2;
}

} // namespace

int main(int argc, char** argv) {
  CppImportOptions options;
  std::string header;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-I") {
      if (++i == argc) return usage();
      options.includeDirs.push_back(argv[i]);
    } else if (a.rfind("-I", 0) == 0) {
      options.includeDirs.push_back(a.substr(2));
    } else if (a.rfind("-std=", 0) == 0) {
      options.standard = a.substr(5);
    } else if (a.rfind("--extra-arg=", 0) == 0) {
      options.extraArgs.push_back(a.substr(12));
    } else if (a == "--resource-dir") {
      std::cout << clangResourceDir() << "\n";
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      return usage();
    } else if (header.empty()) {
      header = a;
    } else {
      return usage();
    }
  }
  if (header.empty()) return usage();

  DiagnosticEngine diags(std::cerr);
  std::optional<CppHeader> h = importCppHeader(header, options, diags);
  diags.flush();
  if (!h) return 1;

  std::cout << "header " << h->path << "\n";
  for (const CppRecord& r : h->records) {
    std::cout << "record " << r.name << " size " << r.size << " align " << r.align << " "
              << (r.triviallyCopyable ? "trivially-copyable" : "not-trivially-copyable")
              << (r.aggregate ? " aggregate" : "") << " " << locText(r.loc, header) << "\n";
    if (!r.triviallyCopyable)
      std::cout << "  because " << r.notTriviallyCopyableBecause << " " << locText(r.whyLoc, header) << "\n";
    for (const CppField& f : r.fields)
      std::cout << "  field " << (f.name.empty() ? "<anonymous>" : f.name) << ": " << typeText(f.type) << " offset " << f.offset
                << (f.isPublic ? "" : " private") << " " << locText(f.loc, header) << "\n";
  }
  for (const CppFunction& f : h->functions) {
    std::cout << "function " << f.name << "(";
    for (size_t i = 0; i < f.params.size(); ++i) {
      if (i) std::cout << ", ";
      std::cout << (f.paramNames[i].empty() ? "_" : f.paramNames[i]) << ": " << typeText(f.params[i]);
    }
    std::cout << ") -> " << typeText(f.result) << " " << locText(f.loc, header) << "\n";
  }
  for (const CppComparator& c : h->comparators)
    std::cout << "comparator " << c.name << " on " << typeText(c.argument) << (c.hasMinValue ? " min_value" : "")
              << (c.hasMaxValue ? " max_value" : "") << " " << locText(c.loc, header) << "\n";
  return diags.hasErrors() ? 1 : 0;
}
