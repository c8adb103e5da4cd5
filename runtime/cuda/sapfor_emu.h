// sapfor_emu.h: CUDA built-ins for running generated CUDA C kernels on the CPU (the
// emulated accelerator of the sapfor runtime, see docs/gpu.md).
//
// The kernel source is compiled unchanged by g++ with this header force-included. A grid
// runs as plain loops over blocks and threads, one call of the kernel function per thread,
// in one CPU thread, so kernels must not use block barriers (__syncthreads aborts).
// Reductions in generated kernels use per-thread partial results, not barriers.
#ifndef SAPFOR_EMU_H
#define SAPFOR_EMU_H

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstdint>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __shared__ static
#define __constant__ static const
#define __launch_bounds__(...)

struct uint3 {
    unsigned int x, y, z;
};
struct dim3 {
    unsigned int x, y, z;
    dim3(unsigned int a = 1, unsigned int b = 1, unsigned int c = 1) : x(a), y(b), z(c) {}
};

static thread_local uint3 threadIdx;
static thread_local uint3 blockIdx;
static thread_local dim3 blockDim;
static thread_local dim3 gridDim;
static const int warpSize = 32;

static inline void __syncthreads() {
    std::fprintf(stderr, "sapfor emulator: __syncthreads is not supported (kernels run thread by thread)\n");
    std::abort();
}
static inline void __threadfence() {}

template <class T> static inline T sapfor_emu_atomic_add(T *p, T v) {
    T old = *p;
    *p = old + v;
    return old;
}
static inline double atomicAdd(double *p, double v) { return sapfor_emu_atomic_add(p, v); }
static inline float atomicAdd(float *p, float v) { return sapfor_emu_atomic_add(p, v); }
static inline int atomicAdd(int *p, int v) { return sapfor_emu_atomic_add(p, v); }
static inline unsigned int atomicAdd(unsigned int *p, unsigned int v) { return sapfor_emu_atomic_add(p, v); }
static inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) { return sapfor_emu_atomic_add(p, v); }
static inline int atomicSub(int *p, int v) { return sapfor_emu_atomic_add(p, -v); }
static inline int atomicMax(int *p, int v) { int o = *p; if (v > o) *p = v; return o; }
static inline int atomicMin(int *p, int v) { int o = *p; if (v < o) *p = v; return o; }
static inline long long atomicMax(long long *p, long long v) { long long o = *p; if (v > o) *p = v; return o; }
static inline long long atomicMin(long long *p, long long v) { long long o = *p; if (v < o) *p = v; return o; }
static inline int atomicExch(int *p, int v) { int o = *p; *p = v; return o; }
static inline int atomicCAS(int *p, int c, int v) { int o = *p; if (o == c) *p = v; return o; }
static inline unsigned long long atomicCAS(unsigned long long *p, unsigned long long c, unsigned long long v) {
    unsigned long long o = *p; if (o == c) *p = v; return o;
}

using std::sqrt; using std::exp; using std::log; using std::sin; using std::cos; using std::tan;
using std::atan; using std::atan2; using std::pow; using std::fabs; using std::fmod; using std::round;
using std::floor; using std::ceil; using std::log10; using std::asin; using std::acos;
using std::sinh; using std::cosh; using std::tanh;

// The order in which the emulator runs the threads of a grid (set by the runtime after it
// loads the kernels, runtime/rtlib/src/device/emu.rs): 0 in order (blocks, then threads),
// 1 reverse, 2 a permutation keyed by the seed. Real GPUs promise no order at all; a kernel
// whose threads depend on each other gives another result here too.
static int sapfor_emu_mode = 0;
static unsigned long long sapfor_emu_seed = 0;
extern "C" void sapfor_emu_set_order(int mode, unsigned long long seed) {
    sapfor_emu_mode = mode;
    sapfor_emu_seed = seed;
}
static inline unsigned long long sapfor_emu_mix(unsigned long long z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
// A keyed permutation of 0..n-1 (Feistel network, cycle walking), as runtime/rtlib/src/order.rs.
static inline unsigned long long sapfor_emu_perm(unsigned long long x, unsigned long long n, unsigned long long key) {
    if (n <= 1) return x;
    unsigned bits = 64 - __builtin_clzll(n - 1);
    unsigned half = (bits + 1) / 2;
    unsigned long long mask = (1ULL << half) - 1, y = x;
    for (;;) {
        unsigned long long l = y >> half, r = y & mask;
        for (unsigned long long round = 0; round < 4; ++round) {
            unsigned long long f = sapfor_emu_mix(r ^ (key + round * 0x5851f42d4c957f2dULL)) & mask;
            unsigned long long t = l ^ f;
            l = r;
            r = t;
        }
        y = (l << half) | r;
        if (y < n) return y;
    }
}

// Run a grid: every (block, thread) pair once, in the order sapfor_emu_mode says; `k` calls
// the kernel with the arguments.
template <class K> static inline void sapfor_emu_run(const unsigned int *g, const unsigned int *b, K k) {
    gridDim = dim3(g[0], g[1], g[2]);
    blockDim = dim3(b[0], b[1], b[2]);
    const unsigned long long nt = (unsigned long long)b[0] * b[1] * b[2];
    const unsigned long long total = (unsigned long long)g[0] * g[1] * g[2] * nt;
    const unsigned long long key = sapfor_emu_mix(sapfor_emu_seed ^ sapfor_emu_mix(total));
    for (unsigned long long p = 0; p < total; ++p) {
        const unsigned long long q = sapfor_emu_mode == 0 ? p
                                   : sapfor_emu_mode == 1 ? total - 1 - p
                                   : sapfor_emu_perm(p, total, key);
        const unsigned long long blk = q / nt, thr = q % nt;
        blockIdx.x = blk % g[0];
        blockIdx.y = (blk / g[0]) % g[1];
        blockIdx.z = blk / ((unsigned long long)g[0] * g[1]);
        threadIdx.x = thr % b[0];
        threadIdx.y = (thr / b[0]) % b[1];
        threadIdx.z = thr / ((unsigned long long)b[0] * b[1]);
        k();
    }
}

#endif
