// The only translation unit that includes Clang's headers (they cost ~25 s to compile).
// It turns a Clang AST into the plain facts of native_facts.h. Built into the Clang module,
// libtpulint_clang.so, which the binary loads at first use (clang_loader.cpp).
#include "core/version.h"
#include "core/source_tree.h"
#include "cxx/clang_frontend.h"
#include "cxx/clang_interface.h"
#include "cxx/lexical_scan.h"
#include "cxx/project_headers.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticSema.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Lex/HeaderSearchOptions.h>
#include <clang/Lex/Lexer.h>
#include <clang/Lex/PPCallbacks.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Serialization/ASTWriter.h>
#include <clang/Tooling/ArgumentsAdjusters.h>
#include <clang/Tooling/CompilationDatabase.h>
#include <clang/Tooling/Tooling.h>

#include <algorithm>
#include <fcntl.h>
#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>
#include <sys/stat.h>
#include <time.h>
#include <unordered_map>
#include <unordered_set>
#include <unistd.h>

namespace tpulint::cxx {

namespace fs = std::filesystem;
using namespace clang;

// ---------------------------------------------------------------------------------------------
// What Clang may read

namespace {

llvm::vfs::Status status_of(const std::string& name, const struct stat& st) {
  auto type = S_ISDIR(st.st_mode) ? llvm::sys::fs::file_type::directory_file : llvm::sys::fs::file_type::regular_file;
  return llvm::vfs::Status(name, llvm::sys::fs::UniqueID(st.st_dev, st.st_ino),
                           llvm::sys::toTimePoint(st.st_mtim.tv_sec, st.st_mtim.tv_nsec), st.st_uid, st.st_gid,
                           uint64_t(st.st_size), type, static_cast<llvm::sys::fs::perms>(st.st_mode & 07777));
}

// A file opened for Clang: read from its descriptor, never reopened by name.
class DescriptorFile final : public llvm::vfs::File {
 public:
  DescriptorFile(int fd, llvm::vfs::Status status) : fd_(fd), status_(std::move(status)) {}
  ~DescriptorFile() override { close(); }
  llvm::ErrorOr<llvm::vfs::Status> status() override { return status_; }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> getBuffer(const Twine& name, int64_t size, bool terminated,
                                                               bool is_volatile) override {
    auto buffer = llvm::MemoryBuffer::getOpenFile(llvm::sys::fs::convertFDToNativeFile(fd_), name, size, terminated,
                                                  is_volatile);
    if (!buffer) return buffer.getError();
    return std::move(*buffer);
  }
  std::error_code close() override {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    return {};
  }

 private:
  int fd_;
  llvm::vfs::Status status_;
};

// The file system Clang parses through. Beneath the tree's root a path is resolved following no
// symlink (SourceTree); outside it only the directories allowed can be read, and anything else
// is missing. Only regular files and directories are ever seen: no FIFO, device or socket is
// opened. The working directory is recorded, never entered or checked (a compile command's
// directory may not exist).
//
// Two phases: while the driver finds its toolchain (GCC's headers, the system's include
// directories), the system's directories may be read; once the source file begins
// (restrict_to), only the header search directories Clang settled on.
class TreeFileSystem final : public llvm::vfs::FileSystem {
 public:
  TreeFileSystem(fs::path root, std::vector<fs::path> allowed)
      : tree_(std::move(root)), allowed_(std::move(allowed)), disk_(llvm::vfs::createPhysicalFileSystem()) {}

  void restrict_to(std::vector<fs::path> allowed) {
    allowed_.clear();
    for (const fs::path& dir : allowed) allowed_.push_back(absolute(dir.string()));
  }
  fs::path absolute_path(const std::string& path) const { return absolute(path); }
  std::optional<std::string> beneath_root(const std::string& path) const { return tree_.relative_path(absolute(path)); }

  llvm::ErrorOr<llvm::vfs::Status> status(const Twine& name) override {
    std::string path = absolute(name.str());
    struct stat st;
    if (auto rel = tree_.relative_path(path)) {
      int fd = tree_.open(*rel, O_PATH);
      if (fd < 0) return missing();
      bool ok = fstat(fd, &st) == 0;
      ::close(fd);
      if (!ok || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) return missing();
      return status_of(name.str(), st);
    }
    if (!allowed_outside(path) || ::stat(path.c_str(), &st) != 0 || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
      return missing();
    return status_of(name.str(), st);
  }

  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>> openFileForRead(const Twine& name) override {
    std::string path = absolute(name.str());
    // O_NONBLOCK: a FIFO opens at once (and is refused) instead of waiting for a writer.
    constexpr int kFlags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
    int fd = -1;
    if (auto rel = tree_.relative_path(path))
      fd = tree_.open(*rel, kFlags);
    else if (allowed_outside(path))
      fd = ::open(path.c_str(), kFlags);
    if (fd < 0) return missing();
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      return missing();
    }
    return std::make_unique<DescriptorFile>(fd, status_of(name.str(), st));
  }

  llvm::vfs::directory_iterator dir_begin(const Twine& name, std::error_code& ec) override {
    std::string path = absolute(name.str());
    auto rel = tree_.relative_path(path);
    if (rel ? tree_.kind(*rel) != EntryKind::Directory : !allowed_outside(path)) {
      ec = std::make_error_code(std::errc::no_such_file_or_directory);
      return {};
    }
    return disk_->dir_begin(path, ec);
  }

  std::error_code setCurrentWorkingDirectory(const Twine& path) override {
    cwd_ = absolute(path.str());
    return {};
  }
  llvm::ErrorOr<std::string> getCurrentWorkingDirectory() const override { return cwd_; }

  std::error_code getRealPath(const Twine& name, SmallVectorImpl<char>& out) override {
    std::string path = absolute(name.str());
    if (!tree_.relative_path(path) && !allowed_outside(path)) return std::make_error_code(std::errc::no_such_file_or_directory);
    // Beneath the root no symlink is followed: the path is its own real path.
    if (tree_.relative_path(path)) {
      out.assign(path.begin(), path.end());
      return {};
    }
    return disk_->getRealPath(path, out);
  }

  std::error_code isLocal(const Twine&, bool& result) override {
    result = true;
    return {};
  }

 private:
  static std::error_code missing() { return std::make_error_code(std::errc::no_such_file_or_directory); }

  std::string absolute(const std::string& path) const {
    fs::path p(path);
    if (p.is_relative()) p = fs::path(cwd_) / p;
    return p.lexically_normal().string();
  }

  bool allowed_outside(const std::string& path) const {
    return std::any_of(allowed_.begin(), allowed_.end(), [&](const fs::path& dir) { return path_beneath(path, dir).has_value(); });
  }

  SourceTree tree_;
  std::vector<fs::path> allowed_;
  std::string cwd_ = "/";
  IntrusiveRefCntPtr<llvm::vfs::FileSystem> disk_;
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// Fact recording

namespace {

// The files whose facts a parse records, each by the FileID of its first entry: the main file
// alone, or the headers of a batch (ClangParser::parse_together), included one after the other by
// a virtual main file. A header entered again (one with no include guard) records nothing there.
//
// A header of a batch must see what it sees alone. Headers of one directory rarely clash, but
// when one does, the batch put something before it that it would not see alone: it is then
// marked conflicted (and parse_together parses it alone). The sign: what it uses is in a file
// it does not include, directly or through others: the earlier declaration an error of its notes
// (two headers each defining `struct Point`), a macro it tests or expands (another header's
// include guard, when two share one), a function or variable it refers to or one of an overload
// set (declared in a sibling it relies on its includer for, or in a standard header only an
// earlier header included). What every header sees alike (the built-in shims, force-included
// before the first header) is no sign.
class RecordedFiles {
 public:
  // `members`: the batch's headers, by absolute path; empty: the main file alone.
  explicit RecordedFiles(std::vector<std::string> members)
      : members_(std::move(members)), conflicted_(members_.size(), false) {}

  bool batch() const { return !members_.empty(); }

  // Before a pass: its source manager, whose files are found again as they are entered.
  void begin_pass(const SourceManager& sm) {
    sm_ = &sm;
    recorded_.clear();
    includes_.clear();
    prelude_.clear();
    uses_.clear();
    entries_.assign(members_.size(), nullptr);
    for (size_t i = 0; i < members_.size(); ++i)
      if (auto ref = sm.getFileManager().getOptionalFileRef(members_[i])) entries_[i] = &ref->getFileEntry();
  }
  // A file the preprocessor enters: a member entered for the first time is recorded; a file
  // entered before any member is common to all.
  void entered(FileID id) {
    if (members_.empty()) return;
    const FileEntry* entry = entry_of(id);
    if (!entry) return;
    bool member = false;
    for (size_t i = 0; i < members_.size(); ++i)
      if (entries_[i] == entry) {
        member = true;
        if (!was_entered(i)) recorded_.push_back({id, unsigned(i)});
      }
    if (!member && recorded_.empty()) prelude_.insert(entry);
  }
  // An #include in file `from` of `to` (entered, or skipped as already included).
  void included(FileID from, const FileEntry& to) {
    if (members_.empty()) return;
    if (const FileEntry* entry = entry_of(from)) includes_[entry].push_back(&to);
  }

  // Whether batch member `index` was entered in the last pass.
  bool was_entered(size_t index) const {
    return std::any_of(recorded_.begin(), recorded_.end(), [&](const auto& r) { return r.second == index; });
  }
  bool conflicted(size_t index) const { return conflicted_[index]; }

