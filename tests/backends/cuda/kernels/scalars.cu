// scalars.cu - one scalar argument of each size, written back as doubles.
extern "C" __global__ void scalars(double *out, signed char c, short s, int i, long long l, float f,
                                   double d) {
  out[0] = c;
  out[1] = s;
  out[2] = i;
  out[3] = (double)l;
  out[4] = f;
  out[5] = d;
}
