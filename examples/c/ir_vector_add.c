/* ir_vector_add.c - a kernel given as dpk IR text, compiled for and run on the selected device.
 *
 * The device comes from the policy (or the filter given as the first argument, e.g. "host",
 * "opencl:cpu", "cuda:gpu"). Data goes to device memory and back with explicit copies, so the
 * same code runs on every backend.
 *   cc -std=c99 -o ir_vector_add ir_vector_add.c $(pkg-config --cflags --libs dpk) */
#include <dpk/dpk.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                              \
  do {                                                                                           \
    dpk_status_t status_ = (call);                                                               \
    if (status_ != DPK_SUCCESS) {                                                                \
      fprintf(stderr, "%s failed: %s: %s\n", #call, dpk_status_name(status_), dpk_last_error()); \
      return 1;                                                                                  \
    }                                                                                            \
  } while (0)

static const char *const kVectorAdd =
    "kernel @vector_add(%a: ptr<global, f32>, %b: ptr<global, f32>, %c: ptr<global, f32>) {\n"
    "  %i = global_id 0 : i64\n"
    "  %x = load %a[%i] : f32\n"
    "  %y = load %b[%i] : f32\n"
    "  %s = add %x, %y : f32\n"
    "  store %c[%i], %s\n"
    "  return\n"
    "}\n";

int main(int argc, char **argv) {
  enum { N = 1 << 20 };
  const char *filter = argc > 1 ? argv[1] : NULL;
  dpk_device_t device;
  CHECK(dpk_device_select(&device, filter));
  dpk_device_info_t info = {.struct_size = sizeof(dpk_device_info_t)};
  CHECK(dpk_device_get_info(&info, device));

  dpk_program_t program;
  dpk_kernel_t kernel;
  CHECK(dpk_program_create_from_ir(&program, kVectorAdd, strlen(kVectorAdd), "vector_add.dpkir"));
  CHECK(dpk_kernel_get(&kernel, program, "vector_add"));

  float *a = malloc(N * sizeof(float)), *b = malloc(N * sizeof(float)),
        *c = malloc(N * sizeof(float));
  if (!a || !b || !c)
    return 1;
  for (int i = 0; i < N; ++i) {
    a[i] = (float)i;
    b[i] = 0.25f * (float)i;
  }

  dpk_queue_t queue;
  void *da, *db, *dc;
  CHECK(dpk_queue_create(&queue, device, DPK_QUEUE_IN_ORDER));
  CHECK(dpk_mem_alloc(&da, device, DPK_MEM_DEVICE, N * sizeof(float)));
  CHECK(dpk_mem_alloc(&db, device, DPK_MEM_DEVICE, N * sizeof(float)));
  CHECK(dpk_mem_alloc(&dc, device, DPK_MEM_DEVICE, N * sizeof(float)));
  CHECK(dpk_enqueue_copy(NULL, queue, da, a, N * sizeof(float), 0, NULL));
  CHECK(dpk_enqueue_copy(NULL, queue, db, b, N * sizeof(float), 0, NULL));
  dpk_arg_t args[3] = {{DPK_ARG_POINTER, 0, da}, {DPK_ARG_POINTER, 0, db}, {DPK_ARG_POINTER, 0, dc}};
  dpk_launch_config_t range = {1, {N, 0, 0}, {0, 0, 0}}; /* a Range: the backend picks groups */
  CHECK(dpk_enqueue_launch(NULL, queue, kernel, &range, 3, args, 0, NULL));
  CHECK(dpk_enqueue_copy(NULL, queue, c, dc, N * sizeof(float), 0, NULL));
  CHECK(dpk_queue_wait(queue));

  int errors = 0;
  for (int i = 0; i < N; ++i) {
    if (c[i] != a[i] + b[i])
      ++errors;
  }
  printf("vector_add of %d elements on %s (%s): %s\n", N, info.name, info.filter_string,
         errors ? "FAILED" : "ok");

  CHECK(dpk_mem_free(da));
  CHECK(dpk_mem_free(db));
  CHECK(dpk_mem_free(dc));
  CHECK(dpk_queue_release(queue));
  CHECK(dpk_kernel_release(kernel));
  CHECK(dpk_program_release(program));
  free(a);
  free(b);
  free(c);
  return errors ? 1 : 0;
}
