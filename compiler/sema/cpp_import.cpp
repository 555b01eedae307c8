// C++ import through Clang libTooling: a synthetic translation unit includes the header,
// Clang parses it (syntax only), and the AST is walked for the records, free functions and
// comparator classes declared in the header itself or in the non-system headers it
// includes. Clang's own diagnostics are forwarded to Flow's DiagnosticEngine at the
// header's file:line:col.
#include "sema/cpp_import.hpp"

#include <clang/AST/ASTContext.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/PrettyPrinter.h>
#include <clang/AST/RecordLayout.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Basic/Version.h>
#include <clang/Frontend/ASTUnit.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <system_error>

namespace flow::sema {

namespace fs = std::filesystem;

#define FLOW_STR2(x) #x
#define FLOW_STR(x) FLOW_STR2(x)
#define FLOW_CLANG_MAJOR FLOW_STR(CLANG_VERSION_MAJOR)

// ---------------------------------------------------------------------------------------
// CppHeader lookups

const CppRecord* CppHeader::findRecord(const std::string& qualifiedName) const {
  for (const CppRecord& r : records)
    if (r.name == qualifiedName) return &r;
  return nullptr;
}

const CppFunction* CppHeader::findFunction(const std::string& qualifiedName) const {
  for (const CppFunction& f : functions)
    if (f.name == qualifiedName) return &f;
  return nullptr;
}

std::vector<const CppFunction*> CppHeader::findOverloads(const std::string& qualifiedName) const {
  std::vector<const CppFunction*> out;
  for (const CppFunction& f : functions)
    if (f.name == qualifiedName) out.push_back(&f);
  return out;
}

const CppComparator* CppHeader::findComparator(const std::string& qualifiedName) const {
  for (const CppComparator& c : comparators)
    if (c.name == qualifiedName) return &c;
  return nullptr;
}

// ---------------------------------------------------------------------------------------
// The resource directory

namespace {

bool isResourceDir(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "include" / "stddef.h", ec);
}

std::string findResourceDir() {
  if (const char* env = std::getenv("FLOW_CLANG_RESOURCE_DIR"); env && *env && isResourceDir(env))
    return env;
  std::vector<fs::path> candidates;
  // Next to the libclang-cpp this process is linked with: <libdir>/clang/<version>.
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&clang::getClangFullVersion), &info) && info.dli_fname) {
    std::error_code ec;
    fs::path lib = fs::canonical(info.dli_fname, ec);
    if (!ec) candidates.push_back(lib.parent_path() / "clang" / CLANG_VERSION_STRING);
  }
  candidates.push_back(fs::path("/usr/lib/llvm-" FLOW_CLANG_MAJOR "/lib/clang") / CLANG_VERSION_STRING);
  candidates.push_back(fs::path("/usr/lib/clang") / CLANG_VERSION_STRING);
  candidates.push_back(fs::path("/usr/lib/clang") / FLOW_CLANG_MAJOR);
  for (const fs::path& c : candidates)
    if (isResourceDir(c)) return c.string();
  // Any version directory of this major version.
  for (const char* root : {"/usr/lib/llvm-" FLOW_CLANG_MAJOR "/lib/clang", "/usr/lib/clang"}) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(root, ec))
      if (isResourceDir(entry.path())) return entry.path().string();
  }
  return {};
}

} // namespace

std::string clangResourceDir() {
  static const std::string dir = findResourceDir();
  return dir;
}

// ---------------------------------------------------------------------------------------
// Import

