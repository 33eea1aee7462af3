// FakeModules.cpp - "JIT" of PTX (reading each .entry's parameter list, nothing more),
// functions, their attributes and launches.
#include "FakeCudaControl.h"
#include "FakeLaunchRecord.h"
#include "FakeState.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <sstream>
#include <string>

using namespace fake_cuda;

namespace {

std::mutex lastModuleMutex;
std::string lastModuleImage; // the PTX of the most recent cuModuleLoadDataEx

/// Byte size of a PTX parameter type (.u64, .f32, .b8 ...), 0 if it is none.
size_t typeSize(const std::string &type) {
  if (type.size() < 3 || type[0] != '.')
    return 0;
  char kind = type[1];
  if (kind != 'u' && kind != 's' && kind != 'b' && kind != 'f')
    return 0;
  std::string bits = type.substr(2);
  if (bits == "8")
    return 1;
  if (bits == "16")
    return 2;
  if (bits == "32")
    return 4;
  if (bits == "64")
    return 8;
  return 0;
}

/// One ".param [.ptr .global] [.align N] .type name[[M]]": its size and alignment, or false.
bool readParam(const std::string &text, size_t &size, size_t &alignment) {
  std::istringstream words(text);
  std::string word;
  if (!(words >> word) || word != ".param")
    return false;
  size = 0;
  alignment = 0;
  while (words >> word) {
    if (word == ".align") {
      words >> alignment;
      continue;
    }
    if (size_t bytes = typeSize(word)) {
      size = bytes;
      continue;
    }
    if (word[0] == '.')
      continue; // .ptr, .global and other state space annotations
    // The parameter's name, with an array extent for byte arrays (structs passed by value).
    size_t open = word.find('[');
    if (open != std::string::npos)
      size *= std::strtoull(word.c_str() + open + 1, nullptr, 10);
    break;
  }
  if (alignment == 0)
    alignment = size;
  return size != 0;
}

std::string withoutComments(const char *ptx) {
  std::string out;
  for (const char *p = ptx; *p;) {
    if (p[0] == '/' && p[1] == '/') {
      while (*p && *p != '\n')
        ++p;
      continue;
    }
    out += *p++;
  }
  return out;
}

/// Reads every .entry of `ptx`; false (with `why`) when the text is no PTX module.
bool readEntries(const char *ptx, CUmod_st &module, std::string &why) {
  std::string text = withoutComments(ptx);
  if (text.find(".version") == std::string::npos || text.find(".target") == std::string::npos) {
    why = "ptxas fatal   : the module has no .version or .target directive (fake driver)";
    return false;
  }
  for (size_t at = text.find(".entry"); at != std::string::npos;
       at = text.find(".entry", at + 1)) {
    CUfunc_st function;
    size_t nameStart = text.find_first_not_of(" \t\r\n", at + 6);
    size_t nameEnd = nameStart;
    while (nameEnd < text.size() && (std::isalnum(static_cast<unsigned char>(text[nameEnd])) ||
                                     text[nameEnd] == '_' || text[nameEnd] == '$'))
      ++nameEnd;
    function.name = text.substr(nameStart, nameEnd - nameStart);
    size_t open = text.find_first_not_of(" \t\r\n", nameEnd);
    if (open != std::string::npos && text[open] == '(') {
      size_t close = text.find(')', open);
      if (close == std::string::npos) {
        why = "ptxas fatal   : unterminated parameter list of .entry " + function.name;
        return false;
      }
      std::string list = text.substr(open + 1, close - open - 1);
      size_t offset = 0;
      std::istringstream params(list);
      for (std::string param; std::getline(params, param, ',');) {
        if (param.find_first_not_of(" \t\r\n") == std::string::npos)
          continue;
        size_t size = 0, alignment = 0;
        if (!readParam(param, size, alignment)) {
          why = "ptxas fatal   : cannot read parameter '" + param + "' of " + function.name;
          return false;
        }
        offset = (offset + alignment - 1) / alignment * alignment;
        function.paramOffsets.push_back(offset);
        function.paramSizes.push_back(size);
        offset += size;
      }
    }
    module.functions.push_back(std::move(function));
  }
  return true;
}

/// Writes `message` into the JIT's error log buffer, when the caller gave one.
void writeErrorLog(unsigned numOptions, const int *options, void **values,
                   const std::string &message) {
  char *buffer = nullptr;
  size_t size = 0;
  for (unsigned i = 0; i < numOptions; ++i) {
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
      buffer = static_cast<char *>(values[i]);
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
      size = static_cast<size_t>(reinterpret_cast<uintptr_t>(values[i]));
  }
  if (!buffer || size == 0)
    return;
  size_t n = std::min(size - 1, message.size());
  std::memcpy(buffer, message.data(), n);
  buffer[n] = '\0';
}

} // namespace

FAKE_CUDA_EXPORT CUresult cuModuleLoadDataEx(CUmodule *module, const void *image,
                                             unsigned numOptions, int *options, void **values) {
  if (!currentContext())
    return CUDA_ERROR_INVALID_CONTEXT;
  if (!module || !image)
    return CUDA_ERROR_INVALID_VALUE;
  if (int rc = injectedFailure("cuModuleLoadDataEx"))
    return rc;
  {
    std::lock_guard<std::mutex> guard(lastModuleMutex);
    lastModuleImage = static_cast<const char *>(image);
  }
  auto loaded = new CUmod_st;
  std::string why;
  if (!readEntries(static_cast<const char *>(image), *loaded, why)) {
    delete loaded;
    writeErrorLog(numOptions, options, values, why);
    return CUDA_ERROR_INVALID_PTX;
  }
  *module = loaded;
  return CUDA_SUCCESS;
}

