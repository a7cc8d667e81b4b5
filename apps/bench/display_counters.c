// SPDX-License-Identifier: GPL-3.0-or-later
/* display_bench.py's counters, preloaded (LD_PRELOAD) into the process it
 * measures: FFTs run through FFTW (the stock QT GUI sinks' transforms) and
 * buffer swaps of gr-fosphor's GLFW and Qt windows (its frames drawn). Each
 * call is counted, then passed on to the library that defines it (dlsym
 * RTLD_NEXT, glibc's dlsym(3)). The counts are read with ctypes. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>

atomic_llong display_bench_ffts, display_bench_swaps;

typedef void (*fn1)(void*);

/* Looked up once per function (a racing first call looks it up twice, harmlessly). */
static void forward(_Atomic(fn1)* real, const char* name, void* arg)
{
    fn1 f = atomic_load(real);
    if (!f) {
        f = (fn1)dlsym(RTLD_NEXT, name);
        atomic_store(real, f);
    }
    if (f)
        f(arg);
}

void fftwf_execute(void* plan)
{
    atomic_fetch_add(&display_bench_ffts, 1);
    static _Atomic(fn1) real;
    forward(&real, "fftwf_execute", plan);
}

void glfwSwapBuffers(void* window)
{
    atomic_fetch_add(&display_bench_swaps, 1);
    static _Atomic(fn1) real;
    forward(&real, "glfwSwapBuffers", window);
}

/* QGLWidget::swapBuffers(), a non-virtual member: `this` is its one argument. */
void _ZN9QGLWidget11swapBuffersEv(void* self)
{
    atomic_fetch_add(&display_bench_swaps, 1);
    static _Atomic(fn1) real;
    forward(&real, "_ZN9QGLWidget11swapBuffersEv", self);
}
