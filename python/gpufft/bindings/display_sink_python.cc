// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft Python bindings: gpufft.display_sink_c and gpufft.display_sink_f (hand-written). */
#include "bindings.h"
#include <gnuradio/sync_block.h>
#include <gpufft/gnuradio/display_sink_c.h>
#include <gpufft/gnuradio/display_sink_f.h>
#include <pybind11/stl.h>
#include <cstdint>

namespace py = pybind11;

namespace {

// The widget's address, for sip.wrapinstance(block.qwidget(), Qt.QWidget), as gr-qtgui's qwidget().
template <class Block>
uintptr_t widget_address(Block& b)
{
    return reinterpret_cast<uintptr_t>(b.qwidget());
}

// The widget as a PyQt5 object.
template <class Block>
py::object py_widget(Block& b)
{
    const auto widgets = py::module::import("PyQt5.QtWidgets");
    return py::module::import("sip").attr("wrapinstance")(widget_address(b), widgets.attr("QWidget"));
}

// The constructor's keywords the C++ make leaves to setters (its parent comes last, as the QT GUI sinks').
template <class Block>
void apply_lines(Block& b, const std::string& average, double average_frames, bool min_hold,
                 const std::string& density)
{
    b.set_average(average, average_frames);
    b.set_min_hold(min_hold);
    b.set_density(density);
}

// The setters and getters both blocks have.
template <class Block, class Class>
void bind_display_settings(Class& c)
{
    c.def("qwidget", &widget_address<Block>, "The widget's address, for sip.wrapinstance (as qtgui sinks).")
        .def("pyqwidget", &py_widget<Block>, "The widget as a PyQt5 QWidget.")
        .def("set_center_freq", &Block::set_center_freq, py::arg("center_freq"))
        .def("set_samp_rate", &Block::set_samp_rate, py::arg("samp_rate"))
        .def("set_ref_level", &Block::set_ref_level, py::arg("ref_level"))
        .def("set_db_range", &Block::set_db_range, py::arg("db_range"))
        .def("set_decay", &Block::set_decay, py::arg("decay"))
        .def("set_frame_rate", &Block::set_frame_rate, py::arg("frame_rate"))
        .def("set_colormap", &Block::set_colormap, py::arg("colormap"))
        .def("set_average", &Block::set_average, py::arg("average"), py::arg("average_frames"),
             "The average line: 'off', 'exponential' (time constant average_frames frames) or\n"
             "'linear' (the mean of the newest average_frames frames, a whole number up to 512).")
        .def("set_min_hold", &Block::set_min_hold, py::arg("on"), "The min-hold line on or off.")
        .def("set_density", &Block::set_density, py::arg("density"),
             "The persistence's colours: 'log' or 'linear' relative to a typical column's densest cell,\n"
             "or 'frames' (a log scale of the share of frames that hit a cell).")
        .def("samp_rate", &Block::samp_rate)
        .def("center_freq", &Block::center_freq)
        .def("ref_level", &Block::ref_level)
        .def("db_range", &Block::db_range)
        .def("decay", &Block::decay)
        .def("frame_rate", &Block::frame_rate)
        .def("colormap", &Block::colormap)
        .def("average", &Block::average)
        .def("average_frames", &Block::average_frames)
        .def("min_hold", &Block::min_hold)
        .def("density", &Block::density)
        .def("frames_displayed", &Block::frames_displayed,
             "Frames (spectra) that went into the display since its engine was built.")
        .def("redraws", &Block::redraws, "Redraws with new data since construction.");
}

} // namespace