namespace {

/// Converts a 1-based byte column into a 1-based character column (UTF-8).
uint32_t charColumn(const SourceFile& file, uint32_t line, uint32_t byteColumn) {
  std::string_view text = file.lineText(line);
  uint32_t chars = 0;
  for (size_t i = 0; i + 1 < byteColumn && i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++chars;
  if (byteColumn > text.size() + 1) chars += byteColumn - 1 - static_cast<uint32_t>(text.size());
  return chars + 1;
}

/// The header files diagnostics and locations point into, loaded once each into the
/// DiagnosticEngine. The imported header is shown by the path the caller gave.
class HeaderFiles {
public:
  HeaderFiles(DiagnosticEngine& diags, std::string displayPath, const std::string& absPath)
      : diags_(diags), displayPath_(std::move(displayPath)) {
    haveMainID_ = !llvm::sys::fs::getUniqueID(absPath, mainID_);
    mainDir_ = fs::path(absPath).parent_path().string();
  }

  bool isMainHeader(const clang::SourceManager& sm, clang::FileID fid) const {
    const clang::FileEntry* fe = sm.getFileEntryForID(fid);
    return fe && haveMainID_ && fe->getUniqueID() == mainID_;
  }

  /// The location in a header (macro expansions resolved to where the macro is used).
  CppLoc locate(const clang::SourceManager& sm, clang::SourceLocation loc) {
    CppLoc out;
    if (loc.isInvalid()) return out;
    loc = sm.getExpansionLoc(loc);
    clang::FileID fid = sm.getFileID(loc);
    const clang::FileEntry* fe = sm.getFileEntryForID(fid);
    if (!fe) return out;
    const SourceFile* file = load(sm, fid);
    out.file = file->path();
    out.source = file;
    out.line = sm.getExpansionLineNumber(loc);
    out.column = charColumn(*file, out.line, sm.getExpansionColumnNumber(loc));
    return out;
  }

private:
  const SourceFile* load(const clang::SourceManager& sm, clang::FileID fid) {
    const clang::FileEntry* fe = sm.getFileEntryForID(fid);
    std::string key = fe->getName().str();
    auto it = files_.find(key);
    if (it != files_.end()) return it->second;
    std::string path = isMainHeader(sm, fid) ? displayPath_ : displayName(key);
    bool invalid = false;
    llvm::StringRef text = sm.getBufferData(fid, &invalid);
    const SourceFile* file = diags_.keepFile(SourceFile(path, invalid ? std::string() : text.str()));
    files_.emplace(key, file);
    return file;
  }

  /// A header next to (or below) the imported one is shown relative to the imported
  /// header's path as the caller gave it: `dir/x.hpp` includes `dir/y.hpp`, not `/abs/dir/y.hpp`.
  std::string displayName(const std::string& name) const {
    std::string prefix = mainDir_ + "/";
    if (mainDir_.empty() || name.compare(0, prefix.size(), prefix) != 0) return name;
    return (fs::path(displayPath_).parent_path() / name.substr(prefix.size())).string();
  }

  DiagnosticEngine& diags_;
  std::string displayPath_;
  std::string mainDir_;
  llvm::sys::fs::UniqueID mainID_;
  bool haveMainID_ = false;
  std::map<std::string, const SourceFile*> files_;
};

/// Forwards Clang's diagnostics to Flow's engine.
class ForwardingConsumer : public clang::DiagnosticConsumer {
public:
  ForwardingConsumer(DiagnosticEngine& diags, HeaderFiles& files, std::string header)
      : diags_(diags), files_(files), header_(std::move(header)) {}

  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) override {
    clang::DiagnosticConsumer::HandleDiagnostic(level, info); // counts errors and warnings
    if (level == clang::DiagnosticsEngine::Ignored || level == clang::DiagnosticsEngine::Remark) return;
    llvm::SmallString<256> text;
    info.FormatDiagnostic(text);
    std::string message = text.str().str();
    CppLoc loc;
    if (info.getLocation().isValid() && info.hasSourceManager())
      loc = files_.locate(info.getSourceManager(), info.getLocation());
    if (!loc.source) message = "in C++ header '" + header_ + "': " + message;
    SourceLoc at{loc.line, loc.column};
    switch (level) {
    case clang::DiagnosticsEngine::Note: diags_.note(loc.source, at, std::move(message)); break;
    case clang::DiagnosticsEngine::Warning: diags_.warning(loc.source, at, std::move(message)); break;
    default: diags_.error(loc.source, at, std::move(message)); break;
    }
  }

private:
  DiagnosticEngine& diags_;
  HeaderFiles& files_;
  std::string header_;
};

class Importer {
public:
  Importer(clang::ASTContext& ctx, HeaderFiles& files, CppHeader& out)
      : ctx_(ctx), sm_(ctx.getSourceManager()), files_(files), out_(out), policy_(ctx.getLangOpts()) {
    policy_.SuppressUnwrittenScope = true; // anonymous and inline namespaces are not written
    policy_.SuppressInlineNamespace = true;
    policy_.Bool = true;
  }

  void run() { visitContext(ctx_.getTranslationUnitDecl()); }

private:
  // -- Which declarations are described -------------------------------------------------

