#pragma once
// Builtin functions and container methods as enums, from builtins.def.
#include <optional>
#include <span>
#include <string_view>

namespace flow::ast {

enum class Builtin {
#define BUILTIN(Id, name, minArgs, maxArgs, stream) Id,
#include "ast/builtins.def"
};

struct BuiltinInfo {
  Builtin id;
  const char* name;
  unsigned minArgs, maxArgs;
  /// 0: takes values; 1: takes a stream (an aggregate); 2: a stream when given one.
  int stream;
};

enum class Method {
#define METHOD(Id, name, args, queue, vector, changes) Id,
#include "ast/builtins.def"
};

struct MethodInfo {
  Method id;
  const char* name;
  unsigned args;
  bool ofQueue, ofVector;
  bool changes; // not allowed in map and filter
};

const BuiltinInfo& info(Builtin b);
const MethodInfo& info(Method m);
/// Every builtin (or method), in the table's order.
std::span<const BuiltinInfo> builtins();
std::span<const MethodInfo> methods();
std::optional<Builtin> findBuiltin(std::string_view name);
std::optional<Method> findMethod(std::string_view name);

} // namespace flow::ast