  // Member `index` uses a name declared at `declared`: checked, once the pass has read every
  // #include, by check_uses.
  void used(size_t index, SourceLocation declared) {
    if (members_.empty() || conflicted_[index] || declared.isInvalid()) return;
    const FileEntry* entry = entry_of(sm_->getFileID(sm_->getFileLoc(declared)));
    if (entry && entry != entries_[index] && !prelude_.count(entry)) uses_.insert({unsigned(index), entry});
  }
  // Marks each member that used a name declared in a file it does not include.
  void check_uses() {
    std::vector<std::unordered_set<const FileEntry*>> reach(members_.size());
    for (const auto& [index, entry] : uses_) {
      std::unordered_set<const FileEntry*>& files = reach[index];
      if (files.empty()) {
        std::vector<const FileEntry*> todo = {entries_[index]};
        while (!todo.empty()) {
          const FileEntry* f = todo.back();
          todo.pop_back();
          if (!files.insert(f).second) continue;
          if (auto e = includes_.find(f); e != includes_.end()) todo.insert(todo.end(), e->second.begin(), e->second.end());
        }
      }
      if (!files.count(entry)) conflicted_[index] = true;
    }
    uses_.clear();
  }

  // The index of the recorded file `id` is, if it is one.
  std::optional<size_t> index_of(FileID id) const {
    if (members_.empty()) return id.isValid() && id == sm_->getMainFileID() ? std::optional<size_t>(0) : std::nullopt;
    for (const auto& [fid, i] : recorded_)
      if (fid == id) return i;
    return std::nullopt;
  }
  // The FileID of recorded file `index` in this pass; invalid when it was never entered.
  FileID file_id(size_t index) const {
    if (members_.empty()) return sm_->getMainFileID();
    for (const auto& [fid, i] : recorded_)
      if (i == index) return fid;
    return {};
  }
  // The recorded file `loc` is written in: code in a macro's arguments counts where it is written
  // (the launch inside `AT_DISPATCH_*(..., [&] {...})`), code of a macro's body where the macro is
  // used.
  std::optional<size_t> index_at(SourceLocation loc) const {
    if (loc.isInvalid()) return std::nullopt;
    return index_of(sm_->getFileID(sm_->getFileLoc(loc)));
  }

 private:
  const FileEntry* entry_of(FileID id) const {
    if (!id.isValid()) return nullptr;
    auto ref = sm_->getFileEntryRefForID(id);
    return ref ? &ref->getFileEntry() : nullptr;
  }
  struct PairHash {
    size_t operator()(const std::pair<unsigned, const FileEntry*>& p) const {
      return std::hash<const void*>()(p.second) * 31 + p.first;
    }
  };
  std::vector<std::string> members_;
  std::vector<bool> conflicted_;
  const SourceManager* sm_ = nullptr;
  std::vector<const FileEntry*> entries_;
  // A batch holds a few files: a list is the fastest map.
  std::vector<std::pair<FileID, unsigned>> recorded_;
  std::unordered_map<const FileEntry*, std::vector<const FileEntry*>> includes_;
  std::unordered_set<const FileEntry*> prelude_;
  std::unordered_set<std::pair<unsigned, const FileEntry*>, PairHash> uses_;  // (member, declaring file)
};

class FileSpans {
 public:
  FileSpans(const SourceManager& sm, const LangOptions& lang, const TreeFileSystem* files)
      : sm_(sm), lang_(lang), files_(files) {}

  ByteSpan span(SourceRange range) const {
    SourceLocation b = sm_.getFileLoc(range.getBegin());
    SourceLocation e = sm_.getFileLoc(range.getEnd());
    uint32_t begin = sm_.getFileOffset(b);
    SourceLocation after = Lexer::getLocForEndOfToken(e, 0, sm_, lang_);
    uint32_t end = after.isValid() && sm_.getFileID(after) == sm_.getFileID(b) ? sm_.getFileOffset(after)
                                                                                : sm_.getFileOffset(e);
    return {begin, std::max(begin, end)};
  }

  // Whether `loc` was written in a macro's body, at any depth of expansion (an argument of a macro
  // that another macro's body calls, `NVTE_ERROR(..., cudaGetErrorString(e))`), not in an argument
  // written where the macro is used: its spelling is not where it stands in the file.
  bool in_macro_body(SourceLocation loc) const {
    return loc.isMacroID() && sm_.getSpellingLoc(loc) != sm_.getFileLoc(loc);
  }

  // Whether `loc` was written in the body of a macro defined in a file of the scanned tree: that
  // file's own facts hold it, on the #define's line (add_lexical_calls).
  bool in_tree_macro_body(SourceLocation loc) const {
    if (!in_macro_body(loc) || !files_) return false;
    const llvm::StringRef name = sm_.getFilename(sm_.getSpellingLoc(loc));
    return !name.empty() && files_->beneath_root(name.str()).has_value();
  }

  uint32_t lines(SourceRange range) const {
    unsigned b = sm_.getExpansionLineNumber(sm_.getFileLoc(range.getBegin()));
    unsigned e = sm_.getExpansionLineNumber(sm_.getFileLoc(range.getEnd()));
    return e >= b ? e - b + 1 : 1;
  }

