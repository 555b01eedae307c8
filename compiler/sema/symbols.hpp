#pragma once
// What semantic analysis knows about a checked script: every named thing (Symbol), the
// orders with their keys and sentinels, and the script-wide settings. The planner and
// the code generator read the AST annotated with these.
#include "ast/ast.hpp"
#include "sema/constant.hpp"
#include "sema/cpp_import.hpp"
#include "sema/types.hpp"

#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace flow::sema {

/// One key of a key order: a path of fields (and constant array indexes) into the
/// element, e.g. `e.src` or `key[0]`, with its direction.
struct OrderKeyInfo {
  struct Step {
    std::string field; // empty for an index step
    uint64_t index = 0;
  };
  std::vector<Step> path;
  std::string text; // as written
  bool descending = false;
  const Type* type = nullptr;
};

struct OrderInfo {
  enum Kind { Asc, Desc, Keys, Cpp } kind = Asc;
  std::string name;          // declared name, or "asc" / "desc"
  const Type* type = nullptr; // the type it orders
  std::vector<OrderKeyInfo> keys;
  const CppComparator* cpp = nullptr;
  std::string cppName;       // `::geo::closer_to_origin`
  /// Merging and external queues need a smallest and a largest value (sentinels).
  bool hasSentinels = true;
  std::string whyNoSentinels;
  SourceLoc loc;
  bool implicit = false; // the key list of a reduce or join, not a declared order

  /// Whether the generated order has a radix key (its first key is an integer, bool, float or str;
  /// codegen's emitOrder packs such keys), which lets the sorter sort by key — and sort
  /// elements over 32 bytes indirectly, which changes how it divides its memory.
  bool hasRadixKey() const;
};

/// A place where a stream or vector is read.
struct Consumer {
  SourceLoc loc;
  std::string what; // "for loop", "write", "count", "merge", "vector", "stream", …
  bool inLoop = false; // inside a loop body: runs once per iteration
  std::vector<int> blocks; // the blocks it is in, outermost first (sema's check of later reads)
};

struct Symbol {
  enum Kind {
    Param, Record, Order, Stream, Vector, Queue, Let, Var, LoopVar, LambdaVar, Index, Field,
    CppFunction, Builtin,
    Array // an in-memory array (`array a: T[n];`): `type` is its element type
  };
  Symbol(Kind k, std::string n, SourceLoc l) : kind(k), name(std::move(n)), loc(l) {}

  Kind kind;
  std::string name;
  SourceLoc loc;
  const Type* type = nullptr;          // a value's type; a stream's, vector's or queue's element type
  const RecordInfo* record = nullptr;  // Record
  const OrderInfo* order = nullptr;    // Order, and a Queue's order
  const ast::Stmt* decl = nullptr;
  const ast::Pipeline* pipeline = nullptr; // Stream (and a Vector made from a pipeline)
  std::vector<Consumer> consumers;     // Stream, Vector
  std::optional<ConstValue> value;     // Param: the default's value
  const sema::CppFunction* function = nullptr; // CppFunction
  const FieldInfo* field = nullptr;    // Field (names in order and unique keys)
  bool argument = false;               // Let: a function's value parameter bound to a non-constant argument

  const char* kindName() const;
};

/// The checked script. The AST nodes point into it (types, symbols, orders).
struct CheckedProgram {
  ast::Program* ast = nullptr;
  TypeContext types;
  std::deque<RecordInfo> records;
  std::deque<OrderInfo> orders;
  std::deque<Symbol> symbols;              // every symbol, in the order they were declared
  std::vector<std::unique_ptr<CppHeader>> headers;
  std::vector<std::string> moduleFiles;    // every module used, directly or not (flowc emit --depfile)
  std::optional<uint64_t> memoryBytes;     // `memory SIZE;`
  std::optional<uint64_t> blockBytes;      // `block SIZE;`

  /// The declared symbols of one kind, in declaration order.
  std::vector<const Symbol*> symbolsOf(Symbol::Kind kind) const;
};

} // namespace flow::sema
