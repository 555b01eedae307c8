#pragma once
// Flow's types: scalars, fixed arrays, records (declared or imported from C++), and the
// untyped literal types that integer and float literals have until their context gives
// them a type. Types are interned by TypeContext, so equal types are the same pointer.
#include "ast/source.hpp"

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace flow::sema {

struct RecordInfo;

struct Type {
  // Str is a byte string of at most strCapacity bytes (one capacity per program, flowc
  // --max-str), held inline so that records with strings stay fixed-size.
  enum Kind { Bool, U8, U16, U32, U64, I8, I16, I32, I64, F32, F64, Str, IntLit, FloatLit, Array, Record, Void, Path, Error };
  Kind kind;
  const Type* element = nullptr;       // Array
  uint64_t length = 0;                 // Array; Str: the program's capacity in bytes
  const RecordInfo* record = nullptr;  // Record

  bool isInteger() const { return (kind >= U8 && kind <= I64) || kind == IntLit; }
  bool isSigned() const { return kind >= I8 && kind <= I64; }
  bool isUnsigned() const { return kind >= U8 && kind <= U64; }
  bool isFloat() const { return kind == F32 || kind == F64 || kind == FloatLit; }
  bool isNumeric() const { return isInteger() || isFloat(); }
  bool isScalar() const { return kind <= FloatLit; }
  bool isStr() const { return kind == Str; }
  bool isUntyped() const { return kind == IntLit || kind == FloatLit; }
  bool isError() const { return kind == Error; }
  /// Scalars and arrays of orderable types have a built-in order (`asc`, `desc`, `<`).
  bool isOrderable() const;
  /// Bits of an integer type (8..64).
  unsigned bits() const;

  uint64_t size() const;
  uint64_t align() const;
  /// As a user writes it: `u32`, `[u8; 10]`, `Edge`, `cpp::geo::Point`.
  std::string name() const;
  /// The C++ spelling: `uint32_t`, `std::array<uint8_t, 10>`, `Edge`, `::geo::Point`.
  std::string cppName() const;
};

struct FieldInfo {
  std::string name;
  const Type* type;
  uint64_t offset = 0;
  SourceLoc loc;
  bool accessible = true; // false for a private or protected member of an imported record
};

struct RecordInfo {
  std::string name;       // as the script names it: `Edge` or `cpp::geo::Point`
  std::string cppName;    // `Edge` or `::geo::Point`
  bool imported = false;
  bool buildable = true;  // can be built as `T { field: … }` (an imported C++ aggregate with public fields)
  std::vector<FieldInfo> fields;
  uint64_t size = 0, align = 1;
  SourceLoc loc;
  const FieldInfo* field(const std::string& name) const;
};

/// Owns every type; equal types are returned as the same pointer.
class TypeContext {
public:
  /// `strCapacity`: the most bytes a str holds (flowc --max-str).
  explicit TypeContext(uint64_t strCapacity = kDefaultStrCapacity);
  static constexpr uint64_t kDefaultStrCapacity = 254;
  const Type* scalar(Type::Kind kind) const { return &scalars_[kind]; }
  const Type* error() const { return scalar(Type::Error); }
  const Type* array(const Type* element, uint64_t length);
  const Type* record(const RecordInfo* record);
  uint64_t strCapacity() const { return scalars_[Type::Str].length; }
  void setStrCapacity(uint64_t bytes) { scalars_[Type::Str].length = bytes; }
  /// `u32`, `bool`, `f64`, `str`, … by name; null if `name` is not a scalar type.
  const Type* scalarByName(const std::string& name) const;
  /// Lays out a record like a C++ struct: fields in order, each at a multiple of its
  /// alignment, size rounded up to the largest alignment.
  static void layOut(RecordInfo& record);

private:
  std::vector<Type> scalars_;
  std::deque<Type> arrays_, records_;
  std::map<std::pair<const Type*, uint64_t>, const Type*> arrayIndex_;
  std::map<const RecordInfo*, const Type*> recordIndex_;
};

/// True if a value of type `from` may be used where `to` is expected without `as`:
/// the same type, or widening within the integers (unsigned to a wider signed too),
/// or f32 to f64. Untyped literals are checked with literalFits instead.
bool widens(const Type* from, const Type* to);

/// The smallest and largest values of a scalar type, as C++ expressions
/// (`std::numeric_limits<uint32_t>::lowest()`) — the sentinels of `asc` and `desc`.
std::string cppLowest(const Type* type);
std::string cppHighest(const Type* type);

} // namespace flow::sema
