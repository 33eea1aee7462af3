// device.cpp - dpk_device_* entry points.
#include "ApiGuard.h"

#include "runtime/Program.h"
#include "runtime/RuntimePolicy.h"

#include <cstring>
#include <optional>

using namespace dpk;
using namespace dpk::capi;

namespace {

/// The host device when the policy's own selector matches no device and its fallback covers
/// that, so that work selected by default still has somewhere to run. Only for the default
/// selection: a caller who names a filter asks which device exists, and gets the answer.
Expected<runtime::Device *> defaultDeviceFallback(Error failure) {
  runtime::Registry &registry = runtime::Registry::get();
  runtime::Device *host = registry.hostDevice();
  std::optional<policy::FailureClass> failureClass = runtime::failureClassOf(failure.status());
  if (!host || !failureClass)
    return failure;
  policy::FallbackDecision decision = runtime::decideFallback(
      registry.policy(), "(default device)", "", *failureClass, failure.message());
  if (decision.action != policy::FallbackAction::RunOnHost)
    return failure;
  if (!decision.warning.empty())
    decision.warning = "no device for work selected by default (" + failure.message() +
                       "); using the host device " + host->filterString() + " instead (" +
                       decision.rule + ")";
  runtime::reportFallbackRun(decision, host->filterString());
  return host;
}

template <size_t N> void copyText(char (&to)[N], const std::string &from) {
  std::strncpy(to, from.c_str(), N - 1);
  to[N - 1] = '\0';
}

/// The public description of a device, from the plugin's properties and the runtime's names.
dpk_device_info_t describeDevice(const runtime::Device &device) {
  const dpk_device_props_t &props = device.props();
  dpk_device_info_t info{};
  info.struct_size = sizeof(info);
  copyText(info.backend, device.backend());
  copyText(info.name, props.name);
  copyText(info.vendor, props.vendor);
  copyText(info.driver_version, props.driver_version);
  copyText(info.filter_string, device.filterString());
  info.type = props.type;
  info.compute_units = props.compute_units;
  info.global_mem_size = props.global_mem_size;
  info.local_mem_size = props.local_mem_size;
  info.max_work_group_size = props.max_work_group_size;
  for (int i = 0; i < 3; ++i)
    info.max_work_item_sizes[i] = props.max_work_item_sizes[i];
  info.formats = props.formats;
  info.aspects = props.aspects;
  return info;
}

} // namespace

extern "C" {

dpk_status_t dpk_device_count(uint32_t *out) {
  return apiEntry("dpk_device_count", [&] {
    if (!out)
      return nullArgument("out");
    *out = static_cast<uint32_t>(runtime::Registry::get().devices().size());
    return Error::success();
  });
}

dpk_status_t dpk_device_get(dpk_device_t *out, uint32_t index) {
  return apiEntry("dpk_device_get", [&] {
    if (!out)
      return nullArgument("out");
    const auto &devices = runtime::Registry::get().devices();
    if (index >= devices.size())
      return Error(DPK_ERROR_NOT_FOUND, "device index " + std::to_string(index) +
                                            " is out of range (" +
                                            std::to_string(devices.size()) + " devices)");
    *out = toHandle(devices[index]);
    return Error::success();
  });
}

dpk_status_t dpk_device_select(dpk_device_t *out, const char *filter) {
  return apiEntry("dpk_device_select", [&] {
    if (!out)
      return nullArgument("out");
    bool byDefault = !filter || !*filter;
    Expected<runtime::Device *> device = runtime::Registry::get().select(filter ? filter : "");
    if (!device && byDefault && (device.error().status() == DPK_ERROR_NO_DEVICE ||
                                 device.error().status() == DPK_ERROR_PLUGIN_LOAD))
      device = defaultDeviceFallback(device.takeError());
    if (!device)
      return device.takeError();
    *out = toHandle(*device);
    return Error::success();
  });
}

dpk_status_t dpk_device_get_info(dpk_device_info_t *out, dpk_device_t device) {
  return apiEntry("dpk_device_get_info", [&] {
    if (!out)
      return nullArgument("out");
    Expected<runtime::Device *> resolved = toDevice(device);
    if (!resolved)
      return resolved.takeError();
    if (out->struct_size < sizeof(dpk_device_info_t))
      return Error(DPK_ERROR_INVALID_ARGUMENT,
                   "out->struct_size is " + std::to_string(out->struct_size) +
                       "; set it to sizeof(dpk_device_info_t) = " +
                       std::to_string(sizeof(dpk_device_info_t)));
    *out = describeDevice(**resolved);
    return Error::success();
  });
}

dpk_status_t dpk_device_get_sub_group_size(uint32_t *out, dpk_device_t device) {
  return apiEntry("dpk_device_get_sub_group_size", [&] {
    if (!out)
      return nullArgument("out");
    Expected<runtime::Device *> resolved = toDevice(device);
    if (!resolved)
      return resolved.takeError();
    *out = runtime::subGroupSize(**resolved);
    return Error::success();
  });
}

dpk_status_t dpk_device_retain(dpk_device_t device) {
  return apiEntry("dpk_device_retain", [&] { return toDevice(device).takeError(); });
}

dpk_status_t dpk_device_release(dpk_device_t device) {
  return apiEntry("dpk_device_release", [&] { return toDevice(device).takeError(); });
}

} // extern "C"
