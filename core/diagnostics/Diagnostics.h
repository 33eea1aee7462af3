// Diagnostics.h - the process-wide offload diagnostics sink (docs/diagnostics.md).
//
// Every record has a level (0 = always shown warnings, 1-4 as in docs/diagnostics.md), an event
// name ("kernel.launch") and ordered fields. The sink writes it as one human text line
//   dpk[2] plugin.load: opencl loaded from /usr/lib/dpk/plugins/libdpk_backend_opencl.so (3 devices)
// or one JSON line
//   {"level":2,"event":"plugin.load","time_us":1732215000123456,"pid":4242,"backend":"opencl",...}
// to stderr or a file, and hands the JSON text to the C callback and the C++ hook (which receive
// every record the level lets through, whatever the format). All functions are thread-safe;
// enabled() is one atomic load so disabled levels cost nothing at call sites:
//   if (diag::enabled(3)) diag::emit(3, "transfer", {{"bytes", n}, {"direction", "h2d"}});
#ifndef DPK_CORE_DIAGNOSTICS_DIAGNOSTICS_H
#define DPK_CORE_DIAGNOSTICS_DIAGNOSTICS_H

#include "diagnostics/DiagnosticsSettings.h"
#include "support/Error.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dpk::diag {

/// A field value: a string, an integer, a floating-point number (milliseconds) or a flag.
class FieldValue {
public:
  enum class Kind { String, Int, Uint, Double, Bool };
  FieldValue(std::string value) : kind_(Kind::String), string_(std::move(value)) {}
  FieldValue(std::string_view value) : kind_(Kind::String), string_(value) {}
  FieldValue(const char *value) : kind_(Kind::String), string_(value ? value : "") {}
  FieldValue(int value) : kind_(Kind::Int), int_(value) {}
  FieldValue(long value) : kind_(Kind::Int), int_(value) {}
  FieldValue(long long value) : kind_(Kind::Int), int_(value) {}
  FieldValue(unsigned value) : kind_(Kind::Uint), uint_(value) {}
  FieldValue(unsigned long value) : kind_(Kind::Uint), uint_(value) {}
  FieldValue(unsigned long long value) : kind_(Kind::Uint), uint_(value) {}
  FieldValue(double value) : kind_(Kind::Double), double_(value) {}
  FieldValue(bool value) : kind_(Kind::Bool), bool_(value) {}

  Kind kind() const { return kind_; }
  /// The value as text/JSON: strings unquoted and quoted+escaped respectively; doubles with
  /// three decimals (times are in ms).
  std::string text() const;
  std::string json() const;

private:
  Kind kind_;
  std::string string_;
  int64_t int_ = 0;
  uint64_t uint_ = 0;
  double double_ = 0;
  bool bool_ = false;
};

struct Field {
  std::string key;
  FieldValue value;
};
using Fields = std::vector<Field>;

/// Configures the sink from the policy's settings (opens the file in append mode; creates
/// nothing for the dump folder until the first dump). An unopenable file is DPK_ERROR_POLICY and
/// leaves the previous configuration in place.
Error configure(const Settings &settings);
/// The settings in effect.
Settings settings();

namespace detail {
extern std::atomic<int> CurrentLevel;
} // namespace detail

/// True when records of `level` are produced. Level 0 (warnings) is always enabled.
inline bool enabled(int level) {
  return level <= detail::CurrentLevel.load(std::memory_order_relaxed);
}

/// Emits one record if `level` is enabled. Keys "level", "event", "time_us" and "pid" are
/// reserved and come first in JSON; the fields follow in the given order.
void emit(int level, std::string_view event, const Fields &fields);

/// Formats a record without emitting it (what emit would write).
std::string formatText(int level, std::string_view event, const Fields &fields);
std::string formatJson(int level, std::string_view event, const Fields &fields, int64_t timeUs,
                       long pid);

/// The C API callback (dpk_diagnostics_set_callback). NULL removes it.
void setCallback(Callback callback, void *payload);
/// A C++ hook (the Python frontend's): receives (level, JSON record). An empty function removes
/// it. Called with no diagnostics lock held, so it may itself call emit.
using Hook = std::function<void(int level, const std::string &jsonRecord)>;
void setHook(Hook hook);

/// Level 4: writes `bytes` to <dumpDir>/<kernel>.<seq>.<stage>.<extension> (seq orders dumps
/// within the process) and emits a "dump" record with the path. Does nothing below level 4.
/// Returns the path written, or "" when nothing was written.
Expected<std::string> dumpStage(std::string_view kernel, std::string_view stage,
                                std::string_view extension, std::string_view bytes);

/// True the first time it is called with a given key in this process (or since
/// resetForTesting): used to warn once per (kernel, device, reason).
bool firstTime(std::string_view key);

/// Restores the initial state: level 0, text to stderr, no callback/hook, once-keys forgotten.
void resetForTesting();

} // namespace dpk::diag

#endif // DPK_CORE_DIAGNOSTICS_DIAGNOSTICS_H
