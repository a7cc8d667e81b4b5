#!/usr/bin/env python3
# -*- coding: utf-8 -*-

#
# SPDX-License-Identifier: GPL-3.0
#
# GNU Radio Python Flow Graph
# Title: gr-gpufft: FMCW radar range-Doppler map
# Author: gr-gpufft
# Description: A simulated 24 GHz FMCW radar (three targets at known range and velocity, in noise; targets = (range m, velocity m/s towards the radar, amplitude)): chirps of fft_size samples, num_chirps to a map, gpufft.range_doppler_c, a QT GUI Time Raster Sink showing the map, and the maps (dB, fft_size x num_chirps floats each) to a file
# GNU Radio version: 3.10.5.1

from packaging.version import Version as StrictVersion

if __name__ == '__main__':
    import ctypes
    import sys
    if sys.platform.startswith('linux'):
        try:
            x11 = ctypes.cdll.LoadLibrary('libX11.so')
            x11.XInitThreads()
        except:
            print("Warning: failed to XInitThreads()")

from PyQt5 import Qt
from gnuradio import qtgui
import sip
from gnuradio import analog
from gnuradio import blocks
from gnuradio import gpufft
from gnuradio.fft import window
from gnuradio import gr
from gnuradio.filter import firdes
import sys
import signal
from argparse import ArgumentParser
from gnuradio.eng_arg import eng_float, intx
from gnuradio import eng_notation



from gnuradio import qtgui

