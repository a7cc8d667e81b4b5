#!/usr/bin/env python3
# -*- coding: utf-8 -*-

#
# SPDX-License-Identifier: GPL-3.0
#
# GNU Radio Python Flow Graph
# Title: gr-gpufft: headless spectrum recorder
# Author: gr-gpufft
# Description: IQ (a file replayed, or the demo signal) into gpufft.spectrum_c (linear averaging, 10 spectra a second), written to a file of float32 vectors and published on a ZeroMQ PUB socket
# GNU Radio version: 3.10.5.1

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
from gnuradio import zeromq


def snipfcn_checks(self):
    # The source's settings (gpufft.iq_settings), refused here before any block is made:
    # raw samples without a rate and centre, or options contradicting a SigMF recording's.
    error = gpufft.iq_settings(self.iq_file, '', self.samp_rate, self.center_freq, options=True).error
    if error:
        sys.stderr.write('headless_recorder.py: ' + error + '\n')
        sys.exit(2)

def snipfcn_grid(self):
    # The file and the messages carry bare float32 vectors: the grid they lie on, said once.
    print('headless_recorder.py: %d-bin spectra in dBFS, 10 a second, bin 0 at %.10g Hz, bins %.10g Hz apart (%.10g S/s around %.10g Hz), to %s and %s' % (self.fft_size, self.iq_centre - self.iq_rate / 2,
        self.iq_rate / self.fft_size, self.iq_rate, self.iq_centre, self.out_file, self.zmq_address), flush=True)


def snippets_main_after_init(tb):
    snipfcn_grid(tb)

def snippets_init_before_blocks(tb):
    snipfcn_checks(tb)


class headless_recorder(gr.top_block):

    def __init__(self, samp_rate=0, iq_file='', center_freq=0, out_file='/tmp/gpufft_spectra.f32', zmq_address='tcp://127.0.0.1:5557'):
        gr.top_block.__init__(self, "gr-gpufft: headless spectrum recorder", catch_exceptions=True)

        ##################################################
        # Parameters
        ##################################################
        self.samp_rate = samp_rate
        self.iq_file = iq_file
        self.center_freq = center_freq
        self.out_file = out_file
        self.zmq_address = zmq_address

        ##################################################
        # Variables
        ##################################################
        self.iq_rate = iq_rate = gpufft.iq_settings(iq_file, '', samp_rate, center_freq).samp_rate
        self.iq_centre = iq_centre = gpufft.iq_settings(iq_file, '', samp_rate, center_freq).center_freq
        self.fft_size = fft_size = 4096

        ##################################################
        # Blocks
        ##################################################
        snippets_init_before_blocks(self)
        self.zeromq_pub_sink_0 = zeromq.pub_sink(gr.sizeof_float, fft_size, zmq_address, 100, False, (-1), '', True)
        self.iq_source = gpufft.iq_source(iq_file, '', samp_rate, center_freq)
        self.gpufft_spectrum_c_0 = gpufft.spectrum_c(fft_size, iq_rate, frame_rate=10, overlap=0, window='blackmanharris', average='linear', alpha=1.0, frames_per_output=0, ref_scale=2.0, shift=True, format='cf32', backend='auto', window_param=(-1), scale='dbfs', tune=False)
        self.blocks_file_sink_0 = blocks.file_sink(gr.sizeof_float*fft_size, out_file, False)
        self.blocks_file_sink_0.set_unbuffered(False)


        ##################################################
        # Connections
        ##################################################
        self.connect((self.gpufft_spectrum_c_0, 0), (self.blocks_file_sink_0, 0))
        self.connect((self.gpufft_spectrum_c_0, 0), (self.zeromq_pub_sink_0, 0))
        self.connect((self.iq_source, 0), (self.gpufft_spectrum_c_0, 0))


    def get_samp_rate(self):
        return self.samp_rate

    def set_samp_rate(self, samp_rate):
        self.samp_rate = samp_rate
        self.set_iq_rate(gpufft.iq_settings(self.iq_file, '', self.samp_rate, self.center_freq).samp_rate)
        self.set_iq_centre(gpufft.iq_settings(self.iq_file, '', self.samp_rate, self.center_freq).center_freq)

    def get_iq_file(self):
        return self.iq_file

    def set_iq_file(self, iq_file):
        self.iq_file = iq_file
        self.set_iq_rate(gpufft.iq_settings(self.iq_file, '', self.samp_rate, self.center_freq).samp_rate)
        self.set_iq_centre(gpufft.iq_settings(self.iq_file, '', self.samp_rate, self.center_freq).center_freq)

    def get_center_freq(self):
        return self.center_freq

    def set_center_freq(self, center_freq):
        self.center_freq = center_freq
        self.set_iq_rate(gpufft.iq_settings(self.iq_file, '', self.samp_rate, self.center_freq).samp_rate)
        self.set_iq_centre(gpufft.iq_settings(self.iq_file, '', self.samp_rate, self.center_freq).center_freq)

    def get_out_file(self):
        return self.out_file

    def set_out_file(self, out_file):
        self.out_file = out_file
        self.blocks_file_sink_0.open(self.out_file)

    def get_zmq_address(self):
        return self.zmq_address

    def set_zmq_address(self, zmq_address):
        self.zmq_address = zmq_address

    def get_iq_rate(self):
        return self.iq_rate

    def set_iq_rate(self, iq_rate):
        self.iq_rate = iq_rate
        self.gpufft_spectrum_c_0.set_sample_rate(self.iq_rate)

    def get_iq_centre(self):
        return self.iq_centre

    def set_iq_centre(self, iq_centre):
        self.iq_centre = iq_centre

    def get_fft_size(self):
        return self.fft_size

    def set_fft_size(self, fft_size):
        self.fft_size = fft_size



