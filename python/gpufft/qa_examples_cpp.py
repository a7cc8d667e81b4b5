#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
QA for the GRC C++ templates (cpp_templates of every gpufft block): grcc turns
examples/spectrum_cpp.grc (output_language: cpp) into a CMake project, which
is configured against this build installed into a temporary prefix (as a user
would use an installed gr-gpufft), compiled, and run to its end: its spectra of
the demo signal must show the strongest tone in its bin. examples/display_cpp.grc
(a C++ QT GUI flowgraph with the display sink) is compiled the same way and
must run headless for a few seconds without failing.

Needs GPUFFT_BUILD_DIR (CTest sets it). Compiling the generated C++ takes
about a minute on two cores; the run takes about a second.
"""

import os
import shutil
import subprocess
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))


class qa_examples_cpp(unittest.TestCase):
    def setUp(self):
        self.build = os.environ.get("GPUFFT_BUILD_DIR")
        if not self.build:
            self.skipTest("GPUFFT_BUILD_DIR is not set")
        self.tmp = tempfile.mkdtemp(prefix="gpufft_qa_cpp_")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def run_ok(self, args, timeout, **kw):
        r = subprocess.run(args, capture_output=True, text=True, timeout=timeout, **kw)
        self.assertEqual(r.returncode, 0, f"{' '.join(args)}:\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}")
        return r

    def compile_example(self, name):
        """grcc's CMake project of examples/NAME.grc, built against this build
        installed in a prefix; returns the program and the environment to run it in."""
        env = dict(os.environ, GRC_BLOCKS_PATH=os.path.join(ROOT, "grc"))
        self.run_ok([shutil.which("grcc") or "grcc", "-o", self.tmp,
                     os.path.join(ROOT, "examples", name + ".grc")], 120, env=env)
        project = os.path.join(self.tmp, name)
        self.assertTrue(os.path.exists(os.path.join(project, "CMakeLists.txt")))

        prefix = os.path.join(self.tmp, "prefix")
        self.run_ok(["cmake", "--install", self.build, "--prefix", prefix], 300)
        self.run_ok(["cmake", "-S", project, "-B", os.path.join(project, "build"),
                     "-DCMAKE_BUILD_TYPE=Release", f"-DCMAKE_PREFIX_PATH={prefix}"], 300)
        self.run_ok(["cmake", "--build", os.path.join(project, "build"), "-j2"], 600)

        # libgnuradio-gpufft finds libgpufft through the library path, as in any
        # prefix the loader does not search.
        libdirs = sorted({os.path.dirname(os.path.join(d, f)) for d, _, fs in os.walk(prefix)
                          for f in fs if f.startswith("libgpufft.so")})
        run_env = dict(os.environ, LD_LIBRARY_PATH=":".join(libdirs + [os.environ.get("LD_LIBRARY_PATH", "")]))
        return os.path.join(project, "build", name), run_env

    def test_generate_compile_run(self):
        program, run_env = self.compile_example("spectrum_cpp")
        self.run_ok([program], 120, cwd=self.tmp, env=run_env)

        fft_size, samp_rate = 1024, 2.4e6
        spectra = np.fromfile(os.path.join(self.tmp, "spectra.f32"), np.float32)
        self.assertEqual(len(spectra) % fft_size, 0)
        # One second at 10 spectra a second; the last batch may stay in the engine.
        self.assertGreaterEqual(len(spectra) // fft_size, 5)
        mean = spectra.reshape(-1, fft_size).mean(axis=0)
        # Shifted: the demo's strongest tone, -600 kHz, is bin N/2 - 600e3 / (fs / N).
        self.assertEqual(int(np.argmax(mean)), fft_size // 2 - round(600e3 / (samp_rate / fft_size)))

    def test_display_cpp(self):
        program, run_env = self.compile_example("display_cpp")
        run_env.update(QT_QPA_PLATFORM="offscreen", XDG_RUNTIME_DIR=self.tmp)
        p = subprocess.Popen([program], cwd=self.tmp, env=run_env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
        try:
            p.wait(timeout=4)
            self.fail(f"display_cpp exited early with status {p.returncode}:\n{p.communicate()[0]}")
        except subprocess.TimeoutExpired:
            p.terminate()
            p.communicate(timeout=10)


if __name__ == "__main__":
    unittest.main()
