// array.cl - twice_at(p, i): p[i] *= 2 on a global float array (array_host.ll on the host).
void twice_at(__global float *p, long i) { p[i] *= 2.0f; }