 private:
  const SourceManager& sm_;
  const LangOptions& lang_;
  const TreeFileSystem* files_;
};

// What one parse collects: the facts of each recorded file, plus the preprocessor's skipped ranges
// (inactive #if branches), which the lexical passes must ignore. A CUDA file with `__CUDA_ARCH__`
// code is parsed twice (device side, then host side) into the same facts; the lexical passes run
// once, in the last pass, and treat as inactive only what both passes skipped.
struct ParseState {
  std::span<NativeFile> out;  // one per recorded file
  RecordedFiles& recorded;
  bool last_pass = true;
  std::vector<std::vector<ByteSpan>> skipped;  // per recorded file
  std::vector<std::vector<ByteSpan>> skipped_in_earlier_pass;
  bool had_earlier_pass = false;
  // The file system of the parse, restricted as the source file begins to the header search
  // directories Clang settled on, less `foreign_directories`: directories named by a tree's
  // compile command that lie outside the tree.
  TreeFileSystem* files = nullptr;
  std::vector<fs::path> foreign_directories;
  // The time budget: the thread's CPU time at which the parse is stopped (0: never), and
  // whether it was.
  int64_t deadline_ns = 0;
  bool over_budget = false;
};

int64_t thread_cpu_ns() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return int64_t(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

// Stops the parse once it is past the budget, checked as tokens are read: every file being read
// is cut off at its end, so Clang returns to the main file, finishes it at once and ends the
// translation unit (a prefix: no template instantiation follows). Work that reads no token (a
// deep constexpr evaluation) is not interrupted; --file-timeout still bounds it.
void watch_budget(Preprocessor& pp, int64_t deadline_ns, bool& over_budget) {
  pp.setTokenWatcher([&pp, deadline_ns, &over_budget, count = uint32_t(0)](const Token&) mutable {
    if (!over_budget) {
      if (++count % 1024 != 0 || thread_cpu_ns() < deadline_ns) return;
      over_budget = true;
    }
    // Clang 19's only PreprocessorLexer is Lexer.
    if (auto* lexer = static_cast<Lexer*>(pp.getCurrentFileLexer())) lexer->seek(lexer->getBuffer().size(), false);
  });
}

// A missing header is skipped without a fatal error, so the rest of the file is parsed
// with full recovery (a fatal error would stop template deduction and drop calls).
class SkipMissingHeaders : public PPCallbacks {
 public:
  bool FileNotFound(StringRef) override { return true; }
};

class PreprocessorRecorder : public SkipMissingHeaders {
 public:
  PreprocessorRecorder(const SourceManager& sm, ParseState& state) : sm_(sm), state_(state) {}

  void FileChanged(SourceLocation loc, FileChangeReason reason, SrcMgr::CharacteristicKind, FileID) override {
    if (reason == EnterFile) state_.recorded.entered(sm_.getFileID(loc));
  }

  void InclusionDirective(SourceLocation hash, const Token&, StringRef name, bool angled,
                          CharSourceRange range, OptionalFileEntryRef file, StringRef, StringRef,
                          const Module*, bool, SrcMgr::CharacteristicKind) override {
    if (file) state_.recorded.included(sm_.getFileID(hash), file->getFileEntry());
    std::optional<size_t> in = state_.recorded.index_of(sm_.getFileID(hash));
    if (!in) return;
    IncludeFact f;
    f.spelled = name.str();
    f.angled = angled;
    f.found = file.has_value();
    if (file && state_.files)
      if (auto beneath = state_.files->beneath_root(file->getName().str())) f.resolved = std::move(*beneath);
    f.span = {sm_.getFileOffset(range.getBegin()), sm_.getFileOffset(range.getEnd())};
    state_.out[*in].includes.push_back(std::move(f));
  }

  // A batch's header must not see a macro only another header of the batch brought in.
  void MacroExpands(const Token& name, const MacroDefinition& macro, SourceRange, const MacroArgs*) override {
    used(name.getLocation(), macro);
  }
  void Defined(const Token& name, const MacroDefinition& macro, SourceRange) override { used(name.getLocation(), macro); }
  void Ifdef(SourceLocation, const Token& name, const MacroDefinition& macro) override { used(name.getLocation(), macro); }
  void Ifndef(SourceLocation, const Token& name, const MacroDefinition& macro) override { used(name.getLocation(), macro); }
  void Elifdef(SourceLocation, const Token& name, const MacroDefinition& macro) override { used(name.getLocation(), macro); }
  void Elifndef(SourceLocation, const Token& name, const MacroDefinition& macro) override {
    used(name.getLocation(), macro);
  }

  void SourceRangeSkipped(SourceRange range, SourceLocation) override {
    std::optional<size_t> in = state_.recorded.index_of(sm_.getFileID(range.getBegin()));
    if (!in) return;
    state_.skipped[*in].push_back({sm_.getFileOffset(range.getBegin()), sm_.getFileOffset(range.getEnd())});
  }

 private:
  void used(SourceLocation at, const MacroDefinition& macro) {
    if (!state_.recorded.batch()) return;
    const MacroInfo* info = macro.getMacroInfo();
    if (!info) return;
    if (std::optional<size_t> in = state_.recorded.index_at(at)) state_.recorded.used(*in, info->getDefinitionLoc());
  }

  const SourceManager& sm_;
  ParseState& state_;
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

// `(void*)kernel`, `&kernel` and `kernel<float>` name `kernel`; other arguments are kept as text.
std::string argument_name(const Expr* arg) {
  arg = arg->IgnoreParenCasts();
  if (auto* op = dyn_cast<UnaryOperator>(arg); op && op->getOpcode() == UO_AddrOf)
    arg = op->getSubExpr()->IgnoreParenCasts();
  std::string name = callee_name(arg, false);
  if (!name.empty()) return name;
  return "";
}

class FactVisitor : public RecursiveASTVisitor<FactVisitor> {
 public:
  FactVisitor(RecordedFiles& recorded, const FileSpans& spans, std::span<NativeFile> out)
      : recorded_(recorded), spans_(spans), out_(out) {}

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
    if (!d->doesThisDeclarationHaveABody()) return true;
    std::optional<size_t> in = recorded_.index_at(d->getLocation());
    if (!in) return true;
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
    out_[*in].functions.push_back(std::move(f));
    return true;
  }

  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr* e) {
    std::optional<size_t> in = recorded_.index_at(e->getBeginLoc());
    if (!in) return true;
    out_[*in].launches.push_back({callee_name(e->getCallee(), false), spans_.span(e->getSourceRange())});
    // Its configuration is an implicit call of cudaConfigureCall, which the code never wrote.
    if (const CallExpr* config = e->getConfig()) launch_configs_.push_back(config);
    return true;
  }

  // A batch's header must not refer to what only another header brought in (RecordedFiles): a
  // declaration, or one of an overload set (another file's overload makes a name ambiguous).
  bool VisitDeclRefExpr(DeclRefExpr* e) {
    if (recorded_.batch())
      if (std::optional<size_t> in = recorded_.index_at(e->getLocation())) recorded_.used(*in, e->getDecl()->getLocation());
    return true;
  }
  bool VisitOverloadExpr(OverloadExpr* e) {
    if (recorded_.batch())
      if (std::optional<size_t> in = recorded_.index_at(e->getNameLoc()))
        for (const NamedDecl* d : e->decls()) recorded_.used(*in, d->getLocation());
    return true;
  }

  bool VisitAsmStmt(AsmStmt* s) {
    std::optional<size_t> in = recorded_.index_at(s->getAsmLoc());
    if (!in) return true;
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
    out_[*in].asm_statements.push_back(std::move(f));
    return true;
  }

  bool VisitCallExpr(CallExpr* e) {
    if (isa<CUDAKernelCallExpr>(e) || !e->getCallee()) return true;
    std::optional<size_t> in = recorded_.index_at(e->getBeginLoc());
    if (!in) return true;
    if (std::find(launch_configs_.begin(), launch_configs_.end(), e) != launch_configs_.end()) return true;
    record_call(out_[*in], callee_name(e->getCallee()), e->getCallee()->getSourceRange(),
                e->getNumArgs() ? e->getArg(0) : nullptr);
    return true;
  }

  // An undeclared function called with valid arguments becomes a RecoveryExpr over an
  // UnresolvedLookupExpr: still a call for our purposes.
  bool VisitRecoveryExpr(RecoveryExpr* e) {
    std::optional<size_t> in = recorded_.index_at(e->getBeginLoc());
    if (!in) return true;
    auto subs = e->subExpressions();
    if (subs.empty() || !subs.front()) return true;
    if (auto* ule = dyn_cast<UnresolvedLookupExpr>(subs.front()->IgnoreParenImpCasts()))
      record_call(out_[*in], callee_name(ule), ule->getSourceRange(), subs.size() > 1 ? subs[1] : nullptr);
    return true;
  }

 private:
  void record_call(NativeFile& out, std::string name, SourceRange range, const Expr* first_argument) {
    // A call written in a project macro's body is reported once, where the macro is defined, not
    // at each of its uses: the port changes the #define.
    if (name.empty() || spans_.in_tree_macro_body(range.getBegin())) return;
    CallFact c;
    c.callee = std::move(name);
    c.span = spans_.span(range);
    c.in_macro_body = spans_.in_macro_body(range.getBegin());
    if (first_argument) c.first_argument = argument_name(first_argument);
    if (!functions_.empty()) c.function = functions_.back()->getNameAsString();
    out.calls.push_back(std::move(c));
  }

  RecordedFiles& recorded_;
  const FileSpans& spans_;
  std::span<NativeFile> out_;
  std::vector<const FunctionDecl*> functions_;
  std::vector<const CallExpr*> launch_configs_;  // of the launches visited (before their children)
};

// The raw tokens (comments dropped) of `code`, which lies at `base` in `file_text` and is followed
// by a null character (as Clang's lexer requires), their texts views into `file_text`.
std::vector<LexToken> raw_tokens(std::string_view code, uint32_t base, std::string_view file_text, const LangOptions& lang) {
  std::vector<LexToken> out;
  Lexer lexer(SourceLocation(), lang, code.data(), code.data(), code.data() + code.size());
  bool in_directive = false;
  for (Token t;;) {
    lexer.LexFromRawLexer(t);
    if (t.is(tok::eof)) break;
    if (t.isAtStartOfLine()) in_directive = t.is(tok::hash);
    LexToken lt;
    lt.offset = base + uint32_t(lexer.getBufferLocation() - code.data()) - t.getLength();
    lt.text = file_text.substr(lt.offset, t.getLength());
    lt.in_directive = in_directive;
    if (t.is(tok::raw_identifier)) lt.kind = LexToken::Identifier;
    else if (tok::isStringLiteral(t.getKind())) lt.kind = LexToken::String;
    else if (t.is(tok::numeric_constant)) lt.kind = LexToken::Number;
    else if (t.is(tok::lesslessless)) lt.kind = LexToken::LaunchOpen;
    else if (t.is(tok::greatergreatergreater)) lt.kind = LexToken::LaunchClose;
    else if (tok::getPunctuatorSpelling(t.getKind())) lt.kind = LexToken::Punct;
    out.push_back(lt);
  }
  return out;
}

// Byte ranges inside a range of `a` and a range of `b`.
std::vector<ByteSpan> intersection(const std::vector<ByteSpan>& a, const std::vector<ByteSpan>& b) {
  std::vector<ByteSpan> out;
  for (ByteSpan x : a)
    for (ByteSpan y : b)
      if (std::max(x.begin, y.begin) < std::min(x.end, y.end))
        out.push_back({std::max(x.begin, y.begin), std::min(x.end, y.end)});
  return out;
}

// The facts of a file found in its tokens (`file`, of the text `text` read with `lang`): those a
// parse adds to its AST's, and all the facts of a file read in its tokens alone.
void add_facts_of_tokens(const LexicalFile& file, std::string_view text, const LangOptions& lang, NativeFile& out) {
  if (lang.CUDA) {
    add_lexical_launches(file, out);
    add_lexical_kernels(file, out);
  }
  for (const KernelSource& source : kernel_source_strings(file))
    add_runtime_compiled_kernels(LexicalFile(text, raw_tokens(source.code, source.span.begin, text, lang), {}), out);
  measure_device_code(file, out);
  add_lexical_calls(file, out);
  add_macro_uses(file, out);
  add_qualified_names(file, out);
  add_template_instantiations(file, out);
  add_name_uses(file, out);
  add_inactive_includes(file, out);
}

class FactConsumer : public ASTConsumer {
 public:
  explicit FactConsumer(ParseState& state) : state_(state) {}

  // Facts come from the analyzed files only (a header is analyzed as a file of its own, or in a
  // batch of headers), so the bodies of the functions they include are never needed: their
  // declarations are. Clang still parses the bodies it cannot do without (constexpr functions,
  // deduced return types).
  bool shouldSkipFunctionBody(Decl* d) override { return !state_.recorded.index_at(d->getLocation()); }

  void HandleTranslationUnit(ASTContext& ctx) override {
    if (state_.over_budget) {
      // Stopped part-way, at a point that differs from run to run: what Clang recorded is dropped,
      // and the files' facts are their tokens', the same in every run.
      for (NativeFile& out : state_.out) {
        out.functions.clear();
        out.launches.clear();
        out.asm_statements.clear();
        out.calls.clear();
        out.includes.clear();
      }
    } else {
      FileSpans spans(ctx.getSourceManager(), ctx.getLangOpts(), state_.files);
      FactVisitor(state_.recorded, spans, state_.out).TraverseDecl(ctx.getTranslationUnitDecl());
    }
    state_.recorded.check_uses();
    if (!state_.last_pass) return;
    for (size_t i = 0; i < state_.out.size(); ++i)
      // A batch's header never entered has no facts here: it is parsed alone (parse_together).
      if (FileID id = state_.recorded.file_id(i); id.isValid()) add_token_facts(ctx, id, i);
  }

 private:
  // The facts of recorded file `index` (FileID `id`) found in its tokens, once its parse is done.
  void add_token_facts(ASTContext& ctx, FileID id, size_t index) {
    NativeFile& out = state_.out[index];
    dedupe(out);
    // Without the preprocessor's word (it was stopped), no branch is known to be inactive.
    std::vector<ByteSpan> inactive = state_.over_budget ? std::vector<ByteSpan>{}
                                     : state_.had_earlier_pass
                                         ? intersection(state_.skipped[index], state_.skipped_in_earlier_pass[index])
                                         : state_.skipped[index];
    const SourceManager& sm = ctx.getSourceManager();
    const std::string_view text = sm.getBufferData(id);  // null-terminated
    LexicalFile file(text, raw_tokens(text, 0, text, ctx.getLangOpts()), std::move(inactive));
    add_facts_of_tokens(file, text, ctx.getLangOpts(), out);
    if (state_.over_budget) {
      add_lexical_includes(file, out);
      out.over_budget = true;
    }
  }

