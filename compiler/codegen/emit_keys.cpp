// Keys of reduce and join in generated code: the paths to key fields, the order, equality
// and hash of keys (floats in the runtime's total order, flow/script/total_order.hpp),
// and a reduce's combine function (the script's, with the group's keys put back, so a
// function that changes a key cannot move an element to another group).
#include "codegen/generator.hpp"

#include "ast/unreachable.hpp"

namespace flow::codegen {

using sema::OrderKeyInfo;

std::vector<OrderKeyInfo> Generator::keysOf(const sema::OrderInfo* order) {
  if (order->kind == sema::OrderInfo::Keys) return order->keys;
  // A reduce's keys are always a key list, and sema rejects a C++ comparator in a join:
  // keys compared, hashed and put back one by one need fields to name.
  if (order->kind == sema::OrderInfo::Cpp) unreachable("codegen: the keys of a C++ comparator");
  OrderKeyInfo whole; // asc or desc: the element itself
  whole.descending = order->kind == sema::OrderInfo::Desc;
  whole.type = order->type;
  return {whole};
}

std::string Generator::keyPath(const OrderKeyInfo& key, const Type* element) const {
  std::string path;
  const Type* t = element;
  for (const OrderKeyInfo::Step& step : key.path) {
    if (step.field.empty()) {
      path += "[" + std::to_string(step.index) + "]";
      t = t->element;
    } else {
      path += "." + fieldName(t, step.field);
      const sema::FieldInfo* f = t->record->field(step.field);
      if (!f) unreachable("codegen: an order key names no field of its record (sema resolved it)");
      t = f->type;
    }
  }
  return path;
}

bool Generator::holdsFloat(const Type* t) {
  if (t->isFloat()) return true;
  if (t->kind == Type::Array) return holdsFloat(t->element);
  if (t->kind == Type::Record && !t->record->imported)
    for (const sema::FieldInfo& f : t->record->fields)
      if (holdsFloat(f.type)) return true;
  return false;
}

std::string Generator::keyLess(const Type* t, const std::string& a, const std::string& b) {
  return holdsFloat(t) ? "flow::script::total_less(" + a + ", " + b + ")" : a + " < " + b;
}

std::string Generator::keyEqual(const Type* t, const std::string& a, const std::string& b) {
  return holdsFloat(t) ? "flow::script::total_equal(" + a + ", " + b + ")" : a + " == " + b;
}

std::string Generator::sameKeys(const std::vector<OrderKeyInfo>& keys, const Type* element) {
  const std::string T = type(element);
  std::string same;
  for (const OrderKeyInfo& k : keys)
    same += (same.empty() ? "" : " && ") + keyEqual(k.type, "a" + keyPath(k, element), "b" + keyPath(k, element));
  return "[](const " + T + "& a, const " + T + "& b) -> bool { return " + same + "; }";
}

std::string Generator::hashKeys(const ReduceStage& r) {
  const std::string T = type(r.elementType);
  std::string h = "uint64_t h = 0;";
  for (const OrderKeyInfo& k : keysOf(r.keyOrder))
    h += std::string(" h = (h ^ flow::script::") + (holdsFloat(k.type) ? "total_hash" : "hash") + "(x" +
         keyPath(k, r.elementType) + ")) * 0x9E3779B97F4A7C15ull;";
  return "[](const " + T + "& x) -> uint64_t { " + h + " return h; }";
}

void Generator::declareCombine(const Node& n, const ReduceStage& r) {
  const std::string T = type(r.elementType);
  line("auto " + var(n, "combine") + " = [&](const " + T + "& " + name(r.fn.params[0].symbol) + ", const " + T + "& " +
       name(r.fn.params[1].symbol) + ") -> " + T + " {");
  {
    Indent in(*this);
    line(T + " r = " + expr(*r.fn.body) + ";");
    for (const OrderKeyInfo& k : keysOf(r.keyOrder)) {
      const std::string path = keyPath(k, r.elementType);
      line("r" + path + " = " + name(r.fn.params[0].symbol) + path + "; // the group's key");
    }
    line("return r;");
  }
  line("};");
}

} // namespace flow::codegen
