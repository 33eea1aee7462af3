/* FakeCudaControl.h - what a test asks the fake CUDA driver (libdpk_fake_cuda.so) directly.
 *
 * The fake driver stands in for libcuda.so.1 when DPK_CUDA_LIBRARY names it (tests and the
 * launch-path instruction count only; backends/cuda/README.md). Besides the driver entry points
 * the CUDA plugin resolves, it exports these functions, which a test finds with dlsym on the
 * same library the plugin loaded (dlopen of the same path returns the same handle). */
#ifndef DPK_TESTS_FAKE_CUDA_CONTROL_H
#define DPK_TESTS_FAKE_CUDA_CONTROL_H

#ifdef __cplusplus
extern "C" {
#endif

/* The most recent cuLaunchKernel that the fake accepted, in CUDA order (x, y, z). */
typedef struct FakeCudaLaunch {
  unsigned long long count; /* launches accepted since the library was loaded */
  unsigned grid[3];
  unsigned block[3];
  unsigned shared_bytes;
  unsigned num_params;                /* of the launched function, as its PTX declares them */
  unsigned long long param_values[8]; /* the first 8 bytes of each of the first 8 parameters */
  char function[64];                  /* the .entry's name */
} FakeCudaLaunch;

/* The next call of driver entry point `symbol` ("cuLaunchKernel", "cuStreamSynchronize", ...)
 * returns `result` instead of doing its work; later calls behave again. */
typedef void (*FakeCudaFailNextFn)(const char *symbol, int result);
/* Copies the most recent accepted launch into *out. */
typedef void (*FakeCudaLastLaunchFn)(FakeCudaLaunch *out);
/* The PTX text of the most recent cuModuleLoadDataEx: copies up to size - 1 bytes of it and a
 * terminating NUL into out (when size > 0); returns its full length. */
typedef unsigned long long (*FakeCudaLastModuleFn)(char *out, unsigned long long size);

/* busy != 0: cuStreamQuery answers CUDA_ERROR_NOT_READY for every stream (work still running),
 * as if kernels were in flight; 0: every stream idle again (the default). */
typedef void (*FakeCudaSetStreamsBusyFn)(int busy);

#define FAKE_CUDA_FAIL_NEXT "fakeCudaFailNext"
#define FAKE_CUDA_SET_STREAMS_BUSY "fakeCudaSetStreamsBusy"
#define FAKE_CUDA_LAST_LAUNCH "fakeCudaLastLaunch"
#define FAKE_CUDA_LAST_MODULE "fakeCudaLastModule"

#ifdef __cplusplus
}
#endif

#endif /* DPK_TESTS_FAKE_CUDA_CONTROL_H */
