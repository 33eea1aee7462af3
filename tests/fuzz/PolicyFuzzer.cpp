// PolicyFuzzer.cpp - fuzz target for the YAML policy loader and the questions the runtime asks
// of a loaded policy. Promises checked besides "no crash, no sanitizer report, no hang":
//  - an error is DPK_ERROR_POLICY (DPK_ERROR_PARSE never escapes: a bad filter inside the file
//    is a policy error) and starts with the file's name, "fuzz.yaml:<line>:<col>: " when it is
//    about a place in the file;
//  - a loaded policy holds only well-formed kernel globs, and answers selectorFor, fallbackFor,
//    decideBackend and globMatch for any kernel name.
#include "FuzzSupport.h"

#include "policy/Policy.h"

#include <algorithm>

using namespace dpk;
using namespace dpk::policy;
using dpk::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  Expected<Policy> policy = parsePolicy(text, "fuzz.yaml");
  if (!policy) {
    const std::string &message = policy.error().message();
    check(policy.error().status() == DPK_ERROR_POLICY, "error is not DPK_ERROR_POLICY", text,
          message);
    check(message.rfind("fuzz.yaml:", 0) == 0 || message.rfind("fuzz.yaml: ", 0) == 0,
          "error does not start with the file name", text, message);
    return 0;
  }
  // A few kernel names, one built from the input so that globs meet varied names.
  std::string fromInput = text.substr(0, std::min<size_t>(text.size(), 64));
  for (const std::string &name : {std::string("k"), std::string("matmul_f64"), fromInput}) {
    SelectorChoice choice = selectorFor(*policy, name);
    (void)choice;
    for (unsigned i = 0; i < NumFailureClasses; ++i)
      (void)fallbackFor(*policy, name, static_cast<FailureClass>(i));
  }
  for (const KernelOverride &rule : policy->kernels) {
    Error glob = checkGlob(rule.pattern);
    check(!glob, "a loaded kernel rule has a malformed glob", text, glob.message());
    (void)globMatch(rule.pattern, fromInput);
    (void)globMatch(rule.pattern, std::string(300, 'a'));
  }
  for (const char *backend : {"host", "opencl", "cuda", "level_zero", "other"})
    (void)decideBackend(*policy, backend);
  return 0;
}
