// Link.cpp - linking external device code into a kernel's module (see Link.h).
#include "compiler/Link.h"

#include "ir/CallGraph.h"

#include <llvm/ADT/Triple.h>
#include <llvm/AsmParser/Parser.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>

namespace dpk::compiler {

namespace {

std::string extensionOf(const std::string &path) {
  size_t slash = path.find_last_of('/');
  size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot + 1);
  for (char &c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

Error linkError(const std::string &message) { return Error(DPK_ERROR_LINK, "link: " + message); }

/// "i32(i32, i32)"-style text of an LLVM function type, for mismatch messages.
std::string llvmTypeText(llvm::Type *type) {
  std::string text;
  llvm::raw_string_ostream out(text);
  type->print(out);
  return out.str();
}

/// The inputs `target` can use, in order.
std::vector<const LinkInput *> usableInputs(const CompileOptions &options) {
  std::vector<const LinkInput *> usable;
  for (const LinkInput &input : options.linkInputs)
    if (targetLinks(options.target, linkFileKind(input.path))) usable.push_back(&input);
  return usable;
}

/// "a.cl (OpenCL C source: OpenCL devices), b.ptx (PTX: CUDA devices)" for the inputs the
/// target does not use, to say in a missing-symbol message why they were not looked at.
std::string ignoredInputs(const CompileOptions &options) {
  std::string text;
  for (const LinkInput &input : options.linkInputs) {
    LinkFileKind kind = linkFileKind(input.path);
    if (targetLinks(options.target, kind)) continue;
    if (!text.empty()) text += ", ";
    text += input.path + " (" + linkFileKindName(kind) + ": " + linkFileKindUsers(kind) + ")";
  }
  return text;
}

std::string fileList(const std::vector<const LinkInput *> &inputs) {
  std::string text;
  for (const LinkInput *input : inputs) text += (text.empty() ? "" : ", ") + input->path;
  return text;
}

Error missingSymbol(const ir::Function &external, const CompileOptions &options,
                    const std::vector<const LinkInput *> &searched, const std::string &hint) {
  std::string message = "symbol '" + external.name + "' (declared " +
                        externalSignature(external) + ") is not defined by " +
                        (searched.size() == 1 ? "the file " : "any of the files ") +
                        fileList(searched) + " linked for target " +
                        targetName(options.target);
  std::string ignored = ignoredInputs(options);
  if (!ignored.empty()) message += " (not used on this target: " + ignored + ")";
  if (!hint.empty()) message += "; " + hint;
  return linkError(message);
}

bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

/// The positions where `name` occurs as a whole identifier in `text`.
std::vector<size_t> identifierOccurrences(const std::string &text, const std::string &name) {
  std::vector<size_t> found;
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    bool before = at > 0 && isIdentChar(text[at - 1]);
    bool after = at + name.size() < text.size() && isIdentChar(text[at + name.size()]);
    if (!before && !after) found.push_back(at);
  }
  return found;
}

// ---- OpenCL C ---------------------------------------------------------------------------

/// `source` with comments and preprocessor lines blanked (newlines kept), for the light parse.
std::string withoutComments(const std::string &source) {
  std::string out = source;
  size_t i = 0;
  bool lineStart = true;
  while (i < out.size()) {
    if (out.compare(i, 2, "//") == 0) {
      while (i < out.size() && out[i] != '\n') out[i++] = ' ';
    } else if (out.compare(i, 2, "/*") == 0) {
      size_t end = out.find("*/", i + 2);
      end = end == std::string::npos ? out.size() : end + 2;
      for (; i < end; ++i)
        if (out[i] != '\n') out[i] = ' ';
    } else if (lineStart && out[i] == '#') {
      while (i < out.size() && out[i] != '\n') out[i++] = ' ';
    } else if (out[i] == '"') {
      size_t start = i++;
      while (i < out.size() && out[i] != '"' && out[i] != '\n') i += out[i] == '\\' ? 2 : 1;
      for (size_t k = start; k < std::min(i + 1, out.size()); ++k) out[k] = ' ';
      ++i;
    } else {
      if (out[i] == '\n') lineStart = true;
      else if (!std::isspace(static_cast<unsigned char>(out[i]))) lineStart = false;
      ++i;
      continue;
    }
  }
  return out;
}

std::vector<std::string> words(const std::string &text) {
  std::vector<std::string> out;
  std::string current;
  auto flush = [&] {
    if (!current.empty()) out.push_back(current);
    current.clear();
  };
  for (char c : text) {
    if (isIdentChar(c)) {
      current += c;
    } else {
      flush();
      if (c == '*') out.push_back("*");
    }
  }
  flush();
  return out;
}

/// An OpenCL C type spelled by `tokens` as an IR type string ("i32", "ptr<global, f32>",
/// "void"), or "" when it is not one the light parse knows (a typedef, a vector type).
std::string openclTypeAsIr(std::vector<std::string> tokens) {
  std::string space = "private";
  int pointers = 0;
  bool isUnsigned = false, isSigned = false;
  std::vector<std::string> base;
  for (const std::string &t : tokens) {
    if (t == "*") ++pointers;
    else if (t == "__global" || t == "global") space = "global";
    else if (t == "__local" || t == "local") space = "local";
    else if (t == "__constant" || t == "constant") space = "constant";
    else if (t == "__generic" || t == "generic") space = "generic";
    else if (t == "__private" || t == "private") space = "private";
    else if (t == "const" || t == "restrict" || t == "__restrict" || t == "volatile" ||
             t == "inline" || t == "static" || t == "extern" || t == "__inline")
      continue;
    else if (t == "unsigned") isUnsigned = true;
    else if (t == "signed") isSigned = true;
    else base.push_back(t);
  }
  if (pointers > 1) return "";
  std::string b = base.empty() ? (isUnsigned || isSigned ? "int" : "") : base[0];
  if (base.size() == 2 && base[0] == "long" && base[1] == "long") b = "long";
  else if (base.size() == 2 && (base[1] == "int") && (base[0] == "long" || base[0] == "short"))
    b = base[0];
  else if (base.size() > 1) return "";
  static const std::map<std::string, std::string> scalars = {
      {"char", "i8"},    {"uchar", "u8"},  {"short", "i16"}, {"ushort", "u16"},
      {"int", "i32"},    {"uint", "u32"},  {"long", "i64"},  {"ulong", "u64"},
      {"float", "f32"},  {"double", "f64"}, {"half", "f16"}, {"bool", "bool"},
      {"void", "void"}};
  auto it = scalars.find(b);
  if (it == scalars.end()) return "";
  std::string scalar = it->second;
  if (isUnsigned && scalar[0] == 'i') scalar[0] = 'u';
  if (pointers == 1) return "ptr<" + space + ", " + scalar + ">";
  return scalar;
}

/// The IR type text the emitter's prototype of `type` corresponds to (f16 values are float in
/// OpenCL C variables; generic pointers are __global in OpenCL C 1.2).
std::string expectedOpenclType(const ir::Type &type) {
  if (type.isVoid()) return "void";
  if (type.isScalar())
    return type.scalar == ir::ScalarKind::F16 ? "f32" : ir::scalarName(type.scalar);
  std::string space = type.space == ir::AddressSpace::Generic
                          ? "global"
                          : ir::addressSpaceName(type.space);
  return "ptr<" + space + ", " + ir::scalarName(type.scalar) + ">";
}

struct ParsedDefinition {
  bool found = false;
  bool typesKnown = true; // every type mapped to an IR type
  std::string returnType;
  std::vector<std::string> params;
};

/// Finds a definition `T name(params) {` in OpenCL C text (comments stripped).
ParsedDefinition findOpenclDefinition(const std::string &text, const std::string &name) {
  ParsedDefinition result;
  for (size_t at : identifierOccurrences(text, name)) {
    size_t open = at + name.size();
    while (open < text.size() && std::isspace(static_cast<unsigned char>(text[open]))) ++open;
    if (open >= text.size() || text[open] != '(') continue;
    size_t close = text.find(')', open);
    if (close == std::string::npos) continue;
    size_t brace = close + 1;
    while (brace < text.size() && std::isspace(static_cast<unsigned char>(text[brace]))) ++brace;
    if (brace >= text.size() || text[brace] != '{') continue;
    // The return type: back from the name to the end of the previous declaration.
    size_t start = at;
    while (start > 0 && text[start - 1] != ';' && text[start - 1] != '}' &&
           text[start - 1] != '{' && text[start - 1] != ')')
      --start;
    result.found = true;
    std::vector<std::string> ret = words(text.substr(start, at - start));
    ret.erase(std::remove_if(ret.begin(), ret.end(),
                             [](const std::string &w) {
                               return w == "__attribute__" || w == "overloadable";
                             }),
              ret.end());
    result.returnType = openclTypeAsIr(ret);
    result.typesKnown = !result.returnType.empty();
    std::string params = text.substr(open + 1, close - open - 1);
    std::vector<std::string> pieces;
    size_t from = 0;
    for (size_t comma = params.find(','); ; comma = params.find(',', from)) {
      pieces.push_back(params.substr(from, comma == std::string::npos ? std::string::npos
                                                                       : comma - from));
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
    for (const std::string &piece : pieces) {
      std::vector<std::string> tokens = words(piece);
      if (tokens.empty()) continue;
      if (tokens.size() == 1 && tokens[0] == "void" && pieces.size() == 1) break;
      // The last word is the parameter's name unless the type ends the declaration.
      if (tokens.size() > 1 && tokens.back() != "*") tokens.pop_back();
      std::string type = openclTypeAsIr(tokens);
      if (type.empty()) result.typesKnown = false;
      result.params.push_back(type);
    }
    return result;
  }
  return result;
}

// ---- PTX --------------------------------------------------------------------------------

std::string ptxParamTypes(const std::string &list) {
  // ".param .b32 name" pieces: keep the type directive of each.
  std::string types;
  size_t at = 0;
  while ((at = list.find(".param", at)) != std::string::npos) {
    at += 6;
    while (at < list.size() && std::isspace(static_cast<unsigned char>(list[at]))) ++at;
    size_t end = at;
    while (end < list.size() && !std::isspace(static_cast<unsigned char>(list[end]))) ++end;
    std::string type = list.substr(at, end - at);
    // .b32/.s32/.u32/.f32 pass the same 32 bits; compare by class and width.
    std::string width;
    for (char c : type)
      if (std::isdigit(static_cast<unsigned char>(c))) width += c;
    bool isFloat = type.size() > 1 && type[1] == 'f';
    types += (types.empty() ? "" : ",") + std::string(isFloat ? "f" : "b") + width;
    at = end;
  }
  return types;
}

struct PtxSignature {
  bool found = false;
  bool isDefinition = false;
  size_t begin = 0, end = 0; // the declaration's text (end: after ';' or the body's '}')
  std::string result, params;
};

/// Finds `.func ... name(...)` in PTX text; for definitions `end` is past the body.
PtxSignature findPtxFunction(const std::string &ptx, const std::string &name) {
  PtxSignature sig;
  for (size_t at : identifierOccurrences(ptx, name)) {
    size_t lineStart = ptx.rfind('\n', at);
    lineStart = lineStart == std::string::npos ? 0 : lineStart + 1;
    size_t func = ptx.rfind(".func", at);
    if (func == std::string::npos || func < lineStart) continue;
    // The result: "( .param .b32 func_retval0 )" between .func and the name, if any.
    std::string between = ptx.substr(func + 5, at - func - 5);
    size_t open = ptx.find_first_not_of(" \t\r\n", at + name.size());
    if (open == std::string::npos || ptx[open] != '(') continue;
    size_t close = ptx.find(')', open);
    if (close == std::string::npos) continue;
    size_t next = ptx.find_first_not_of(" \t\r\n", close + 1);
    sig.found = true;
    sig.begin = lineStart;
    sig.result = ptxParamTypes(between);
    sig.params = ptxParamTypes(ptx.substr(open, close - open));
    if (next != std::string::npos && ptx[next] == ';') {
      sig.end = next + 1;
      return sig;
    }
    // A definition: the body's braces (after optional performance directives).
    size_t brace = ptx.find('{', close);
    if (brace == std::string::npos) return sig;
    int depth = 0;
    size_t i = brace;
    for (; i < ptx.size(); ++i) {
      if (ptx[i] == '{') ++depth;
      else if (ptx[i] == '}' && --depth == 0) break;
    }
    sig.isDefinition = true;
    sig.end = i < ptx.size() ? i + 1 : ptx.size();
    return sig;
  }
  return sig;
}

/// (major, minor) of the `.version` directive, or (0, 0).
std::pair<int, int> ptxVersion(const std::string &ptx) {
  size_t at = ptx.find(".version");
  if (at == std::string::npos) return {0, 0};
  int major = 0, minor = 0;
  if (std::sscanf(ptx.c_str() + at + 8, " %d.%d", &major, &minor) != 2) return {0, 0};
  return {major, minor};
}

/// The PTX text without its module header (.version, .target, .address_size lines).
std::string ptxBody(const std::string &ptx) {
  std::string out;
  size_t from = 0;
  while (from < ptx.size()) {
    size_t end = ptx.find('\n', from);
    if (end == std::string::npos) end = ptx.size();
    std::string line = ptx.substr(from, end - from);
    size_t first = line.find_first_not_of(" \t");
    bool header = first != std::string::npos &&
                  (line.compare(first, 8, ".version") == 0 ||
                   line.compare(first, 7, ".target") == 0 ||
                   line.compare(first, 13, ".address_size") == 0);
    if (!header) out += line + "\n";
    from = end + 1;
  }
  return out;
}

// ---- NVRTC (loaded at run time) -------------------------------------------------------------

struct Nvrtc {
  using Create = int (*)(void **, const char *, const char *, int, const char *const *,
                         const char *const *);
  using Compile = int (*)(void *, int, const char *const *);
  using GetSize = int (*)(void *, size_t *);
  using Get = int (*)(void *, char *);
  using Destroy = int (*)(void **);
  Create create = nullptr;
  Compile compile = nullptr;
  GetSize ptxSize = nullptr;
  Get ptx = nullptr;
  GetSize logSize = nullptr;
  Get log = nullptr;
  Destroy destroy = nullptr;
  bool loaded() const { return create && compile && ptxSize && ptx && logSize && log && destroy; }
};

const Nvrtc &nvrtc() {
  static Nvrtc api;
  static std::once_flag once;
  std::call_once(once, [] {
    // DPK_NVRTC names the library; else the loader's search, then the toolkit's usual places.
    std::vector<std::string> names;
    if (const char *chosen = std::getenv("DPK_NVRTC"); chosen && *chosen) names.push_back(chosen);
    for (const char *name : {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2"})
      names.push_back(name);
    if (const char *home = std::getenv("CUDA_HOME"); home && *home)
      names.push_back(std::string(home) + "/lib64/libnvrtc.so");
    names.push_back("/usr/local/cuda/lib64/libnvrtc.so");
    void *handle = nullptr;
    for (const std::string &name : names)
      if ((handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL))) break;
    if (!handle) return;
    api.create = reinterpret_cast<Nvrtc::Create>(dlsym(handle, "nvrtcCreateProgram"));
    api.compile = reinterpret_cast<Nvrtc::Compile>(dlsym(handle, "nvrtcCompileProgram"));
    api.ptxSize = reinterpret_cast<Nvrtc::GetSize>(dlsym(handle, "nvrtcGetPTXSize"));
    api.ptx = reinterpret_cast<Nvrtc::Get>(dlsym(handle, "nvrtcGetPTX"));
    api.logSize = reinterpret_cast<Nvrtc::GetSize>(dlsym(handle, "nvrtcGetProgramLogSize"));
    api.log = reinterpret_cast<Nvrtc::Get>(dlsym(handle, "nvrtcGetProgramLog"));
    api.destroy = reinterpret_cast<Nvrtc::Destroy>(dlsym(handle, "nvrtcDestroyProgram"));
  });
  return api;
}

/// PTX of a CUDA C file, compiled for `arch` ("sm_86") with relocatable device code, so that
/// its `extern "C" __device__` functions stay as visible `.func` definitions.
Expected<std::string> compileCuda(const LinkInput &input, const std::string &arch) {
  const Nvrtc &api = nvrtc();
  if (!api.loaded())
    return linkError(input.path + ": CUDA C needs NVRTC (libnvrtc.so; DPK_NVRTC names another), "
                                  "which cannot be loaded here; link its PTX (.ptx) instead");
  void *program = nullptr;
  if (api.create(&program, input.contents.c_str(), input.path.c_str(), 0, nullptr, nullptr) != 0)
    return linkError(input.path + ": nvrtcCreateProgram failed");
  std::string archOption = "--gpu-architecture=compute_" + arch.substr(3);
  const char *options[] = {archOption.c_str(), "--relocatable-device-code=true"};
  int status = api.compile(program, 2, options);
  size_t logSize = 0;
  api.logSize(program, &logSize);
  std::string log(logSize, '\0');
  if (logSize) api.log(program, log.data());
  if (status != 0) {
    api.destroy(&program);
    return linkError(input.path + ": NVRTC could not compile it for " + arch + ":\n" + log);
  }
  size_t size = 0;
  api.ptxSize(program, &size);
  std::string ptx(size, '\0');
  api.ptx(program, ptx.data());
  api.destroy(&program);
  while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  return ptx;
}

} // namespace

// ---- kinds ------------------------------------------------------------------------------

LinkFileKind linkFileKind(const std::string &path) {
  std::string ext = extensionOf(path);
  if (ext == "ll") return LinkFileKind::LlvmText;
  if (ext == "bc") return LinkFileKind::LlvmBitcode;
  if (ext == "cl") return LinkFileKind::OpenCLC;
  if (ext == "ptx") return LinkFileKind::Ptx;
  if (ext == "cu") return LinkFileKind::CudaC;
  return LinkFileKind::Unknown;
}

const char *linkFileKindName(LinkFileKind kind) {
  switch (kind) {
  case LinkFileKind::LlvmText: return "LLVM IR";
  case LinkFileKind::LlvmBitcode: return "LLVM bitcode";
  case LinkFileKind::OpenCLC: return "OpenCL C source";
  case LinkFileKind::Ptx: return "PTX";
  case LinkFileKind::CudaC: return "CUDA C source";
  case LinkFileKind::Unknown: return "unknown";
  }
  return "unknown";
}

bool targetLinks(TargetKind target, LinkFileKind kind) {
  switch (kind) {
  case LinkFileKind::LlvmText:
  case LinkFileKind::LlvmBitcode:
    return target == TargetKind::Host || target == TargetKind::SpirV || target == TargetKind::Ptx;
  case LinkFileKind::OpenCLC: return target == TargetKind::OpenCLC;
  case LinkFileKind::Ptx:
  case LinkFileKind::CudaC: return target == TargetKind::Ptx;
  case LinkFileKind::Unknown: return false;
  }
  return false;
}

const char *linkFileKindUsers(LinkFileKind kind) {
  switch (kind) {
  case LinkFileKind::LlvmText:
  case LinkFileKind::LlvmBitcode: return "host, SPIR-V and PTX targets";
  case LinkFileKind::OpenCLC: return "OpenCL devices compiled from OpenCL C";
  case LinkFileKind::Ptx:
  case LinkFileKind::CudaC: return "CUDA devices";
  case LinkFileKind::Unknown: return "no target";
  }
  return "no target";
}

std::vector<const ir::Function *> reachedExternals(const ir::Module &module) {
  std::vector<const ir::Function *> kernels;
  for (const auto &function : module.functions)
    if (function->isKernel) kernels.push_back(function.get());
  ir::CallGraph graph = ir::buildCallGraph(module);
  std::vector<const ir::Function *> reached = ir::calleesFirst(graph, kernels);
  std::set<const ir::Function *> reachedSet(reached.begin(), reached.end());
  std::vector<const ir::Function *> externals;
  for (const auto &function : module.functions)
    if (function->isExternal && reachedSet.count(function.get())) externals.push_back(function.get());
  return externals;
}

std::string externalSignature(const ir::Function &function) {
  std::string text = ir::typeToString(function.returnType) + "(";
  for (size_t i = 0; i < function.params.size(); ++i)
    text += (i ? ", " : "") + ir::typeToString(function.params[i]->type);
  return text + ")";
}

Error checkLinkInputs(const ir::Module &module, const CompileOptions &options) {
  for (const LinkInput &input : options.linkInputs)
    if (linkFileKind(input.path) == LinkFileKind::Unknown)
      return linkError(input.path + ": unknown kind of file (link .ll, .bc, .cl, .ptx or .cu)");
  std::vector<const ir::Function *> externals = reachedExternals(module);
  if (externals.empty() || !usableInputs(options).empty()) return Error::success();
  if (options.linkInputs.empty())
    return linkError("symbol '" + externals[0]->name + "' (declared " +
                     externalSignature(*externals[0]) +
                     ") is external, but no file is linked for target " +
                     targetName(options.target));
  return linkError("no linked file can serve target " + std::string(targetName(options.target)) +
                   ", which needs symbol '" + externals[0]->name + "': " + ignoredInputs(options));
}

// ---- LLVM IR and bitcode ---------------------------------------------------------------------

Error linkLlvmInputs(llvm::Module &llvmModule, const ir::Module &module,
                     const CompileOptions &options, bool deferUndefined) {
  if (Error error = checkLinkInputs(module, options)) return error;
  std::vector<const ir::Function *> externals = reachedExternals(module);
  std::vector<const LinkInput *> searched;
  std::set<std::string> defined;
  llvm::Triple ours(llvmModule.getTargetTriple());
  for (const LinkInput *input : usableInputs(options)) {
    LinkFileKind kind = linkFileKind(input->path);
    if (kind != LinkFileKind::LlvmText && kind != LinkFileKind::LlvmBitcode) continue;
    searched.push_back(input);
    std::unique_ptr<llvm::Module> linked;
    auto buffer = llvm::MemoryBuffer::getMemBuffer(input->contents, input->path, false);
    if (kind == LinkFileKind::LlvmText) {
      llvm::SMDiagnostic diagnostic;
      linked = llvm::parseAssembly(*buffer, diagnostic, llvmModule.getContext());
      if (!linked) {
        std::string text;
        llvm::raw_string_ostream out(text);
        diagnostic.print(nullptr, out, false);
        return linkError(input->path + ": not valid LLVM 15 IR for target " +
                         targetName(options.target) + ": " + out.str());
      }
    } else {
      llvm::Expected<std::unique_ptr<llvm::Module>> read =
          llvm::parseBitcodeFile(buffer->getMemBufferRef(), llvmModule.getContext());
      if (!read) {
        std::string why = llvm::toString(read.takeError());
        // SPIR-V lowers with typed pointers (the translator's LLVM 15 reads no others), and
        // llvm-as-15 writes opaque-pointer bitcode by default: such a file is read in a
        // context of its own and moved over as text, which works while it uses no pointers.
        llvm::LLVMContext opaque;
        llvm::Expected<std::unique_ptr<llvm::Module>> again =
            llvm::parseBitcodeFile(buffer->getMemBufferRef(), opaque);
        if (again) {
          std::string text;
          llvm::raw_string_ostream out(text);
          (*again)->print(out, nullptr);
          llvm::SMDiagnostic diagnostic;
          linked = llvm::parseAssemblyString(out.str(), diagnostic, llvmModule.getContext());
        } else {
          llvm::consumeError(again.takeError());
        }
        if (!linked)
          return linkError(input->path + ": not valid LLVM 15 bitcode for target " +
                           targetName(options.target) + ": " + why +
                           (options.target == TargetKind::SpirV
                                ? " (SPIR-V takes typed pointers: make the file with "
                                  "llvm-as-15 -opaque-pointers=0)"
                                : ""));
      } else {
        linked = std::move(*read);
      }
    }
    // A file built for another architecture cannot serve this target; one without a triple
    // serves every LLVM target.
    llvm::Triple theirs(linked->getTargetTriple());
    if (!linked->getTargetTriple().empty() && theirs.getArch() != ours.getArch()) {
      searched.pop_back();
      continue;
    }
    linked->setTargetTriple(llvmModule.getTargetTriple());
    linked->setDataLayout(llvmModule.getDataLayout());

    std::vector<std::string> provides;
    for (const ir::Function *external : externals) {
      llvm::Function *definition = linked->getFunction(external->name);
      if (!definition || definition->isDeclaration() || defined.count(external->name)) continue;
      llvm::Function *declaration = llvmModule.getFunction(external->name);
      if (!declaration) continue; // reached but not called on this path (dead code)
      if (definition->getFunctionType() != declaration->getFunctionType())
        return linkError(input->path + ": symbol '" + external->name + "' is defined as " +
                         llvmTypeText(definition->getFunctionType()) + ", but declared " +
                         externalSignature(*external) + ", which is " +
                         llvmTypeText(declaration->getFunctionType()) + " on target " +
                         targetName(options.target));
      provides.push_back(external->name);
    }
    if (provides.empty()) continue;
    if (options.target == TargetKind::SpirV) {
      // SPIR-V device functions and their calls use spir_func.
      for (llvm::Function &function : *linked) {
        if (function.getCallingConv() == llvm::CallingConv::SPIR_KERNEL) continue;
        function.setCallingConv(llvm::CallingConv::SPIR_FUNC);
        for (llvm::BasicBlock &block : function)
          for (llvm::Instruction &inst : block)
            if (auto *call = llvm::dyn_cast<llvm::CallInst>(&inst))
              if (call->getCallingConv() == llvm::CallingConv::C)
                call->setCallingConv(llvm::CallingConv::SPIR_FUNC);
      }
    }
    if (llvm::Linker::linkModules(llvmModule, std::move(linked),
                                  llvm::Linker::Flags::LinkOnlyNeeded))
      return linkError(input->path + ": LLVM could not link it for target " +
                       targetName(options.target));
    for (const std::string &name : provides) {
      defined.insert(name);
      if (llvm::Function *function = llvmModule.getFunction(name))
        function->setLinkage(llvm::GlobalValue::InternalLinkage);
    }
  }
  if (deferUndefined) return Error::success();
  for (const ir::Function *external : externals) {
    if (defined.count(external->name) || !llvmModule.getFunction(external->name)) continue;
    return missingSymbol(*external, options, searched, "");
  }
  return Error::success();
}

// ---- OpenCL C -----------------------------------------------------------------------------

Expected<std::string> linkOpenCLCInputs(const ir::Module &module, const CompileOptions &options,
                                        std::string source) {
  if (Error error = checkLinkInputs(module, options)) return error;
  std::vector<const LinkInput *> inputs = usableInputs(options);
  std::vector<std::string> stripped;
  for (const LinkInput *input : inputs) stripped.push_back(withoutComments(input->contents));
  for (const ir::Function *external : reachedExternals(module)) {
    bool found = false;
    for (size_t i = 0; i < inputs.size() && !found; ++i) {
      ParsedDefinition definition = findOpenclDefinition(stripped[i], external->name);
      if (!definition.found) continue;
      found = true;
      if (!definition.typesKnown) continue; // a typedef or vector type: the OpenCL compiler checks
      std::string theirs = definition.returnType + "(";
      for (size_t p = 0; p < definition.params.size(); ++p)
        theirs += (p ? ", " : "") + definition.params[p];
      theirs += ")";
      std::string expected = expectedOpenclType(external->returnType) + "(";
      for (size_t p = 0; p < external->params.size(); ++p)
        expected += (p ? ", " : "") + expectedOpenclType(external->params[p]->type);
      expected += ")";
      if (theirs != expected)
        return linkError(inputs[i]->path + ": symbol '" + external->name + "' is defined as " +
                         theirs + ", but declared " + externalSignature(*external) +
                         " (in OpenCL C " + expected + ") on target " +
                         targetName(options.target));
    }
    if (!found) return missingSymbol(*external, options, inputs, "");
  }
  for (const LinkInput *input : inputs)
    source += "\n// ---- linked: " + input->path + "\n#line 1 \"" + input->path + "\"\n" +
              input->contents + "\n";
  return source;
}

// ---- PTX ----------------------------------------------------------------------------------

Expected<std::string> linkPtxInputs(const ir::Module &module, const CompileOptions &options,
                                    std::string ptx) {
  std::vector<const ir::Function *> externals = reachedExternals(module);
  std::vector<const LinkInput *> searched;
  std::vector<std::pair<const LinkInput *, std::string>> texts; // PTX of each .ptx/.cu input
  std::string arch = options.targetId.empty() ? "sm_70" : options.targetId;
  // Code for the PTX target dpk emits (LLVM 15: sm_86 at most).
  if (arch.size() > 3 && std::atoi(arch.c_str() + 3) > 86) arch = "sm_86";
  bool anyCuda = false;
  for (const LinkInput &input : options.linkInputs) {
    LinkFileKind kind = linkFileKind(input.path);
    if (kind == LinkFileKind::LlvmText || kind == LinkFileKind::LlvmBitcode)
      searched.push_back(&input);
    if (kind != LinkFileKind::Ptx && kind != LinkFileKind::CudaC) continue;
    anyCuda |= kind == LinkFileKind::CudaC;
    searched.push_back(&input);
  }
  std::string merged;
  std::set<const LinkInput *> mergedInputs;
  std::pair<int, int> version = ptxVersion(ptx);
  for (const ir::Function *external : externals) {
    PtxSignature declared = findPtxFunction(ptx, external->name);
    if (!declared.found || declared.isDefinition) continue; // linked from LLVM IR, or unused
    bool found = false;
    for (const LinkInput *input : searched) {
      LinkFileKind kind = linkFileKind(input->path);
      if (kind != LinkFileKind::Ptx && kind != LinkFileKind::CudaC) continue;
      auto cached = std::find_if(texts.begin(), texts.end(),
                                 [&](const auto &entry) { return entry.first == input; });
      if (cached == texts.end()) {
        std::string text = input->contents;
        if (kind == LinkFileKind::CudaC) {
          Expected<std::string> compiled = compileCuda(*input, arch);
          if (!compiled) return compiled.takeError();
          text = std::move(*compiled);
        }
        texts.emplace_back(input, std::move(text));
        cached = texts.end() - 1;
      }
      PtxSignature definition = findPtxFunction(cached->second, external->name);
      if (!definition.found || !definition.isDefinition) continue;
      if (definition.result != declared.result || definition.params != declared.params)
        return linkError(input->path + ": symbol '" + external->name +
                         "' is defined with PTX parameters (" + definition.params +
                         ") -> (" + definition.result + "), but declared " +
                         externalSignature(*external) + ", which is (" + declared.params +
                         ") -> (" + declared.result + ") on target " +
                         targetName(options.target));
      found = true;
      std::pair<int, int> theirs = ptxVersion(cached->second);
      version = std::max(version, theirs);
      // The whole file joins once (its helpers with it), without its header.
      if (mergedInputs.insert(input).second)
        merged += "\n// ---- linked: " + input->path + "\n" + ptxBody(cached->second);
      break;
    }
    if (!found)
      return missingSymbol(*external, options, searched,
                           anyCuda ? "CUDA C definitions must be extern \"C\" __device__"
                                   : std::string());
    ptx.erase(declared.begin, declared.end - declared.begin);
  }
  if (merged.empty()) return ptx;
  // After the header: .version, .target and .address_size come first in dpk's PTX.
  size_t address = ptx.find(".address_size");
  size_t insertAt = address == std::string::npos ? 0 : ptx.find('\n', address);
  insertAt = insertAt == std::string::npos ? ptx.size() : insertAt + 1;
  ptx.insert(insertAt, merged + "\n");
  std::pair<int, int> ours = ptxVersion(ptx);
  if (version > ours) {
    size_t at = ptx.find(".version");
    size_t end = ptx.find('\n', at);
    ptx.replace(at, end - at,
                ".version " + std::to_string(version.first) + "." + std::to_string(version.second));
  }
  return ptx;
}

} // namespace dpk::compiler
