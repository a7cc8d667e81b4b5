#!/usr/bin/env python3
# -*- coding: utf-8 -*-

#
# SPDX-License-Identifier: GPL-3.0
#
# GNU Radio Python Flow Graph
# Title: gr-gpufft: waterfall
# Author: gr-gpufft
# Description: IQ (a SoapySDR radio, a file replayed, or the demo signal) into gpufft.spectrum_c, shown as a waterfall by a QT GUI Time Raster Sink
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
from gnuradio import blocks
from gnuradio import gpufft
from gnuradio import gr
from gnuradio.filter import firdes
from gnuradio.fft import window
import sys
import signal
from argparse import ArgumentParser
from gnuradio.eng_arg import eng_float, intx
from gnuradio import eng_notation


def snipfcn_radio_axis(self):
    # The raster sink follows no rx_freq tag, nor has GRC a callback for its x axis: the band,
    # and spectrum_c's rate, at what the radio read back.
    if self.device:
        self.set_samp_rate(self.iq_source.samp_rate())
        self.set_center_freq(self.iq_source.center_freq())
        self.qtgui_time_raster_sink_x_0.set_x_range(*self.band_mhz)

def snipfcn_checks_and_size(self):
    # The source's settings (gpufft.iq_settings), refused here before any block is made:
    # raw samples or a radio without a rate and centre, or options contradicting a SigMF recording's.
    error = gpufft.iq_settings(self.iq_file, self.device, self.samp_rate, self.center_freq, options=True).error
    if error:
        sys.stderr.write('waterfall.py: ' + error + '\n')
        sys.exit(2)
    # A Qt GUI flowgraph restores its window's last geometry; the first time, a size the plot reads at.
    if not self.settings.contains('geometry'):
        self.resize(1100, 860)


def snippets_main_after_init(tb):
    snipfcn_radio_axis(tb)

def snippets_init_before_blocks(tb):
    snipfcn_checks_and_size(tb)

from gnuradio import qtgui

