// Names, types, records and orders in the generated C++.
#include "codegen/generator.hpp"

#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>

namespace flow::codegen {

using namespace flow::sema;

namespace {
/// Bits a key contributes to a radix key, or 0 if the type has no unsigned image.
unsigned keyBits(const Type* t) {
  if (t->kind == Type::Bool) return 8;
  if (t->kind == Type::F32) return 32;
  if (t->kind == Type::F64) return 64;
  if (t->isInteger() && !t->isUntyped()) return t->bits();
  return 0;
}
} // namespace

// One rule for the names the script declares: `s_` before values, streams, containers,
// fields and loop variables, `t_` before records and orders (a record may have a field
// of its own name, which C++ forbids for one name). Names the compiler introduces start
// with `fl_`, the runtime is in namespace flow, imported C++ names are written with their
// full qualification. So no script name can meet a C++ keyword, a type such as uint64_t,
// a macro of the C library (which start with `_`, an upper-case letter, or are words
// such as errno or linux) or a name of the generated code.
// A module's names and a function's locals have dots (`graph.Edge`, `mis.out`, `mis#2.out`),
// written `_` in C++.
namespace {
std::string identifier(std::string name) {
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  return name;
}
} // namespace
std::string Generator::mangle(const std::string& scriptName) { return "s_" + identifier(scriptName); }
std::string Generator::typeName(const std::string& scriptName) { return "t_" + identifier(scriptName); }

std::string Generator::path(const ast::PathRef& p) {
  return p.isParam() ? name(p.symbol) : quote(p.literal.text());
}

std::string Generator::name(const Symbol* s) {
  auto it = names_.find(s);
  if (it != names_.end()) return it->second;
  std::string base = mangle(s->name);
  std::string n = base;
  // Shadowing in the script (a loop variable reusing a name) is fine in C++ too, but
  // two symbols of one name that live in one C++ scope would not be: number them.
  if (s->kind == Symbol::Let || s->kind == Symbol::Var || s->kind == Symbol::Stream || s->kind == Symbol::Vector ||
      s->kind == Symbol::Queue || s->kind == Symbol::Param) {
    for (int k = 2; usedNames_.count(n); ++k) n = base + "_" + std::to_string(k);
    usedNames_.insert(n);
  }
  return names_[s] = n;
}

std::string Generator::type(const Type* t) const {
  if (t->kind == Type::Array) return "std::array<" + type(t->element) + ", " + std::to_string(t->length) + ">";
  if (t->kind == Type::Record) return t->record->imported ? t->record->cppName : typeName(t->record->name);
  if (t->isStr()) usesStr_ = true;
  return t->cppName();
}

void Generator::emitStrType() {
  // flow_str is declared only where the program has a str: before the records that hold one.
  for (const RecordInfo& r : program_.records)
    for (const sema::FieldInfo& f : r.fields)
      if (!r.imported) type(f.type);
  if (!usesStr_) return;
  const uint64_t capacity = program_.types.strCapacity();
  line("// str: a byte string of at most " + std::to_string(capacity) + " bytes, held inline (flowc --max-str BYTES)");
  line("using flow_str = flow::script::str<" + std::to_string(capacity) + ">;");
  line("");
}

std::string Generator::fieldName(const Type* record, const std::string& field) {
  return record->record->imported ? field : mangle(field);
}

std::string Generator::queueElement(const Type* t) const {
  return t->kind == Type::Bool ? "flow::script::stored_bool" : type(t);
}

std::string Generator::where(SourceLoc loc) const {
  std::string file = program_.ast->file ? program_.ast->file->path() : "script";
  auto slash = file.find_last_of('/');
  if (slash != std::string::npos) file = file.substr(slash + 1);
  // A place in a module or function body names its own file and the script's call.
  std::string text = loc.origin ? describe(loc) : file + ":" + describe(loc);
  return quote(text);
}

void Generator::emitRecords() {
  // Records in an order where each comes after the records it contains.
  std::vector<const RecordInfo*> order;
  std::set<const RecordInfo*> done;
  std::function<void(const RecordInfo*)> visit = [&](const RecordInfo* r) {
    if (r->imported || done.count(r)) return;
    done.insert(r);
    std::function<void(const Type*)> deps = [&](const Type* t) {
      if (t->kind == Type::Array) deps(t->element);
      if (t->kind == Type::Record) visit(t->record);
    };
    for (const FieldInfo& f : r->fields) deps(f.type);
    order.push_back(r);
  };
  for (const RecordInfo& r : program_.records) visit(&r);
  for (const RecordInfo* r : order) {
    line("// record " + r->name + ": " + std::to_string(r->size) + " bytes, aligned to " + std::to_string(r->align));
    line("struct " + typeName(r->name) + " {");
    {
      Indent in(*this);
      // Padding is a member of its own, zeroed, so that no byte of a record is left
      // undefined: files, hash() and the sorter's byte copies see the same bytes on
      // every run.
      uint64_t at = 0;
      int pads = 0;
      auto pad = [&](uint64_t to) {
        if (to > at)
          line("std::uint8_t fl_padding" + std::to_string(pads++) + "[" + std::to_string(to - at) + "] = {};");
      };
      for (const FieldInfo& f : r->fields) {
        pad(f.offset);
        line(type(f.type) + " " + mangle(f.name) + "; // offset " + std::to_string(f.offset));
        at = f.offset + f.type->size();
      }
      pad(r->size);
      line("bool operator==(const " + typeName(r->name) + "&) const = default;");
    }
    line("};");
    line("static_assert(sizeof(" + typeName(r->name) + ") == " + std::to_string(r->size) + " && alignof(" +
         typeName(r->name) + ") == " + std::to_string(r->align) + ", \"layout of " + r->name + " as flowc planned it\");");
    line("");
  }
}

std::string Generator::orderType(const OrderInfo* o) {
  auto it = orderNames_.find(o);
  if (it != orderNames_.end()) return it->second;
  std::string n;
  if (o->kind == OrderInfo::Asc || o->kind == OrderInfo::Desc) {
    std::string t = o->type->name();
    std::string clean;
    for (char c : t) clean += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    while (clean.find("__") != std::string::npos) clean.replace(clean.find("__"), 2, "_");
    if (!clean.empty() && clean.back() == '_') clean.pop_back();
    n = "fl_" + o->name + "_" + clean;
  } else if (o->implicit) {
    n = "fl_keys" + std::to_string(orderNames_.size()); // a reduce's or join's key list
  } else {
    n = typeName(o->name);
  }
  return orderNames_[o] = n;
}

void Generator::emitOrder(const OrderInfo& o, const std::string& n) {
  const std::string T = type(o.type);
  if (o.kind == OrderInfo::Cpp) {
    line("// order " + o.name + " on " + o.type->name() + ": the imported comparator " + o.cppName);
    line("using " + n + " = " + o.cppName + ";");
    line("");
    return;
  }
  std::vector<OrderKey> keys;
  if (o.kind == OrderInfo::Keys) {
    for (const OrderKeyInfo& k : o.keys) keys.push_back({keyPath(k, o.type), k.type, k.descending});
    std::string text;
    for (size_t i = 0; i < o.keys.size(); ++i)
      text += (i ? ", " : "") + o.keys[i].text + (o.keys[i].descending ? " desc" : " asc");
    line("// order " + o.name + " on " + o.type->name() + " = (" + text + ")");
  } else {
    keys.push_back({"", o.type, o.kind == OrderInfo::Desc});
    line("// order " + o.name + " on " + o.type->name());
  }
  line("struct " + n + " {");
  emitOrderBody(keys, T);
  line("};");
  line("");
}

void Generator::emitOrderBody(const std::vector<OrderKey>& keys, const std::string& T) {
  Indent in(*this);
  block("bool operator()(const " + T + "& a, const " + T + "& b) const {", [&] {
    for (size_t i = 0; i < keys.size(); ++i) {
      const OrderKey& k = keys[i];
      const std::string a = "a" + k.path, b = "b" + k.path;
      std::string less = k.descending ? keyLess(k.type, b, a) : keyLess(k.type, a, b);
      if (i + 1 < keys.size()) {
        std::string equal = keyEqual(k.type, a, b);
        line("if (" + (holdsFloat(k.type) ? "!" + equal : a + " != " + b) + ") return " + less + ";");
      } else {
        line("return " + less + ";");
      }
    }
  });
  // Sentinels: every key at its smallest (largest) value under the order.
  for (int max = 0; max < 2; ++max) {
    block(std::string("static ") + T + (max ? " max_value() {" : " min_value() {"), [&] {
      line(T + " v{};");
      for (const OrderKey& k : keys) {
        bool high = (max == 1) != k.descending;
        const Type* scalar = k.type->kind == Type::Array ? k.type->element : k.type;
        // Floats: -inf and NaN, the ends of the total order.
        std::string bound = scalar->isFloat() ? "flow::script::total_" + std::string(high ? "highest" : "lowest") + "<" +
                                                    type(scalar) + ">()"
                            : high            ? "std::numeric_limits<" + type(scalar) + ">::max()"
                                              : "std::numeric_limits<" + type(scalar) + ">::lowest()";
        if (k.type->kind == Type::Array) line("v" + k.path + ".fill(" + bound + ");");
        else line("v" + k.path + " = " + bound + ";");
      }
      line("return v;");
    });
  }
  // A radix key for the sorter when the keys are integers or floats: the keys' bits
  // packed big-endian into 64 bits (descending keys complemented, signed keys with the
  // sign bit flipped, floats as the runtime's total_key image, whose order is
  // total_less's). When they need more than 64 bits the key is a prefix of the order.
  std::vector<std::pair<std::string, unsigned>> parts; // expression of an unsigned image, bits
  bool total = true;
  unsigned used = 0;
  // The str the key ends in (its key, its path) and the bytes of it the key holds: its
  // later bytes and the keys after it are the key's next words (key_at).
  std::optional<std::pair<size_t, std::string>> deepStr;
  unsigned deepFrom = 0;
  for (size_t ki = 0; ki < keys.size(); ++ki) {
    const OrderKey& k = keys[ki];
    std::vector<std::pair<std::string, const Type*>> scalars;
    if (k.type->kind == Type::Array) {
      for (uint64_t i = 0; i < k.type->length; ++i) scalars.push_back({k.path + "[" + std::to_string(i) + "]", k.type->element});
    } else {
      scalars.push_back({k.path, k.type});
    }
    for (auto& [path, t] : scalars) {
      if (t->isStr()) {
        // A str's first 8 bytes (or as many of them as fit): a prefix of the order, the
        // rest compared on ties (DuckDB's and radix sorts' normalised key prefix).
        const unsigned bits = (64 - used) / 8 * 8;
        total = false;
        deepStr = {ki, path};
        deepFrom = bits / 8;
        if (bits == 0) break;
        std::string image = "flow::script::prefix_key(v" + path + ")";
        if (bits < 64) image = "(" + image + " >> " + std::to_string(64 - bits) + ")";
        if (k.descending) image = "(~" + image + (bits < 64 ? " & ((uint64_t{1} << " + std::to_string(bits) + ") - 1))" : ")");
        parts.push_back({image, bits});
        used += bits;
        break;
      }
      unsigned bits = keyBits(t);
      if (bits == 0 || used + bits > 64) {
        total = false;
        break;
      }
      parts.push_back({scalarKeyImage(t, "v" + path, k.descending), bits});
      used += bits;
    }
    if (!total) break;
  }
  if (!parts.empty()) {
    line("using key_type = uint64_t;");
    block("static key_type key(const " + T + "& v) {", [&] {
      std::string e;
      unsigned shift = 64;
      for (auto& [image, bits] : parts) {
        shift -= bits;
        std::string term = "(static_cast<uint64_t>(" + image + ")" + (shift ? " << " + std::to_string(shift) : "") + ")";
        e += (e.empty() ? "" : " | ") + term;
      }
      line("return " + e + ";");
    });
    line(std::string("static constexpr bool key_is_total = ") + (total ? "true" : "false") + ";");
    if (deepStr) emitNextKeyWords(keys, deepStr->first, deepStr->second, deepFrom, T);
  }
}

std::string Generator::scalarKeyImage(const Type* t, const std::string& value, bool descending) {
  const unsigned bits = keyBits(t);
  const std::string u = "uint" + std::to_string(bits) + "_t";
  std::string image = "static_cast<" + u + ">(" + value + ")";
  if (t->isFloat()) image = "flow::script::total_key(" + value + ")";
  else if (t->isSigned()) image = "static_cast<" + u + ">(" + image + " ^ (" + u + "{1} << " + std::to_string(bits - 1) + "))";
  if (descending) image = "static_cast<" + u + ">(~" + image + ")";
  return image;
}

void Generator::emitNextKeyWords(const std::vector<OrderKey>& keys, size_t strKey, const std::string& strPath,
                                 unsigned strFrom, const std::string& T) {
  // The words after key(v), in levels 1, 2, …: the rest of the str the key ends in (its
  // bytes 8 at a time, then its length, since "ab" and "ab\0" have the same bytes), then
  // each later key of the order the same way (an integer, bool or float: one word), up
  // to an array key. Run formation radix sorts elements that tie in key(v) by them
  // (sort_traits.hpp); key_next skips the words where an element has no bytes.
  struct Segment {
    std::string path; // of the key in the element
    const Type* type;
    bool descending;
    unsigned from; // a str's first byte in the segment
  };
  std::vector<Segment> segments{{strPath, keys[strKey].type, keys[strKey].descending, strFrom}};
  for (size_t i = strKey + 1; i < keys.size() && keys[strKey].type->kind != Type::Array; ++i) {
    const OrderKey& k = keys[i];
    if (k.type->kind == Type::Array || (!k.type->isStr() && keyBits(k.type) == 0)) break;
    segments.push_back({k.path, k.type, k.descending, 0});
  }
  // Each segment's levels: a str's bytes from fl_bytes<i> on and its length at
  // fl_length<i>, a scalar's word at fl_word<i>.
  std::vector<std::string> first, last;
  std::string next = "1";
  for (size_t i = 0; i < segments.size(); ++i) {
    const Segment& g = segments[i];
    const std::string n = std::to_string(i);
    if (g.type->isStr()) {
      first.push_back("fl_bytes" + n);
      last.push_back("fl_length" + n);
      line("static constexpr unsigned " + first.back() + " = " + next + ";");
      line("static constexpr unsigned " + last.back() + " = " + first.back() +
           " + flow::script::str_key_words<decltype(std::declval<" + T + ">()" + g.path + ")>(" +
           std::to_string(g.from) + ");");
    } else {
      first.push_back("fl_word" + n);
      last.push_back(first.back());
      line("static constexpr unsigned " + first.back() + " = " + next + ";");
    }
    next = last.back() + " + 1";
  }
  line("static constexpr unsigned key_levels = " + next + ";");
  const auto word = [](const Segment& g, const std::string& w) { return g.descending ? "~" + w : w; };
  block("static uint64_t key_at(const " + T + "& v, unsigned level) {", [&] {
    line("if (level == 0) return key(v);");
    for (size_t i = 0; i < segments.size(); ++i) {
      const Segment& g = segments[i];
      const std::string v = "v" + g.path;
      if (g.type->isStr()) {
        line("if (level < " + last[i] + ") return " +
             word(g, "flow::script::prefix_key_at(" + v + ", " + std::to_string(g.from) + " + 8 * (level - " + first[i] +
                         "))") + ";");
        line("if (level == " + last[i] + ") return " + word(g, "flow::script::key_length(" + v + ")") + ";");
      } else {
        line("if (level == " + first[i] + ") return " + scalarKeyImage(g.type, v, g.descending) + ";");
      }
    }
    line("return 0;");
  });
  block("static unsigned key_next(const " + T + "& v, unsigned level) {", [&] {
    for (size_t i = 0; i < segments.size(); ++i) {
      const Segment& g = segments[i];
      if (g.type->isStr())
        line("if (level < " + last[i] + " && level < " + first[i] + " + flow::script::prefix_words_from(v" + g.path +
             ", " + std::to_string(g.from) + ")) return level;");
      line("if (level <= " + last[i] + ") return " + last[i] + ";");
    }
    line("return key_levels;");
  });
}

void Generator::emitOrders() {
  std::set<std::string> emitted;
  for (const OrderInfo& o : program_.orders) {
    std::string n = orderType(&o);
    if (!emitted.insert(n).second) continue;
    emitOrder(o, n);
  }
}

namespace {
/// The name of the generated struct for type `t` among `names` (prefix and a number),
/// given on first use; the structs are emitted once every use is known.
std::string structFor(std::map<const Type*, std::string>& names, const Type* t, const std::string& prefix) {
  auto it = names.find(t);
  if (it != names.end()) return it->second;
  return names[t] = prefix + std::to_string(names.size());
}
} // namespace

std::string Generator::textFields(const Type* t) { return structFor(textFieldTypes_, t, "fl_text_"); }

std::string Generator::csvFields(const Type* t) { return structFor(csvFieldTypes_, t, "fl_csv_"); }

std::string Generator::csvOptions(const ast::CsvOptions& o) {
  return "flow::script::csv_options{.sep = static_cast<char>(" + std::to_string(static_cast<int>(o.sep)) +
         "), .header = " + (o.header ? "true" : "false") + ", .empty_as_zero = " + (o.emptyAsZero ? "true" : "false") +
         "}";
}

void Generator::emitCsvFields() {
  // How read_csv and write_csv see a record: a column per field, named as the field is.
  for (auto& [t, n] : csvFieldTypes_) {
    const auto& fields = t->record->fields;
    std::string names, reads, writes;
    for (size_t i = 0; i < fields.size(); ++i) {
      const std::string member = "v." + fieldName(t, fields[i].name);
      names += (i ? ", " : "") + quote(fields[i].name);
      reads += "in.read(" + member + ", " + std::to_string(i) + "); ";
      writes += "out.field(" + member + "); ";
    }
    line("// " + t->name() + " in CSV files: a column per field");
    line("struct " + n + " {");
    {
      Indent in(*this);
      line("static constexpr std::size_t count = " + std::to_string(fields.size()) + ";");
      line("static constexpr const char* type_name = " + quote(t->name()) + ";");
      line("static constexpr const char* names[count] = {" + names + "};");
      line("static void read(flow::script::csv_row& in, " + type(t) + "& v) { " + reads + "}");
      line("static void write(flow::script::csv_line& out, const " + type(t) + "& v) { " + writes + "}");
    }
    line("};");
    line("");
  }
}

void Generator::emitTextFields() {
  // How read_text and write_text see an element: its scalars in order, separated by
  // spaces. Each field's name as the script writes it ("p.x", "key[2]") and the element's
  // type name are for the runtime's messages about a line that does not parse.
  for (auto& [t, n] : textFieldTypes_) {
    struct Scalar {
      std::string member, shown; // the C++ access path, the name in messages
    };
    std::vector<Scalar> scalars;
    std::function<void(const Type*, const std::string&, const std::string&)> walk =
        [&](const Type* x, const std::string& member, const std::string& shown) {
          if (x->kind == Type::Record) {
            for (const FieldInfo& f : x->record->fields)
              walk(f.type, member + "." + fieldName(x, f.name), shown.empty() ? f.name : shown + "." + f.name);
          } else if (x->kind == Type::Array) {
            for (uint64_t i = 0; i < x->length; ++i)
              walk(x->element, member + "[" + std::to_string(i) + "]", shown + "[" + std::to_string(i) + "]");
          } else {
            scalars.push_back({member, shown});
          }
        };
    walk(t, "", "");
    line("// " + t->name() + " in text files: " + std::to_string(scalars.size()) + " values per line");
    line("struct " + n + " {");
    {
      Indent in(*this);
      std::string reads, writes;
      for (size_t i = 0; i < scalars.size(); ++i) {
        reads += "in.read(v" + scalars[i].member + ", " + quote(scalars[i].shown) + "); ";
        writes += std::string(i ? "out += ' '; " : "") + "flow::script::append_scalar(out, v" + scalars[i].member +
                  "); ";
      }
      line("static constexpr std::size_t count = " + std::to_string(scalars.size()) + ";");
      line("static constexpr const char* type_name = " + quote(t->name()) + ";");
      line("static void read(flow::script::text_fields& in, " + type(t) + "& v) { " + reads + "}");
      line("static void write(std::string& out, const " + type(t) + "& v) { " + writes + "}");
    }
    line("};");
    line("");
  }
}

} // namespace flow::codegen