  /// In the imported header or a non-system header it includes (not the synthetic main
  /// file, not built-ins, not system headers).
  bool inImportedFile(clang::SourceLocation loc) const {
    if (loc.isInvalid()) return false;
    loc = sm_.getExpansionLoc(loc);
    clang::FileID fid = sm_.getFileID(loc);
    if (fid == sm_.getMainFileID() || !sm_.getFileEntryForID(fid)) return false;
    return files_.isMainHeader(sm_, fid) || !sm_.isInSystemHeader(loc);
  }

  /// Namespaces (named, anonymous, inline), `extern "C"` blocks and `export` blocks only.
  static bool isTransparentOrNamespace(const clang::DeclContext* dc) {
    return dc->isTranslationUnit() || dc->isNamespace() || dc->isExternCContext() ||
           dc->isExternCXXContext() || llvm::isa<clang::LinkageSpecDecl>(dc) || llvm::isa<clang::ExportDecl>(dc);
  }

  bool describable(const clang::CXXRecordDecl* rd) const {
    if (!rd) return false;
    rd = rd->getDefinition();
    if (!rd || rd->isInvalidDecl() || rd->isUnion() || rd->isLambda() || rd->isLocalClass()) return false;
    if (llvm::isa<clang::ClassTemplateSpecializationDecl>(rd) || rd->getDescribedClassTemplate() ||
        rd->isDependentContext())
      return false;
    if (!rd->getIdentifier() && !rd->getTypedefNameForAnonDecl()) return false;
    if (rd->getAccess() == clang::AS_private || rd->getAccess() == clang::AS_protected) return false;
    const clang::DeclContext* parent = rd->getDeclContext();
    if (const auto* outer = llvm::dyn_cast<clang::CXXRecordDecl>(parent)) {
      if (!describable(outer)) return false;
    } else if (!isTransparentOrNamespace(parent)) {
      return false;
    }
    return inImportedFile(rd->getLocation());
  }

  std::string qualifiedName(const clang::NamedDecl* d) const {
    if (const auto* rd = llvm::dyn_cast<clang::RecordDecl>(d); rd && !rd->getIdentifier())
      if (const clang::TypedefNameDecl* td = rd->getTypedefNameForAnonDecl()) d = td;
    std::string s;
    llvm::raw_string_ostream os(s);
    d->printQualifiedName(os, policy_);
    return os.str();
  }

  std::string spell(clang::QualType t) const { return t.getAsString(policy_); }

  // -- Types -----------------------------------------------------------------------------

  static CppType unsupported(std::string spelling) {
    CppType t;
    t.kind = CppType::Unsupported;
    t.spelling = std::move(spelling);
    return t;
  }

