// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft simd backend: moving a block of matrix columns to and from
 * contiguous storage, for the column passes of multi-dimensional transforms
 * (shaped.cc). Included by isa_kernels.cc inside each instruction set's
 * namespace, after the ISA header: lanes x lanes tiles are transposed in
 * registers, as four_step.h's output transpose does, so every load and
 * store is a whole vector. */

// Columns [0, w) of a length x inner row-major matrix <-> w columns of
// `length` points, `pitch` apart in block.
void move_columns(complex* matrix, std::size_t inner, std::size_t length, std::size_t w,
                  complex* block, std::size_t pitch, bool to_block)
{
    std::size_t j = 0;
    if (w % lanes == 0)
        for (; j + lanes <= length; j += lanes)
            for (std::size_t c = 0; c < w; c += lanes) {
                V tile[lanes];
                if (to_block) {
                    for (int i = 0; i < lanes; ++i)
                        tile[i] = loadu(matrix + (j + i) * inner + c);
                    transpose(tile);
                    for (int i = 0; i < lanes; ++i)
                        storeu(block + (c + i) * pitch + j, tile[i]);
                } else {
                    for (int i = 0; i < lanes; ++i)
                        tile[i] = loadu(block + (c + i) * pitch + j);
                    transpose(tile);
                    for (int i = 0; i < lanes; ++i)
                        storeu(matrix + (j + i) * inner + c, tile[i]);
                }
            }
    // Rows left over (length not a multiple of lanes), or a narrow last block.
    for (; j < length; ++j)
        for (std::size_t c = 0; c < w; ++c) {
            if (to_block)
                block[c * pitch + j] = matrix[j * inner + c];
            else
                matrix[j * inner + c] = block[c * pitch + j];
        }
}
