#include "ast/builtins.hpp"

#include "ast/tables.hpp"

#include <array>

namespace flow::ast {

namespace {
constexpr BuiltinInfo kBuiltins[] = {
#define BUILTIN(Id, name, minArgs, maxArgs, stream) {Builtin::Id, name, minArgs, maxArgs, stream},
#include "ast/builtins.def"
};
constexpr StageInfo kStages[] = {
#define STAGE(Id, name, argument, output, keepsOrder)                                                                 \
  {StageId::Id, name, StageArgument::argument, StageOutput::output, keepsOrder},
#include "ast/builtins.def"
};
constexpr MethodInfo kMethods[] = {
#define METHOD(Id, name, args, queue, vector, changes) {Method::Id, name, args, queue, vector, changes},
#include "ast/builtins.def"
};
constexpr StrMethodInfo kStrMethods[] = {
#define STR_METHOD(Id, name, arguments, result, checked) {StrMethod::Id, name, arguments, StrResult::result, checked},
#include "ast/builtins.def"
};
} // namespace

const BuiltinInfo& info(Builtin b) { return kBuiltins[static_cast<int>(b)]; }
const MethodInfo& info(Method m) { return kMethods[static_cast<int>(m)]; }
const StageInfo& info(StageId s) { return kStages[static_cast<int>(s)]; }
std::span<const StageInfo> namedStages() { return kStages; }
std::span<const char* const> stageNames() {
  static constexpr const char* names[] = {"map", "filter", "sort", "unique", "take", "for", "reduce",
#define STAGE(Id, name, ...) name,
#include "ast/builtins.def"
  };
  return names;
}
std::span<const char* const> sourceNames() {
  static constexpr const char* names[] = {"generate", "range", "read", "read_text", "read_lines", "read_csv",
                                          "scan", "merge", "join", "left_join", "zip", "concat"};
  return names;
}

std::optional<StageId> findStage(std::string_view name) {
  return findRow(kStages, name, &StageInfo::id, &StageInfo::name);
}
std::span<const BuiltinInfo> builtins() { return kBuiltins; }
std::span<const MethodInfo> methods() { return kMethods; }

std::optional<Builtin> findBuiltin(std::string_view name) {
  return findRow(kBuiltins, name, &BuiltinInfo::id, &BuiltinInfo::name);
}

std::optional<Method> findMethod(std::string_view name) {
  return findRow(kMethods, name, &MethodInfo::id, &MethodInfo::name);
}

const StrMethodInfo& info(StrMethod m) { return kStrMethods[static_cast<int>(m)]; }
std::span<const StrMethodInfo> strMethods() { return kStrMethods; }
std::optional<StrMethod> findStrMethod(std::string_view name) {
  return findRow(kStrMethods, name, &StrMethodInfo::id, &StrMethodInfo::name);
}

} // namespace flow::ast
