/* ndrange_host.c - a native C kernel run by dpk's host backend over an NdRange.
 *
 * Allocates shared memory, launches a work-group kernel that computes y = a*x + y in
 * work-groups of 64 and records each element's work-group id, then checks the results.
 *
 * Build against an installed dpk, either with CMake (see CMakeLists.txt here) or with
 * pkg-config:
 *   cc -std=c99 -o ndrange_host ndrange_host.c $(pkg-config --cflags --libs dpk)
 * (with PKG_CONFIG_PATH=<prefix>/lib/pkgconfig when dpk is not in a system prefix). */
#include <dpk/dpk.h>

#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                              \
  do {                                                                                           \
    dpk_status_t status_ = (call);                                                               \
    if (status_ != DPK_SUCCESS) {                                                                \
      fprintf(stderr, "%s failed: %s: %s\n", #call, dpk_status_name(status_), dpk_last_error()); \
      return 1;                                                                                  \
    }                                                                                            \
  } while (0)

/* One work-group: every work-item of the group, in a loop the compiler can vectorize.
 * args[i] points to the argument's value: a pointer argument's value is the pointer. */
static void saxpyGroup(const dpk_host_work_group_t *group, void *const *args) {
  float a = *(const float *)args[0];
  const float *x = *(float *const *)args[1];
  float *y = *(float *const *)args[2];
  int *groupOf = *(int *const *)args[3];
  uint64_t begin = group->group_id[0] * group->local_size[0];
  uint64_t end = begin + group->local_size[0];
  for (uint64_t i = begin; i < end; ++i) {
    y[i] = a * x[i] + y[i];
    groupOf[i] = (int)group->group_id[0];
  }
}

int main(void) {
  enum { N = 1 << 16, LOCAL = 64 };
  dpk_device_t host;
  CHECK(dpk_device_select(&host, "host"));
  dpk_device_info_t info = {.struct_size = sizeof(dpk_device_info_t)};
  CHECK(dpk_device_get_info(&info, host));
  printf("device: %s (%s), %u compute units\n", info.name, info.filter_string,
         info.compute_units);

  dpk_host_kernel_entry_t entry = {"saxpy", DPK_HOST_KERNEL_GROUP, (void (*)(void))saxpyGroup,
                                   {0, 0, 0}};
  dpk_program_t program;
  dpk_kernel_t kernel;
  CHECK(dpk_program_create_from_host(&program, &entry, 1));
  CHECK(dpk_kernel_get(&kernel, program, "saxpy"));

  dpk_queue_t queue;
  CHECK(dpk_queue_create(&queue, host, DPK_QUEUE_IN_ORDER));
  float *x, *y;
  int *groupOf;
  CHECK(dpk_mem_alloc((void **)&x, host, DPK_MEM_SHARED, N * sizeof(float)));
  CHECK(dpk_mem_alloc((void **)&y, host, DPK_MEM_SHARED, N * sizeof(float)));
  CHECK(dpk_mem_alloc((void **)&groupOf, host, DPK_MEM_SHARED, N * sizeof(int)));
  for (int i = 0; i < N; ++i) {
    x[i] = (float)i;
    y[i] = 1.0f;
  }

  float a = 2.0f;
  dpk_arg_t args[4] = {{DPK_ARG_SCALAR, sizeof(a), &a},
                       {DPK_ARG_POINTER, 0, x},
                       {DPK_ARG_POINTER, 0, y},
                       {DPK_ARG_POINTER, 0, groupOf}};
  dpk_launch_config_t range = {1, {N, 0, 0}, {LOCAL, 0, 0}};
  dpk_event_t done;
  CHECK(dpk_enqueue_launch(&done, queue, kernel, &range, 4, args, 0, NULL));
  CHECK(dpk_event_wait(1, &done));

  int errors = 0;
  for (int i = 0; i < N; ++i) {
    if (y[i] != 2.0f * (float)i + 1.0f || groupOf[i] != i / LOCAL)
      ++errors;
  }
  printf("saxpy over NdRange(%d, %d): %s (%d errors)\n", N, LOCAL, errors ? "FAILED" : "ok",
         errors);

  CHECK(dpk_event_release(done));
  CHECK(dpk_mem_free(x));
  CHECK(dpk_mem_free(y));
  CHECK(dpk_mem_free(groupOf));
  CHECK(dpk_queue_release(queue));
  CHECK(dpk_kernel_release(kernel));
  CHECK(dpk_program_release(program));
  return errors ? 1 : 0;
}
