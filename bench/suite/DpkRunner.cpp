// DpkRunner.cpp - uploads a Problem's arrays to a device, launches its kernel, checks it.
#include "DpkRunner.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace dpk::bench {

void checkDpk(dpk_status_t status, const char *what) {
  if (status != DPK_SUCCESS)
    throw std::runtime_error(std::string(what) + ": " + dpk_status_name(status) + ": " + dpk_last_error());
}

static std::string readFile(const std::string &path) {
  std::ifstream file(path);
  if (!file)
    throw std::runtime_error("cannot read " + path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

DpkRunner::DpkRunner(dpk_device_t dev, Problem &prob) : problem(prob), device(dev) {
  checkDpk(dpk_queue_create(&queue, device, DPK_QUEUE_IN_ORDER), "dpk_queue_create");
  std::string text = readFile(problem.kernelFile);
  dpk_program_t program = nullptr;
  dpk_program_options_t options{};
  options.struct_size = sizeof(options);
  options.boundscheck = problem.boundsCheck ? DPK_BOUNDSCHECK_ON : DPK_BOUNDSCHECK_OFF;
  checkDpk(dpk_program_create_from_ir_with_options(&program, text.c_str(), text.size(),
                                                   problem.kernelName.c_str(), &options),
           "dpk_program_create_from_ir_with_options");
  dpk_status_t status = dpk_kernel_get(&kernel, program, problem.kernelName.c_str());
  dpk_program_release(program);
  checkDpk(status, "dpk_kernel_get");

  for (Array &array : problem.arrays) {
    void *ptr = nullptr;
    checkDpk(dpk_mem_alloc(&ptr, device, DPK_MEM_DEVICE, array.bytes()), "dpk_mem_alloc");
    deviceArrays.push_back(ptr);
    checkDpk(dpk_enqueue_copy(nullptr, queue, ptr, array.initial.data(), array.bytes(), 0, nullptr), "dpk_enqueue_copy");
  }
  checkDpk(dpk_queue_wait(queue), "upload");

  views.reserve(problem.args.size()); // args point into views: no reallocation after this
  for (const ArgSpec &spec : problem.args) {
    switch (spec.kind) {
    case ArgSpec::ArrayPointer:
      args.push_back({DPK_ARG_POINTER, 0, deviceArrays[spec.array]});
      break;
    case ArgSpec::ArrayView: {
      dpk_view_arg_t view{deviceArrays[spec.array], static_cast<uint32_t>(spec.shape.size()), {0, 0, 0}, {0, 0, 0}};
      for (size_t d = 0; d < spec.shape.size(); ++d) {
        view.shape[d] = spec.shape[d];
        view.strides[d] = spec.strides[d];
      }
      views.push_back(view);
      args.push_back({DPK_ARG_VIEW, 0, &views.back()});
      break;
    }
    case ArgSpec::Scalar:
      args.push_back({DPK_ARG_SCALAR, spec.bytes.size(), spec.bytes.data()});
      break;
    case ArgSpec::Local:
      args.push_back({DPK_ARG_LOCAL, spec.localBytes, nullptr});
      break;
    }
  }
}

DpkRunner::~DpkRunner() {
  dpk_queue_wait(queue);
  for (void *ptr : deviceArrays)
    dpk_mem_free(ptr);
  dpk_kernel_release(kernel);
  dpk_queue_release(queue);
}

void DpkRunner::run() {
  checkDpk(dpk_enqueue_launch(nullptr, queue, kernel, &problem.range, static_cast<uint32_t>(args.size()), args.data(), 0,
                              nullptr),
           "dpk_enqueue_launch");
  checkDpk(dpk_queue_wait(queue), "dpk_queue_wait");
}

std::string DpkRunner::runAndVerify() {
  for (size_t i = 0; i < problem.arrays.size(); ++i) {
    Array &array = problem.arrays[i];
    if (!array.isOutput)
      continue;
    // Outputs start from their initial contents: a poison pattern for outputs the kernel
    // overwrites (so an element it never wrote cannot pass), zeros for accumulators.
    checkDpk(dpk_enqueue_copy(nullptr, queue, deviceArrays[i], array.initial.data(), array.bytes(), 0, nullptr),
             "reset output");
  }
  run();
  for (size_t i = 0; i < problem.arrays.size(); ++i)
    if (problem.arrays[i].isOutput)
      checkDpk(dpk_enqueue_copy(nullptr, queue, problem.arrays[i].data.data(), deviceArrays[i],
                                problem.arrays[i].bytes(), 0, nullptr),
               "download");
  checkDpk(dpk_queue_wait(queue), "download");
  return problem.verify();
}

} // namespace dpk::bench