  /// A type used by value (cv-qualifiers ignored).
  CppType mapValue(clang::QualType type) const {
    std::string spelling = spell(type);
    clang::QualType canon = ctx_.getCanonicalType(type).getUnqualifiedType();
    CppType t;
    t.spelling = spelling;
    if (const auto* bt = canon->getAs<clang::BuiltinType>()) {
      uint64_t bits = bt->isVoidType() ? 0 : ctx_.getTypeSize(canon);
      auto scalar = [&](bool fits, std::string name) -> CppType {
        if (!fits) return unsupported(spelling);
        t.kind = CppType::Scalar;
        t.scalar = std::move(name);
        return t;
      };
      switch (bt->getKind()) {
      case clang::BuiltinType::Void: t.kind = CppType::Void; return t;
      case clang::BuiltinType::Bool: return scalar(true, "bool");
      // The integers of 8, 16, 32 or 64 bits, signed or not as Clang says (plain char too).
      case clang::BuiltinType::Char_S:
      case clang::BuiltinType::SChar:
      case clang::BuiltinType::Short:
      case clang::BuiltinType::Int:
      case clang::BuiltinType::Long:
      case clang::BuiltinType::LongLong:
      case clang::BuiltinType::Char_U:
      case clang::BuiltinType::UChar:
      case clang::BuiltinType::UShort:
      case clang::BuiltinType::UInt:
      case clang::BuiltinType::ULong:
      case clang::BuiltinType::ULongLong:
        return scalar(bits == 8 || bits == 16 || bits == 32 || bits == 64,
                      (bt->isSignedInteger() ? "i" : "u") + std::to_string(bits));
      case clang::BuiltinType::Float: return scalar(bits == 32, "f32");
      case clang::BuiltinType::Double: return scalar(bits == 64, "f64");
      default: return unsupported(spelling);
      }
    }
    if (const clang::ConstantArrayType* at = ctx_.getAsConstantArrayType(type)) {
      CppType element = mapValue(at->getElementType());
      if (element.kind != CppType::Scalar && element.kind != CppType::Record && element.kind != CppType::Array)
        return unsupported(spelling);
      t.kind = CppType::Array;
      t.element = std::make_shared<CppType>(std::move(element));
      t.length = at->getSize().getZExtValue();
      return t;
    }
    if (const auto* spec = llvm::dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(canon->getAsCXXRecordDecl());
        spec && spec->isInStdNamespace() && spec->getName() == "array" && spec->getTemplateArgs().size() == 2 &&
        spec->getTemplateArgs()[0].getKind() == clang::TemplateArgument::Type &&
        spec->getTemplateArgs()[1].getKind() == clang::TemplateArgument::Integral) {
      CppType element = mapValue(spec->getTemplateArgs()[0].getAsType());
      if (element.kind != CppType::Scalar && element.kind != CppType::Record && element.kind != CppType::Array)
        return unsupported(spelling);
      t.kind = CppType::Array;
      t.stdArray = true;
      t.element = std::make_shared<CppType>(std::move(element));
      t.length = spec->getTemplateArgs()[1].getAsIntegral().getZExtValue();
      return t;
    }
    if (const auto* rd = canon->getAsCXXRecordDecl(); rd && describable(rd)) {
      t.kind = CppType::Record;
      t.name = qualifiedName(rd->getDefinition());
      return t;
    }
    return unsupported(spelling);
  }

  /// A parameter: by value or by const lvalue reference (the reference is stripped). A C
  /// array (only possible by reference) is unsupported: Flow's arrays are std::array.
  CppType mapParam(clang::QualType type) const {
    CppType t;
    if (const auto* ref = type->getAs<clang::LValueReferenceType>()) {
      clang::QualType pointee = ref->getPointeeType();
      if (!pointee.isConstQualified() || pointee.isVolatileQualified()) return unsupported(spell(type));
      t = mapValue(pointee);
      t.spelling = spell(type);
    } else if (type->isReferenceType()) {
      return unsupported(spell(type));
    } else {
      t = mapValue(type);
    }
    if (t.kind == CppType::Void || (t.kind == CppType::Array && !t.stdArray)) return unsupported(spell(type));
    return t;
  }

  /// A result: by value only (or void).
  CppType mapResult(clang::QualType type) const {
    if (type->isReferenceType()) return unsupported(spell(type));
    return mapValue(type);
  }

  // -- Traversal -------------------------------------------------------------------------

  void visitContext(const clang::DeclContext* dc) {
    for (const clang::Decl* d : dc->decls()) {
      if (const auto* ns = llvm::dyn_cast<clang::NamespaceDecl>(d)) {
        visitContext(ns);
      } else if (llvm::isa<clang::LinkageSpecDecl>(d) || llvm::isa<clang::ExportDecl>(d)) {
        visitContext(llvm::cast<clang::DeclContext>(d));
      } else if (const auto* rd = llvm::dyn_cast<clang::CXXRecordDecl>(d)) {
        visitRecord(rd);
      } else if (const auto* fd = llvm::dyn_cast<clang::FunctionDecl>(d)) {
        visitFunction(fd);
      }
    }
  }

  void visitRecord(const clang::CXXRecordDecl* rd) {
    if (!rd->isThisDeclarationADefinition() || !describable(rd)) return;
    // Nested records first, so every record a field refers to comes before it.
    for (const clang::Decl* d : rd->decls())
      if (const auto* inner = llvm::dyn_cast<clang::CXXRecordDecl>(d); inner && !inner->isImplicit())
        visitRecord(inner);
    describeRecord(rd);
    describeComparator(rd);
  }

