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

enum class StrMethod {
#define STR_METHOD(Id, name, arguments, result, checked) Id,
#include "ast/builtins.def"
};
enum class StrResult { u64, i64, boolean, str, pieces };

struct StrMethodInfo {
  StrMethod id;
  const char* name;
  const char* arguments; // 's' a str, 'u' a u64
  StrResult result;
  bool checked;          // takes the script position (it may fail)
};

/// The stages named by a word (`window 3`): the STAGE rows of builtins.def.
enum class StageId {
#define STAGE(Id, name, argument, output, keepsOrder) Id,
#include "ast/builtins.def"
};
enum class StageArgument { none, constant_count, fraction };
enum class StageOutput { input, array_of_input, indexed_input };

struct StageInfo {
  StageId id;
  const char* name;
  StageArgument argument;
  StageOutput output;
  bool keepsOrder;
};

const BuiltinInfo& info(Builtin b);
const StageInfo& info(StageId s);
std::span<const StageInfo> namedStages();
/// Every stage a pipeline may have after `|`: the keyword stages (`map`, `filter`, …),
/// then the named ones.
std::span<const char* const> stageNames();
/// The sources written as calls: `read(path)`, `join(a by …, b by …)`, `range(a, b)`, ….
std::span<const char* const> sourceNames();
std::optional<StageId> findStage(std::string_view name);
const MethodInfo& info(Method m);
/// Every builtin (or method), in the table's order.
std::span<const BuiltinInfo> builtins();
std::span<const MethodInfo> methods();
std::optional<Builtin> findBuiltin(std::string_view name);
std::optional<Method> findMethod(std::string_view name);
const StrMethodInfo& info(StrMethod m);
std::span<const StrMethodInfo> strMethods();
std::optional<StrMethod> findStrMethod(std::string_view name);

} // namespace flow::ast