class waterfall(gr.top_block, Qt.QWidget):

    def __init__(self, samp_rate=0, iq_file='', device='', center_freq=0):
        gr.top_block.__init__(self, "gr-gpufft: waterfall", catch_exceptions=True)
        Qt.QWidget.__init__(self)
        self.setWindowTitle("gr-gpufft: waterfall")
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

        self.settings = Qt.QSettings("GNU Radio", "waterfall")

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
        self.samp_rate = samp_rate
        self.iq_file = iq_file
        self.device = device
        self.center_freq = center_freq

        ##################################################
        # Variables
        ##################################################
        self.iq_rate = iq_rate = gpufft.iq_settings(iq_file, device, samp_rate, center_freq).samp_rate
        self.iq_centre = iq_centre = gpufft.iq_settings(iq_file, device, samp_rate, center_freq).center_freq
        self.frame_rate = frame_rate = 30
        self.fft_size = fft_size = 1024
        self.band_mhz = band_mhz = ((iq_centre - iq_rate / 2) / 1e6, (iq_centre + iq_rate / 2) / 1e6)

        ##################################################
        # Blocks
        ##################################################
        snippets_init_before_blocks(self)
        self.qtgui_time_raster_sink_x_0 = qtgui.time_raster_sink_f(
            frame_rate,
            200,
            fft_size,
            [],
            [],
            "Waterfall",
            1,
            None
        )

        self.qtgui_time_raster_sink_x_0.set_update_time(0.05)
        self.qtgui_time_raster_sink_x_0.set_intensity_range((-120), 0)
        self.qtgui_time_raster_sink_x_0.enable_grid(False)
        self.qtgui_time_raster_sink_x_0.enable_axis_labels(True)
        self.qtgui_time_raster_sink_x_0.set_x_label("Frequency (MHz)")
        self.qtgui_time_raster_sink_x_0.set_x_range(band_mhz[0], band_mhz[1])
        self.qtgui_time_raster_sink_x_0.set_y_label("Time (frame)")
        self.qtgui_time_raster_sink_x_0.set_y_range(0.0, 0.0)

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
        self.iq_source = gpufft.iq_source(iq_file, device, samp_rate, center_freq)
        self.gpufft_spectrum_c_0 = gpufft.spectrum_c(fft_size, iq_rate, frame_rate=frame_rate, overlap=0, window='blackmanharris', average='peak', alpha=1.0, frames_per_output=0, ref_scale=2.0, shift=True, format='cf32', backend='auto', window_param=(-1), scale='dbfs', tune=False)
        self.blocks_vector_to_stream_0 = blocks.vector_to_stream(gr.sizeof_float*1, fft_size)


        ##################################################
        # Connections
        ##################################################
        self.connect((self.blocks_vector_to_stream_0, 0), (self.qtgui_time_raster_sink_x_0, 0))
        self.connect((self.gpufft_spectrum_c_0, 0), (self.blocks_vector_to_stream_0, 0))
        self.connect((self.iq_source, 0), (self.gpufft_spectrum_c_0, 0))


    def closeEvent(self, event):
        self.settings = Qt.QSettings("GNU Radio", "waterfall")
        self.settings.setValue("geometry", self.saveGeometry())
        self.stop()
        self.wait()

        event.accept()

    def get_samp_rate(self):
        return self.samp_rate

    def set_samp_rate(self, samp_rate):
        self.samp_rate = samp_rate
        self.set_iq_rate(gpufft.iq_settings(self.iq_file, self.device, self.samp_rate, self.center_freq).samp_rate)
        self.set_iq_centre(gpufft.iq_settings(self.iq_file, self.device, self.samp_rate, self.center_freq).center_freq)

    def get_iq_file(self):
        return self.iq_file

    def set_iq_file(self, iq_file):
        self.iq_file = iq_file
        self.set_iq_rate(gpufft.iq_settings(self.iq_file, self.device, self.samp_rate, self.center_freq).samp_rate)
        self.set_iq_centre(gpufft.iq_settings(self.iq_file, self.device, self.samp_rate, self.center_freq).center_freq)

    def get_device(self):
        return self.device

    def set_device(self, device):
        self.device = device
        self.set_iq_rate(gpufft.iq_settings(self.iq_file, self.device, self.samp_rate, self.center_freq).samp_rate)
        self.set_iq_centre(gpufft.iq_settings(self.iq_file, self.device, self.samp_rate, self.center_freq).center_freq)

    def get_center_freq(self):
        return self.center_freq

    def set_center_freq(self, center_freq):
        self.center_freq = center_freq
        self.set_iq_rate(gpufft.iq_settings(self.iq_file, self.device, self.samp_rate, self.center_freq).samp_rate)
        self.set_iq_centre(gpufft.iq_settings(self.iq_file, self.device, self.samp_rate, self.center_freq).center_freq)

    def get_iq_rate(self):
        return self.iq_rate

    def set_iq_rate(self, iq_rate):
        self.iq_rate = iq_rate
        self.set_band_mhz(((self.iq_centre - self.iq_rate / 2) / 1e6, (self.iq_centre + self.iq_rate / 2) / 1e6))
        self.gpufft_spectrum_c_0.set_sample_rate(self.iq_rate)

    def get_iq_centre(self):
        return self.iq_centre

    def set_iq_centre(self, iq_centre):
        self.iq_centre = iq_centre
        self.set_band_mhz(((self.iq_centre - self.iq_rate / 2) / 1e6, (self.iq_centre + self.iq_rate / 2) / 1e6))

    def get_frame_rate(self):
        return self.frame_rate

    def set_frame_rate(self, frame_rate):
        self.frame_rate = frame_rate
        self.gpufft_spectrum_c_0.set_frame_rate(self.frame_rate)

    def get_fft_size(self):
        return self.fft_size

    def set_fft_size(self, fft_size):
        self.fft_size = fft_size
        self.qtgui_time_raster_sink_x_0.set_num_cols(self.fft_size)

    def get_band_mhz(self):
        return self.band_mhz

    def set_band_mhz(self, band_mhz):
        self.band_mhz = band_mhz



def argument_parser():
    description = 'IQ (a SoapySDR radio, a file replayed, or the demo signal) into gpufft.spectrum_c, shown as a waterfall by a QT GUI Time Raster Sink'
    parser = ArgumentParser(description=description)
    parser.add_argument(
        "--samp-rate", dest="samp_rate", type=eng_float, default=eng_notation.num_to_str(float(0)),
        help="Set Sample rate of the IQ, S/s (0: a SigMF recording's, or the demo's 2.4e6; raw samples and a radio need it) [default=%(default)r]")
    parser.add_argument(
        "--iq-file", dest="iq_file", type=str, default='',
        help="Set IQ file (empty: the demo signal) [default=%(default)r]")
    parser.add_argument(
        "--device", dest="device", type=str, default='',
        help="Set SoapySDR device arguments, e.g. driver=rtlsdr (a live radio: the axis from what it reads back) [default=%(default)r]")
    parser.add_argument(
        "--center-freq", dest="center_freq", type=eng_float, default=eng_notation.num_to_str(float(0)),
        help="Set Centre frequency of the IQ, Hz (0: a SigMF recording's, or the demo's 100e6; raw samples and a radio need it) [default=%(default)r]")
    return parser


def main(top_block_cls=waterfall, options=None):
    if options is None:
        options = argument_parser().parse_args()

    if StrictVersion("4.5.0") <= StrictVersion(Qt.qVersion()) < StrictVersion("5.0.0"):
        style = gr.prefs().get_string('qtgui', 'style', 'raster')
        Qt.QApplication.setGraphicsSystem(style)
    qapp = Qt.QApplication(sys.argv)

    tb = top_block_cls(samp_rate=options.samp_rate, iq_file=options.iq_file, device=options.device, center_freq=options.center_freq)
    snippets_main_after_init(tb)
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