  void describeRecord(const clang::CXXRecordDecl* rd) {
    CppRecord r;
    r.name = qualifiedName(rd);
    const clang::ASTRecordLayout& layout = ctx_.getASTRecordLayout(rd);
    r.size = static_cast<uint64_t>(layout.getSize().getQuantity());
    r.align = static_cast<uint64_t>(layout.getAlignment().getQuantity());
    r.triviallyCopyable = rd->isTriviallyCopyable();
    r.aggregate = rd->isAggregate();
    r.loc = files_.locate(sm_, rd->getLocation());
    if (!r.triviallyCopyable) {
      auto [because, where] = whyNotTriviallyCopyable(rd);
      r.notTriviallyCopyableBecause = std::move(because);
      r.whyLoc = files_.locate(sm_, where);
    }
    collectFields(rd, 0, true, r.fields);
    out_.records.push_back(std::move(r));
  }

  /// Fields of `rd` at `base` bytes into the outer record: those of its bases first.
  void collectFields(const clang::CXXRecordDecl* rd, uint64_t base, bool accessible, std::vector<CppField>& out) {
    const clang::ASTRecordLayout& layout = ctx_.getASTRecordLayout(rd);
    for (const clang::CXXBaseSpecifier& b : rd->bases()) {
      const clang::CXXRecordDecl* brd = b.getType()->getAsCXXRecordDecl();
      if (!brd || !brd->getDefinition()) continue;
      brd = brd->getDefinition();
      uint64_t offset = static_cast<uint64_t>(
          (b.isVirtual() ? layout.getVBaseClassOffset(brd) : layout.getBaseClassOffset(brd)).getQuantity());
      collectFields(brd, base + offset, accessible && b.getAccessSpecifier() == clang::AS_public, out);
    }
    for (const clang::FieldDecl* fd : rd->fields()) {
      uint64_t bits = layout.getFieldOffset(fd->getFieldIndex());
      bool isPublic = accessible && fd->getAccess() == clang::AS_public;
      if (fd->isAnonymousStructOrUnion()) {
        const clang::RecordDecl* anon = fd->getType()->getAsRecordDecl();
        if (anon && !anon->isUnion() && llvm::isa<clang::CXXRecordDecl>(anon)) {
          // Members of an anonymous struct are members of the enclosing record.
          collectFields(llvm::cast<clang::CXXRecordDecl>(anon), base + bits / 8, isPublic, out);
          continue;
        }
      }
      if (fd->isUnnamedBitfield()) continue;
      CppField f;
      f.name = fd->getNameAsString();
      if (fd->isBitField()) {
        f.type = unsupported(spell(fd->getType()) + " : " + std::to_string(fd->getBitWidthValue(ctx_)));
      } else if (fd->isAnonymousStructOrUnion()) {
        f.type = unsupported("anonymous union");
      } else {
        f.type = mapValue(fd->getType());
      }
      f.offset = base + bits / 8;
      f.isPublic = isPublic;
      f.loc = files_.locate(sm_, fd->getLocation());
      out.push_back(std::move(f));
    }
  }

  static bool userProvided(const clang::CXXMethodDecl* m) { return m && !m->isImplicit() && m->isUserProvided(); }

