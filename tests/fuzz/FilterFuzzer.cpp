// FilterFuzzer.cpp - fuzz target for the device filter parser (tests/fuzz/README.md: libFuzzer
// with -DDPK_FUZZ=ON, scripts/fuzz.sh; a replay of the corpus otherwise). Besides "no crash, no
// sanitizer report" it checks the parser's promises on every input:
//  - a parsed filter prints canonically, and the canonical text parses to the same filter;
//  - an error is DPK_ERROR_PARSE, names a column inside the text (or just past it) and puts the
//    caret under that column;
//  - backendMayMatch never says "no" for a backend whose device rankDevices finds eligible (a
//    plugin skipped before dlopen must really be unusable).
#include "FuzzSupport.h"

#include "policy/DeviceFilter.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace dpk::policy;

namespace {

void check(bool condition, const char *what, const std::string &input) {
  dpk::fuzz::check(condition, what, input);
}

const std::vector<DeviceIdentity> &sampleDevices() {
  static const std::vector<DeviceIdentity> devices = {
      {"host", DPK_DEVICE_TYPE_CPU, 0},         {"opencl", DPK_DEVICE_TYPE_CPU, 0},
      {"opencl", DPK_DEVICE_TYPE_GPU, 0},       {"opencl", DPK_DEVICE_TYPE_GPU, 1},
      {"opencl", DPK_DEVICE_TYPE_ACCELERATOR, 0}, {"cuda", DPK_DEVICE_TYPE_GPU, 0},
      {"cuda", DPK_DEVICE_TYPE_GPU, 1},         {"level_zero", DPK_DEVICE_TYPE_GPU, 0},
      {"level_zero", DPK_DEVICE_TYPE_CPU, 2}};
  return devices;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string input(reinterpret_cast<const char *>(data), size);
  dpk::Expected<FilterList> filter = parseFilter(input);
  if (!filter) {
    const std::string &message = filter.error().message();
    check(filter.error().status() == DPK_ERROR_PARSE, "error status is not DPK_ERROR_PARSE", input);
    size_t at = message.find("at column ");
    check(at != std::string::npos, "error names no column", input);
    size_t column = std::strtoul(message.c_str() + at + 10, nullptr, 10);
    check(column >= 1 && column <= input.size() + 1, "error column outside the text", input);
    size_t lastLine = message.rfind('\n');
    check(message.size() - lastLine - 1 == 2 + column, "caret not under the column", input);
    return 0;
  }
  std::string canonical = filter->str();
  dpk::Expected<FilterList> again = parseFilter(canonical);
  check(static_cast<bool>(again), "canonical text does not parse", input);
  check(again->str() == canonical, "canonical text is not stable", input);

  DeviceRanking ranking = rankDevices(*filter, sampleDevices());
  check(ranking.eligible.size() + ranking.rejected.size() == sampleDevices().size(),
        "ranking lost devices", input);
  for (const DeviceVerdict &verdict : ranking.eligible)
    check(backendMayMatch(*filter, sampleDevices()[verdict.device].backend),
          "backendMayMatch rules out a backend with an eligible device", input);
  return 0;
}