  // Two passes see the same code twice: keep each fact once, ordered by position.
  static void dedupe(NativeFile& out) {
    auto by = [](auto& facts, auto key) {
      std::stable_sort(facts.begin(), facts.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
      facts.erase(std::unique(facts.begin(), facts.end(), [&](const auto& a, const auto& b) { return key(a) == key(b); }),
                  facts.end());
    };
    by(out.functions, [](const FunctionFact& f) { return f.name_span.begin; });
    by(out.launches, [](const LaunchFact& f) { return f.span.begin; });
    by(out.asm_statements, [](const AsmFact& f) { return f.span.begin; });
    by(out.calls, [](const CallFact& f) { return std::make_pair(f.span.begin, f.callee); });
    by(out.includes, [](const IncludeFact& f) { return f.span.begin; });
  }

  ParseState& state_;
};

// Once the source file begins, outside the tree only the header search directories Clang settled
// on may be read, less `foreign` (directories a tree's own compile command names outside it).
void restrict_to_header_search(const CompilerInstance& ci, TreeFileSystem& files, const std::vector<fs::path>& foreign) {
  const HeaderSearchOptions& search = ci.getHeaderSearchOpts();
  std::vector<fs::path> allowed = {TPULINT_CLANG_RESOURCE_DIR};
  for (const HeaderSearchOptions::Entry& e : search.UserEntries) {
    fs::path dir = files.absolute_path(e.Path);
    if (std::find(foreign.begin(), foreign.end(), dir) != foreign.end()) continue;
    allowed.push_back(dir);
    if (!search.Sysroot.empty() && !e.IgnoreSysRoot) allowed.push_back(fs::path(search.Sysroot) / e.Path.substr(e.Path.starts_with('/')));
  }
  files.restrict_to(std::move(allowed));
}

class FactAction : public ASTFrontendAction {
 public:
  explicit FactAction(ParseState& state) : state_(state) {}

  // A prefix, as for a precompiled header: Sema then leaves implicit template instantiations
  // pending instead of instantiating their bodies at the end. No fact comes from an
  // instantiation (the visitor reads the templates as written), and in header-heavy template
  // code (CUTLASS, tiny-cuda-nn) instantiation is most of a parse's time.
  TranslationUnitKind getTranslationUnitKind() override { return TU_Prefix; }

  bool BeginSourceFileAction(CompilerInstance& ci) override {
    ci.getFrontendOpts().SkipFunctionBodies = true;  // where FactConsumer::shouldSkipFunctionBody says
    state_.recorded.begin_pass(ci.getSourceManager());
    if (state_.deadline_ns) watch_budget(ci.getPreprocessor(), state_.deadline_ns, state_.over_budget);
    ci.getPreprocessor().addPPCallbacks(std::make_unique<PreprocessorRecorder>(ci.getSourceManager(), state_));
    if (TreeFileSystem* files = state_.files) restrict_to_header_search(ci, *files, state_.foreign_directories);
    return true;
  }
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance& ci, StringRef) override {
    return std::make_unique<FactConsumer>(state_);
  }

 private:
  ParseState& state_;
};

// ClangTool runs an action made by a factory: this one makes them with `make`.
template <typename Make>
class ActionFactory : public tooling::FrontendActionFactory {
 public:
  explicit ActionFactory(Make make) : make_(std::move(make)) {}
  std::unique_ptr<FrontendAction> create() override { return make_(); }

 private:
  Make make_;
};

// Counts diagnostics without printing them (header-free parses produce many expected errors),
// the errors written in each recorded file, and keeps the first fatal one: Clang stops parsing
// there. In a batch of headers, an error in one header whose note names an earlier declaration in
// a file the header does not include (two headers of a directory each defining `struct Point`)
// marks that header (RecordedFiles): what the batch put before it conflicts with it.
class CountingDiagnostics : public DiagnosticConsumer {
 public:
  // `recorded`: the parse's files (null: none, as in a precompiled header's build).
  CountingDiagnostics(RecordedFiles* recorded, size_t files) : errors_in(files, 0), recorded_(recorded) {}

  void HandleDiagnostic(DiagnosticsEngine::Level level, const Diagnostic& info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
    std::optional<size_t> in =
        recorded_ && info.hasSourceManager() ? recorded_->index_at(info.getLocation()) : std::nullopt;
    if (level == DiagnosticsEngine::Note) {
      // Where the earlier declaration is: a conflict when the header does not include that file.
      if (last_error_in && is_earlier_declaration(info.getID())) recorded_->used(*last_error_in, info.getLocation());
      return;
    }
    if (level < DiagnosticsEngine::Error) return;
    last_error_in = in;
    if (in) ++errors_in[*in];
    if (level != DiagnosticsEngine::Fatal || !fatal.empty()) return;
    llvm::SmallString<128> text;
    info.FormatDiagnostic(text);
    fatal = text.str().str();
    if (in) {
      fatal_in = in;
      fatal_at = info.getSourceManager().getFileOffset(info.getSourceManager().getExpansionLoc(info.getLocation()));
    }
  }
  std::string fatal;
  std::optional<size_t> fatal_in;  // the recorded file it is written in
  uint32_t fatal_at = 0;
  std::vector<unsigned> errors_in;