  /// Why a record is not trivially copyable, and where the offending declaration is.
  std::pair<std::string, clang::SourceLocation> whyNotTriviallyCopyable(const clang::CXXRecordDecl* rd) const {
    if (const clang::CXXDestructorDecl* d = rd->getDestructor()) {
      if (userProvided(d)) return {"it has a user-provided destructor", d->getLocation()};
      if (d->isDeleted() && !d->isImplicit()) return {"its destructor is deleted", d->getLocation()};
    }
    for (const clang::CXXConstructorDecl* c : rd->ctors()) {
      if (!userProvided(c)) continue;
      if (c->isCopyConstructor()) return {"it has a user-provided copy constructor", c->getLocation()};
      if (c->isMoveConstructor()) return {"it has a user-provided move constructor", c->getLocation()};
    }
    for (const clang::CXXMethodDecl* m : rd->methods()) {
      if (!userProvided(m)) continue;
      if (m->isCopyAssignmentOperator()) return {"it has a user-provided copy assignment operator", m->getLocation()};
      if (m->isMoveAssignmentOperator()) return {"it has a user-provided move assignment operator", m->getLocation()};
    }
    for (const clang::CXXBaseSpecifier& b : rd->bases())
      if (b.isVirtual()) return {"base class '" + spell(b.getType()) + "' is virtual", b.getBeginLoc()};
    for (const clang::CXXMethodDecl* m : rd->methods())
      if (m->isVirtual() && !m->isImplicit())
        return {"member function '" + m->getNameAsString() + "' is virtual", m->getLocation()};
    for (const clang::CXXBaseSpecifier& b : rd->bases()) {
      const clang::CXXRecordDecl* brd = b.getType()->getAsCXXRecordDecl();
      if (!brd || !brd->getDefinition() || brd->getDefinition()->isTriviallyCopyable()) continue;
      std::string why = "base class '" + spell(b.getType()) + "' is not trivially copyable";
      if (inImportedFile(brd->getLocation())) why += " (" + whyNotTriviallyCopyable(brd->getDefinition()).first + ")";
      return {why, b.getBeginLoc()};
    }
    for (const clang::FieldDecl* fd : rd->fields()) {
      const clang::Type* element = fd->getType()->getBaseElementTypeUnsafe();
      const clang::CXXRecordDecl* frd = element->getAsCXXRecordDecl();
      if (!frd || !frd->getDefinition() || frd->getDefinition()->isTriviallyCopyable()) continue;
      std::string name = fd->getNameAsString();
      if (name.empty()) name = "(anonymous)";
      return {"member '" + name + "' of type '" + spell(fd->getType()) + "' is not trivially copyable",
              fd->getLocation()};
    }
    for (const clang::CXXMethodDecl* m : rd->methods())
      if (m->isDeleted() && (llvm::isa<clang::CXXConstructorDecl>(m) || m->isCopyAssignmentOperator() ||
                             m->isMoveAssignmentOperator()))
        return {"it cannot be copied (its copy and move operations are deleted)", m->getLocation()};
    return {"it is not trivially copyable", rd->getLocation()};
  }

  // -- Comparators -----------------------------------------------------------------------

  /// `T` of a `T` or `const T&` parameter, or null.
  static clang::QualType byValueOrConstRef(clang::QualType type) {
    if (const auto* ref = type->getAs<clang::LValueReferenceType>()) {
      clang::QualType pointee = ref->getPointeeType();
      if (!pointee.isConstQualified() || pointee.isVolatileQualified()) return {};
      return pointee;
    }
    if (type->isReferenceType()) return {};
    return type;
  }

  /// Public methods of `rd` and of its public bases (the record's own first).
  void publicMethods(const clang::CXXRecordDecl* rd, std::vector<const clang::CXXMethodDecl*>& out) const {
    for (const clang::CXXMethodDecl* m : rd->methods())
      if (m->getAccess() == clang::AS_public && !m->isDeleted()) out.push_back(m);
    for (const clang::CXXBaseSpecifier& b : rd->bases()) {
      const clang::CXXRecordDecl* brd = b.getType()->getAsCXXRecordDecl();
      if (b.getAccessSpecifier() == clang::AS_public && brd && brd->getDefinition())
        publicMethods(brd->getDefinition(), out);
    }
  }

  void describeComparator(const clang::CXXRecordDecl* rd) {
    std::vector<const clang::CXXMethodDecl*> methods;
    publicMethods(rd, methods);
    clang::QualType argument;
    for (const clang::CXXMethodDecl* m : methods) {
      if (m->getOverloadedOperator() != clang::OO_Call || m->isStatic() || !m->isConst() || m->isVariadic() ||
          m->getNumParams() != 2 || !ctx_.hasSameType(m->getReturnType(), ctx_.BoolTy))
        continue;
      clang::QualType a = byValueOrConstRef(m->getParamDecl(0)->getType());
      clang::QualType b = byValueOrConstRef(m->getParamDecl(1)->getType());
      if (a.isNull() || b.isNull() || !ctx_.hasSameUnqualifiedType(a, b)) continue;
      argument = a.getUnqualifiedType();
      break;
    }
    if (argument.isNull()) return;
    CppComparator c;
    c.name = qualifiedName(rd);
    c.argument = mapValue(argument);
    c.loc = files_.locate(sm_, rd->getLocation());
    auto isSentinel = [&](const clang::CXXMethodDecl* m, llvm::StringRef name) {
      if (!m->isStatic() || m->getNumParams() != 0 || !m->getIdentifier() || m->getName() != name) return false;
      clang::QualType r = byValueOrConstRef(m->getReturnType());
      return !r.isNull() && ctx_.hasSameUnqualifiedType(r, argument);
    };
    for (const clang::CXXMethodDecl* m : methods) {
      c.hasMinValue = c.hasMinValue || isSentinel(m, "min_value");
      c.hasMaxValue = c.hasMaxValue || isSentinel(m, "max_value");
    }
    out_.comparators.push_back(std::move(c));
  }

