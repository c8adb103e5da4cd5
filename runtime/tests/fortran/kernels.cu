// Kernels for gpu_abi_demo.f90, written in the generated kernels' conventions (docs/gpu.md).
extern "C" __global__ void fill(double *__restrict__ x_, long long x_lo1, long long x_hi1,
                                long long i_lo, long long i_hi, long long i_st) {
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t > (i_hi - i_lo) / i_st) return;
    long long i = i_lo + t * i_st;
    x_[i - x_lo1] = (double)i;
}
extern "C" __global__ void twice(double *__restrict__ x_, long long x_lo1, long long x_hi1,
                                 long long i_lo, long long i_hi, long long i_st, double *__restrict__ sapfor_red_s) {
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t > (i_hi - i_lo) / i_st) return;
    long long i = i_lo + t * i_st;
    double s_ = 0;
    s_ = s_ + 2.0 * x_[i - x_lo1];
    sapfor_red_s[t] = s_;
}
extern "C" __global__ void twice_red(long long sapfor_n, long long sapfor_stride, long long sapfor_chunk, double *__restrict__ sapfor_red_s) {
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long k0 = t * sapfor_chunk;
    if (k0 >= sapfor_n) return;
    const long long k1 = k0 + sapfor_chunk < sapfor_n ? k0 + sapfor_chunk : sapfor_n;
    for (long long k = k0 + 1; k < k1; ++k) sapfor_red_s[k0 * sapfor_stride] += sapfor_red_s[k * sapfor_stride];
}
