// Types, records, C++ imports and orders.
#include "ast/ast_printer.hpp"
#include "sema/checker.hpp"

#include <filesystem>
#include <set>
#include <string>

namespace flow::sema {

using namespace flow::ast;

// ------------------------------------------------------------------------------ imports

void Checker::importHeader(ImportDecl& decl) {
  std::string path = decl.path.text();
  if (decl.path.isInterpolated()) {
    error(decl.path.loc, "an import path cannot contain '{…}'");
    return;
  }
  // Relative to the script, then to each include directory.
  namespace fs = std::filesystem;
  fs::path scriptDir = fs::path(file_->path()).parent_path();
  std::vector<fs::path> candidates = {scriptDir / path};
  for (const std::string& dir : options_.includeDirs) candidates.push_back(fs::path(dir) / path);
  std::string found;
  for (const fs::path& c : candidates)
    if (fs::is_regular_file(c)) {
      found = c.string();
      break;
    }
  if (found.empty()) {
    error(decl.path.loc, "cannot find header '" + path + "' (looked next to the script" +
                             (options_.includeDirs.empty() ? "" : " and in the -I directories") + ")");
    return;
  }
  // Only a file named as a header is parsed as one, so that a mistaken path (a data file,
  // /etc/passwd) is not quoted line by line in Clang's errors.
  static const std::set<std::string> headerExtensions = {".h", ".hh", ".hpp", ".hxx", ".h++", ".inl", ".ipp", ".tcc"};
  if (!headerExtensions.count(fs::path(found).extension().string())) {
    error(decl.path.loc, "'" + path + "' is not a C++ header: import takes a file named .h, .hh, .hpp, .hxx, .h++, "
                         ".inl, .ipp or .tcc");
    return;
  }
  CppImportOptions cpp;
  cpp.includeDirs.push_back(scriptDir.empty() ? "." : scriptDir.string());
  for (const std::string& dir : options_.includeDirs) cpp.includeDirs.push_back(dir);
  cpp.standard = options_.cppStandard;
  unsigned before = diags_.errorsReported();
  std::optional<CppHeader> header = importCppHeader(found, cpp, diags_);
  if (!header || diags_.errorsReported() != before) {
    note(decl.loc, "in the header imported here");
    return;
  }
  out_.headers.push_back(std::make_unique<CppHeader>(std::move(*header)));
}

// ------------------------------------------------------------------------------ records

void Checker::declareRecord(RecordDecl& decl) {
  if (recordsByName_.count(decl.name)) {
    error(decl.loc, "redefinition of record '" + decl.name + "'");
    note(recordsByName_[decl.name]->loc, "previous definition of '" + decl.name + "' is here");
    return;
  }
  if (scalarByName(decl.name)) {
    error(decl.loc, "'" + decl.name + "' is a built-in type and cannot name a record");
    return;
  }
  RecordInfo& info = out_.records.emplace_back();
  info.name = decl.name;
  info.cppName = decl.name;
  info.loc = decl.loc;
  recordsByName_[decl.name] = &info;
  declOfRecord_[&info] = &decl;
  Symbol s{Symbol::Record, decl.name, decl.loc};
  s.record = &info;
  decl.symbol = &declare(std::move(s));
}

const Type* Checker::scalarByName(const std::string& name) const { return out_.types.scalarByName(name); }

void Checker::layOutRecord(RecordInfo& record, RecordDecl& decl) {
  if (record.size != 0 || layingOut_.count(&record)) return;
  layingOut_.insert(&record);
  for (FieldDecl& f : decl.fields) {
    if (record.field(f.name)) {
      error(f.loc, "field '" + f.name + "' is declared twice in record '" + decl.name + "'");
      continue;
    }
    // A record field of record type needs that record laid out first.
    if (auto* named = f.type->as<NamedType>()) {
      auto it = recordsByName_.find(named->name.str());
      if (it != recordsByName_.end()) {
        if (layingOut_.count(it->second) && it->second->size == 0) {
          error(f.loc, "record '" + decl.name + "' contains itself through field '" + f.name + "'");
          continue;
        }
        layOutRecord(*it->second, *declOfRecord_[it->second]);
      }
    }
    const Type* t = resolveType(*f.type);
    if (t->isError()) continue;
    record.fields.push_back({f.name, t, 0, f.loc});
  }
  TypeContext::layOut(record);
  layingOut_.erase(&record);
}

// -------------------------------------------------------------------------------- types

const Type* Checker::resolveType(TypeRef& ref) {
  if (ref.resolved) return ref.resolved; // a type parameter bound at a call
  const Type* t = out_.types.error();
  if (auto* a = ref.as<ArrayType>()) {
    const bool allowPath = allowPath_;
    allowPath_ = false; // a path is no element of an array
    const Type* element = resolveType(*a->element);
    allowPath_ = allowPath;
    std::string why;
    const Type* lengthType = check(*a->length, out_.types.scalar(Type::U64));
    auto length = lengthType->isError() ? std::nullopt : constant(*a->length, &why);
    if (!lengthType->isError() && !lengthType->isInteger()) {
      error(a->length->loc, "an array length must be an integer, not " + lengthType->name());
    } else if (!lengthType->isError() && !length) {
      error(a->length->loc, "an array length must be a constant: " + why);
    } else if (length && (length->i <= 0 || length->i > (1 << 24))) {
      error(a->length->loc, "an array length must be between 1 and 16777216, not " + length->str());
    } else if (length && !element->isError()) {
      if (element->kind == Type::Void) error(a->element->loc, "an array cannot hold " + element->name());
      else t = out_.types.array(element, static_cast<uint64_t>(length->i));
    }
  } else {
    const QualifiedName& name = ref.as<NamedType>()->name;
    if (name.parts.size() > 1 && name.parts[0] == "cpp") {
      std::string cppName = name.str().substr(5);
      if (const RecordInfo* r = importedRecord(cppName, name.loc)) t = out_.types.record(r);
    } else if (name.parts.size() > 1) {
      error(name.loc, "unknown type '" + name.str() + "' (imported C++ names start with 'cpp::')");
    } else if (const Type* scalar = scalarByName(name.str())) {
      t = scalar;
    } else if (auto it = recordsByName_.find(name.str()); it != recordsByName_.end()) {
      t = out_.types.record(it->second);
    } else if (name.str() == "path") {
      if (allowPath_) t = out_.types.scalar(Type::Path);
      else
        error(name.loc, "only a param can be of type path (param input: path = \"in.bin\";); a path names a file "
                        "for read, read_text, write and write_text and is not a value");
    } else {
      std::vector<std::string> names = {"bool", "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64", "str"};
      for (auto& [n, r] : recordsByName_) names.push_back(n);
      error(name.loc, "unknown type '" + name.str() + "'" + suggest(name.str(), names));
    }
  }
  ref.resolved = t;
  return t;
}

const RecordInfo* Checker::importedRecord(const std::string& cppName, SourceLoc loc) {
  if (auto it = importedRecords_.find(cppName); it != importedRecords_.end()) return it->second;
  const CppRecord* found = nullptr;
  for (auto& h : out_.headers)
    if ((found = h->findRecord(cppName))) break;
  if (!found) {
    std::vector<std::string> names;
    for (auto& h : out_.headers)
      for (const CppRecord& r : h->records) names.push_back(r.name);
    error(loc, "no record 'cpp::" + cppName + "' in the imported headers" +
                   (out_.headers.empty() ? std::string(" (nothing is imported)") : suggest(cppName, names)));
    importedRecords_[cppName] = nullptr;
    return nullptr;
  }
  if (!found->triviallyCopyable) {
    // Flow moves elements as bytes between memory and disk; such a type would break.
    error(loc, "cpp::" + cppName + " cannot be used by Flow: it is not trivially copyable, so it cannot be stored in "
                   "external memory (" + found->notTriviallyCopyableBecause + ")");
    if (found->whyLoc.source) diags_.note(found->whyLoc.source, found->whyLoc.sourceLoc(), "declared here");
    importedRecords_[cppName] = nullptr;
    return nullptr;
  }
  RecordInfo& info = out_.records.emplace_back();
  importedRecords_[cppName] = &info; // before the fields, so a self-reference ends
  info.name = "cpp::" + cppName;
  info.cppName = "::" + cppName;
  info.imported = true;
  info.buildable = found->aggregate;
  info.loc = loc;
  for (const CppField& f : found->fields) {
    const Type* t = importedType(f.type, loc, "field '" + f.name + "' of cpp::" + cppName);
    if (t->isError()) {
      if (f.loc.source) diags_.note(f.loc.source, f.loc.sourceLoc(), "declared here");
      importedRecords_[cppName] = nullptr;
      return nullptr;
    }
    info.fields.push_back({f.name, t, f.offset, loc, f.isPublic});
    info.buildable = info.buildable && f.isPublic;
  }
  // The layout is the C++ compiler's, as Clang computed it.
  info.size = found->size;
  info.align = found->align;
  return &info;
}

const Type* Checker::importedType(const CppType& type, SourceLoc loc, const std::string& what) {
  switch (type.kind) {
  case CppType::Scalar:
    if (const Type* t = scalarByName(type.scalar)) return t;
    break;
  case CppType::Record:
    if (const RecordInfo* r = importedRecord(type.name, loc)) return out_.types.record(r);
    return out_.types.error();
  case CppType::Array: {
    if (!type.stdArray) {
      // Flow's arrays are std::array: the layout is the same, but C arrays cannot be
      // copied or initialized like values in the generated C++.
      error(loc, what + " is a C array ('" + type.spelling + "'); declare it as std::array in the header to use it from Flow");
      return out_.types.error();
    }
    const Type* e = importedType(*type.element, loc, what);
    return e->isError() ? e : out_.types.array(e, type.length);
  }
  case CppType::Void: return out_.types.scalar(Type::Void);
  case CppType::Unsupported: break;
  }
  error(loc, what + " has C++ type '" + type.spelling + "', which Flow cannot represent");
  return out_.types.error();
}

// ------------------------------------------------------------------------------- orders

bool Checker::checkKeyPath(Expr& key, const Type* element, OrderKeyInfo& out) {
  // Keys are field paths: `src`, `e.src`, `key[0]`. Anything computed has no value the
  // compiler could put in a sentinel, so it is refused here with the reason.
  std::vector<OrderKeyInfo::Step> steps;
  Expr* e = &key;
  std::vector<Expr*> chain;
  while (true) {
    chain.push_back(e);
    if (auto* f = e->as<FieldExpr>()) e = f->object.get();
    else if (auto* i = e->as<IndexExpr>()) e = i->object.get();
    else break;
  }
  auto* root = e->as<NameExpr>();
  if (!root || root->name.parts.size() != 1) {
    error(key.loc, "a key must be a field of the element (such as 'src', 'e.src' or 'key[0]'), not a computed value");
    return false;
  }
  const Type* t = element;
  auto fieldStep = [&](const std::string& name, SourceLoc loc) {
    if (t->kind != Type::Record) {
      error(loc, "'" + name + "' is not a field: " + t->name() + " has no fields");
      return false;
    }
    const FieldInfo* f = t->record->field(name);
    if (!f) {
      std::vector<std::string> names;
      for (const FieldInfo& fi : t->record->fields) names.push_back(fi.name);
      error(loc, "record " + t->record->name + " has no field '" + name + "'" + suggest(name, names));
      return false;
    }
    steps.push_back({name, 0});
    t = f->type;
    return true;
  };
  if (!fieldStep(root->name.str(), root->loc)) return false;
  root->type = t;
  for (auto it = chain.rbegin() + 1; it != chain.rend(); ++it) {
    if (auto* f = (*it)->as<FieldExpr>()) {
      if (!fieldStep(f->field, f->fieldLoc)) return false;
    } else {
      auto* i = (*it)->as<IndexExpr>();
      if (t->kind != Type::Array) {
        error(i->loc, t->name() + " cannot be indexed");
        return false;
      }
      std::string why;
      check(*i->index, out_.types.scalar(Type::U64));
      auto v = constant(*i->index, &why);
      if (!v || v->kind != ConstValue::Int) {
        error(i->index->loc, "an index in a key must be a constant");
        return false;
      }
      if (v->i < 0 || static_cast<uint64_t>(v->i) >= t->length) {
        error(i->index->loc, "index " + v->str() + " is out of range for " + t->name());
        return false;
      }
      steps.push_back({"", static_cast<uint64_t>(v->i)});
      t = t->element;
    }
    (*it)->type = t;
  }
  if (!t->isOrderable()) {
    error(key.loc, "key '" + exprText(key) + "' has type " + t->name() + ", which has no order; use its fields");
    return false;
  }
  out.path = std::move(steps);
  out.type = t;
  out.text = exprText(key);
  return true;
}

std::string Checker::exprText(const Expr& e) const {
  if (auto* n = e.as<NameExpr>()) return n->name.str();
  if (auto* f = e.as<FieldExpr>()) return exprText(*f->object) + "." + f->field;
  if (auto* i = e.as<IndexExpr>()) {
    std::string idx = i->index->as<IntLitExpr>() ? std::to_string(i->index->as<IntLitExpr>()->value) : "…";
    return exprText(*i->object) + "[" + idx + "]";
  }
  return "…";
}

void Checker::declareOrder(OrderDecl& decl) {
  OrderInfo& info = out_.orders.emplace_back();
  info.name = decl.name;
  info.loc = decl.loc;
  info.type = resolveType(*decl.type);
  Symbol s{Symbol::Order, decl.name, decl.loc};
  s.order = &info;
  s.type = info.type;
  decl.symbol = &declare(std::move(s));
  if (info.type->isError()) return;
  if (decl.cpp) {
    info.kind = OrderInfo::Cpp;
    std::string name = decl.cpp->str();
    if (decl.cpp->parts.size() < 2 || decl.cpp->parts[0] != "cpp") {
      error(decl.cpp->loc, "an order given by a C++ comparator names it with 'cpp::' (e.g. cpp::ns::less)");
      return;
    }
    std::string cppName = name.substr(5);
    const CppComparator* cmp = nullptr;
    for (auto& h : out_.headers)
      if ((cmp = h->findComparator(cppName))) break;
    if (!cmp) {
      bool isRecord = false;
      for (auto& h : out_.headers) isRecord = isRecord || h->findRecord(cppName);
      error(decl.cpp->loc, isRecord ? "cpp::" + cppName + " is not a comparator: it has no 'bool operator()(const T&, const T&) const'"
                                    : "no comparator 'cpp::" + cppName + "' in the imported headers");
      return;
    }
    const Type* arg = importedType(cmp->argument, decl.cpp->loc, "the argument of cpp::" + cppName);
    if (!arg->isError() && arg != info.type) {
      error(decl.cpp->loc, "comparator cpp::" + cppName + " compares " + arg->name() + ", but order '" + decl.name +
                               "' is on " + info.type->name());
      return;
    }
    info.cpp = cmp;
    info.cppName = "::" + cppName;
    if (!cmp->hasMinValue || !cmp->hasMaxValue) {
      info.hasSentinels = false;
      info.whyNoSentinels = "cpp::" + cppName + " has no static " +
                            std::string(!cmp->hasMinValue && !cmp->hasMaxValue ? "min_value() or max_value()"
                                        : !cmp->hasMinValue                      ? "min_value()"
                                                                                 : "max_value()");
    }
    return;
  }
  info.kind = OrderInfo::Keys;
  if (info.type->kind != Type::Record) {
    if (!info.type->isOrderable()) {
      error(decl.type->loc, "an order with keys is on a record, not on " + info.type->name());
      return;
    }
    error(decl.type->loc, "a key order is on a record; " + info.type->name() + " is ordered by 'asc' or 'desc'");
    return;
  }
  pushScope();
  for (OrderKey& k : decl.keys) {
    OrderKeyInfo key;
    key.descending = k.descending;
    if (!checkKeyPath(*k.key, info.type, key)) continue;
    for (const OrderKeyInfo& other : info.keys)
      if (other.text == key.text) error(k.loc, "key '" + key.text + "' appears twice in order '" + decl.name + "'");
    info.keys.push_back(std::move(key));
  }
  popScope();
}

const OrderInfo* Checker::builtinOrder(bool descending, const Type* element) {
  std::string key = std::string(descending ? "desc " : "asc ") + element->name();
  if (auto it = builtinOrders_.find(key); it != builtinOrders_.end()) return it->second;
  OrderInfo& info = out_.orders.emplace_back();
  info.kind = descending ? OrderInfo::Desc : OrderInfo::Asc;
  info.name = descending ? "desc" : "asc";
  info.type = element;
  return builtinOrders_[key] = &info;
}

const OrderInfo* Checker::resolveOrder(OrderRef& ref, const Type* element, const std::string& user,
                                       bool needsSentinels) {
  const OrderInfo* order = nullptr;
  if (ref.kind != OrderRef::Named) {
    if (element->isError()) return nullptr;
    if (!element->isOrderable()) {
      error(ref.loc, "'" + ref.str() + "' orders scalars and arrays; " + element->name() +
                         " needs a declared order (order NAME on " + element->name() + " = (field asc, …))");
      return nullptr;
    }
    order = builtinOrder(ref.kind == OrderRef::Desc, element);
  } else {
    Symbol* s = ref.name.parts.size() == 1 ? lookup(ref.name.str()) : nullptr;
    if (!s || s->kind != Symbol::Order) {
      std::vector<std::string> names;
      for (const Symbol& sym : out_.symbols)
        if (sym.kind == Symbol::Order) names.push_back(sym.name);
      // `sort by src` where src is a field: an order names its fields in a declaration.
      const RecordInfo* record = element->kind == Type::Record ? element->record : nullptr;
      const std::string field = record && record->field(ref.name.str()) && ref.name.parts.size() == 1
                                    ? "; '" + ref.name.str() + "' is a field of " + element->name() +
                                          ": declare an order on it (order by_" + ref.name.str() + " on " +
                                          element->name() + " = (" + ref.name.str() + " asc);) and use it by name"
                                    : "";
      if (s) error(ref.loc, "'" + ref.name.str() + "' is a " + s->kindName() + ", not an order" + field);
      else error(ref.loc, "unknown order '" + ref.name.str() + "'" + (field.empty() ? suggest(ref.name.str(), names) : field));
      return nullptr;
    }
    order = s->order;
    if (order->type->isError() || element->isError()) return nullptr;
    if (order->type != element) {
      error(ref.loc, "order '" + order->name + "' is on " + order->type->name() + ", but " + user + " holds " +
                         element->name());
      note(order->loc, "order '" + order->name + "' is declared here");
      return nullptr;
    }
  }
  if (needsSentinels && !order->hasSentinels) {
    error(ref.loc, user + " needs the sentinels of order '" + order->name + "' for merging, but " +
                       order->whyNoSentinels);
    note(order->loc, "order '" + order->name + "' is declared here");
    return nullptr;
  }
  ref.order = order;
  return order;
}

} // namespace flow::sema
