// my_math.cl - the OpenCL C definitions of my_math.ll's functions, for OpenCL devices
// (linked after dpk's generated source; see docs/linking.md).
int my_add(int a, int b) { return a + b; }

float my_fma3(float x, float y) {
  return x * 3.0f + y;
}

/* a helper of this file only */
static double helper_bias(double x) { return x * 0.0 + 1.0; }

double my_scale(double x) { return x * 0.5 + helper_bias(x); }
