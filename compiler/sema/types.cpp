#include "sema/types.hpp"

#include <algorithm>

namespace flow::sema {

namespace {
struct ScalarSpec {
  const char* flow;
  const char* cpp;
  uint64_t size;
};
// Indexed by Type::Kind, up to and including Error.
const ScalarSpec kScalars[] = {
    {"bool", "bool", 1},       {"u8", "uint8_t", 1},      {"u16", "uint16_t", 2},
    {"u32", "uint32_t", 4},    {"u64", "uint64_t", 8},    {"i8", "int8_t", 1},
    {"i16", "int16_t", 2},     {"i32", "int32_t", 4},     {"i64", "int64_t", 8},
    {"f32", "float", 4},       {"f64", "double", 8},      {"str", "flow_str", 0},
    {"integer", "uint64_t", 8},
    {"float", "double", 8}, {"array", "", 0},     {"record", "", 0},
    {"void", "void", 0},       {"path", "std::string", 0},
    {"<error>", "", 0}};
} // namespace

bool Type::isOrderable() const {
  if (kind == Array) return element->isOrderable();
  return isNumeric() || kind == Bool || kind == Str;
}

unsigned Type::bits() const {
  if (kind == IntLit) return 64;
  return static_cast<unsigned>(kScalars[kind].size * 8);
}

uint64_t Type::size() const {
  if (kind == Array) return element->size() * length;
  if (kind == Record) return record->size;
  if (kind == Str) return length + 2; // the bytes, then a u16 length (flow/script/str.hpp)
  return kScalars[kind].size;
}

uint64_t Type::align() const {
  if (kind == Array) return element->align();
  if (kind == Record) return record->align;
  if (kind == Str) return 2;
  return std::max<uint64_t>(1, kScalars[kind].size);
}

std::string Type::name() const {
  if (kind == Array) return "[" + element->name() + "; " + std::to_string(length) + "]";
  if (kind == Record) return record->name;
  return kScalars[kind].flow;
}

std::string Type::cppName() const {
  if (kind == Array) return "std::array<" + element->cppName() + ", " + std::to_string(length) + ">";
  if (kind == Record) return record->cppName;
  return kScalars[kind].cpp;
}

const FieldInfo* RecordInfo::field(const std::string& fieldName) const {
  for (const FieldInfo& f : fields)
    if (f.name == fieldName) return &f;
  return nullptr;
}

TypeContext::TypeContext(uint64_t strCapacity) {
  for (int k = 0; k <= Type::Error; ++k) scalars_.push_back(Type{static_cast<Type::Kind>(k)});
  scalars_[Type::Str].length = strCapacity;
}

const Type* TypeContext::array(const Type* element, uint64_t length) {
  auto key = std::make_pair(element, length);
  auto it = arrayIndex_.find(key);
  if (it != arrayIndex_.end()) return it->second;
  Type t{Type::Array};
  t.element = element;
  t.length = length;
  arrays_.push_back(t);
  return arrayIndex_[key] = &arrays_.back();
}

const Type* TypeContext::record(const RecordInfo* info) {
  auto it = recordIndex_.find(info);
  if (it != recordIndex_.end()) return it->second;
  Type t{Type::Record};
  t.record = info;
  records_.push_back(t);
  return recordIndex_[info] = &records_.back();
}

const Type* TypeContext::scalarByName(const std::string& name) const {
  for (int k = 0; k <= Type::Str; ++k)
    if (name == kScalars[k].flow) return scalar(static_cast<Type::Kind>(k));
  return nullptr;
}

void TypeContext::layOut(RecordInfo& record) {
  uint64_t offset = 0, align = 1;
  for (FieldInfo& f : record.fields) {
    uint64_t a = f.type->align();
    offset = (offset + a - 1) / a * a;
    f.offset = offset;
    offset += f.type->size();
    align = std::max(align, a);
  }
  record.align = align;
  record.size = (offset + align - 1) / align * align;
  if (record.size == 0) record.size = 1; // an empty C++ struct still takes a byte
}

bool widens(const Type* from, const Type* to) {
  if (from == to) return true;
  if (from->isUnsigned() && to->isUnsigned()) return from->bits() < to->bits();
  if (from->isSigned() && to->isSigned()) return from->bits() < to->bits();
  if (from->isUnsigned() && to->isSigned()) return from->bits() < to->bits();
  return from->kind == Type::F32 && to->kind == Type::F64;
}

std::string cppLowest(const Type* type) {
  return "std::numeric_limits<" + type->cppName() + ">::lowest()";
}

std::string cppHighest(const Type* type) {
  return "std::numeric_limits<" + type->cppName() + ">::max()";
}

} // namespace flow::sema