 private:
  static bool is_earlier_declaration(unsigned id) {
    return id == diag::note_previous_definition || id == diag::note_previous_declaration ||
           id == diag::note_previous_declaration_as || id == diag::note_previous_template_specialization ||
           id == diag::note_previous_namespace_alias || id == diag::note_previous_explicit_instantiation;
  }
  RecordedFiles* recorded_;
  std::optional<size_t> last_error_in;  // the recorded file of the last error, whose notes follow it
};

// A C++ file with CUDA in it: headers (.h, .hpp) of CUDA code, or .cpp files compiled by nvcc.
bool written_in_cuda(const SourceFile& file) {
  if (file.language() == Language::Cuda) return true;
  if (fs::path(file.path()).extension() == ".c") return false;
  const std::string& text = file.text();
  return text.find("__global__") != std::string::npos || text.find("__device__") != std::string::npos ||
         text.find("<<<") != std::string::npos;
}

// CUDA parsed with no CUDA SDK: the built-in shim declares what the SDK's headers would.
std::vector<std::string> cuda_without_sdk_flags() {
  return {"-nocudainc", "-nocudalib", "--cuda-host-only",
          // A fixed, empty CUDA path: the same result on machines with and without CUDA.
          "--cuda-path=/__tpulint__/no-cuda", "-include", kCudaShimPath};
}

// How a file is parsed without a compile database: as C, C++ or CUDA.
enum class HeaderFreeMode { C, Cxx, Cuda };

HeaderFreeMode header_free_mode(const SourceFile& file) {
  if (written_in_cuda(file)) return HeaderFreeMode::Cuda;
  return fs::path(file.path()).extension() == ".c" ? HeaderFreeMode::C : HeaderFreeMode::Cxx;
}

std::vector<std::string> header_free_flags(HeaderFreeMode mode) {
  switch (mode) {
    case HeaderFreeMode::Cuda: {
      std::vector<std::string> flags = {"-x", "cuda", "-std=c++17"};
      std::vector<std::string> cuda = cuda_without_sdk_flags();
      flags.insert(flags.end(), cuda.begin(), cuda.end());
      return flags;
    }
    case HeaderFreeMode::C:
      return {"-x", "c", "-std=gnu11"};
    case HeaderFreeMode::Cxx:
      break;
  }
  return {"-x", "c++", "-std=c++17"};
}

// Flags added in both modes: never stop at 20 errors (the 20th turns fatal and degrades the
// AST), no warnings, and Clang's own resource directory (stddef.h, cuda_wrappers).
// `device`: compile the CUDA device side instead of the host side.
tooling::ArgumentsAdjuster common_adjuster(bool device) {
  return [device](const tooling::CommandLineArguments& args, StringRef) {
    tooling::CommandLineArguments out = args;
    if (device) {
      std::erase(out, std::string("--cuda-host-only"));
      // The newest architecture: `#if __CUDA_ARCH__ >= 800` paths hold the tensor-core code.
      out.insert(out.end(), {"--cuda-device-only", "--cuda-gpu-arch=sm_90"});
    }
    if (!out.empty()) out[0] = TPULINT_CLANG_BINARY;
    // -fno-caret-diagnostics also stops the "N errors generated" line on stderr;
    // --no-default-config: no clang.cfg from beside the binary or the user's configuration.
    out.insert(out.begin() + (out.empty() ? 0 : 1),
               {"--no-default-config", "-ferror-limit=0", "-w", "-fno-caret-diagnostics",
                // No typo correction: a parse without headers has thousands of undeclared names,
                // and each would be compared with every name in scope (most of a header's time),
                // to be "corrected" into a name the code never wrote.
                "-fno-spell-checking",
                "-resource-dir=" TPULINT_CLANG_RESOURCE_DIR});
    return out;
  };
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Precompiled headers: a file's preamble, or the standard library

namespace {

// Most of a header-free parse of real code is Clang reading the declarations of the headers the
// file includes (a file including <vector> <string> <memory> <map> reads about 4 MB of them), and
// many files of a project include the same ones. A parser precompiles, in memory, what files
// include alike when it meets it again, and the files including it load it with -include-pch:
// loading is lazy, so a file pays for the declarations it uses. Two kinds:
// - a preamble: the #include lines a file opens with (resolve_project_headers says which may be
//   precompiled), written as the file writes them in a virtual header beside it, so that they
//   resolve as the file's own do. Built when a parser meets the same lines a third time (a build
//   costs more than a parse: built at the second, preambles met twice cost more than they gave);
//   a file loads the longest run of its opening lines that is built (its own, or a shorter file's).
// - else the standard library headers the file includes (directly or through project headers),
//   as a set, built at its second meeting: the file's own set, so the file sees the declarations
//   it would see without it (a superset would put every standard operator overload in each lookup).
// Either is what the file would read anyway: its #include lines still resolve, and are skipped
// as already included. Facts come from the main file only, so none is lost.

const char kStandardLibraryPath[] = "/__tpulint__/standard_library.h";
const char kPrecompiledPath[] = "/__tpulint__/precompiled.pch";
const char kPreambleName[] = "__tpulint_preamble__.h";
const char kPreambleOutsideDirectory[] = "/__tpulint__/preamble.h";
// The virtual main file of a batch of headers parsed together (ClangParser::parse_together).
const char kBatchPath[] = "/__tpulint__/batch.h";

// Serializes the AST of the main file into `buffer`, in Clang's raw PCH format (which the default
// PCHContainerOperations read back), instead of writing a file. Missing headers are skipped, as
// in the parses that load it, and errors allowed: a header-free parse has many.
class PrecompileAction : public ASTFrontendAction {
 public:
  PrecompileAction(std::shared_ptr<PCHBuffer> buffer, TreeFileSystem& files, int64_t deadline_ns, bool& over_budget)
      : buffer_(std::move(buffer)), files_(files), deadline_ns_(deadline_ns), over_budget_(over_budget) {}

  TranslationUnitKind getTranslationUnitKind() override { return TU_Prefix; }
  bool BeginSourceFileAction(CompilerInstance& ci) override {
    ci.getLangOpts().CompilingPCH = true;
    // Bodies are skipped where the parses that load it skip them (FactConsumer): what Clang
    // needs (constexpr functions, deduced return types) it keeps.
    ci.getFrontendOpts().SkipFunctionBodies = true;
    ci.getPreprocessor().addPPCallbacks(std::make_unique<SkipMissingHeaders>());
    if (deadline_ns_) watch_budget(ci.getPreprocessor(), deadline_ns_, over_budget_);
    restrict_to_header_search(ci, files_, {});
    return true;
  }
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance& ci, StringRef) override {
    return std::make_unique<PCHGenerator>(ci.getPreprocessor(), ci.getModuleCache(), /*OutputFile=*/"",
                                          /*isysroot=*/"", buffer_, ArrayRef<std::shared_ptr<ModuleFileExtension>>{},
                                          /*AllowASTWithErrors=*/true, /*IncludeTimestamps=*/false);
  }

 private:
  std::shared_ptr<PCHBuffer> buffer_;
  TreeFileSystem& files_;
  int64_t deadline_ns_;
  bool& over_budget_;
};

// What the driver may read outside the tree while it finds its toolchain: with a user's
// compile database anything (its flags name the user's toolchain); else the system's
// directories and the files it reads to tell the distribution.
std::vector<fs::path> toolchain_directories(bool users_database) {
  if (users_database) return {"/"};
  return {TPULINT_CLANG_RESOURCE_DIR, "/usr", "/lib", "/lib32", "/lib64", "/libx32", "/etc/os-release",
          "/etc/lsb-release", "/etc/debian_version", "/etc/redhat-release", "/etc/SuSE-release"};
}

// The virtual header `path` holding `header`, precompiled with a header-free parse's `flags` on
// the device side or the host side; empty when it could not be built (a fatal error, or past
// `budget` of CPU time): the parses then read the headers. Reads what the parse would: the tree,
// and outside it the toolchain's directories.
std::string precompile(const std::vector<std::string>& flags, bool device, const std::string& path,
                       const std::string& header, const fs::path& root, std::chrono::milliseconds budget) {
  tooling::FixedCompilationDatabase db("/", flags);
  auto files = llvm::makeIntrusiveRefCnt<TreeFileSystem>(root, toolchain_directories(false));
  tooling::ClangTool tool(db, {path}, std::make_shared<PCHContainerOperations>(), files);
  tool.mapVirtualFile(path, header);
  tool.mapVirtualFile(kCudaShimPath, kCudaShim);
  tool.mapVirtualFile(kTorchShimPath, kTorchShim);
  tool.appendArgumentsAdjuster(common_adjuster(device));
  tool.setPrintErrorMessage(false);
  CountingDiagnostics diagnostics(nullptr, 0);
  tool.setDiagnosticConsumer(&diagnostics);
  auto buffer = std::make_shared<PCHBuffer>();
  bool over_budget = false;
  const int64_t deadline_ns = budget.count() > 0 ? thread_cpu_ns() + std::chrono::nanoseconds(budget).count() : 0;
  ActionFactory factory([&] { return std::make_unique<PrecompileAction>(buffer, *files, deadline_ns, over_budget); });
  tool.run(&factory);
  if (!buffer->IsComplete || !diagnostics.fatal.empty() || over_budget) return {};
  return std::string(buffer->Data.begin(), buffer->Data.end());
}

std::string include_line(const SpelledInclude& inc) {
  return inc.quoted ? "#include \"" + inc.path + "\"\n" : "#include <" + inc.path + ">\n";
}

// How one file is parsed: its flags, the directory they are relative to, and its passes.
struct ParsePlan {
  fs::path root;
  std::vector<std::string> flags;
  std::string directory;
  bool used_compile_database = false;
  bool users_database = false;
  std::vector<fs::path> foreign;  // include directories a tree's own command names outside the tree
  bool device_pass = false;
  // Header-free C++ or CUDA: its mode, the standard headers it includes, and its preamble.
  std::optional<HeaderFreeMode> header_free_mode;
  std::vector<std::string> standard_headers;
  std::vector<SpelledInclude> preamble;
  fs::path main_directory;
};

class ClangParser final : public NativeParser {
 public:
  explicit ClangParser(ClangFrontendOptions options) : options_(std::move(options)) {}
  NativeFile parse(const SourceFile& file) override;
  std::vector<NativeFile> parse_together(std::span<const SourceFile> files) override;
  std::vector<std::vector<std::string>> commands(const SourceFile& file) override;

 private:
  ParsePlan plan(const SourceFile& file) const;
  NativeFile parse_alone(const SourceFile& file, ParsePlan plan);
  // The facts of a file that only instantiates templates defined elsewhere, from its tokens; nullopt
  // when it is not one, or when its facts need the preprocessor.
  std::optional<NativeFile> instantiation_file(const SourceFile& file) const;
  // The facts of a file with no device code whose conditions need none of its headers, from its
  // tokens; nullopt for any other file.
  std::optional<NativeFile> host_file(const SourceFile& file) const;
  // The facts of a file that need no parse (instantiation_file, host_file), or nullopt.
  std::optional<NativeFile> read_in_tokens(const SourceFile& file) const {
    if (std::optional<NativeFile> read = instantiation_file(file)) return read;
    return host_file(file);
  }
  // The scanned tree holding `file`: the options' root, else the one its paths imply.
  fs::path tree_root_of(const SourceFile& file) const {
    return options_.tree_root.empty() ? SourceTree::holding(file.absolute_path(), file.path()).root() : options_.tree_root;
  }
  // What a parse gives besides the facts it records.
  struct Parsed {
    int status = 0;  // ClangTool::run's: 2 is "no AST at all"
    bool over_budget = false;
    std::string fatal_error;  // Clang's first fatal error, wherever it is written
  };
  // One parse by `plan` of `main_path` (a file, or a batch's virtual main file) holding
  // `main_text`, recording the facts of `recorded`'s files into `out`, one per file, under
  // `budget` of CPU time. `members`: a batch's headers, mapped to their loaded texts.
  Parsed run(ParsePlan plan, const std::string& main_path, const std::string& main_text,
             std::span<const SourceFile* const> members, RecordedFiles& recorded, std::span<NativeFile> out,
             std::chrono::milliseconds budget);
  static bool batchable(const SourceFile& file, const ParsePlan& plan);
  // The facts of `files[batch]` from one parse, each, or nothing for a header to parse alone;
  // nothing at all when that parse failed.
  std::vector<std::optional<NativeFile>> parse_batch(std::span<const SourceFile> files, std::span<const ParsePlan> plans,
                                      std::span<const size_t> batch);
  struct Precompiled {
    std::string path;    // of the virtual header
    std::string header;  // its text
    std::string pch;     // empty until built, or when it could not be
    bool preamble = false;
    bool built = false;
    unsigned parses = 0;
    uint64_t last_use = 0;
  };
  // What a parse like `plan`'s, on the device or the host side, loads precompiled, or null: a
  // preamble or a set of standard headers goes without the first time a parse meets it.
  const Precompiled* precompiled(const ParsePlan& plan, bool device);
  // The entry of `key`, built if it was not yet; null if it cannot be.
  const Precompiled* built(Precompiled& entry, const ParsePlan& plan, const std::vector<std::string>& flags, bool device);
  ClangFrontendOptions options_;
  // By kind of parse, flags, header path and text. At most kMaxPrecompiled hold a PCH (about
  // 1-20 MB each); the least recently used gives its up.
  static constexpr size_t kMaxPrecompiled = 8;
  std::unordered_map<std::string, Precompiled> precompiled_;
  uint64_t uses_ = 0;
};

const ClangParser::Precompiled* ClangParser::built(Precompiled& entry, const ParsePlan& plan,
                                                  const std::vector<std::string>& flags, bool device) {
  entry.last_use = ++uses_;
  if (entry.built) return entry.pch.empty() ? nullptr : &entry;
  entry.built = true;
  entry.pch = precompile(flags, device, entry.path, entry.header, plan.root, options_.time_budget);
  if (entry.pch.empty()) return nullptr;
  size_t holding = 0;
  Precompiled* oldest = nullptr;
  for (auto& [key, e] : precompiled_) {
    if (e.pch.empty()) continue;
    ++holding;
    if (!oldest || e.last_use < oldest->last_use) oldest = &e;
  }
  if (holding > kMaxPrecompiled) {
    // Not built again: a parser that met more than kMaxPrecompiled kinds of preamble or headers
    // would otherwise rebuild them in turn.
    oldest->pch.clear();
    oldest->pch.shrink_to_fit();
  }
  return &entry;
}

const ClangParser::Precompiled* ClangParser::precompiled(const ParsePlan& plan, bool device) {
  if (!plan.header_free_mode) return nullptr;
  const std::string side = device ? "device\n" : "host\n";
  if (options_.precompile_preambles && !plan.preamble.empty()) {
    std::string flags;
    for (const std::string& f : plan.flags) flags += f + '\0';
    // The key, virtual path and text of each run of the opening lines.
    struct Run {
      std::string key, path, header;
    };
    std::vector<Run> runs;
    std::string header;
    bool quoted = false;
    for (const SpelledInclude& inc : plan.preamble) {
      header += include_line(inc);
      quoted |= inc.quoted;
      // Quoted includes resolve from the includer's directory: the header is written there.
      std::string path = quoted ? (plan.main_directory / kPreambleName).string() : kPreambleOutsideDirectory;
      runs.push_back({side + flags + '\n' + path + '\n' + header, path, header});
    }
    // Only the whole preamble is counted (an entry per file at most); it is precompiled when a
    // parse meets it a third time. Then the longest run that is built is loaded: its own, or a
    // shorter file's whole preamble.
    Precompiled& whole = precompiled_[runs.back().key];
    if (whole.header.empty()) {
      whole.path = runs.back().path;
      whole.header = runs.back().header;
      whole.preamble = true;
    }
    if (++whole.parses >= 3 && !whole.built) built(whole, plan, plan.flags, device);
    for (auto run = runs.rbegin(); run != runs.rend(); ++run)
      if (auto it = precompiled_.find(run->key); it != precompiled_.end() && !it->second.pch.empty()) {
        it->second.last_use = ++uses_;
        return &it->second;
      }
  }
  if (plan.standard_headers.empty() || !options_.precompile_standard_library) return nullptr;
  std::string header;
  for (const std::string& h : plan.standard_headers) header += "#include <" + h + ">\n";
  Precompiled& e = precompiled_["standard\n" + std::to_string(int(*plan.header_free_mode)) + side + header];
  if (++e.parses < 2) return nullptr;
  if (e.path.empty()) {
    e.path = kStandardLibraryPath;
    e.header = std::move(header);
  }
  return built(e, plan, header_free_flags(*plan.header_free_mode), device);
}

ParsePlan ClangParser::plan(const SourceFile& file) const {
  ParsePlan p;
  p.root = tree_root_of(file);
  std::optional<CompileCommand> command;
  if (options_.compile_database) command = options_.compile_database->command_for(file.absolute_path(), file.language());
  p.users_database = command && options_.compile_database->origin() == DatabaseOrigin::User;
  p.directory = file.absolute_path().parent_path().string();
  if (command) {
    p.used_compile_database = true;
    p.flags = std::move(command->arguments);
    p.directory = std::move(command->directory);
    // A tree's own database cannot reach a CUDA SDK (it is outside the tree).
    if (!p.users_database && written_in_cuda(file)) {
      std::vector<std::string> cuda = cuda_without_sdk_flags();
      p.flags.insert(p.flags.end(), cuda.begin(), cuda.end());
    }
  } else {
    HeaderFreeMode mode = header_free_mode(file);
    p.flags = header_free_flags(mode);
    HeaderResolution headers = resolve_project_headers(file, SourceTree(p.root));
    if (mode != HeaderFreeMode::C) {
      p.header_free_mode = mode;
      p.standard_headers = std::move(headers.standard_headers);
      p.preamble = std::move(headers.preamble);
      p.main_directory = file.absolute_path().parent_path();
    }
    for (const std::string& dir : headers.include_dirs) p.flags.insert(p.flags.end(), {"-I", dir});
    if (headers.torch_missing && fs::path(file.path()).extension() != ".c")
      p.flags.insert(p.flags.end(), {"-include", kTorchShimPath});
  }
  if (command && !p.users_database)
    for (const fs::path& dir : include_directories(p.flags, p.directory))
      if (!path_beneath(dir, p.root)) p.foreign.push_back(dir);
  // Code under `#ifdef __CUDA_ARCH__` exists only in the device compilation: such files get a
  // device pass first, then the host pass.
  p.device_pass = !p.used_compile_database && written_in_cuda(file) &&
                  file.text().find("__CUDA_ARCH__") != std::string::npos;
  return p;
}

std::vector<std::vector<std::string>> ClangParser::commands(const SourceFile& file) {
  ParsePlan p = plan(file);
  tooling::FixedCompilationDatabase db(p.directory, p.flags);
  std::vector<std::vector<std::string>> out;
  for (bool device : {true, false}) {
    if (device && !p.device_pass) continue;
    tooling::CommandLineArguments args = db.getCompileCommands(file.absolute_path().string()).front().CommandLine;
    args = tooling::getClangSyntaxOnlyAdjuster()(args, "");
    out.push_back(common_adjuster(device)(args, ""));
  }
  return out;
}

ClangParser::Parsed ClangParser::run(ParsePlan plan, const std::string& main_path, const std::string& main_text,
                                     std::span<const SourceFile* const> members, RecordedFiles& recorded,
                                     std::span<NativeFile> out, std::chrono::milliseconds budget) {
  // Built before the parse's clock starts: the budget is the parse's own.
  const Precompiled* precompiled_of_pass[2] = {nullptr, nullptr};  // host, device
  for (bool device : {false, true})
    if (!device || plan.device_pass) precompiled_of_pass[device] = precompiled(plan, device);

  const int64_t started_ns = thread_cpu_ns();
  for (NativeFile& f : out) {
    if (const Precompiled* host = precompiled_of_pass[false])
      (host->preamble ? f.precompiled_preamble : f.precompiled_standard_headers) = true;
    f.used_compile_database = plan.used_compile_database;
  }
  const fs::path& root = plan.root;
  const bool users_database = plan.users_database;
  tooling::FixedCompilationDatabase db(plan.directory, plan.flags);
  ParseState state{.out = out,
                   .recorded = recorded,
                   .last_pass = true,
                   .skipped = std::vector<std::vector<ByteSpan>>(out.size()),
                   .skipped_in_earlier_pass = {},
                   .had_earlier_pass = false,
                   .files = nullptr,
                   .foreign_directories = std::move(plan.foreign),
                   .deadline_ns = budget.count() > 0 ? started_ns + std::chrono::nanoseconds(budget).count() : 0,
                   .over_budget = false};
  CountingDiagnostics diagnostics(&recorded, out.size());
  // ClangTool keeps the mapped files' paths and texts by reference until it runs.
  std::vector<std::string> member_paths;
  for (const SourceFile* m : members) member_paths.push_back(m->absolute_path().string());
  auto run_pass = [&](bool device) {
    auto files = llvm::makeIntrusiveRefCnt<TreeFileSystem>(root, toolchain_directories(users_database));
    state.files = files.get();
    tooling::ClangTool tool(db, {main_path}, std::make_shared<PCHContainerOperations>(), files);
    tool.mapVirtualFile(main_path, main_text);
    // A batch's headers are parsed in the texts the scan loaded, as a file alone is.
    for (size_t i = 0; i < members.size(); ++i) tool.mapVirtualFile(member_paths[i], members[i]->text());
    tool.mapVirtualFile(kCudaShimPath, kCudaShim);
    tool.mapVirtualFile(kTorchShimPath, kTorchShim);
    tool.appendArgumentsAdjuster(common_adjuster(device));
    if (const Precompiled* pch = precompiled_of_pass[device]) {
      tool.mapVirtualFile(pch->path, pch->header);
      tool.mapVirtualFile(kPrecompiledPath, pch->pch);
      tool.appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(
          {"-include-pch", kPrecompiledPath, "-Xclang", "-fallow-pch-with-compiler-errors"},
          tooling::ArgumentInsertPosition::END));
    }
    tool.setPrintErrorMessage(false);
    tool.setDiagnosticConsumer(&diagnostics);
    ActionFactory factory([&state] { return std::make_unique<FactAction>(state); });
    return tool.run(&factory);
  };
  if (plan.device_pass) {
    state.last_pass = false;
    run_pass(true);
    state.skipped_in_earlier_pass = std::move(state.skipped);
    state.skipped.assign(out.size(), {});
    state.had_earlier_pass = true;
    state.last_pass = true;
  }
  Parsed parsed;
  parsed.status = run_pass(false);
  parsed.over_budget = state.over_budget;
  // Errors of a parse stopped by the budget depend on where it stopped: none is kept.
  if (!state.over_budget) {
    parsed.fatal_error = diagnostics.fatal;
    for (size_t i = 0; i < out.size(); ++i) {
      out[i].error_count = members.empty() ? diagnostics.getNumErrors() : diagnostics.errors_in[i];
      if (diagnostics.fatal_in && *diagnostics.fatal_in == i) {
        out[i].fatal_error = diagnostics.fatal;
        out[i].fatal_error_at = {diagnostics.fatal_at, diagnostics.fatal_at};
      } else if (members.empty()) {
        out[i].fatal_error = diagnostics.fatal;  // stopped elsewhere (an included header): at offset 0
      }
    }
  }
  return parsed;
}

NativeFile ClangParser::parse(const SourceFile& file) {
  if (std::optional<NativeFile> lexical = read_in_tokens(file)) return std::move(*lexical);
  return parse_alone(file, plan(file));
}

// A file generated to split one template's compilation (flash-attention's hundreds of
// `flash_fwd_hdim128_bf16_sm80.cu`, one per head size, type and architecture) holds no code of its
// own: parsed by Clang, each loads the template's headers (CUTLASS, CuTe) to instantiate it, and its
// facts are those of its tokens (add_template_instantiations, the API names, its includes). It is read
// in its tokens alone when nothing in it needs the preprocessor: no compile command of the user's, no
// device-only code, no directive but #include, #pragma and #ifdef/#ifndef/#else/#endif (whose branches
// are taken as active, as a parse without -D flags takes them unless a header defines the macro), no
// brace but a namespace's (a specialization with a body is parsed), and each #include resolving to a
// header of the tree (main_include_headers: where the parse finds it).
std::optional<NativeFile> ClangParser::instantiation_file(const SourceFile& file) const {
  if (!options_.read_instantiation_files_in_tokens) return std::nullopt;
  if (options_.compile_database && options_.compile_database->command_for(file.absolute_path(), file.language()))
    return std::nullopt;
  const std::string_view text = file.text();
  if (text.find("template") == std::string_view::npos || text.find("__CUDA_ARCH__") != std::string_view::npos)
    return std::nullopt;
  LangOptions lang;
  lang.CPlusPlus = lang.CPlusPlus11 = lang.CPlusPlus14 = lang.CPlusPlus17 = true;
  lang.LineComment = lang.Bool = true;
  lang.CUDA = written_in_cuda(file);
  LexicalFile tokens(text, raw_tokens(text, 0, text, lang), {});
  const auto& t = tokens.tokens();
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].in_directive && t[i].text == "#" && i + 1 < t.size() && t[i + 1].in_directive) {
      const std::string_view d = t[i + 1].text;
      if (d != "include" && d != "pragma" && d != "ifdef" && d != "ifndef" && d != "else" && d != "endif")
        return std::nullopt;
    }
    // A specialization's body is a function of the file's, with calls a parse resolves (and
    // qualifies with namespaces a macro may name): only a namespace's braces are read here.
    if (t[i].text == "{" && !t[i].in_directive) {
      size_t j = i;
      while (j > 0 && !tokens.is(j - 1, "namespace") && (tokens.identifier(j - 1) || tokens.is(j - 1, "::"))) --j;
      if (j == 0 || !tokens.is(j - 1, "namespace")) return std::nullopt;
    }
  }
  // A file that defines a kernel is no instantiation file (add_template_instantiations).
  NativeFile probe;
  if (lang.CUDA) add_lexical_kernels(tokens, probe);
  add_template_instantiations(tokens, probe);
  if (probe.instantiated_templates.empty()) return std::nullopt;
  NativeFile out;
  out.language = file.language();
  const SourceTree tree(tree_root_of(file));
  add_lexical_includes(tokens, out);
  const std::vector<std::pair<SpelledInclude, std::string>> headers = main_include_headers(file, tree);
  for (IncludeFact& inc : out.includes) {
    auto header = std::find_if(headers.begin(), headers.end(), [&](const auto& h) {
      return h.first.path == inc.spelled && h.first.quoted == !inc.angled;
    });
    if (header == headers.end() || header->second.empty()) return std::nullopt;
    inc.resolved = header->second;
  }
  add_facts_of_tokens(tokens, text, lang, out);
  return out;
}

// Whether an #include that is not the tree's is found where a header-free parse looks outside the
// tree: Clang's resource directory and the system's include directories (the toolchain
// directories the parse may read), the C++ library's among them; a quoted include neither beside
// its file nor in the tree is looked for there too.
bool found_outside_tree(const std::string& spelled) {
  if (spelled.empty() || spelled.starts_with('/')) return false;
  if (is_standard_library_header(spelled)) return true;
  static const std::vector<fs::path> kDirectories = [] {
    std::vector<fs::path> dirs = {fs::path(TPULINT_CLANG_RESOURCE_DIR) / "include", "/usr/local/include",
                                  "/usr/include/x86_64-linux-gnu", "/usr/include"};
    // The newest GCC's C++ library, as Clang's driver picks it.
    for (const fs::path& base : {fs::path("/usr/include/c++"), fs::path("/usr/include/x86_64-linux-gnu/c++")}) {
      std::error_code ec;
      std::vector<fs::path> versions;
      for (const fs::directory_entry& e : fs::directory_iterator(base, ec)) versions.push_back(e.path());
      std::sort(versions.begin(), versions.end(), [](const fs::path& a, const fs::path& b) {
        return std::atoi(a.filename().c_str()) < std::atoi(b.filename().c_str());
      });
      if (!versions.empty()) dirs.push_back(versions.back());
    }
    return dirs;
  }();
  std::error_code ec;
  for (const fs::path& dir : kDirectories) {
    // Within the directory only: `../../etc/passwd` is no header of it (the parse's file system
    // refuses it too), and nothing outside the toolchain's directories is even looked at.
    const fs::path candidate = (dir / spelled).lexically_normal();
    const fs::path inside = candidate.lexically_relative(dir);
    if (inside.empty() || *inside.begin() == "..") continue;
    if (fs::is_regular_file(candidate, ec)) return true;
  }
  return false;
}

// The built-in declarations' macros (the CUDA keywords, C10_HOST_DEVICE, ...): a file using one of
// their device macros has device code, and a condition on one of theirs needs the parse.
const MacroIndex& built_in_macros() {
  static const MacroIndex index = macros_of({{kCudaShimPath, kCudaShim}, {kTorchShimPath, kTorchShim}});
  return index;
}

// The namespaces the built-in declarations open (at, c10, torch, pybind11, cuda, ...), and those
// of them that bring in names declared elsewhere (a using-directive, a using-declaration of a
// qualified name, a namespace alias): a parse names a call it resolves by its declaration's
// namespaces (`torch::empty` is `at::empty`, `at::cuda::getCurrentCUDAStream` is c10's, `py::cast`
// pybind11's), the tokens as written.
struct BuiltInNamespaces {
  std::set<std::string, std::less<>> opened;
  std::set<std::string, std::less<>> reexporting;  // by path: "at::cuda", "torch", "py"
};

const BuiltInNamespaces& built_in_namespaces() {
  static const BuiltInNamespaces spaces = [] {
    BuiltInNamespaces out;
    LangOptions lang;
    lang.CPlusPlus = lang.CPlusPlus17 = true;
    for (std::string_view shim : {std::string_view(kCudaShim), std::string_view(kTorchShim)}) {
      std::string text(shim);  // null-terminated for the lexer
      const std::vector<LexToken> t = raw_tokens(text, 0, text, lang);
      std::vector<std::string> scopes;  // per open brace: the namespace path inside it
      auto current = [&] { return scopes.empty() ? std::string() : scopes.back(); };
      auto joined = [](const std::string& path, std::string_view name) {
        return path.empty() ? std::string(name) : path + "::" + std::string(name);
      };
      for (size_t i = 0; i < t.size(); ++i) {
        if (t[i].in_directive) continue;
        if (t[i].text == "namespace") {
          std::string path = current();
          size_t j = i + 1;
          for (; j < t.size() && (t[j].kind == LexToken::Identifier || t[j].text == "::"); ++j)
            if (t[j].kind == LexToken::Identifier) {
              path = joined(path, t[j].text);
              out.opened.emplace(t[j].text);
            }
          if (j < t.size() && t[j].text == "=") out.reexporting.insert(path);  // an alias
          if (j < t.size() && t[j].text == "{") {
            scopes.push_back(path);
            i = j;
          }
        } else if (t[i].text == "{") {
          scopes.push_back(current());
        } else if (t[i].text == "}") {
          if (!scopes.empty()) scopes.pop_back();
        } else if (t[i].text == "using" && i + 2 < t.size() &&
                   (t[i + 1].text == "namespace" || t[i + 1].text == "::" || t[i + 2].text == "::")) {
          if (!current().empty()) out.reexporting.insert(current());
        }
      }
    }
    return out;
  }();
  return spaces;
}

// Whether the tokens after `at` (a `namespace` or `using`) name a namespace the built-in
// declarations open: an unqualified call there may resolve to one of their declarations, which a
// parse names with its namespace (apex's `getDeviceProperties` inside `namespace at { namespace cuda {`).
bool names_built_in_namespace(const std::vector<LexToken>& t, size_t at) {
  const auto& opened = built_in_namespaces().opened;
  for (size_t j = at + 1; j < t.size() && (t[j].kind == LexToken::Identifier || t[j].text == "::"); ++j)
    if (t[j].kind == LexToken::Identifier && opened.contains(t[j].text)) return true;
  return false;
}

// Whether the call named by the identifier at `name` (followed by '(') is qualified through a
// namespace of the built-in declarations that brings in names declared elsewhere.
bool qualified_through_reexport(const std::vector<LexToken>& t, size_t name) {
  size_t first = name;
  while (first >= 2 && t[first - 1].text == "::" && t[first - 2].kind == LexToken::Identifier) first -= 2;
  const auto& reexporting = built_in_namespaces().reexporting;
  std::string path;
  for (size_t k = first; k < name; k += 2) {
    path = path.empty() ? std::string(t[k].text) : path + "::" + std::string(t[k].text);
    if (reexporting.contains(path)) return true;
  }
  return false;
}

// A file of C++ or CUDA host code: no kernel, device function, launch or inline assembly in its
// words (mentions_device_code) nor in a macro of the tree or of the built-in declarations it uses,
// no compile command of the user's, and every preprocessor condition decided by names the tree
// never defines (so its headers cannot), the file's own #defines and a few the compiler always
// sets or never does on this target, no namespace of the built-in declarations opened or brought
// in by `using` (names_built_in_namespace), no call qualified through one that brings in names
// declared elsewhere (qualified_through_reexport), no use of a macro that calls its parameter
// (MacroIndex::calls_parameter) and no directive but those of kDirectives. Its facts are then those a parse takes from its
// tokens, with the branches the parse would skip and its includes resolved as the parse resolves
// them, less its host function definitions (NativeFile::functions).
std::optional<NativeFile> ClangParser::host_file(const SourceFile& file) const {
  if (!options_.read_host_files_in_tokens || header_free_mode(file) == HeaderFreeMode::C) return std::nullopt;
  if (options_.compile_database && options_.compile_database->command_for(file.absolute_path(), file.language()))
    return std::nullopt;
  const std::string_view text = file.text();
  const bool cuda = written_in_cuda(file);
  if (mentions_device_code(text, cuda)) return std::nullopt;
  const SourceTree tree(tree_root_of(file));
  const std::shared_ptr<const MacroIndex> project = project_macros(tree);
  const MacroIndex& built_in = built_in_macros();
  LangOptions lang;
  lang.CPlusPlus = lang.CPlusPlus11 = lang.CPlusPlus14 = lang.CPlusPlus17 = true;
  lang.LineComment = lang.Bool = true;
  lang.CUDA = cuda;
  std::vector<LexToken> tokens = raw_tokens(text, 0, text, lang);
  const MacroIndex own = macros_of({{file.path(), text}});
  const auto& project_device = cuda ? project->device_in_cuda : project->device;
  const auto& built_in_device = cuda ? built_in.device_in_cuda : built_in.device;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const LexToken& t = tokens[i];
    if (t.kind != LexToken::Identifier) continue;
    // A macro with device code, or one whose use names a call the tokens do not show.
    const std::string word(t.text);
    if (project_device.contains(word) || built_in_device.contains(word) || project->calls_parameter.contains(word) ||
        own.calls_parameter.contains(word))
      return std::nullopt;
    if ((t.text == "namespace" || t.text == "using") && names_built_in_namespace(tokens, i)) return std::nullopt;
    if (i + 1 < tokens.size() && tokens[i + 1].text == "(" && qualified_through_reexport(tokens, i)) return std::nullopt;
  }
  static const std::set<std::string, std::less<>> kAlwaysDefined = {"__cplusplus", "__linux__", "__unix__",
                                                                    "__GNUC__",    "__clang__", "__x86_64__"};
  static const std::set<std::string, std::less<>> kNeverDefined = {
      "_WIN32", "_WIN64", "_MSC_VER", "__APPLE__", "__MINGW32__", "__HIP_PLATFORM_AMD__", "__HIP_PLATFORM_HCC__",
      "__HIPCC__", "__HIP__", "__CUDACC_RTC__"};
  const std::string own_path = file.path();
  auto state = [&](std::string_view name) {
    if (kAlwaysDefined.contains(name)) return MacroState::Defined;
    if (kNeverDefined.contains(name)) return MacroState::Undefined;
    // The compiler's and the libraries' own names, and the built-in declarations': the parse knows.
    if (name.starts_with('_') || built_in.defined_in.contains(std::string(name))) return MacroState::Unknown;
    auto it = project->defined_in.find(std::string(name));
    if (it == project->defined_in.end()) return MacroState::Undefined;
    // Defined in this file only: its own #defines before the condition decide.
    if (it->second.size() == 1 && it->second.front() == own_path) return MacroState::Undefined;
    return MacroState::Unknown;
  };
  const LexicalFile bare(text, tokens, {});
  // Directives this reading knows (an Objective-C #import or an #include_next includes a file it
  // would not record).
  static const std::set<std::string, std::less<>> kDirectives = {
      "include", "define", "undef", "if", "ifdef", "ifndef", "elif", "else", "endif", "pragma", "error", "warning", "line"};
  for (auto [b, e] : directives(bare))
    if (b + 1 < e && !kDirectives.contains(bare.tokens()[b + 1].text)) return std::nullopt;
  std::optional<std::vector<ByteSpan>> inactive = inactive_branches(bare, state);
  if (!inactive) return std::nullopt;
  NativeFile out;
  out.language = file.language();
  const LexicalFile lexical(text, std::move(tokens), std::move(*inactive));
  // The includes the preprocessor enters, as the parse records them; then those it skipped.
  NativeFile written;
  add_lexical_includes(lexical, written);
  const std::vector<std::pair<SpelledInclude, std::string>> headers = main_include_headers(file, tree);
  for (IncludeFact& inc : written.includes) {
    if (lexical.inactive(inc.span.begin)) continue;
    auto header = std::find_if(headers.begin(), headers.end(), [&](const auto& h) {
      return h.first.path == inc.spelled && h.first.quoted == !inc.angled;
    });
    inc.resolved = header == headers.end() ? std::string() : header->second;
    inc.found = !inc.resolved.empty() || found_outside_tree(inc.spelled);
    out.includes.push_back(std::move(inc));
  }
  add_facts_of_tokens(lexical, text, lang, out);
  return out;
}

