/* gr-gpufft qpu backend: the built-in FFT shader table. */
#include "shaders.h"

namespace gpufft::qpu {

// Empty until the FFT shaders (qpu/shaders/*.qasm, assembled at build time)
// land; their author adds one fft_shader per size here.
const shader_table& fft_shaders()
{
    static const shader_table table;
    return table;
}

} // namespace gpufft::qpu