FAKE_CUDA_EXPORT CUresult cuModuleUnload(CUmodule module) {
  if (!module)
    return CUDA_ERROR_INVALID_HANDLE;
  delete module;
  return CUDA_SUCCESS;
}

FAKE_CUDA_EXPORT CUresult cuModuleGetFunction(CUfunction *function, CUmodule module,
                                              const char *name) {
  if (!module)
    return CUDA_ERROR_INVALID_HANDLE;
  for (CUfunc_st &candidate : module->functions) {
    if (candidate.name == name) {
      *function = &candidate;
      return CUDA_SUCCESS;
    }
  }
  return CUDA_ERROR_NOT_FOUND;
}

FAKE_CUDA_EXPORT CUresult cuFuncGetAttribute(int *value, int attribute, CUfunction function) {
  if (!function)
    return CUDA_ERROR_INVALID_HANDLE;
  switch (attribute) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *value = MaxThreadsPerBlock;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
    *value = 0;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_NUM_REGS:
    *value = 16;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    *value = function->maxDynamicShared;
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_VALUE;
}

FAKE_CUDA_EXPORT CUresult cuFuncSetAttribute(CUfunction function, int attribute, int value) {
  if (!function)
    return CUDA_ERROR_INVALID_HANDLE;
  if (attribute != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES || value < 0 ||
      value > OptinSharedPerBlock)
    return CUDA_ERROR_INVALID_VALUE;
  function->maxDynamicShared = value;
  return CUDA_SUCCESS;
}

FAKE_CUDA_EXPORT CUresult cuFuncGetParamInfo(CUfunction function, size_t index, size_t *offset,
                                             size_t *size) {
  if (!function)
    return CUDA_ERROR_INVALID_HANDLE;
  if (index >= function->paramSizes.size())
    return CUDA_ERROR_INVALID_VALUE; // past the end: how the driver ends the enumeration
  *offset = function->paramOffsets[index];
  *size = function->paramSizes[index];
  return CUDA_SUCCESS;
}

FAKE_CUDA_EXPORT CUresult cuLaunchKernel(CUfunction function, unsigned gridX, unsigned gridY,
                                         unsigned gridZ, unsigned blockX, unsigned blockY,
                                         unsigned blockZ, unsigned sharedBytes, CUstream stream,
                                         void **params, void **extra) {
  if (int rc = injectedFailure("cuLaunchKernel"))
    return rc;
  if (!currentContext())
    return CUDA_ERROR_INVALID_CONTEXT;
  if (!function || (stream && stream->context != currentContext()))
    return CUDA_ERROR_INVALID_HANDLE;
  size_t numParams = function->paramSizes.size();
  if (extra || (numParams && !params))
    return CUDA_ERROR_INVALID_VALUE;
  uint64_t threads = uint64_t(blockX) * blockY * blockZ;
  if (!gridX || !gridY || !gridZ || !threads || threads > MaxThreadsPerBlock || blockZ > 64 ||
      gridY > 65535 || gridZ > 65535 || int(sharedBytes) > function->maxDynamicShared)
    return CUDA_ERROR_INVALID_VALUE;
  // Launches may come from several threads at once (a test of the plugin's launch path under
  // ThreadSanitizer): the record is the fake's only shared state they write.
  std::lock_guard<std::mutex> guard(lastLaunchLock());
  FakeCudaLaunch &record = lastLaunch();
  ++record.count;
  record.grid[0] = gridX;
  record.grid[1] = gridY;
  record.grid[2] = gridZ;
  record.block[0] = blockX;
  record.block[1] = blockY;
  record.block[2] = blockZ;
  record.shared_bytes = sharedBytes;
  record.num_params = static_cast<unsigned>(numParams);
  for (size_t i = 0; i < numParams && i < 8; ++i) {
    record.param_values[i] = 0;
    std::memcpy(&record.param_values[i], params[i], std::min<size_t>(8, function->paramSizes[i]));
  }
  std::strncpy(record.function, function->name.c_str(), sizeof(record.function) - 1);
  // The one kernel the fake runs: the CUDA plugin's own small-read copy (small_read.hpp), a
  // byte copy (dst, src, bytes) that the plugin's reads depend on to deliver data.
  if (function->name == "dpk_cuda_small_read" && numParams == 3) {
    uint64_t dst = 0, src = 0, bytes = 0;
    std::memcpy(&dst, params[0], 8);
    std::memcpy(&src, params[1], 8);
    std::memcpy(&bytes, params[2], 8);
    std::memmove(reinterpret_cast<void *>(dst), reinterpret_cast<const void *>(src), bytes);
  }
  return CUDA_SUCCESS;
}

FAKE_CUDA_EXPORT unsigned long long fakeCudaLastModule(char *out, unsigned long long size) {
  std::lock_guard<std::mutex> guard(lastModuleMutex);
  if (out && size > 0) {
    size_t n = std::min<size_t>(size - 1, lastModuleImage.size());
    std::memcpy(out, lastModuleImage.data(), n);
    out[n] = '\0';
  }
  return lastModuleImage.size();
}
