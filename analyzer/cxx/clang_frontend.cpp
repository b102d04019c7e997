// The only translation unit that includes Clang's headers (they cost ~25 s to compile).
// It turns a Clang AST into the plain facts of native_facts.h.
#include "cxx/clang_frontend.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Lex/Lexer.h>
#include <clang/Lex/PPCallbacks.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Tooling/ArgumentsAdjusters.h>
#include <clang/Tooling/CompilationDatabase.h>
#include <clang/Tooling/Tooling.h>

#include <algorithm>
#include <stdexcept>

namespace tpulint::cxx {

namespace fs = std::filesystem;
using namespace clang;

// ---------------------------------------------------------------------------------------------
// Compile database

struct CompileDatabase::Impl {
  std::unique_ptr<tooling::CompilationDatabase> db;
};

CompileDatabase::CompileDatabase(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CompileDatabase::~CompileDatabase() = default;

std::shared_ptr<const CompileDatabase> CompileDatabase::load(const fs::path& dir) {
  std::string error;
  auto db = tooling::CompilationDatabase::loadFromDirectory(dir.string(), error);
  if (!db) throw std::runtime_error("cannot load a compile database from '" + dir.string() + "': " + error);
  auto impl = std::make_unique<Impl>();
  impl->db = std::move(db);
  return std::shared_ptr<const CompileDatabase>(new CompileDatabase(std::move(impl)));
}

std::shared_ptr<const CompileDatabase> CompileDatabase::find(const fs::path& root) {
  for (const fs::path& dir : {root, root / "build"}) {
    std::error_code ec;
    if (fs::is_regular_file(dir / "compile_commands.json", ec)) return load(dir);
  }
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// Fact recording

namespace {

class MainFileSpans {
 public:
  MainFileSpans(const SourceManager& sm, const LangOptions& lang) : sm_(sm), lang_(lang) {}

  // Whether `loc` is written in the file being analyzed (macro uses count where they expand).
  bool in_main_file(SourceLocation loc) const {
    return loc.isValid() && sm_.isWrittenInMainFile(sm_.getExpansionLoc(loc));
  }

  ByteSpan span(SourceRange range) const {
    SourceLocation b = sm_.getExpansionLoc(range.getBegin());
    SourceLocation e = sm_.getExpansionLoc(range.getEnd());
    uint32_t begin = sm_.getFileOffset(b);
    SourceLocation after = Lexer::getLocForEndOfToken(e, 0, sm_, lang_);
    uint32_t end = after.isValid() && sm_.isWrittenInMainFile(after) ? sm_.getFileOffset(after) : sm_.getFileOffset(e);
    return {begin, std::max(begin, end)};
  }

  uint32_t lines(SourceRange range) const {
    unsigned b = sm_.getExpansionLineNumber(range.getBegin());
    unsigned e = sm_.getExpansionLineNumber(range.getEnd());
    return e >= b ? e - b + 1 : 1;
  }

 private:
  const SourceManager& sm_;
  const LangOptions& lang_;
};

// What one parse collects: the facts, plus the preprocessor's skipped ranges (inactive
// #if branches), which the lexical launch pass must ignore.
struct ParseState {
  NativeFile& out;
  std::vector<ByteSpan> skipped;
};

class PreprocessorRecorder : public PPCallbacks {
 public:
  PreprocessorRecorder(const SourceManager& sm, ParseState& state) : sm_(sm), state_(state), out_(state.out) {}

  // A missing header is skipped without a fatal error, so the rest of the file is parsed
  // with full recovery (a fatal error would stop template deduction and drop calls).
  bool FileNotFound(StringRef) override { return true; }

  void InclusionDirective(SourceLocation hash, const Token&, StringRef name, bool angled,
                          CharSourceRange range, OptionalFileEntryRef file, StringRef, StringRef,
                          const Module*, bool, SrcMgr::CharacteristicKind) override {
    if (!sm_.isWrittenInMainFile(hash)) return;
    IncludeFact f;
    f.spelled = name.str();
    f.angled = angled;
    f.found = file.has_value();
    f.span = {sm_.getFileOffset(range.getBegin()), sm_.getFileOffset(range.getEnd())};
    out_.includes.push_back(std::move(f));
  }

  void SourceRangeSkipped(SourceRange range, SourceLocation) override {
    if (!sm_.isWrittenInMainFile(range.getBegin())) return;
    state_.skipped.push_back({sm_.getFileOffset(range.getBegin()), sm_.getFileOffset(range.getEnd())});
  }

 private:
  const SourceManager& sm_;
  ParseState& state_;
  NativeFile& out_;
};

std::string callee_name(const Expr* callee, bool qualified = true) {
  callee = callee->IgnoreParenImpCasts();
  if (auto* ref = dyn_cast<DeclRefExpr>(callee))
    return qualified ? ref->getDecl()->getQualifiedNameAsString() : ref->getDecl()->getNameAsString();
  if (auto* ule = dyn_cast<UnresolvedLookupExpr>(callee); ule && !qualified) return ule->getName().getAsString();
  if (auto* ule = dyn_cast<UnresolvedLookupExpr>(callee)) {
    std::string q;
    if (NestedNameSpecifier* nns = ule->getQualifier()) {
      llvm::raw_string_ostream os(q);
      nns->print(os, PrintingPolicy(LangOptions()));
    }
    return q + ule->getName().getAsString();
  }
  if (auto* dep = dyn_cast<DependentScopeDeclRefExpr>(callee)) {
    std::string q;
    llvm::raw_string_ostream os(q);
    dep->getQualifier()->print(os, PrintingPolicy(LangOptions()));
    return q + dep->getDeclName().getAsString();
  }
  return "";
}

class FactVisitor : public RecursiveASTVisitor<FactVisitor> {
 public:
  FactVisitor(const MainFileSpans& spans, NativeFile& out) : spans_(spans), out_(out) {}

  bool shouldVisitTemplateInstantiations() const { return false; }
  bool shouldVisitImplicitCode() const { return false; }

  bool TraverseDecl(Decl* d) {
    auto* fn = d ? dyn_cast<FunctionDecl>(d) : nullptr;
    if (fn) functions_.push_back(fn);
    bool ok = RecursiveASTVisitor::TraverseDecl(d);
    if (fn) functions_.pop_back();
    return ok;
  }

  bool VisitFunctionDecl(FunctionDecl* d) {
    if (!d->doesThisDeclarationHaveABody() || !spans_.in_main_file(d->getLocation())) return true;
    FunctionFact f;
    f.name = d->getNameAsString();
    f.qualified_name = d->getQualifiedNameAsString();
    f.span = spans_.span(d->getSourceRange());
    f.name_span = spans_.span(d->getNameInfo().getSourceRange());
    f.is_kernel = d->hasAttr<CUDAGlobalAttr>();
    f.is_device = d->hasAttr<CUDADeviceAttr>();
    f.is_host = d->hasAttr<CUDAHostAttr>() && !d->getAttr<CUDAHostAttr>()->isImplicit();
    f.is_template = d->isTemplated();
    f.lines = spans_.lines(d->getSourceRange());
    out_.functions.push_back(std::move(f));
    return true;
  }

  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr* e) {
    if (!spans_.in_main_file(e->getBeginLoc())) return true;
    out_.launches.push_back({callee_name(e->getCallee(), false), spans_.span(e->getSourceRange())});
    return true;
  }

  bool VisitAsmStmt(AsmStmt* s) {
    if (!spans_.in_main_file(s->getAsmLoc())) return true;
    AsmFact f;
    f.span = spans_.span(s->getSourceRange());
    f.is_volatile = s->isVolatile();
    if (auto* gcc = dyn_cast<GCCAsmStmt>(s)) f.text = gcc->getAsmString()->getString().str();
    if (auto* ms = dyn_cast<MSAsmStmt>(s)) f.text = ms->getAsmString().str();
    if (!functions_.empty()) {
      const FunctionDecl* fn = functions_.back();
      f.function = fn->getNameAsString();
      f.in_device_code = fn->hasAttr<CUDAGlobalAttr>() || fn->hasAttr<CUDADeviceAttr>();
    }
    out_.asm_statements.push_back(std::move(f));
    return true;
  }

  bool VisitCallExpr(CallExpr* e) {
    if (isa<CUDAKernelCallExpr>(e) || !spans_.in_main_file(e->getBeginLoc()) || !e->getCallee()) return true;
    record_call(callee_name(e->getCallee()), e->getCallee()->getSourceRange());
    return true;
  }

  // An undeclared function called with valid arguments becomes a RecoveryExpr over an
  // UnresolvedLookupExpr: still a call for our purposes.
  bool VisitRecoveryExpr(RecoveryExpr* e) {
    if (!spans_.in_main_file(e->getBeginLoc())) return true;
    auto subs = e->subExpressions();
    if (subs.empty() || !subs.front()) return true;
    if (auto* ule = dyn_cast<UnresolvedLookupExpr>(subs.front()->IgnoreParenImpCasts()))
      record_call(callee_name(ule), ule->getSourceRange());
    return true;
  }

 private:
  void record_call(std::string name, SourceRange range) {
    if (name.empty()) return;
    CallFact c;
    c.callee = std::move(name);
    c.span = spans_.span(range);
    if (!functions_.empty()) c.function = functions_.back()->getNameAsString();
    out_.calls.push_back(std::move(c));
  }

  const MainFileSpans& spans_;
  NativeFile& out_;
  std::vector<const FunctionDecl*> functions_;
};

// Launches found in the main file's tokens: `name<<<...>>>(...)`, `ns::name<T><<<...>>>(...)`.
// Without headers Clang drops statements that mention unknown names (`auto out =
// torch::zeros(...)`, launches whose arguments use such variables), so the AST misses
// launches a reader sees at once. The token stream does not: it fills that gap. Tokens in
// inactive #if branches are ignored.
std::vector<LaunchFact> lexical_launches(const SourceManager& sm, const LangOptions& lang,
                                         const std::vector<ByteSpan>& skipped) {
  std::vector<LaunchFact> out;
  if (!lang.CUDA) return out;
  FileID fid = sm.getMainFileID();
  llvm::MemoryBufferRef buffer = sm.getBufferOrFake(fid);
  Lexer lexer(fid, buffer, sm, lang);
  std::vector<Token> toks;
  for (Token t;;) {
    lexer.LexFromRawLexer(t);
    if (t.is(tok::eof)) break;
    toks.push_back(t);
  }
  auto offset = [&](const Token& t) { return sm.getFileOffset(t.getLocation()); };
  auto text = [&](const Token& t) { return std::string(buffer.getBuffer().substr(offset(t), t.getLength())); };
  auto in_skipped = [&](uint32_t at) {
    return std::any_of(skipped.begin(), skipped.end(), [&](ByteSpan r) { return r.begin <= at && at < r.end; });
  };

  for (size_t i = 1; i < toks.size(); ++i) {
    if (!toks[i].is(tok::lesslessless)) continue;
    // The callee: an identifier, maybe with template arguments, maybe qualified.
    size_t j = i - 1;
    if (toks[j].isOneOf(tok::greater, tok::greatergreater)) {
      int depth = 0;
      for (;; --j) {
        if (toks[j].is(tok::greater)) depth += 1;
        if (toks[j].is(tok::greatergreater)) depth += 2;
        if (toks[j].is(tok::less)) depth -= 1;
        if (depth <= 0 || j == 0) break;
      }
      if (depth != 0 || j == 0) continue;
      --j;
    }
    if (!toks[j].is(tok::raw_identifier)) continue;
    std::string name = text(toks[j]);
    size_t first = j;
    while (first >= 2 && toks[first - 1].is(tok::coloncolon) && toks[first - 2].is(tok::raw_identifier)) first -= 2;
    // The configuration, then the argument list.
    size_t k = i + 1;
    int parens = 0;
    for (; k < toks.size(); ++k) {
      if (toks[k].isOneOf(tok::l_paren, tok::l_brace, tok::l_square)) ++parens;
      if (toks[k].isOneOf(tok::r_paren, tok::r_brace, tok::r_square)) --parens;
      if (parens == 0 && toks[k].is(tok::greatergreatergreater)) break;
      if (toks[k].is(tok::semi)) break;
    }
    if (k + 1 >= toks.size() || !toks[k].is(tok::greatergreatergreater) || !toks[k + 1].is(tok::l_paren)) continue;
    size_t m = k + 1;
    for (parens = 0; m < toks.size(); ++m) {
      if (toks[m].is(tok::l_paren)) ++parens;
      if (toks[m].is(tok::r_paren) && --parens == 0) break;
    }
    uint32_t begin = offset(toks[first]);
    if (in_skipped(begin)) continue;
    uint32_t end = m < toks.size() ? offset(toks[m]) + 1 : offset(toks[k]) + toks[k].getLength();
    out.push_back({name, {begin, end}});
  }
  return out;
}

class FactConsumer : public ASTConsumer {
 public:
  explicit FactConsumer(ParseState& state) : state_(state) {}
  void HandleTranslationUnit(ASTContext& ctx) override {
    NativeFile& out = state_.out;
    MainFileSpans spans(ctx.getSourceManager(), ctx.getLangOpts());
    FactVisitor(spans, out).TraverseDecl(ctx.getTranslationUnitDecl());
    // Add the launches the AST lost; a launch both passes saw starts at the same offset.
    for (LaunchFact& l : lexical_launches(ctx.getSourceManager(), ctx.getLangOpts(), state_.skipped)) {
      bool known = std::any_of(out.launches.begin(), out.launches.end(),
                               [&](const LaunchFact& a) { return a.span.begin == l.span.begin; });
      if (!known) out.launches.push_back(std::move(l));
    }
    std::sort(out.launches.begin(), out.launches.end(),
              [](const LaunchFact& a, const LaunchFact& b) { return a.span.begin < b.span.begin; });
  }

 private:
  ParseState& state_;
};

class FactAction : public ASTFrontendAction {
 public:
  explicit FactAction(NativeFile& out) : state_{out, {}} {}

  bool BeginSourceFileAction(CompilerInstance& ci) override {
    ci.getPreprocessor().addPPCallbacks(std::make_unique<PreprocessorRecorder>(ci.getSourceManager(), state_));
    return true;
  }
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance&, StringRef) override {
    return std::make_unique<FactConsumer>(state_);
  }

 private:
  ParseState state_;
};

class FactActionFactory : public tooling::FrontendActionFactory {
 public:
  explicit FactActionFactory(NativeFile& out) : out_(out) {}
  std::unique_ptr<FrontendAction> create() override { return std::make_unique<FactAction>(out_); }

 private:
  NativeFile& out_;
};

// Counts diagnostics without printing them: header-free parses produce many expected errors.
class CountingDiagnostics : public DiagnosticConsumer {
 public:
  void HandleDiagnostic(DiagnosticsEngine::Level level, const Diagnostic& info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
  }
};

std::vector<std::string> header_free_flags(const SourceFile& file) {
  std::vector<std::string> flags;
  switch (file.language()) {
    case Language::Cuda:
      flags = {"-x", "cuda", "-std=c++17", "-nocudainc", "-nocudalib", "--cuda-host-only",
               // A fixed, empty CUDA path: the same result on machines with and without CUDA.
               "--cuda-path=/__tpulint__/no-cuda", "-include", kCudaShimPath};
      break;
    default: {
      std::string ext = fs::path(file.path()).extension().string();
      if (ext == ".c")
        flags = {"-x", "c", "-std=gnu11"};
      else
        flags = {"-x", "c++", "-std=c++17"};
    }
  }
  return flags;
}

// Flags added in both modes: never stop at 20 errors (the 20th turns fatal and degrades the
// AST), no warnings, and Clang's own resource directory (stddef.h, cuda_wrappers).
tooling::ArgumentsAdjuster common_adjuster() {
  return [](const tooling::CommandLineArguments& args, StringRef) {
    tooling::CommandLineArguments out = args;
    if (!out.empty()) out[0] = TPULINT_CLANG_BINARY;
    // -fno-caret-diagnostics also stops the "N errors generated" line on stderr.
    out.insert(out.begin() + (out.empty() ? 0 : 1),
               {"-ferror-limit=0", "-w", "-fno-caret-diagnostics", "-resource-dir=" TPULINT_CLANG_RESOURCE_DIR});
    return out;
  };
}

}  // namespace

ClangFrontend::ClangFrontend(ClangFrontendOptions options) : options_(std::move(options)) {}
ClangFrontend::~ClangFrontend() = default;

NativeFile ClangFrontend::parse(const SourceFile& file) {
  NativeFile out;
  out.language = file.language();
  std::string abs = file.absolute_path().string();

  std::unique_ptr<tooling::CompilationDatabase> fixed;
  const tooling::CompilationDatabase* db = nullptr;
  if (options_.compile_database) {
    const auto& real = *options_.compile_database->impl().db;
    if (!real.getCompileCommands(abs).empty()) {
      db = &real;
      out.used_compile_database = true;
    }
  }
  if (!db) {
    fixed = std::make_unique<tooling::FixedCompilationDatabase>(file.absolute_path().parent_path().string(),
                                                                header_free_flags(file));
    db = fixed.get();
  }

  tooling::ClangTool tool(*db, {abs});
  tool.mapVirtualFile(abs, file.text());
  tool.mapVirtualFile(kCudaShimPath, kCudaShim);
  tool.appendArgumentsAdjuster(common_adjuster());
  tool.setPrintErrorMessage(false);
  CountingDiagnostics diagnostics;
  tool.setDiagnosticConsumer(&diagnostics);

  FactActionFactory factory(out);
  int status = tool.run(&factory);
  out.error_count = diagnostics.getNumErrors();
  // run() returns nonzero whenever the file had errors, which is normal without headers; the
  // facts were still recorded. Status 2 is "no AST at all" (e.g. the driver rejected the flags).
  if (status == 2) throw std::runtime_error("Clang could not parse the file (invalid compile command)");
  return out;
}

}  // namespace tpulint::cxx