class radar_range_doppler(gr.top_block, Qt.QWidget):

    def __init__(self, out_file='/dev/null'):
        gr.top_block.__init__(self, "gr-gpufft: FMCW radar range-Doppler map", catch_exceptions=True)
        Qt.QWidget.__init__(self)
        self.setWindowTitle("gr-gpufft: FMCW radar range-Doppler map")
        qtgui.util.check_set_qss()
        try:
            self.setWindowIcon(Qt.QIcon.fromTheme('gnuradio-grc'))
        except:
            pass
        self.top_scroll_layout = Qt.QVBoxLayout()
        self.setLayout(self.top_scroll_layout)
        self.top_scroll = Qt.QScrollArea()
        self.top_scroll.setFrameStyle(Qt.QFrame.NoFrame)
        self.top_scroll_layout.addWidget(self.top_scroll)
        self.top_scroll.setWidgetResizable(True)
        self.top_widget = Qt.QWidget()
        self.top_scroll.setWidget(self.top_widget)
        self.top_layout = Qt.QVBoxLayout(self.top_widget)
        self.top_grid_layout = Qt.QGridLayout()
        self.top_layout.addLayout(self.top_grid_layout)

        self.settings = Qt.QSettings("GNU Radio", "radar_range_doppler")

        try:
            if StrictVersion(Qt.qVersion()) < StrictVersion("5.0.0"):
                self.restoreGeometry(self.settings.value("geometry").toByteArray())
            else:
                self.restoreGeometry(self.settings.value("geometry"))
        except:
            pass

        ##################################################
        # Parameters
        ##################################################
        self.out_file = out_file

        ##################################################
        # Variables
        ##################################################
        self.samp_rate = samp_rate = 2e6
        self.light_speed = light_speed = 3e8
        self.fft_size = fft_size = 256
        self.carrier = carrier = 24e9
        self.wavelength = wavelength = light_speed / carrier
        self.num_chirps = num_chirps = 64
        self.chirp_time = chirp_time = fft_size / samp_rate
        self.bandwidth = bandwidth = 150e6
        self.velocity_res = velocity_res = wavelength / (2 * num_chirps * chirp_time)
        self.targets = targets = [(40.0, 10.0, 1.0), (120.0, -15.0, 0.5), (200.0, 0.0, 0.25)]
        self.range_res = range_res = light_speed / (2 * bandwidth)
        self.display_every = display_every = max(1, int(samp_rate / (fft_size * num_chirps) / 2))

        ##################################################
        # Blocks
        ##################################################

        self.target_3 = analog.sig_source_c(samp_rate, analog.GR_COS_WAVE, (targets[2][0] / range_res / chirp_time + 2 * targets[2][1] / wavelength), targets[2][2], 0, 0)
        self.target_2 = analog.sig_source_c(samp_rate, analog.GR_COS_WAVE, (targets[1][0] / range_res / chirp_time + 2 * targets[1][1] / wavelength), targets[1][2], 0, 0)
        self.target_1 = analog.sig_source_c(samp_rate, analog.GR_COS_WAVE, (targets[0][0] / range_res / chirp_time + 2 * targets[0][1] / wavelength), targets[0][2], 0, 0)
        self.range_doppler = gpufft.range_doppler_c(fft_size, num_chirps, window.hann(fft_size), window.hann(num_chirps), True, True, backend='auto', nthreads=1, tune=False)
        self.qtgui_time_raster_sink_x_0 = qtgui.time_raster_sink_f(
            samp_rate,
            fft_size,
            num_chirps,
            [],
            [],
            "Range-Doppler map (dB)",
            1,
            None
        )

        self.qtgui_time_raster_sink_x_0.set_update_time(0)
        self.qtgui_time_raster_sink_x_0.set_intensity_range(20, 80)
        self.qtgui_time_raster_sink_x_0.enable_grid(False)
        self.qtgui_time_raster_sink_x_0.enable_axis_labels(True)
        self.qtgui_time_raster_sink_x_0.set_x_label("Velocity (m/s)")
        self.qtgui_time_raster_sink_x_0.set_x_range(-num_chirps / 2 * velocity_res, (num_chirps / 2 - 1) * velocity_res)
        self.qtgui_time_raster_sink_x_0.set_y_label("Range (m)")
        self.qtgui_time_raster_sink_x_0.set_y_range((fft_size - 1) * range_res, 0.0)

        labels = ['', '', '', '', '',
            '', '', '', '', '']
        colors = [0, 0, 0, 0, 0,
            0, 0, 0, 0, 0]
        alphas = [1.0, 1.0, 1.0, 1.0, 1.0,
            1.0, 1.0, 1.0, 1.0, 1.0]

        for i in range(1):
            if len(labels[i]) == 0:
                self.qtgui_time_raster_sink_x_0.set_line_label(i, "Data {0}".format(i))
            else:
                self.qtgui_time_raster_sink_x_0.set_line_label(i, labels[i])
            self.qtgui_time_raster_sink_x_0.set_color_map(i, colors[i])
            self.qtgui_time_raster_sink_x_0.set_line_alpha(i, alphas[i])

        self._qtgui_time_raster_sink_x_0_win = sip.wrapinstance(self.qtgui_time_raster_sink_x_0.qwidget(), Qt.QWidget)
        self.top_layout.addWidget(self._qtgui_time_raster_sink_x_0_win)
        self.noise = analog.noise_source_c(analog.GR_GAUSSIAN, 0.5, 0)
        self.blocks_vector_to_stream_0 = blocks.vector_to_stream(gr.sizeof_float*1, (fft_size * num_chirps))
        self.blocks_throttle_0 = blocks.throttle(gr.sizeof_gr_complex*1, samp_rate,True)
        self.blocks_stream_to_vector_0 = blocks.stream_to_vector(gr.sizeof_gr_complex*1, fft_size)
        self.blocks_keep_one_in_n_0 = blocks.keep_one_in_n(gr.sizeof_float*(fft_size * num_chirps), display_every)
        self.blocks_file_sink_0 = blocks.file_sink(gr.sizeof_float*(fft_size * num_chirps), out_file, False)
        self.blocks_file_sink_0.set_unbuffered(False)
        self.blocks_add_xx_0 = blocks.add_vcc(1)


        ##################################################
        # Connections
        ##################################################
        self.connect((self.blocks_add_xx_0, 0), (self.blocks_throttle_0, 0))
        self.connect((self.blocks_keep_one_in_n_0, 0), (self.blocks_vector_to_stream_0, 0))
        self.connect((self.blocks_stream_to_vector_0, 0), (self.range_doppler, 0))
        self.connect((self.blocks_throttle_0, 0), (self.blocks_stream_to_vector_0, 0))
        self.connect((self.blocks_vector_to_stream_0, 0), (self.qtgui_time_raster_sink_x_0, 0))
        self.connect((self.noise, 0), (self.blocks_add_xx_0, 3))
        self.connect((self.range_doppler, 0), (self.blocks_file_sink_0, 0))
        self.connect((self.range_doppler, 0), (self.blocks_keep_one_in_n_0, 0))
        self.connect((self.target_1, 0), (self.blocks_add_xx_0, 0))
        self.connect((self.target_2, 0), (self.blocks_add_xx_0, 1))
        self.connect((self.target_3, 0), (self.blocks_add_xx_0, 2))


    def closeEvent(self, event):
        self.settings = Qt.QSettings("GNU Radio", "radar_range_doppler")
        self.settings.setValue("geometry", self.saveGeometry())
        self.stop()
        self.wait()

        event.accept()

    def get_out_file(self):
        return self.out_file

    def set_out_file(self, out_file):
        self.out_file = out_file
        self.blocks_file_sink_0.open(self.out_file)

    def get_samp_rate(self):
        return self.samp_rate

    def set_samp_rate(self, samp_rate):
        self.samp_rate = samp_rate
        self.set_chirp_time(self.fft_size / self.samp_rate)
        self.set_display_every(max(1, int(self.samp_rate / (self.fft_size * self.num_chirps) / 2)))
        self.target_1.set_sampling_freq(self.samp_rate)
        self.target_2.set_sampling_freq(self.samp_rate)
        self.target_3.set_sampling_freq(self.samp_rate)
        self.blocks_throttle_0.set_sample_rate(self.samp_rate)

    def get_light_speed(self):
        return self.light_speed

    def set_light_speed(self, light_speed):
        self.light_speed = light_speed
        self.set_range_res(self.light_speed / (2 * self.bandwidth))
        self.set_wavelength(self.light_speed / self.carrier)

    def get_fft_size(self):
        return self.fft_size

    def set_fft_size(self, fft_size):
        self.fft_size = fft_size
        self.set_chirp_time(self.fft_size / self.samp_rate)
        self.set_display_every(max(1, int(self.samp_rate / (self.fft_size * self.num_chirps) / 2)))
        self.qtgui_time_raster_sink_x_0.set_num_rows(self.fft_size)

    def get_carrier(self):
        return self.carrier

    def set_carrier(self, carrier):
        self.carrier = carrier
        self.set_wavelength(self.light_speed / self.carrier)

    def get_wavelength(self):
        return self.wavelength

    def set_wavelength(self, wavelength):
        self.wavelength = wavelength
        self.set_velocity_res(self.wavelength / (2 * self.num_chirps * self.chirp_time))
        self.target_1.set_frequency((self.targets[0][0] / self.range_res / self.chirp_time + 2 * self.targets[0][1] / self.wavelength))
        self.target_2.set_frequency((self.targets[1][0] / self.range_res / self.chirp_time + 2 * self.targets[1][1] / self.wavelength))
        self.target_3.set_frequency((self.targets[2][0] / self.range_res / self.chirp_time + 2 * self.targets[2][1] / self.wavelength))

    def get_num_chirps(self):
        return self.num_chirps

    def set_num_chirps(self, num_chirps):
        self.num_chirps = num_chirps
        self.set_velocity_res(self.wavelength / (2 * self.num_chirps * self.chirp_time))
        self.set_display_every(max(1, int(self.samp_rate / (self.fft_size * self.num_chirps) / 2)))
        self.qtgui_time_raster_sink_x_0.set_num_cols(self.num_chirps)

    def get_chirp_time(self):
        return self.chirp_time

    def set_chirp_time(self, chirp_time):
        self.chirp_time = chirp_time
        self.set_velocity_res(self.wavelength / (2 * self.num_chirps * self.chirp_time))
        self.target_1.set_frequency((self.targets[0][0] / self.range_res / self.chirp_time + 2 * self.targets[0][1] / self.wavelength))
        self.target_2.set_frequency((self.targets[1][0] / self.range_res / self.chirp_time + 2 * self.targets[1][1] / self.wavelength))
        self.target_3.set_frequency((self.targets[2][0] / self.range_res / self.chirp_time + 2 * self.targets[2][1] / self.wavelength))

    def get_bandwidth(self):
        return self.bandwidth

    def set_bandwidth(self, bandwidth):
        self.bandwidth = bandwidth
        self.set_range_res(self.light_speed / (2 * self.bandwidth))

    def get_velocity_res(self):
        return self.velocity_res

    def set_velocity_res(self, velocity_res):
        self.velocity_res = velocity_res

    def get_targets(self):
        return self.targets

    def set_targets(self, targets):
        self.targets = targets
        self.target_1.set_frequency((self.targets[0][0] / self.range_res / self.chirp_time + 2 * self.targets[0][1] / self.wavelength))
        self.target_1.set_amplitude(self.targets[0][2])
        self.target_2.set_frequency((self.targets[1][0] / self.range_res / self.chirp_time + 2 * self.targets[1][1] / self.wavelength))
        self.target_2.set_amplitude(self.targets[1][2])
        self.target_3.set_frequency((self.targets[2][0] / self.range_res / self.chirp_time + 2 * self.targets[2][1] / self.wavelength))
        self.target_3.set_amplitude(self.targets[2][2])

    def get_range_res(self):
        return self.range_res

    def set_range_res(self, range_res):
        self.range_res = range_res
        self.target_1.set_frequency((self.targets[0][0] / self.range_res / self.chirp_time + 2 * self.targets[0][1] / self.wavelength))
        self.target_2.set_frequency((self.targets[1][0] / self.range_res / self.chirp_time + 2 * self.targets[1][1] / self.wavelength))
        self.target_3.set_frequency((self.targets[2][0] / self.range_res / self.chirp_time + 2 * self.targets[2][1] / self.wavelength))

    def get_display_every(self):
        return self.display_every

    def set_display_every(self, display_every):
        self.display_every = display_every
        self.blocks_keep_one_in_n_0.set_n(self.display_every)



