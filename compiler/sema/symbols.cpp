#include "sema/symbols.hpp"

#include "ast/unreachable.hpp"

namespace flow::sema {

const char* Symbol::kindName() const {
  switch (kind) {
  case Param: return "param";
  case Record: return "record";
  case Order: return "order";
  case Stream: return "stream";
  case Vector: return "vector";
  case Queue: return "priority queue";
  case Let: return "let value";
  case Var: return "variable";
  case LoopVar: return "loop variable";
  case LambdaVar: return "stream element"; // "is a stream element" (not "a element")
  case Index: return "index";
  case Field: return "field";
  case CppFunction: return "C++ function";
  case Builtin: return "builtin function";
  case Array: return "array";
  }
  unreachable("sema: a symbol of no known kind");
}

std::vector<const Symbol*> CheckedProgram::symbolsOf(Symbol::Kind kind) const {
  std::vector<const Symbol*> out;
  for (const Symbol& s : symbols)
    if (s.kind == kind) out.push_back(&s);
  return out;
}

bool OrderInfo::hasRadixKey() const {
  const Type* first = nullptr;
  if (kind == Asc || kind == Desc) first = type;
  else if (kind == Keys && !keys.empty()) first = keys.front().type;
  if (!first) return false; // an imported comparator: the sorter compares
  if (first->kind == Type::Array) first = first->element;
  // What the code generator packs into the key (Generator::emitOrderBody): integers,
  // bools, floats (their total-order image) and a str's first bytes.
  return first->kind == Type::Bool || (first->isInteger() && !first->isUntyped()) || first->isFloat() ||
         first->isStr();
}

} // namespace flow::sema
