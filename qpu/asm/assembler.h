// SPDX-License-Identifier: GPL-3.0-or-later
/* Assembler for VideoCore IV QPU code in our own syntax (qpu/README.md
 * describes it); the one-line syntax and the disassembler are qpu/isa's. */
#ifndef QPU_ASM_ASSEMBLER_H
#define QPU_ASM_ASSEMBLER_H

#include "../isa/text.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace qpu::assembler {

/*! A bad program: the message starts with "file:line: ". */
using error = isa::syntax_error;

struct program {
    std::vector<uint64_t> code;
    /*! Labels (byte offsets from the program start) and .set constants. */
    std::map<std::string, int64_t> symbols;
};

struct options {
    std::vector<std::string> include_dirs; //!< searched after the including file's folder
    std::map<std::string, int64_t> defines; //!< symbols set before the first line
};

/*! Assembles `source`; `name` is used in error messages and to resolve
 * relative .include paths. Throws error. */
program assemble(const std::string& source, const std::string& name = "<input>",
                 const options& opts = {});
program assemble_file(const std::string& path, const options& opts = {});


} // namespace qpu::assembler

#endif
