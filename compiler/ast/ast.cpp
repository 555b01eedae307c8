#include "ast/ast.hpp"

namespace flow::ast {

std::string QualifiedName::str() const {
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? "::" : "") + parts[i];
  return s;
}

std::string OrderRef::str() const {
  switch (kind) {
  case Asc: return "asc";
  case Desc: return "desc";
  case Named: return name.str();
  }
  return "";
}

bool StringLiteral::isInterpolated() const {
  for (const StringPart& p : parts)
    if (p.expr) return true;
  return false;
}

std::string StringLiteral::text() const {
  std::string s;
  for (const StringPart& p : parts) s += p.text;
  return s;
}

} // namespace flow::ast