def argument_parser():
    description = 'A simulated 24 GHz FMCW radar (three targets at known range and velocity, in noise; targets = (range m, velocity m/s towards the radar, amplitude)): chirps of fft_size samples, num_chirps to a map, gpufft.range_doppler_c, a QT GUI Time Raster Sink showing the map, and the maps (dB, fft_size x num_chirps floats each) to a file'
    parser = ArgumentParser(description=description)
    parser.add_argument(
        "-o", "--out-file", dest="out_file", type=str, default='/dev/null',
        help="Set Maps file (dB, fft_size x num_chirps floats each) [default=%(default)r]")
    return parser


def main(top_block_cls=radar_range_doppler, options=None):
    if options is None:
        options = argument_parser().parse_args()

    if StrictVersion("4.5.0") <= StrictVersion(Qt.qVersion()) < StrictVersion("5.0.0"):
        style = gr.prefs().get_string('qtgui', 'style', 'raster')
        Qt.QApplication.setGraphicsSystem(style)
    qapp = Qt.QApplication(sys.argv)

    tb = top_block_cls(out_file=options.out_file)

    tb.start()

    tb.show()

    def sig_handler(sig=None, frame=None):
        tb.stop()
        tb.wait()

        Qt.QApplication.quit()

    signal.signal(signal.SIGINT, sig_handler)
    signal.signal(signal.SIGTERM, sig_handler)

    timer = Qt.QTimer()
    timer.start(500)
    timer.timeout.connect(lambda: None)

    qapp.exec_()

if __name__ == '__main__':
    main()
