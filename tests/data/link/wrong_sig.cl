// wrong_sig.cl - my_add with long operands: a signature mismatch for int32(int32, int32).
long my_add(long a, long b) { return a + b; }
