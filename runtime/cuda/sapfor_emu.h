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

// Run a grid: blocks, then threads, in order; `k` calls the kernel with the arguments.
template <class K> static inline void sapfor_emu_run(const unsigned int *g, const unsigned int *b, K k) {
    gridDim = dim3(g[0], g[1], g[2]);
    blockDim = dim3(b[0], b[1], b[2]);
    for (unsigned int bz = 0; bz < g[2]; ++bz)
        for (unsigned int by = 0; by < g[1]; ++by)
            for (unsigned int bx = 0; bx < g[0]; ++bx) {
                blockIdx.x = bx; blockIdx.y = by; blockIdx.z = bz;
                for (unsigned int tz = 0; tz < b[2]; ++tz)
                    for (unsigned int ty = 0; ty < b[1]; ++ty)
                        for (unsigned int tx = 0; tx < b[0]; ++tx) {
                            threadIdx.x = tx; threadIdx.y = ty; threadIdx.z = tz;
                            k();
                        }
            }
}

#endif