def argument_parser():
    description = 'IQ (a file replayed, or the demo signal) into gpufft.spectrum_c (linear averaging, 10 spectra a second), written to a file of float32 vectors and published on a ZeroMQ PUB socket'
    parser = ArgumentParser(description=description)
    parser.add_argument(
        "--samp-rate", dest="samp_rate", type=eng_float, default=eng_notation.num_to_str(float(0)),
        help="Set Sample rate of the IQ, S/s (0: a SigMF recording's, or the demo's 2.4e6; raw samples need it) [default=%(default)r]")
    parser.add_argument(
        "--iq-file", dest="iq_file", type=str, default='',
        help="Set IQ file (empty: the demo signal) [default=%(default)r]")
    parser.add_argument(
        "--center-freq", dest="center_freq", type=eng_float, default=eng_notation.num_to_str(float(0)),
        help="Set Centre frequency of the IQ, Hz (0: a SigMF recording's, or the demo's 100e6; raw samples need it) [default=%(default)r]")
    parser.add_argument(
        "-o", "--out-file", dest="out_file", type=str, default='/tmp/gpufft_spectra.f32',
        help="Set Output file [default=%(default)r]")
    parser.add_argument(
        "--zmq-address", dest="zmq_address", type=str, default='tcp://127.0.0.1:5557',
        help="Set ZeroMQ PUB address [default=%(default)r]")
    return parser


def main(top_block_cls=headless_recorder, options=None):
    if options is None:
        options = argument_parser().parse_args()
    tb = top_block_cls(samp_rate=options.samp_rate, iq_file=options.iq_file, center_freq=options.center_freq, out_file=options.out_file, zmq_address=options.zmq_address)
    snippets_main_after_init(tb)
    def sig_handler(sig=None, frame=None):
        tb.stop()
        tb.wait()

        sys.exit(0)

    signal.signal(signal.SIGINT, sig_handler)
    signal.signal(signal.SIGTERM, sig_handler)

    tb.start()

    tb.wait()


if __name__ == '__main__':
    main()