void bind_display_sinks(py::module& m)
{
    using gr::gpufft::display_sink_c;
    using gr::gpufft::display_sink_f;

    py::class_<display_sink_c, gr::sync_block, gr::block, gr::basic_block, std::shared_ptr<display_sink_c>> c(
        m,
        "display_sink_c",
        "A gr-fosphor-like live display of an I/Q stream: spectrum lines (average,\n"
        "max-hold) over a persistence histogram, waterfall below, frequency axis in\n"
        "Hz. Input format cf32 (complex), cs16, cs8 or cu8 (interleaved I/Q); every\n"
        "frame of fft_size samples goes into the display. Embed with\n"
        "sip.wrapinstance(block.qwidget(), Qt.QWidget) or block.pyqwidget(). A click\n"
        "sends ('freq' . hz) on the message port 'freq'. Raises gpufft.error naming a\n"
        "bad parameter.");
    c.def(py::init([](int fft_size, double samp_rate, double center_freq, const std::string& backend,
                      const std::string& format, const std::string& window, double ref_level,
                      double db_range, double decay, double frame_rate, const std::string& colormap,
                      int width, int height, const std::string& average, double average_frames, bool min_hold,
                      const std::string& density) {
              auto b = display_sink_c::make(fft_size, samp_rate, center_freq, backend, format, window,
                                            ref_level, db_range, decay, frame_rate, colormap, width, height);
              apply_lines(*b, average, average_frames, min_hold, density);
              return b;
          }),
          py::arg("fft_size"),
          py::arg("samp_rate"),
          py::arg("center_freq") = 0.0,
          py::arg("backend") = "auto",
          py::arg("format") = "cf32",
          py::arg("window") = "blackmanharris",
          py::arg("ref_level") = 0.0,
          py::arg("db_range") = 120.0,
          py::arg("decay") = 0.98,
          py::arg("frame_rate") = 30.0,
          py::arg("colormap") = "fosphor",
          py::arg("width") = 1024,
          py::arg("height") = 256,
          py::arg("average") = "exponential",
          py::arg("average_frames") = 10.0,
          py::arg("min_hold") = false,
          py::arg("density") = "log");
    bind_display_settings<display_sink_c>(c);
    c.def("set_fft_size", &display_sink_c::set_fft_size, py::arg("fft_size"))
        .def("set_window", &display_sink_c::set_window, py::arg("window"))
        .def("set_backend", &display_sink_c::set_backend, py::arg("backend"))
        .def("fft_size", &display_sink_c::fft_size)
        .def("window", &display_sink_c::window)
        .def("format", &display_sink_c::format)
        .def("backend", &display_sink_c::backend, "The FFT's backend and variant in use.");

    py::class_<display_sink_f, gr::sync_block, gr::block, gr::basic_block, std::shared_ptr<display_sink_f>> f(
        m,
        "display_sink_f",
        "The display of gpufft.display_sink_c for precomputed dB spectra: vectors of\n"
        "vlen floats in display order (fftshifted, as spectrum_c with shift=True),\n"
        "from spectrum_c, a file or ZeroMQ. The axis spans samp_rate around\n"
        "center_freq. Raises gpufft.error naming a bad parameter.");
    f.def(py::init([](int vlen, double samp_rate, double center_freq, double ref_level, double db_range,
                      double decay, double frame_rate, const std::string& colormap, int width, int height,
                      const std::string& average, double average_frames, bool min_hold,
                      const std::string& density) {
              auto b = display_sink_f::make(vlen, samp_rate, center_freq, ref_level, db_range, decay,
                                            frame_rate, colormap, width, height);
              apply_lines(*b, average, average_frames, min_hold, density);
              return b;
          }),
          py::arg("vlen"),
          py::arg("samp_rate"),
          py::arg("center_freq") = 0.0,
          py::arg("ref_level") = 0.0,
          py::arg("db_range") = 120.0,
          py::arg("decay") = 0.98,
          py::arg("frame_rate") = 30.0,
          py::arg("colormap") = "fosphor",
          py::arg("width") = 1024,
          py::arg("height") = 256,
          py::arg("average") = "exponential",
          py::arg("average_frames") = 10.0,
          py::arg("min_hold") = false,
          py::arg("density") = "log");
    bind_display_settings<display_sink_f>(f);
    f.def("vlen", &display_sink_f::vlen);
}