NativeFile ClangParser::parse_alone(const SourceFile& file, ParsePlan plan) {
  NativeFile out;
  out.language = file.language();
  RecordedFiles recorded({});
  Parsed parsed = run(std::move(plan), file.absolute_path().string(), file.text(), {}, recorded, std::span(&out, 1),
                      options_.time_budget);
  // run() returns nonzero whenever the file had errors, which is normal without headers; the
  // facts were still recorded. Status 2 is "no AST at all" (e.g. the driver rejected the flags).
  if (parsed.status == 2) throw std::runtime_error("Clang could not parse the file (invalid compile command)");
  return out;
}

std::vector<NativeFile> ClangParser::parse_together(std::span<const SourceFile> files) {
  std::vector<NativeFile> out(files.size());
  std::vector<ParsePlan> plans(files.size());
  std::vector<bool> parsed(files.size(), false);
  for (size_t i = 0; i < files.size(); ++i) {
    if (std::optional<NativeFile> lexical = read_in_tokens(files[i])) {
      out[i] = std::move(*lexical);
      parsed[i] = true;
    } else {
      plans[i] = plan(files[i]);
    }
  }
  // Planned once: a plan reads the headers the file reaches.
  auto alone = [&](size_t i) {
    out[i] = parse_alone(files[i], plans[i]);
    parsed[i] = true;
  };
  for (size_t i = 0; i < files.size(); ++i) {
    if (parsed[i]) continue;
    std::vector<size_t> batch = {i};
    if (batchable(files[i], plans[i]))
      for (size_t j = i + 1; j < files.size(); ++j)
        if (!parsed[j] && batchable(files[j], plans[j]) && plans[j].flags == plans[i].flags &&
            plans[j].device_pass == plans[i].device_pass && plans[j].header_free_mode == plans[i].header_free_mode)
          batch.push_back(j);
    if (batch.size() == 1) {
      alone(i);
      continue;
    }
    std::vector<std::optional<NativeFile>> facts = parse_batch(files, plans, batch);
    for (size_t k = 0; k < batch.size(); ++k) {
      if (facts.empty() || !facts[k]) {
        alone(batch[k]);
      } else {
        out[batch[k]] = std::move(*facts[k]);
        parsed[batch[k]] = true;
      }
    }
  }
  return out;
}