  // -- Functions -------------------------------------------------------------------------

  void visitFunction(const clang::FunctionDecl* fd) {
    if (llvm::isa<clang::CXXMethodDecl>(fd) || llvm::isa<clang::CXXDeductionGuideDecl>(fd)) return;
    if (fd->getTemplatedKind() != clang::FunctionDecl::TK_NonTemplate) return;
    if (fd->isVariadic() || fd->isDeleted() || fd->isInvalidDecl() || !fd->getDeclName().isIdentifier() ||
        fd->isMain())
      return;
    if (fd->getPreviousDecl()) return; // a redeclaration: the first declaration was described
    if (!isTransparentOrNamespace(fd->getDeclContext()) || !inImportedFile(fd->getLocation())) return;
    CppFunction f;
    f.name = qualifiedName(fd);
    f.result = mapResult(fd->getReturnType());
    for (unsigned i = 0; i < fd->getNumParams(); ++i) {
      f.params.push_back(mapParam(fd->getParamDecl(i)->getType()));
      std::string name;
      for (const clang::FunctionDecl* r : fd->redecls()) // the first declaration that names it
        if (i < r->getNumParams() && !r->getParamDecl(i)->getName().empty()) {
          name = r->getParamDecl(i)->getNameAsString();
          break;
        }
      f.paramNames.push_back(std::move(name));
    }
    f.loc = files_.locate(sm_, fd->getLocation());
    out_.functions.push_back(std::move(f));
  }

  clang::ASTContext& ctx_;
  const clang::SourceManager& sm_;
  HeaderFiles& files_;
  CppHeader& out_;
  clang::PrintingPolicy policy_;
};

} // namespace

std::optional<CppHeader> importCppHeader(const std::string& headerPath, const CppImportOptions& options,
                                         DiagnosticEngine& diags) {
  std::error_code ec;
  fs::path abs = fs::absolute(headerPath, ec);
  if (ec || !fs::is_regular_file(abs, ec)) {
    diags.error(nullptr, {}, "cannot open header '" + headerPath + "'");
    return std::nullopt;
  }
  abs = abs.lexically_normal();
  std::string absPath = abs.string();
  if (absPath.find_first_of("\"\n") != std::string::npos) {
    diags.error(nullptr, {}, "cannot import header '" + headerPath + "': its path contains '\"' or a line break");
    return std::nullopt;
  }

  std::vector<std::string> args = {"-x", "c++", "-std=" + options.standard};
  if (std::string resourceDir = clangResourceDir(); !resourceDir.empty()) {
    args.push_back("-resource-dir");
    args.push_back(resourceDir);
  }
  for (const std::string& dir : options.includeDirs) args.push_back("-I" + dir);
  args.insert(args.end(), options.extraArgs.begin(), options.extraArgs.end());

  HeaderFiles files(diags, headerPath, absPath);
  ForwardingConsumer consumer(diags, files, headerPath);
  // The header is included from a synthetic file next to it, so it is parsed as a header
  // (`#pragma once` is fine) and its own quoted includes resolve as they would for a user.
  std::string mainFile = (abs.parent_path() / ("flow-import-" + abs.filename().string() + ".cpp")).string();
  std::string code = "#include \"" + absPath + "\"\n";
  std::unique_ptr<clang::ASTUnit> unit = clang::tooling::buildASTFromCodeWithArgs(
      code, args, mainFile, "flowc", std::make_shared<clang::PCHContainerOperations>(),
      clang::tooling::getClangStripDependencyFileAdjuster(), clang::tooling::FileContentMappings(), &consumer);
  if (!unit || consumer.getNumErrors() > 0 || unit->getDiagnostics().hasErrorOccurred()) {
    if (consumer.getNumErrors() == 0) diags.error(nullptr, {}, "cannot parse C++ header '" + headerPath + "'");
    return std::nullopt;
  }

  CppHeader header;
  header.path = absPath;
  Importer(unit->getASTContext(), files, header).run();
  return header;
}

} // namespace flow::sema