// A header may share a parse with others of its plan when it is parsed without a compile
// database, and its path can be written in an #include line.
bool ClangParser::batchable(const SourceFile& file, const ParsePlan& plan) {
  if (plan.used_compile_database || !plan.header_free_mode) return false;
  const std::string path = file.absolute_path().string();
  return path.find_first_of("\"\n\r\\") == std::string::npos;
}

std::vector<std::optional<NativeFile>> ClangParser::parse_batch(std::span<const SourceFile> files,
                                                                std::span<const ParsePlan> plans,
                                                                std::span<const size_t> batch) {
  ParsePlan plan = plans[batch.front()];
  // Nothing precompiled: the batch's headers are its preamble (their bodies are parsed), and a
  // header must see only the standard headers it includes (RecordedFiles), read as they are met.
  plan.preamble.clear();
  plan.standard_headers.clear();
  std::string main_text;
  std::vector<std::string> member_paths;
  std::vector<const SourceFile*> members;
  for (size_t i : batch) {
    member_paths.push_back(files[i].absolute_path().string());
    members.push_back(&files[i]);
    main_text += "#include \"" + member_paths.back() + "\"\n";
  }
  std::vector<NativeFile> out(batch.size());
  RecordedFiles recorded(member_paths);
  const auto budget = options_.time_budget * int64_t(batch.size());
  Parsed parsed = run(std::move(plan), kBatchPath, main_text, members, recorded, out, budget);
  // Stopped by the budget or a fatal error, or no AST: the headers are parsed alone instead, each
  // with its own budget, so that one header's trouble is its own.
  if (parsed.status == 2 || parsed.over_budget || !parsed.fatal_error.empty()) return {};
  std::vector<std::optional<NativeFile>> facts(batch.size());
  for (size_t k = 0; k < batch.size(); ++k) {
    // A header the batch never entered (another defined its include guard) or that conflicts with
    // what came before it is parsed alone.
    if (!recorded.was_entered(k) || recorded.conflicted(k)) continue;
    out[k].language = files[batch[k]].language();
    out[k].parsed_together = true;
    facts[k] = std::move(out[k]);
  }
  return facts;
}

}  // namespace

}  // namespace tpulint::cxx

// The module's one exported symbol (everything else in it is hidden).
extern "C" __attribute__((visibility("default"))) const tpulint::cxx::ClangModule* tpulint_clang_module_v2() {
  using namespace tpulint::cxx;
  static const ClangModule module{
      .interface = kClangInterface,
      .version = tpulint::kToolVersion,
      .make_parser = [](ClangFrontendOptions options) -> std::unique_ptr<NativeParser> {
        return std::make_unique<ClangParser>(std::move(options));
      },
  };
  return &module;
}
